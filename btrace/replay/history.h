/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One thread's instruction history held in memory for replay: every entry
 * the decoder gives (gaps included), numbered from 1 as in dump --insns,
 * with the real call depth before it runs.  32 bytes an instruction: a
 * 4 MiB ring of records (about a million instructions) costs ~32 MiB.
 */
#ifndef REPLAY_HISTORY_H
#define REPLAY_HISTORY_H

#include <stdint.h>

#include <bts.h>

struct replay_insn {
	uint64_t ip;		/* for a gap: its argument */
	uint8_t raw[15];
	uint8_t size;
	uint8_t iclass;		/* &enum bts_iclass */
	uint8_t gap;		/* &enum bts_gap_reason */
	uint16_t flags;		/* BTS_IF_* */
	int32_t depth;		/* frames on the stack, relative to the first */
};

struct replay_history {
	struct replay_insn *insns;	/* [0] is instruction 1 */
	uint64_t n;
};

/* Decodes thread @thread of @t; 0 or a negative &enum bts_error. */
int replay_history_load(const struct bts_trace *t, size_t thread,
			struct replay_history *h);
void replay_history_free(struct replay_history *h);

/* Instruction @n (1..h->n). */
static inline const struct replay_insn *
replay_insn(const struct replay_history *h, uint64_t n)
{
	return &h->insns[n - 1];
}

/* Instruction @n in the decoder's form (its raw bytes stay @h's). */
void replay_history_entry(const struct replay_history *h, uint64_t n,
			  struct bts_insn_entry *e);

/*
 * Where a thread stopped, given the pc it stopped at: the last instruction
 * at @pc that is not past the last record's inferred tail, so that the
 * instructions inferred beyond it (which never ran) are dropped.  0 when
 * @pc is nowhere in the history's end.
 */
uint64_t replay_history_stop_at(const struct replay_history *h, uint64_t pc);
/* Drops the instructions after @n. */
void replay_history_cut(struct replay_history *h, uint64_t n);

#endif /* REPLAY_HISTORY_H */
