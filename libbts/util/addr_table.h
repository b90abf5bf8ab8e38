/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The hash table of libbts: fixed-size entries keyed by a code address,
 * for the caches that make a repeated instruction or block cost O(1) and
 * for the breakpoints a source planted.  Each entry starts with its
 * uint64_t key; 0 marks an empty slot (no code lives at 0), so key 0 is
 * never stored.  Open addressing with linear probing, at most half full;
 * deletion shifts the entries after it back, so no tombstones slow the
 * probes down.  The slots are allocated on the first put.
 */
#ifndef BTS_ADDR_TABLE_H
#define BTS_ADDR_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct bts_addr_table {
	unsigned char *slots;	/* NULL until the first put */
	size_t esize;		/* bytes per entry, key included */
	size_t min_slots;	/* the first allocation, a power of two */
	size_t mask;		/* slots - 1, once there are slots */
	size_t used;
};

/* An empty table; @min_slots a power of two.  Allocates nothing. */
void bts_addr_table_init(struct bts_addr_table *t, size_t esize,
			 size_t min_slots);
void bts_addr_table_fini(struct bts_addr_table *t);
/* Forgets every entry, keeping the slots. */
void bts_addr_table_clear(struct bts_addr_table *t);
/*
 * The entry of @key, created (zeroed but for the key) when missing; NULL
 * for key 0 or when the table cannot grow (with a BTS_E_NOMEM detail).
 * Pointers into the table are valid until the next put or delete.
 */
void *bts_addr_table_put(struct bts_addr_table *t, uint64_t key);
/*
 * Deletes @entry (a pointer into the table).  Entries after it may move
 * back, into @entry's slot among others.
 */
void bts_addr_table_del(struct bts_addr_table *t, void *entry);

static inline uint64_t bts_addr_table_key(const void *entry)
{
	uint64_t key;

	memcpy(&key, entry, sizeof(key));
	return key;
}

/* The home slot of @key: Fibonacci hashing sends nearby addresses far apart. */
static inline size_t bts_addr_table_home(uint64_t key, size_t mask)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

/* The entry of @key, or NULL.  Inline: the decoders call it per record. */
static inline void *bts_addr_table_get(const struct bts_addr_table *t,
				       uint64_t key)
{
	size_t i;
	uint64_t k;

	if (!t->used || !key)
		return NULL;
	for (i = bts_addr_table_home(key, t->mask);
	     (k = bts_addr_table_key(t->slots + i * t->esize)); i = (i + 1) & t->mask)
		if (k == key)
			return t->slots + i * t->esize;
	return NULL;
}

/* Slots to walk with bts_addr_table_at(): 0 before the first put. */
static inline size_t bts_addr_table_nslots(const struct bts_addr_table *t)
{
	return t->slots ? t->mask + 1 : 0;
}

/* The entry in slot @i (< nslots), or NULL when the slot is empty. */
static inline void *bts_addr_table_at(const struct bts_addr_table *t, size_t i)
{
	unsigned char *e = t->slots + i * t->esize;

	return bts_addr_table_key(e) ? e : NULL;
}

#endif /* BTS_ADDR_TABLE_H */
