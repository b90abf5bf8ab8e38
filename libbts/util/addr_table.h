/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A hash table of fixed-size entries keyed by a code address, for the
 * caches that make a repeated instruction or block cost O(1).  Each entry
 * starts with its uint64_t key; 0 marks an empty slot (no code lives at 0).
 * Open addressing, linear probing, at most half full.
 */
#ifndef BTS_ADDR_TABLE_H
#define BTS_ADDR_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct bts_addr_table {
	unsigned char *slots;
	size_t esize;		/* bytes per entry, key included */
	size_t mask;		/* slots - 1 */
	size_t used;
};

/* @min_slots a power of two.  0, or -BTS_E_NOMEM. */
int bts_addr_table_init(struct bts_addr_table *t, size_t esize,
			size_t min_slots);
void bts_addr_table_fini(struct bts_addr_table *t);
void bts_addr_table_clear(struct bts_addr_table *t);
/* The entry of @key, or NULL. */
void *bts_addr_table_get(const struct bts_addr_table *t, uint64_t key);
/*
 * The entry of @key, created (zeroed but for the key) when missing; NULL
 * for key 0 or when the table cannot grow.  Pointers into the table are
 * valid until the next put.
 */
void *bts_addr_table_put(struct bts_addr_table *t, uint64_t key);

#endif /* BTS_ADDR_TABLE_H */
