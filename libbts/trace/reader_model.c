// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The model of an opened trace (trace_index.h) and the accessors of bts.h
 * that read it.  Nothing here looks at unvalidated bytes: trace_reader.c
 * checked every chunk before it called in.
 */
#include <endian.h>
#include <stdlib.h>

#include "trace/reader.h"

int bts_tindex_grow(void *arrp, size_t *cap, size_t n, size_t size)
{
	void **arr = arrp;
	size_t ncap = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return 0;
	p = reallocarray(*arr, ncap, size);
	if (!p)
		return bts_fail(BTS_E_NOMEM, "trace index");
	*arr = p;
	*cap = ncap;
	return 0;
}

static size_t id_hash(int32_t key, size_t cap)
{
	return ((uint32_t)key * 2654435761u) & (cap - 1);
}

static long id_get(const struct bts_idmap *m, int32_t key)
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

static void id_put_slot(struct bts_idmap *m, int32_t key, uint32_t val)
{
	size_t i = id_hash(key, m->cap);

	while (m->slots[i].key)
		i = (i + 1) & (m->cap - 1);
	m->slots[i].key = key;
	m->slots[i].val = val;
}

static int id_put(struct bts_idmap *m, int32_t key, uint32_t val)
{
	if (2 * (m->n + 1) > m->cap) {
		struct bts_idmap old = *m;

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

long bts_tindex_process(const struct bts_trace *t, pid_t pid)
{
	return id_get(&t->pids, pid);
}

long bts_tindex_thread(const struct bts_trace *t, pid_t tid)
{
	return id_get(&t->tids, tid);
}

int bts_tindex_add_process(struct bts_trace *t, pid_t pid, pid_t ppid,
			   const char *exe)
{
	struct bts_tprocess *p;

	if (bts_tindex_grow(&t->procs, &t->capprocs, t->nprocs, sizeof(*p)) ||
	    id_put(&t->pids, pid, t->nprocs))
		return -BTS_E_NOMEM;
	p = &t->procs[t->nprocs++];
	*p = (struct bts_tprocess){
		.info = { .pid = pid, .ppid = ppid, .exe = exe },
	};
	return 0;
}

int bts_tindex_add_thread(struct bts_trace *t, size_t process, pid_t tid)
{
	struct bts_tthread *th;

	if (bts_tindex_grow(&t->threads, &t->capthreads, t->nthreads, sizeof(*th)) ||
	    id_put(&t->tids, tid, t->nthreads))
		return -BTS_E_NOMEM;
	th = &t->threads[t->nthreads++];
	*th = (struct bts_tthread){
		.info = { .pid = t->procs[process].info.pid, .tid = tid },
		.process = process,
	};
	return 0;
}

int bts_tindex_add_batch(struct bts_trace *t, size_t thread, size_t off,
			 uint32_t count)
{
	struct bts_tthread *th = &t->threads[thread];

	if (bts_tindex_grow(&th->batches, &th->cap, th->nbatches, sizeof(*th->batches)))
		return -BTS_E_NOMEM;
	th->batches[th->nbatches++] = (struct bts_batch){
		.off = off, .count = count, .first = th->info.nrecords,
	};
	th->info.nrecords += count;
	return 0;
}

int bts_tindex_add_compact(struct bts_trace *t, size_t thread, size_t off,
			   uint32_t len, uint32_t count)
{
	struct bts_tthread *th = &t->threads[thread];

	if (bts_tindex_add_batch(t, thread, off, count))
		return -BTS_E_NOMEM;
	th->batches[th->nbatches - 1].compact = true;
	th->batches[th->nbatches - 1].len = len;
	return 0;
}

/*
 * As mmap() does it: a new map replaces what it covers of older ones, which
 * keep their parts outside it (the right part's file offset moves along).
 * The set stays sorted and free of overlaps, so the overlapped maps are
 * the run [i, j).
 */
int bts_tindex_add_map(struct bts_trace *t, size_t process,
		       const struct bts_map *m)
{
	struct bts_tprocess *p = &t->procs[process];
	struct bts_map repl[3];
	size_t i = 0, j, n = 0;

	while (i < p->nmaps && p->maps[i].end <= m->start)
		i++;
	for (j = i; j < p->nmaps && p->maps[j].start < m->end; j++)
		;
	if (i < j && p->maps[i].start < m->start) {
		repl[n] = p->maps[i];
		repl[n++].end = m->start;
	}
	repl[n++] = *m;
	if (i < j && p->maps[j - 1].end > m->end) {
		repl[n] = p->maps[j - 1];
		repl[n].offset += m->end - repl[n].start;
		repl[n++].start = m->end;
	}
	while (p->nmaps + n > p->cap)
		if (bts_tindex_grow(&p->maps, &p->cap, p->cap, sizeof(*p->maps)))
			return -BTS_E_NOMEM;
	memmove(&p->maps[i + n], &p->maps[j], (p->nmaps - j) * sizeof(*p->maps));
	memcpy(&p->maps[i], repl, n * sizeof(*repl));
	p->nmaps = p->nmaps - (j - i) + n;
	return 0;
}

/* The same for code copies: a trimmed copy keeps the bytes of its part. */
int bts_tindex_add_code(struct bts_trace *t, size_t process, uint64_t addr,
			const uint8_t *bytes, uint32_t len)
{
	struct bts_tprocess *p = &t->procs[process];
	struct bts_code c = { addr, len, bytes }, repl[3];
	size_t i = 0, j, n = 0;

	while (i < p->ncode && p->code[i].addr + p->code[i].len <= c.addr)
		i++;
	for (j = i; j < p->ncode && p->code[j].addr < c.addr + c.len; j++)
		;
	if (i < j && p->code[i].addr < c.addr) {
		repl[n] = p->code[i];
		repl[n++].len = c.addr - p->code[i].addr;
	}
	repl[n++] = c;
	if (i < j && p->code[j - 1].addr + p->code[j - 1].len > c.addr + c.len) {
		uint64_t cut = c.addr + c.len - p->code[j - 1].addr;

		repl[n] = p->code[j - 1];
		repl[n].addr += cut;
		repl[n].bytes += cut;
		repl[n++].len -= cut;
	}
	while (p->ncode + n > p->capcode)
		if (bts_tindex_grow(&p->code, &p->capcode, p->capcode, sizeof(*p->code)))
			return -BTS_E_NOMEM;
	memmove(&p->code[i + n], &p->code[j], (p->ncode - j) * sizeof(*p->code));
	memcpy(&p->code[i], repl, n * sizeof(*repl));
	p->ncode = p->ncode - (j - i) + n;
	return 0;
}

/*
 * waitpid() on a main thread (tid == pid) reports the whole process's
 * status, so a process without an EXIT of its own takes its main thread's.
 */
static void main_thread_exits(struct bts_trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct bts_thread_info *th = &t->threads[i].info;
		struct bts_process_info *pi = &t->procs[t->threads[i].process].info;

		if (th->tid == pi->pid && th->exited && !pi->exited) {
			pi->exited = true;
			pi->status = th->status;
		}
	}
}

void bts_tindex_finish(struct bts_trace *t)
{
	main_thread_exits(t);
	for (size_t i = 0; i < t->nthreads; i++) {
		struct bts_tthread *th = &t->threads[i];
		const struct bts_process_info *pi = &t->procs[th->process].info;

		if (!th->info.exited && pi->exited) {
			th->info.exited = true;
			th->info.status = pi->status;
		}
	}
}

void bts_tindex_free(struct bts_trace *t)
{
	bts_compact_free(t);
	for (size_t i = 0; i < t->nthreads; i++)
		free(t->threads[i].batches);
	for (size_t i = 0; i < t->nprocs; i++) {
		free(t->procs[i].maps);
		free(t->procs[i].code);
	}
	free(t->threads);
	free(t->procs);
	free(t->pids.slots);
	free(t->tids.slots);
}

const struct bts_trace_info *bts_trace_info(const struct bts_trace *t)
{
	return &t->info;
}

size_t bts_trace_nprocesses(const struct bts_trace *t)
{
	return t->nprocs;
}

const struct bts_process_info *bts_trace_process(const struct bts_trace *t,
						 size_t i)
{
	return i < t->nprocs ? &t->procs[i].info : NULL;
}

size_t bts_trace_nthreads(const struct bts_trace *t)
{
	return t->nthreads;
}

const struct bts_thread_info *bts_trace_thread(const struct bts_trace *t,
					       size_t i)
{
	return i < t->nthreads ? &t->threads[i].info : NULL;
}

size_t bts_trace_maps(const struct bts_trace *t, pid_t pid,
		      const struct bts_map **maps)
{
	long i = bts_tindex_process(t, pid);

	if (i < 0) {
		*maps = NULL;
		return 0;
	}
	*maps = t->procs[i].maps;
	return t->procs[i].nmaps;
}

size_t bts_trace_code(const struct bts_trace *t, pid_t pid,
		      const struct bts_code **code)
{
	long i = bts_tindex_process(t, pid);

	if (i < 0) {
		*code = NULL;
		return 0;
	}
	*code = t->procs[i].code;
	return t->procs[i].ncode;
}

void bts_trace_records(const struct bts_trace *t, size_t thread,
		       struct bts_rec_iter *it)
{
	*it = (struct bts_rec_iter){ .trace = t, .thread = thread };
}

static int next_compact(struct bts_rec_iter *it, const struct bts_tthread *th,
			struct ptbts_record *rec)
{
	const struct ptbts_record *r;
	int err = bts_compact_batch(it->trace, it->thread, it->batch, &r);

	if (err) {
		/* Stop here: a caller looping while the result is non-zero ends. */
		it->batch = th->nbatches;
		return err;
	}
	*rec = r[it->index++];
	return 1;
}

int bts_rec_next(struct bts_rec_iter *it, struct ptbts_record *rec)
{
	const struct bts_tthread *th;

	if (!it->trace || it->thread >= it->trace->nthreads)
		return 0;
	th = &it->trace->threads[it->thread];
	while (it->batch < th->nbatches) {
		const struct bts_batch *b = &th->batches[it->batch];

		if (it->index < b->count) {
			int err;

			if (b->compact)
				return next_compact(it, th, rec);
			err = bts_raw_batch_check(it->trace, it->thread, it->batch);
			if (err) {
				/* As next_compact(): a loop on the result ends. */
				it->batch = th->nbatches;
				return err;
			}
			/* memcpy: a buffer given to open_mem may be unaligned. */
			memcpy(rec, it->trace->buf + b->off + it->index * sizeof(*rec),
			       sizeof(*rec));
			rec->from = le64toh(rec->from);
			rec->to = le64toh(rec->to);
			rec->flags = le64toh(rec->flags);
			it->index++;
			return 1;
		}
		if (!b->compact)
			bts_trace_drop(it->trace, b->off, b->count * sizeof(*rec));
		it->batch++;
		it->index = 0;
	}
	return 0;
}

int bts_rec_seek(struct bts_rec_iter *it, uint64_t index)
{
	const struct bts_tthread *th;
	size_t lo = 0, hi;

	if (!it || !it->trace || it->thread >= it->trace->nthreads)
		return 0;
	th = &it->trace->threads[it->thread];
	/* The first batch that ends past @index: ends only grow. */
	for (hi = th->nbatches; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (th->batches[mid].first + th->batches[mid].count > index)
			hi = mid;
		else
			lo = mid + 1;
	}
	it->batch = lo;
	it->index = lo < th->nbatches ? index - th->batches[lo].first : 0;
	return lo < th->nbatches;
}

int bts_trace_format(const struct bts_trace *t)
{
	for (size_t i = 0; t && i < t->nthreads; i++)
		for (size_t j = 0; j < t->threads[i].nbatches; j++)
			if (t->threads[i].batches[j].compact)
				return BTS_FORMAT_COMPACT;
	return BTS_FORMAT_RAW;
}
