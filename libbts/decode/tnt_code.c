// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What both directions of the tnt encoding walk (tnt.h): per process,
 * the code the trace names (decode_code.c: its files, build-id checked,
 * and its code copies) and the blocks of it, each decoded once: a loop
 * passes the same few blocks millions of times.
 */
#include <stdlib.h>

#include "decode/decode.h"
#include "decode/insn.h"
#include "decode/tnt.h"
#include "trace/codec.h"
#include "trace/tnt_ops.h"

struct tnt_code {
	pid_t pid;
	bool is32;
	struct bts_code_image *ci;
	struct bts_block_cache *blocks;
};

struct bts_tnt {
	const struct bts_trace *t;
	struct tnt_code *code;
	size_t ncode;
	struct bts_zstd *zstd;
	uint8_t *raw;
	size_t raw_cap;
};

struct bts_tnt *bts_tnt_new(const struct bts_trace *t)
{
	struct bts_tnt *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->t = t;
	x->zstd = bts_zstd_new();
	if (!x->zstd) {
		bts_tnt_free(x);
		return NULL;
	}
	return x;
}

void bts_tnt_free(struct bts_tnt *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->ncode; i++) {
		bts_code_image_free(x->code[i].ci);
		bts_block_cache_free(x->code[i].blocks);
	}
	free(x->code);
	bts_zstd_free(x->zstd);
	free(x->raw);
	free(x);
}

struct bts_zstd *bts_tnt_zstd(struct bts_tnt *x)
{
	return x->zstd;
}

uint8_t *bts_tnt_raw(struct bts_tnt *x, size_t len)
{
	uint8_t *raw;

	/* Grown as chunks need it: most need far less than the bound. */
	if (len <= x->raw_cap)
		return x->raw;
	raw = realloc(x->raw, len);
	if (!raw)
		return NULL;
	x->raw = raw;
	x->raw_cap = len;
	return raw;
}

struct tnt_code *bts_tnt_code(struct bts_tnt *x, pid_t pid)
{
	struct tnt_code *c;

	for (size_t i = 0; i < x->ncode; i++)
		if (x->code[i].pid == pid)
			return &x->code[i];
	c = realloc(x->code, (x->ncode + 1) * sizeof(*c));
	if (!c)
		return NULL;
	x->code = c;
	c = &c[x->ncode];
	*c = (struct tnt_code){
		.pid = pid,
		.is32 = bts_trace_process_bits(x->t, pid) == 32,
		.blocks = bts_block_cache_new(),
	};
	if (!c->blocks || bts_code_image_new(x->t, pid, NULL, &c->ci)) {
		bts_block_cache_free(c->blocks);
		return NULL;
	}
	x->ncode++;
	return c;
}

static ssize_t read_code(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct tnt_code *c = arg;
	const uint8_t *p;
	size_t avail;

	p = bts_code_image_at(c->ci, addr, &avail);
	if (!p || !avail)
		return -1;
	if (avail > len)
		avail = len;
	memcpy(buf, p, avail);
	return (ssize_t)avail;
}

/* A block ends at its first branch: a direct one is a record of its own. */
static bool no_hops(void *arg, uint64_t to)
{
	(void)arg;
	(void)to;
	return false;
}

const struct bts_block *bts_tnt_block(struct tnt_code *c, uint64_t pc)
{
	/* No code lives at 0 (the cache's empty key): a walk wrapped there. */
	static const struct bts_block nowhere;
	const struct bts_block *b;
	struct bts_block nb;

	if (!pc)
		return &nowhere;
	b = bts_block_cache_get(c->blocks, pc);
	if (b)
		return b;
	bts_block_decode_mode(c->is32, read_code, c, pc, no_hops, &nb);
	return bts_block_cache_put(c->blocks, &nb);
}

const char *bts_tnt_code_warning(const struct tnt_code *c)
{
	return bts_code_image_warning(c->ci, 0);
}

static const struct bts_tnt_ops decoder = {
	.create = bts_tnt_new,
	.destroy = bts_tnt_free,
	.decode = bts_tnt_decode,
};

/* The reader's tnt decoder, from the start: see trace/tnt_ops.h. */
__attribute__((constructor)) static void hand_over(void)
{
	bts_tnt_decoder = &decoder;
}
