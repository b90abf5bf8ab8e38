/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The breakpoints planted in the tracee's memory, by a source (ptrace-step's
 * branch sites) or a debugger: one int3 byte per address, kept until the
 * code goes away, and the original byte under each, which every reader of
 * the code sees instead (bts_read_code).
 */
#ifndef BTS_BREAKPOINTS_H
#define BTS_BREAKPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/addr_table.h"

#define BTS_INT3 0xcc

/* An entry of the table; @addr first, as struct bts_addr_table wants. */
struct bts_bp {
	uint64_t addr;
	uint8_t orig;
};

struct bts_bptab {
	struct bts_addr_table bps;	/* of struct bts_bp */
	/*
	 * Taken out by bts_bp_remove_all() while threads ran: one of them may
	 * have trapped on it already and report the SIGTRAP later, its pc
	 * one past the site (struct bts_bp, @orig unused).
	 */
	struct bts_addr_table gone;
	pid_t pid;		/* whose memory @memfd is */
	int memfd;		/* /proc/PID/mem, -1: not open */
};

void bts_bp_init(struct bts_bptab *t);
void bts_bp_free(struct bts_bptab *t);
/* The memory the breakpoints live in (opened lazily; again after an exec). */
void bts_bp_set_pid(struct bts_bptab *t, pid_t pid);

/* Whether an int3 of ours sits at @addr; its original byte in @orig. */
bool bts_bp_lookup(const struct bts_bptab *t, uint64_t addr, uint8_t *orig);
/*
 * Plants an int3 at @addr (nothing to do when one of ours is there and
 * still in memory).  0; -1 when the code cannot be written; -2 when ours
 * is gone from memory: the code was rewritten, it must be decoded again.
 */
int bts_bp_plant(struct bts_bptab *t, uint64_t addr);
/* Puts the original byte back at @addr and forgets it. */
void bts_bp_remove(struct bts_bptab *t, uint64_t addr);
/* The same for every breakpoint in [@lo, @hi). */
void bts_bp_remove_range(struct bts_bptab *t, uint64_t lo, uint64_t hi);
/* The same for all of them; each is remembered as gone. */
void bts_bp_remove_all(struct bts_bptab *t);
/* Whether an int3 of ours at @addr was taken out by bts_bp_remove_all(). */
bool bts_bp_gone(const struct bts_bptab *t, uint64_t addr);
/* Forgets them all without writing (the memory is gone: exec). */
void bts_bp_forget_all(struct bts_bptab *t);
/* Writes the original bytes into @pid, a fork child with a copy of the memory. */
int bts_bp_clean_copy(const struct bts_bptab *t, pid_t pid);
/* Puts original bytes into @buf, @n bytes read from @addr. */
void bts_bp_unplant(const struct bts_bptab *t, uint64_t addr, uint8_t *buf,
		    size_t n);

static inline size_t bts_bp_count(const struct bts_bptab *t)
{
	return t->bps.used;
}

#endif /* BTS_BREAKPOINTS_H */
