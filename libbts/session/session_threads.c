// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The traced threads: each has its own ring of tracer memory.  BLOCK mode
 * drains a full ring to the writer and goes on (lossless, bounded memory);
 * RING mode keeps the newest records and writes them when the thread ends;
 * STOP mode keeps the oldest and counts the rest.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ptrace.h>

#include "session/session.h"
#include "util/array.h"

struct bts_thread *bts_thread_find(struct bts_session *s, pid_t tid)
{
	size_t i;

	if (s->last && s->last->tid == tid)
		return s->last;
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->tid == tid)
			return s->last = s->threads[i];
	return NULL;
}

static int table_push(struct bts_session *s, struct bts_thread *t)
{
	if (BTS_ARRAY_RESERVE(s->threads, s->cap, s->nthreads + 1))
		return bts_fail(BTS_E_NOMEM, "thread table of %zu", s->nthreads + 1);
	s->threads[s->nthreads++] = t;
	return 0;
}

static int new_thread(struct bts_session *s, pid_t tid, uint64_t size,
		      struct bts_thread **out)
{
	struct bts_thread *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return bts_fail(BTS_E_NOMEM, "thread %d", (int)tid);
	t->tid = tid;
	t->proc = s->cur;
	if (t->proc)
		t->proc->nthreads++;
	t->mem = malloc(size);
	if (!t->mem) {
		err = bts_fail(BTS_E_NOMEM, "a ring of %llu bytes for thread %d",
			       (unsigned long long)size, (int)tid);
		goto free_thread;
	}
	err = bts_ring_init(&t->ring, t->mem, size, s->mode);
	if (err)
		goto free_mem;
	err = s->ops->add ? s->ops->add(s, t) : 0;
	if (err)
		goto free_mem;
	err = table_push(s, t);
	if (err)
		goto free_src;
	*out = t;
	return 0;

free_src:
	if (s->ops->detach)
		s->ops->detach(s, t);
free_mem:
	free(t->mem);
free_thread:
	free(t);
	return err;
}

int bts_thread_add(struct bts_session *s, pid_t tid, struct bts_thread **out)
{
	int err = new_thread(s, tid, s->buffer_size, out);

	if (err)
		return err;
	bts_count_add(&s->nthreads_seen, 1);
	if (s->w)
		bts_note_err(s, bts_writer_thread(s->w, bts_cur_pid(s), tid));
	return 0;
}

/* A vfork child, run through while it shares the memory: not in the trace. */
int bts_thread_add_shadow(struct bts_session *s, pid_t tid,
			  struct bts_thread **out)
{
	int err = new_thread(s, tid, sizeof(struct ptbts_record), out);

	if (!err)
		(*out)->shadow = true;
	return err;
}

void bts_thread_remove(struct bts_session *s, struct bts_thread *t)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		if (s->threads[i] == t) {
			s->threads[i] = s->threads[--s->nthreads];
			break;
		}
	}
	if (s->last == t)
		s->last = NULL;
	if (t->proc)
		t->proc->nthreads--;
	if (s->ops && s->ops->detach)
		s->ops->detach(s, t);
	free(t->mem);
	free(t);
}

static void write_recs(struct bts_session *s, struct bts_thread *t,
		       const struct ptbts_record *recs, size_t n)
{
	bts_count_add(&s->records, n);
	if (s->w && n)
		bts_note_err(s, bts_writer_records(s->w, bts_thread_pid(s, t),
						   t->tid, recs, n));
}

static void write_lost(struct bts_session *s, struct bts_thread *t)
{
	struct ptbts_record lost = {
		.to = t->ring.lost,
		.flags = PTBTS_MKKIND(PTBTS_KIND_LOST),
	};

	if (!t->ring.lost)
		return;
	bts_count_add(&s->lost, t->ring.lost);
	t->ring.lost = 0;
	write_recs(s, t, &lost, 1);
}

static void write_unread(struct bts_session *s, struct bts_thread *t)
{
	struct bts_span span[2];
	int i, n = bts_ring_unread(&t->ring, span);

	for (i = 0; i < n; i++) {
		write_recs(s, t, span[i].recs, span[i].n);
		bts_ring_consume(&t->ring, span[i].n);
	}
}

void bts_thread_drain(struct bts_session *s, struct bts_thread *t)
{
	write_unread(s, t);
}

/*
 * Everything the ring holds, in the order it happened: the newest records
 * survive in RING mode (the lost ones came first), the oldest in STOP mode.
 */
void bts_thread_flush(struct bts_session *s, struct bts_thread *t)
{
	struct bts_span span[2];

	if (s->ops->drain)
		s->ops->drain(s, t);	/* what the source holds comes first */
	if (t->ring.mode == PTBTS_MODE_RING) {
		bts_ring_unread(&t->ring, span);
		write_lost(s, t);
		write_unread(s, t);
	} else {
		write_unread(s, t);
		write_lost(s, t);
	}
}

static int emit_map(void *arg, const struct bts_map *m)
{
	struct bts_session *s = arg;
	pid_t main_pid = s->pid;
	int err = s->w ? bts_writer_map(s->w, bts_cur_pid(s), m) : 0;

	if (err)
		return err;
	/* maps.c copies the code of s->pid: the current process's here. */
	s->pid = bts_cur_pid(s);
	err = bts_map_write_code(s, m);
	s->pid = main_pid;
	return err;
}

void bts_maps_write_all(struct bts_session *s)
{
	bts_mapset_clear(&s->maps);
	bts_note_err(s, bts_mapset_refresh(&s->maps, bts_cur_pid(s), 0,
					   s->ops->map_code, s->guest_base,
					   emit_map, s));
}

/* Code the known maps do not cover was mapped since: write its maps. */
void bts_maps_check(struct bts_session *s, uint64_t to)
{
	int err;

	if (bts_mapset_contains(&s->maps, to))
		return;
	err = bts_mapset_refresh(&s->maps, bts_cur_pid(s), to,
				 s->ops->map_code, s->guest_base, emit_map, s);
	/* A process that is gone has no maps to read: not a trace error. */
	if (err != -BTS_E_SRCH)
		bts_note_err(s, err);
}

/*
 * Straight-line code ends where executable memory does: a block decoded on
 * past it (after a hlt, or the last call of a text section) would take the
 * data behind it for code, and an int3 planted there would change the
 * program's data (a fork child's execve argument vector, say).  Adjacent
 * executable maps run on into each other.
 */
size_t bts_code_span(struct bts_session *s, uint64_t addr, size_t len)
{
	const struct bts_map *m = bts_mapset_find(&s->maps, addr);
	uint64_t end;
	size_t i;

	if (!m) {
		bts_maps_check(s, addr);	/* mapped since: read the maps again */
		m = bts_mapset_find(&s->maps, addr);
	}
	if (!m)
		return 0;
	i = (size_t)(m - s->maps.maps);
	end = m->end;
	while (++i < s->maps.n && s->maps.maps[i].start == end)
		end = s->maps.maps[i].end;
	return end - addr < len ? (size_t)(end - addr) : len;
}

void bts_thread_emit(struct bts_session *s, struct bts_thread *t,
		     uint64_t from, uint64_t to, int kind)
{
	struct ptbts_record rec = { from, to, PTBTS_MKKIND(kind) };

	if (t->shadow || !bts_limits_record(s))
		return;
	if (from)
		bts_maps_check(s, to);
	if (bts_ring_put(&t->ring, &rec) == -BTS_E_AGAIN) {
		bts_thread_drain(s, t);
		bts_ring_put(&t->ring, &rec);
	}
}

int bts_thread_getregs(struct bts_session *s, struct bts_thread *t,
		       struct user_regs_struct *r)
{
	if (s->ops->getregs)
		return s->ops->getregs(s, t, r);
	return ptrace(PTRACE_GETREGS, t->tid, 0, r) ? -errno : 0;
}
