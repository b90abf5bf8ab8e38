/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What an x86-64 instruction does to control flow, and a cache of those
 * answers keyed by address.  Zydis decodes; this keeps only what a branch
 * source needs.
 */
#ifndef BTS_INSN_H
#define BTS_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

enum bts_insn_kind {
	BTS_INSN_OTHER = 0,	/* falls through (rep string insns too) */
	BTS_INSN_COND,		/* jcc, loop, loopcc, jrcxz, xbegin */
	BTS_INSN_JUMP,		/* jmp rel */
	BTS_INSN_JUMP_IND,	/* jmp reg / [mem] */
	BTS_INSN_CALL,		/* call rel */
	BTS_INSN_CALL_IND,	/* call reg / [mem] */
	BTS_INSN_RET,		/* ret, ret imm16 */
	BTS_INSN_FAR,		/* far jmp / call / ret, iret */
	BTS_INSN_SYSCALL,	/* syscall, sysenter */
	BTS_INSN_INT,		/* int3, int n, int1 */
};

#define BTS_INSN_F_REP	0x01	/* a rep-prefixed string instruction */

struct bts_insn {
	uint8_t len;
	uint8_t kind;		/* &enum bts_insn_kind */
	uint8_t flags;		/* BTS_INSN_F_* */
};

/*
 * Decodes the instruction at the start of @buf (@len bytes available).
 * 0, or -BTS_E_DECODE (-BTS_E_TRUNCATED when @len ran out first).
 */
int bts_insn_classify(const void *buf, size_t len, struct bts_insn *out);

/*
 * Did the instruction at @pc, followed by @next, transfer control in a way
 * a branch record reports?  True for taken conditional branches and every
 * unconditional one; false for fall-through, syscalls and interrupts
 * (those are asynchronous and reported elsewhere).
 */
bool bts_insn_taken(const struct bts_insn *insn, uint64_t pc, uint64_t next);

/* "other", "cond", "jump", ... for tests and messages. */
const char *bts_insn_kind_name(int kind);

/* ------------------------------------------------------------------ cache */

struct bts_insn_cache;

struct bts_insn_cache *bts_insn_cache_new(void);
void bts_insn_cache_free(struct bts_insn_cache *c);
/* Forgets every entry (the code changed: exec, unmap). */
void bts_insn_cache_flush(struct bts_insn_cache *c);
/* The classification of @addr, or NULL. */
const struct bts_insn *bts_insn_cache_get(struct bts_insn_cache *c,
					  uint64_t addr);
/* Remembers @insn at @addr; -BTS_E_NOMEM when it cannot grow. */
int bts_insn_cache_put(struct bts_insn_cache *c, uint64_t addr,
		       const struct bts_insn *insn);

/*
 * Classifies the code of @code (@len bytes read from @addr) from its
 * start, instruction after instruction while whole ones fit, into @c: one
 * read of the tracee serves many later lookups.  Returns the number of
 * instructions cached; 0 when the first one did not decode.
 */
int bts_insn_cache_fill(struct bts_insn_cache *c, uint64_t addr,
			const uint8_t *code, size_t len);

#endif /* BTS_INSN_H */
