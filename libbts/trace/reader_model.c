// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Building the model of an opened trace (reader.h) from checked chunks:
 * one record per process with its images, one per thread with its
 * batches, and the ids that find them.  Nothing here looks at unchecked
 * bytes: reader_chunks.c checked every chunk before it called in.
 */
#include <stdlib.h>

#include "trace/index.h"
#include "trace/reader.h"
#include "util/array.h"

int bts_reader_bad(size_t off, const char *what)
{
	return bts_fail(BTS_E_FORMAT, "offset %zu: %s", off, what);
}

int bts_reader_grow(void *arrp, size_t *cap, size_t n, size_t size)
{
	if (bts_array_grow(arrp, cap, size, n + 1))
		return bts_fail(BTS_E_NOMEM, "trace index");
	return 0;
}

static size_t id_hash(int32_t key, size_t cap)
{
	return ((uint32_t)key * 2654435761u) & (cap - 1);
}

static long id_get(const struct trace_ids *m, int32_t key)
{
	if (!m->cap || key <= 0)
		return -1;
	for (size_t i = id_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key)
			return m->slots[i].val;
		if (!m->slots[i].key)
			return -1;
	}
}

static void id_put_slot(struct trace_ids *m, int32_t key, uint32_t val)
{
	size_t i = id_hash(key, m->cap);

	while (m->slots[i].key)
		i = (i + 1) & (m->cap - 1);
	m->slots[i].key = key;
	m->slots[i].val = val;
}

static int id_put(struct trace_ids *m, int32_t key, uint32_t val)
{
	if (2 * (m->n + 1) > m->cap) {
		struct trace_ids old = *m;

		m->cap = old.cap ? old.cap * 2 : 16;
		m->slots = calloc(m->cap, sizeof(*m->slots));
		if (!m->slots) {
			*m = old;
			return bts_fail(BTS_E_NOMEM, "trace index");
		}
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i].key)
				id_put_slot(m, old.slots[i].key, old.slots[i].val);
		free(old.slots);
	}
	id_put_slot(m, key, val);
	m->n++;
	return 0;
}

struct trace_process *bts_reader_process(const struct bts_trace *t, pid_t pid)
{
	long i = id_get(&t->pids, pid);

	return i < 0 ? NULL : &t->procs[i];
}

long bts_reader_thread_index(const struct bts_trace *t, pid_t tid)
{
	return id_get(&t->tids, tid);
}

struct trace_thread *bts_reader_thread(const struct bts_trace *t, pid_t tid)
{
	long i = id_get(&t->tids, tid);

	return i < 0 ? NULL : &t->threads[i];
}

struct trace_thread *bts_reader_thread_of(const struct bts_trace *t, pid_t pid,
					  pid_t tid)
{
	struct trace_thread *th = bts_reader_thread(t, tid);

	return th && th->info.pid == pid ? th : NULL;
}

int bts_reader_add_image(struct trace_process *p, const char *exe, pid_t tid,
			 uint64_t entry)
{
	if (bts_reader_grow(&p->images, &p->capimages, p->nimages, sizeof(*p->images)))
		return -BTS_E_NOMEM;
	p->images[p->nimages++] = (struct trace_image){
		.info = { .exe = exe, .tid = tid, .entry = entry },
	};
	return 0;
}

int bts_reader_add_process(struct bts_trace *t, pid_t pid, pid_t ppid,
			   const char *exe)
{
	struct trace_process *p;

	if (bts_reader_grow(&t->procs, &t->capprocs, t->nprocs, sizeof(*p)))
		return -BTS_E_NOMEM;
	p = &t->procs[t->nprocs];
	*p = (struct trace_process){
		.info = { .pid = pid, .ppid = ppid, .exe = exe },
	};
	/* Its first image: the program it runs when it appears. */
	if (bts_reader_add_image(p, exe, 0, 0))
		return -BTS_E_NOMEM;
	if (id_put(&t->pids, pid, t->nprocs)) {
		free(p->images);
		return -BTS_E_NOMEM;
	}
	t->nprocs++;
	return 0;
}

int bts_reader_add_thread(struct bts_trace *t, struct trace_process *p,
			  pid_t tid)
{
	struct trace_thread *th;

	if (bts_reader_grow(&t->threads, &t->capthreads, t->nthreads, sizeof(*th)) ||
	    id_put(&t->tids, tid, t->nthreads))
		return -BTS_E_NOMEM;
	th = &t->threads[t->nthreads++];
	*th = (struct trace_thread){
		.info = { .pid = p->info.pid, .tid = tid },
		.process = p - t->procs,
	};
	return 0;
}

int bts_reader_add_batch(struct trace_thread *th, size_t off, uint32_t count)
{
	if (bts_reader_grow(&th->batches, &th->capbatches, th->nbatches,
			    sizeof(*th->batches)))
		return -BTS_E_NOMEM;
	th->batches[th->nbatches++] = (struct trace_batch){
		.off = off, .count = count, .first = th->info.nrecords,
	};
	th->info.nrecords += count;
	return 0;
}

int bts_reader_add_compact(struct trace_thread *th, size_t off, uint32_t len,
			   uint32_t count)
{
	if (bts_reader_add_batch(th, off, count))
		return -BTS_E_NOMEM;
	th->batches[th->nbatches - 1].compact = true;
	th->may_change = true;
	th->batches[th->nbatches - 1].len = len;
	return 0;
}

int bts_reader_add_map(struct trace_process *p, const struct bts_map *m)
{
	if (bts_space_add_map(&p->images[p->nimages - 1].space, m))
		return bts_fail(BTS_E_NOMEM, "trace index");
	return 0;
}

int bts_reader_add_code(struct trace_process *p, const struct bts_code *c)
{
	if (bts_space_add_code(&p->images[p->nimages - 1].space, c))
		return bts_fail(BTS_E_NOMEM, "trace index");
	return 0;
}

/*
 * waitpid() on a main thread (tid == pid) reports the whole process's
 * status, so a process without an EXIT of its own takes its main thread's;
 * then threads of ended processes have ended too.
 */
static void finish_exits(struct bts_trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct bts_thread_info *th = &t->threads[i].info;
		struct bts_process_info *pi = &t->procs[t->threads[i].process].info;

		if (th->tid == pi->pid && th->exited && !pi->exited) {
			pi->exited = true;
			pi->status = th->status;
		}
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		struct trace_thread *th = &t->threads[i];
		const struct bts_process_info *pi = &t->procs[th->process].info;

		if (!th->info.exited && pi->exited) {
			th->info.exited = true;
			th->info.status = pi->status;
		}
	}
}

/* Each image shows its own space; a process that exec'd gets its merged one. */
static int finish_spaces(struct trace_process *p)
{
	for (size_t i = 0; i < p->nimages; i++) {
		struct trace_image *im = &p->images[i];

		im->info.maps = im->space.maps;
		im->info.nmaps = im->space.nmaps;
		im->info.code = im->space.code;
		im->info.ncode = im->space.ncode;
		if (p->nimages > 1 && bts_space_merge(&p->merged, &im->space))
			return bts_fail(BTS_E_NOMEM, "trace index");
	}
	return 0;
}

int bts_reader_finish(struct bts_trace *t)
{
	int ret = bts_reader_check_indexes(t);

	if (ret)
		return ret;
	finish_exits(t);
	for (size_t i = 0; i < t->nprocs; i++)
		if (finish_spaces(&t->procs[i]))
			return -BTS_E_NOMEM;
	return 0;
}

void bts_reader_free(struct bts_trace *t)
{
	bts_reader_compact_free(t);
	bts_reader_raw_free(t);
	for (size_t i = 0; i < t->nthreads; i++) {
		free(t->threads[i].batches);
		bts_index_release(t->threads[i].index);
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		struct trace_process *p = &t->procs[i];

		for (size_t j = 0; j < p->nimages; j++)
			bts_space_free(&p->images[j].space);
		free(p->images);
		bts_space_free(&p->merged);
		bts_reader_crash_free(p->crash);
	}
	free(t->threads);
	free(t->procs);
	free(t->pebs);
	free(t->pids.slots);
	free(t->tids.slots);
}
