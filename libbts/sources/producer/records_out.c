// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Records of a producer's pages to the session's writer (records_out.h).
 */
#include <sys/resource.h>
#include <unistd.h>

#include "session/session.h"
#include "sources/producer/records_out.h"

/*
 * Records into code the trace has no map of yet: read the maps again (of
 * the thread's process, the current one).
 */
static void check_maps(struct bts_session *s, const struct ptbts_record *r,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].from)
			bts_maps_check(s, r[i].to);
}

void bts_src_write(struct bts_session *s, struct bts_thread *t,
		   const struct ptbts_record *r, size_t n)
{
	n = bts_limits_take(s, n);	/* --max-size: the ones that fit */
	if (!n)
		return;
	check_maps(s, r, n);
	bts_count_add(&s->records, n);
	if (s->w)
		bts_note_err(s, bts_writer_records(s->w, bts_thread_pid(s, t),
						   t->tid, r, n));
}

void bts_src_take(struct bts_session *s, struct bts_thread *t,
		  const struct ptbts_record *ring, uint64_t nslots,
		  uint64_t *tail, uint64_t end, bts_src_out_fn *out)
{
	if (s->mode == PTBTS_MODE_RING && end - *tail > nslots) {
		bts_src_write_lost(s, t, end - nslots - *tail);
		*tail = end - nslots;
	}
	while (*tail < end) {
		uint64_t slot = *tail % nslots;
		size_t n = (size_t)(end - *tail);

		if (n > nslots - slot)
			n = (size_t)(nslots - slot);
		out(s, t, ring + slot, n);
		*tail += n;
	}
}

void bts_src_write_lost(struct bts_session *s, struct bts_thread *t,
			uint64_t n)
{
	struct ptbts_record lost = {
		.to = n,
		.flags = PTBTS_MKKIND(PTBTS_KIND_LOST),
	};

	if (!n)
		return;
	bts_count_add(&s->lost, n);
	bts_src_write(s, t, &lost, 1);
}

void bts_src_write_gap(struct bts_session *s, struct bts_thread *t)
{
	struct ptbts_record gap = {
		.to = PTBTS_GAP_UNKNOWN,
		.flags = PTBTS_MKKIND(PTBTS_KIND_GAP),
	};

	bts_src_write(s, t, &gap, 1);
}

#define CAP_IPC_LOCK_BIT 14
#define MEMLOCK_SHARES 16

size_t bts_memlock_share(size_t page)
{
	unsigned long long caps = 0;
	struct rlimit rl;
	size_t share;

	if (!bts_proc_status(getpid(), "CapEff", 16, &caps) &&
	    caps & (1ULL << CAP_IPC_LOCK_BIT))
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	share = (size_t)(rl.rlim_cur / MEMLOCK_SHARES) / page * page;
	return share ? share : page;
}
