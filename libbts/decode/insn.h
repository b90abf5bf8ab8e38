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
#include <sys/types.h>

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
 * The same for either machine mode: legacy 32-bit (0x40..0x4f are inc/dec,
 * call/ret move 4 bytes) when @is32, long mode otherwise.
 */
int bts_insn_classify_mode(bool is32, const void *buf, size_t len,
			   struct bts_insn *out);

/*
 * Did the instruction at @pc, followed by @next, transfer control in a way
 * a branch record reports?  True for taken conditional branches and every
 * unconditional one; false for fall-through, syscalls and interrupts
 * (those are asynchronous and reported elsewhere).
 */
bool bts_insn_taken(const struct bts_insn *insn, uint64_t pc, uint64_t next);

/* "other", "cond", "jump", ... for tests and messages. */
const char *bts_insn_kind_name(int kind);

/* --------------------------------------------------------------- branches */

/* How a conditional branch decides (jcc conditions are 0..15, as coded). */
enum bts_cond {
	BTS_COND_RCXZ = 16,	/* jrcxz, jecxz */
	BTS_COND_LOOP,
	BTS_COND_LOOPE,
	BTS_COND_LOOPNE,
};

/* Where an indirect branch finds its target. */
enum bts_operand {
	BTS_OPND_NONE = 0,	/* direct (or ret) */
	BTS_OPND_REG,
	BTS_OPND_MEM,
};

/* General registers by their hardware number; BTS_REG_RIP, none. */
#define BTS_REG_RIP	16
#define BTS_REG_NONE	0xff

/*
 * What a tracer needs to carry out a branch itself instead of letting the
 * program run it: decoded once, used at every pass.
 */
struct bts_branch {
	uint8_t kind;		/* &enum bts_insn_kind */
	uint8_t len;
	uint8_t cond;		/* BTS_INSN_COND: jcc condition or &enum bts_cond */
	uint8_t addr32;		/* 0x67 prefix: 32-bit addresses and counters */
	uint8_t opnd;		/* &enum bts_operand */
	uint8_t base;		/* register number, BTS_REG_RIP or BTS_REG_NONE */
	uint8_t index;		/* register number or BTS_REG_NONE */
	uint8_t scale;
	uint8_t seg;		/* 0, or 1 for %fs, 2 for %gs */
	bool emulable;		/* a tracer may carry it out (bts_branch_emulate) */
	bool mode32;		/* decoded as i386 code: 4-byte stack, 32-bit pc */
	uint16_t imm;		/* ret imm16: bytes popped besides the address */
	int64_t disp;
	uint64_t target;	/* direct branches: the destination */
};

/*
 * Decodes the instruction at the start of @buf (@len bytes, read from
 * @pc) into @out.  0, or -BTS_E_DECODE / -BTS_E_TRUNCATED.
 */
int bts_branch_decode(const void *buf, size_t len, uint64_t pc,
		      struct bts_branch *out);
/* The same in either mode (@is32: i386 code, ptrace-step's abi32.c). */
int bts_branch_decode_mode(bool is32, const void *buf, size_t len, uint64_t pc,
			   struct bts_branch *out);

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

/* ----------------------------------------------------------------- blocks */

/*
 * A basic block as a branch-stop tracer sees it: the instructions from
 * @start that run in sequence, up to and including the control transfer
 * at @site.  A block whose transfer cannot be emulated (far, xbegin, a
 * 16-bit operand), or that runs into code that cannot be read or decoded,
 * has @site 0: it is single-stepped.  Syscalls do not end a block.
 *
 * Direct jumps and calls do not end it either: their targets are in the
 * code, so the thread runs through them at full speed and the block goes
 * on at the target, up to BTS_BLOCK_HOPS of them.  Each is a @hops entry,
 * recorded when the thread is next seen past it.  The pieces (segments)
 * never overlap, so a pc names the one it is in, and with it the hops
 * already run: segment 0 is [@start, hops[0].end), segment i is
 * [hops[i-1].to, hops[i].end), the last one ends at @end.
 */
#define BTS_BLOCK_HOPS 8

struct bts_hop {
	uint64_t from;		/* the direct jmp or call */
	uint64_t end;		/* the address after it */
	uint64_t to;		/* its target */
};

struct bts_block {
	uint64_t start;
	uint64_t end;		/* after the transfer at @site */
	uint64_t site;
	uint64_t last_sys;	/* the last syscall or int instruction; 0: none */
	uint64_t hash;		/* of the original bytes of every segment */
	struct bts_branch br;	/* the transfer at @site */
	uint8_t sys_seg;	/* the segment of @last_sys */
	uint8_t nhops;
	struct bts_hop hops[BTS_BLOCK_HOPS];
};

/* The segment of @b that holds @pc, or -1. */
int bts_block_segment(const struct bts_block *b, uint64_t pc);
/* The start of segment @i of @b, and its end. */
uint64_t bts_block_seg_start(const struct bts_block *b, int i);
uint64_t bts_block_seg_end(const struct bts_block *b, int i);
/* Whether a syscall (or int) of @b lies ahead of @pc, a pc in @b. */
bool bts_block_sys_ahead(const struct bts_block *b, uint64_t pc);

/* Reads original code bytes; what bts_read_code() returns. */
typedef ssize_t (*bts_code_reader)(void *arg, uint64_t addr, void *buf,
				   size_t len);

/*
 * Decodes the block at @start.  Never fails: at worst @site is 0.
 * @follow (NULL: always) says whether the block may go on at the target
 * of a direct jump or call.
 */
void bts_block_decode(bts_code_reader rd, void *arg, uint64_t start,
		      bool (*follow)(void *arg, uint64_t to),
		      struct bts_block *out);
/* The same for either machine mode; @out->br.mode32 says which (even at @site 0). */
void bts_block_decode_mode(bool is32, bts_code_reader rd, void *arg,
			   uint64_t start, bool (*follow)(void *arg, uint64_t to),
			   struct bts_block *out);
/* The hash bts_block_decode() keeps of a block's bytes. */
uint64_t bts_code_hash(uint64_t h, const uint8_t *p, size_t n);
#define BTS_HASH_INIT 0xcbf29ce484222325ULL

struct bts_block_cache;

struct bts_block_cache *bts_block_cache_new(void);
void bts_block_cache_free(struct bts_block_cache *c);
void bts_block_cache_flush(struct bts_block_cache *c);
/* The block starting at @start, or NULL. */
const struct bts_block *bts_block_cache_get(struct bts_block_cache *c,
					    uint64_t start);
/* A copy of @b kept; the stored one, or NULL when the cache cannot grow. */
const struct bts_block *bts_block_cache_put(struct bts_block_cache *c,
					    const struct bts_block *b);

#endif /* BTS_INSN_H */
