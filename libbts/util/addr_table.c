// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The address-keyed hash table behind libbts's code caches. */
#include <stdlib.h>
#include <string.h>

#include "util/addr_table.h"
#include "internal.h"

static uint64_t key_of(const unsigned char *entry)
{
	uint64_t key;

	memcpy(&key, entry, sizeof(key));
	return key;
}

/* Fibonacci hashing: nearby code addresses land far apart. */
static size_t slot_of(uint64_t key, size_t mask)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

static unsigned char *probe(unsigned char *slots, size_t esize, size_t mask,
			    uint64_t key)
{
	size_t i = slot_of(key, mask);
	uint64_t k;

	while ((k = key_of(slots + i * esize)) && k != key)
		i = (i + 1) & mask;
	return slots + i * esize;
}

int bts_addr_table_init(struct bts_addr_table *t, size_t esize,
			size_t min_slots)
{
	t->slots = calloc(min_slots, esize);
	if (!t->slots)
		return bts_fail(BTS_E_NOMEM, "a cache of %zu entries", min_slots);
	t->esize = esize;
	t->mask = min_slots - 1;
	t->used = 0;
	return 0;
}

void bts_addr_table_fini(struct bts_addr_table *t)
{
	free(t->slots);
	t->slots = NULL;
}

void bts_addr_table_clear(struct bts_addr_table *t)
{
	memset(t->slots, 0, (t->mask + 1) * t->esize);
	t->used = 0;
}

void *bts_addr_table_get(const struct bts_addr_table *t, uint64_t key)
{
	unsigned char *e;

	if (!key)
		return NULL;
	e = probe(t->slots, t->esize, t->mask, key);
	return key_of(e) ? e : NULL;
}

static int grow(struct bts_addr_table *t)
{
	size_t n = (t->mask + 1) * 2, i;
	unsigned char *slots = calloc(n, t->esize), *e;

	if (!slots)
		return bts_fail(BTS_E_NOMEM, "a cache of %zu entries", n);
	for (i = 0; i <= t->mask; i++) {
		e = t->slots + i * t->esize;
		if (key_of(e))
			memcpy(probe(slots, t->esize, n - 1, key_of(e)), e, t->esize);
	}
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
}

void *bts_addr_table_put(struct bts_addr_table *t, uint64_t key)
{
	unsigned char *e;

	if (!key)
		return NULL;
	if (2 * (t->used + 1) > t->mask + 1 && grow(t))
		return NULL;
	e = probe(t->slots, t->esize, t->mask, key);
	if (!key_of(e)) {
		memset(e, 0, t->esize);
		memcpy(e, &key, sizeof(key));
		t->used++;
	}
	return e;
}
