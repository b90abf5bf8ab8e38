// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The perf-bts source in a recording session.  libbts keeps the ptrace
 * side (spawn, attach, threads, signals, exit) as for every source; each
 * traced thread gets its own branch-sampling event from its first stop
 * and runs with PTRACE_CONT, while the CPU's BTS (driven by perf) stores
 * its branches.  Its records are taken from perf's ring whenever the
 * thread stops for good (exec, exit, the end of the session).  A child
 * followed through fork, vfork or clone is such a new thread too (the
 * event is not inherited): it gets its own event at its first stop, as
 * gdb's Linux backend enables btrace per new thread.
 *
 * Not yet run on BTS hardware: no machine here has a PMU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "sources/perf-bts/perf_bts.h"
#include "session/session.h"

int bts_perf_pick(int want, int mode)
{
	struct bts_source_info si = { .source = PTBTS_SOURCE_PERF_BTS };

	if (want != PTBTS_SOURCE_PERF_BTS && want != BTS_SOURCE_AUTO && want != 0)
		return 0;
	/* auto in another mode: not worth a probe (it forks). */
	if (want != PTBTS_SOURCE_PERF_BTS && mode != PTBTS_MODE_RING)
		return 0;
	bts_perf_probe(&si);
	if (!si.available)
		return want == PTBTS_SOURCE_PERF_BTS ?
		       bts_fail(BTS_E_NOSOURCE, "perf-bts: %s", si.why) : 0;
	/* perf overwrites its ring: only the newest records can be kept. */
	if (mode != PTBTS_MODE_RING)
		return want == PTBTS_SOURCE_PERF_BTS ?
		       bts_fail(BTS_E_INVAL, "perf-bts keeps the newest records "
				"only: use ring mode") : 0;
	return PTBTS_SOURCE_PERF_BTS;
}

void bts_perf_start(struct bts_session *s, struct bts_thread *t)
{
	struct bts_perf_ring *r;

	t->started = true;
	if (t->shadow || t->src)
		return;
	r = calloc(1, sizeof(*r));
	if (!r) {
		bts_note_err(s, bts_fail(BTS_E_NOMEM, "thread %d", (int)t->tid));
		return;
	}
	if (bts_perf_open(t->tid, s->buffer_size, r) < 0) {
		bts_note_err(s, -BTS_E_NOSOURCE);
		free(r);
		return;
	}
	t->src = r;
}

struct emit_ctx {
	struct bts_session *s;
	struct bts_thread *t;
};

static void emit(void *arg, uint64_t from, uint64_t to)
{
	struct emit_ctx *c = arg;

	bts_thread_emit(c->s, c->t, from, to, PTBTS_KIND_BRANCH);
}

void bts_perf_drain(struct bts_session *s, struct bts_thread *t)
{
	struct emit_ctx c = { s, t };
	int64_t lost;

	if (!t->src)
		return;
	bts_proc_enter(s, t->proc);	/* a followed child's maps, if its */
	lost = bts_perf_read(t->src, emit, &c);
	/* The lost records came before those read: the ring says so first. */
	if (lost > 0)
		t->ring.lost += (uint64_t)lost;
	else if (lost < 0 && lost != -BTS_E_FORMAT)
		bts_note_err(s, (int)lost);
}

void bts_perf_exec(struct bts_session *s, struct bts_thread *t)
{
	uint64_t entry;

	/*
	 * The event stays with the thread; the new image has new maps, after
	 * the EXEC chunk of its process (any process followed).
	 */
	bts_perf_drain(s, t);
	bts_proc_exec(s, t, &entry);
	if (entry)
		bts_thread_emit(s, t, 0, entry, PTBTS_KIND_EXEC);
	bts_maps_write_all(s);
}

void bts_perf_forget(struct bts_session *s, struct bts_thread *t)
{
	(void)s;
	if (!t->src)
		return;
	bts_perf_close(t->src);
	free(t->src);
	t->src = NULL;
}

/* The CPU records every thread it is given; ptrace keeps the rest. */
const struct bts_source_ops bts_perf_bts_ops = {
	.id = PTBTS_SOURCE_PERF_BTS,
	.pick = bts_perf_pick,
	.attach = bts_perf_start,
	.detach = bts_perf_forget,
	.exec = bts_perf_exec,
	.drain = bts_perf_drain,
};
