// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The address-keyed hash table (util/addr_table.h). */
#include <stdlib.h>
#include <string.h>

#include "util/addr_table.h"
#include "internal.h"

/* The slot of @key in @slots, or the empty slot where it belongs. */
static unsigned char *probe(unsigned char *slots, size_t esize, size_t mask,
			    uint64_t key)
{
	size_t i = bts_addr_table_home(key, mask);
	uint64_t k;

	while ((k = bts_addr_table_key(slots + i * esize)) && k != key)
		i = (i + 1) & mask;
	return slots + i * esize;
}

void bts_addr_table_init(struct bts_addr_table *t, size_t esize,
			 size_t min_slots)
{
	*t = (struct bts_addr_table){ .esize = esize, .min_slots = min_slots };
}

void bts_addr_table_fini(struct bts_addr_table *t)
{
	free(t->slots);
	bts_addr_table_init(t, t->esize, t->min_slots);
}

void bts_addr_table_clear(struct bts_addr_table *t)
{
	if (t->slots)
		memset(t->slots, 0, (t->mask + 1) * t->esize);
	t->used = 0;
}

static int grow(struct bts_addr_table *t)
{
	size_t n = t->slots ? (t->mask + 1) * 2 : t->min_slots, i;
	unsigned char *slots = calloc(n, t->esize), *e;

	if (!slots)
		return bts_fail(BTS_E_NOMEM, "a table of %zu entries", n);
	for (i = 0; i < bts_addr_table_nslots(t); i++) {
		e = bts_addr_table_at(t, i);
		if (e)
			memcpy(probe(slots, t->esize, n - 1, bts_addr_table_key(e)),
			       e, t->esize);
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
	if ((!t->slots || 2 * (t->used + 1) > t->mask + 1) && grow(t))
		return NULL;
	e = probe(t->slots, t->esize, t->mask, key);
	if (!bts_addr_table_key(e)) {
		memset(e, 0, t->esize);
		memcpy(e, &key, sizeof(key));
		t->used++;
	}
	return e;
}

/*
 * Whether the entry at slot @j, whose home is @home, may move back to the
 * hole at @i: when its probe chain passes @i, i.e. its home is not in the
 * cyclic range (@i, @j].
 */
static int may_fill(size_t i, size_t j, size_t home)
{
	return i <= j ? home <= i || home > j : home <= i && home > j;
}

void bts_addr_table_del(struct bts_addr_table *t, void *entry)
{
	size_t esize = t->esize, i = (size_t)((unsigned char *)entry - t->slots) / esize, j = i;
	unsigned char *e;

	memset(entry, 0, sizeof(uint64_t));
	t->used--;
	for (;;) {
		j = (j + 1) & t->mask;
		e = bts_addr_table_at(t, j);
		if (!e)
			return;
		if (may_fill(i, j, bts_addr_table_home(bts_addr_table_key(e), t->mask))) {
			memcpy(t->slots + i * esize, e, esize);
			memset(e, 0, sizeof(uint64_t));
			i = j;
		}
	}
}
