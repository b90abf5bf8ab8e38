// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libbts's plumbing (util/): the growable array, the options reader and
 * the address-keyed hash table.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bts_internal.h"
#include "harness.h"

/* ------------------------------------------------------------------ array */

TEST(util_array, grows_by_doubling_from_sixteen)
{
	uint32_t *v = NULL;
	size_t cap = 0, n;

	ASSERT_EQ(BTS_ARRAY_RESERVE(v, cap, 0), 0);
	EXPECT_TRUE(v == NULL);		/* nothing asked, nothing allocated */
	EXPECT_EQ(cap, 0u);
	ASSERT_EQ(BTS_ARRAY_RESERVE(v, cap, 1), 0);
	EXPECT_EQ(cap, (size_t)BTS_ARRAY_MIN);
	for (n = 0; n < 1000; n++) {
		ASSERT_EQ(BTS_ARRAY_RESERVE(v, cap, n + 1), 0);
		v[n] = (uint32_t)n * 7;
	}
	EXPECT_EQ(cap, 1024u);		/* 16, 32, ..., 1024 */
	for (n = 0; n < 1000; n++)
		ASSERT_EQ(v[n], n * 7);
	free(v);
}

TEST(util_array, a_large_need_is_met_at_once)
{
	char *v = NULL;
	size_t cap = 0;

	ASSERT_EQ(BTS_ARRAY_RESERVE(v, cap, 5000), 0);
	EXPECT_EQ(cap, 5000u);
	v[4999] = 1;
	ASSERT_EQ(BTS_ARRAY_RESERVE(v, cap, 5001), 0);
	EXPECT_EQ(cap, 10000u);
	/* room there already: nothing moves */
	char *before = v;

	ASSERT_EQ(BTS_ARRAY_RESERVE(v, cap, 10000), 0);
	EXPECT_TRUE(v == before);
	free(v);
}

TEST(util_array, overflow_fails_and_keeps_the_array)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	ASSERT_EQ(BTS_ARRAY_RESERVE(v, cap, 4), 0);
	v[3] = 42;
	EXPECT_EQ(BTS_ARRAY_RESERVE(v, cap, SIZE_MAX / 4), -1);
	EXPECT_EQ(cap, (size_t)BTS_ARRAY_MIN);
	EXPECT_EQ(v[3], 42u);
	free(v);
}

/* ------------------------------------------------------------------ opts */

/* An options struct as a caller built against this libbts sees it... */
struct t_opts {
	size_t sz;
	int a;
	uint64_t b;
	const char *c;
};

/* ...and as one built against a newer libbts, with a field more. */
struct t_opts_newer {
	struct t_opts old;
	uint64_t d;
};

static int valid(const struct t_opts *o)
{
	return BTS_OPTS_VALID(o, "test options");
}

TEST(util_opts, null_means_every_default)
{
	const struct t_opts *o = NULL;

	EXPECT_EQ(valid(o), 0);
	EXPECT_FALSE(BTS_OPTS_HAS(o, a));
	EXPECT_EQ(BTS_OPTS_GET(o, a, 7), 7);
	EXPECT_TRUE(BTS_OPTS_GET(o, c, NULL) == NULL);
}

TEST(util_opts, a_whole_struct_reads_every_field)
{
	BTS_OPTS(t_opts, o, .a = 3, .b = 4, .c = "five");

	EXPECT_EQ(valid(&o), 0);
	EXPECT_EQ(BTS_OPTS_GET(&o, a, 0), 3);
	EXPECT_EQ(BTS_OPTS_GET(&o, b, 0), 4u);
	EXPECT_STREQ(BTS_OPTS_GET(&o, c, NULL), "five");
}

TEST(util_opts, fields_past_an_older_size_are_absent)
{
	BTS_OPTS(t_opts, o, .a = 3, .b = 4, .c = "five");

	o.sz = bts_offsetofend(struct t_opts, a);
	EXPECT_EQ(valid(&o), 0);
	EXPECT_TRUE(BTS_OPTS_HAS(&o, a));
	EXPECT_FALSE(BTS_OPTS_HAS(&o, b));
	EXPECT_EQ(BTS_OPTS_GET(&o, a, 0), 3);
	EXPECT_EQ(BTS_OPTS_GET(&o, b, 99), 99u);
	EXPECT_TRUE(BTS_OPTS_GET(&o, c, NULL) == NULL);
}

TEST(util_opts, a_half_present_field_is_absent)
{
	BTS_OPTS(t_opts, o, .a = 3, .b = 4, .c = "five");

	/* @sz ends inside b: b is not read, a is */
	o.sz = offsetof(struct t_opts, b) + 4;
	EXPECT_EQ(valid(&o), 0);
	EXPECT_TRUE(BTS_OPTS_HAS(&o, a));
	EXPECT_FALSE(BTS_OPTS_HAS(&o, b));
	EXPECT_EQ(BTS_OPTS_GET(&o, b, 99), 99u);
	/* one byte short of the last field */
	o.sz = sizeof(o) - 1;
	EXPECT_EQ(valid(&o), 0);
	EXPECT_TRUE(BTS_OPTS_HAS(&o, b));
	EXPECT_FALSE(BTS_OPTS_HAS(&o, c));
}

TEST(util_opts, a_newer_struct_with_a_zero_tail_reads)
{
	struct t_opts_newer n = { .old = { .sz = sizeof(n), .a = 3 } };

	EXPECT_EQ(valid(&n.old), 0);
	EXPECT_EQ(BTS_OPTS_GET(&n.old, a, 0), 3);
}

TEST(util_opts, a_newer_struct_with_a_field_set_is_refused)
{
	struct t_opts_newer n = { .old = { .sz = sizeof(n), .a = 3 }, .d = 1 };

	EXPECT_EQ(valid(&n.old), -BTS_E_INVAL);
	EXPECT_TRUE(strstr(bts_errdetail(), "test options") != NULL);
	EXPECT_TRUE(strstr(bts_errdetail(), "unknown field") != NULL);
	/* only its last byte set: still refused */
	n.d = 1ULL << 63;
	EXPECT_EQ(valid(&n.old), -BTS_E_INVAL);
	/* set, but past the size the caller gave: not looked at */
	n.old.sz = sizeof(n.old);
	EXPECT_EQ(valid(&n.old), 0);
}

TEST(util_opts, a_size_without_its_own_field_is_refused)
{
	BTS_OPTS(t_opts, o, .a = 3);

	o.sz = 0;
	EXPECT_EQ(valid(&o), -BTS_E_INVAL);
	o.sz = sizeof(size_t) - 1;
	EXPECT_EQ(valid(&o), -BTS_E_INVAL);
	o.sz = sizeof(size_t);
	EXPECT_EQ(valid(&o), 0);
	EXPECT_FALSE(BTS_OPTS_HAS(&o, a));
}

/* Sessions follow the rule (decoders: test_decode.c). */
TEST(util_opts, a_session_refuses_a_set_unknown_field)
{
	struct {
		struct bts_session_opts o;
		uint64_t more;
	} big = { .o = { .sz = sizeof(big) }, .more = 1 };
	struct bts_session_opts taken;
	char *argv[] = { (char *)"/bin/true", NULL };
	struct bts_session *s = NULL;

	EXPECT_EQ(bts_session_opts_take(&big.o, &taken), -BTS_E_INVAL);
	EXPECT_EQ(bts_session_new_spawn(argv, &big.o, &s), -BTS_E_INVAL);
	EXPECT_TRUE(s == NULL);
	EXPECT_TRUE(strstr(bts_errdetail(), "session options") != NULL);
	big.more = 0;
	EXPECT_EQ(bts_session_opts_take(&big.o, &taken), 0);
}

TEST(util_opts, session_options_take_whole_fields_only)
{
	BTS_OPTS(bts_session_opts, o, .source = 3, .mode = PTBTS_MODE_RING,
		 .buffer_size = 1 << 20, .max_size = 77);
	struct bts_session_opts t;

	ASSERT_EQ(bts_session_opts_take(&o, &t), 0);
	EXPECT_EQ(t.sz, sizeof(t));
	EXPECT_EQ(t.source, 3);
	EXPECT_EQ(t.buffer_size, 1u << 20);
	EXPECT_EQ(t.max_size, 77u);
	/* cut inside buffer_size: mode is read, buffer_size and on are not */
	o.sz = offsetof(struct bts_session_opts, buffer_size) + 2;
	ASSERT_EQ(bts_session_opts_take(&o, &t), 0);
	EXPECT_EQ(t.mode, PTBTS_MODE_RING);
	EXPECT_EQ(t.buffer_size, 0u);
	EXPECT_EQ(t.max_size, 0u);
	ASSERT_EQ(bts_session_opts_take(NULL, &t), 0);
	EXPECT_EQ(t.source, 0);
	EXPECT_EQ(t.sz, sizeof(t));
}

/* ------------------------------------------------------------ addr table */

struct t_entry {
	uint64_t key;
	uint32_t val;
};

/* @n distinct keys whose home slot in a table of @slots is slot 5. */
static void colliding(uint64_t *keys, size_t n, size_t slots)
{
	uint64_t k;
	size_t i = 0;

	for (k = 1; i < n; k++)
		if (bts_addr_table_home(k, slots - 1) == 5)
			keys[i++] = k;
}

TEST(util_addr_table, put_get_and_key_zero)
{
	struct bts_addr_table t;
	struct t_entry *e;

	bts_addr_table_init(&t, sizeof(struct t_entry), 16);
	EXPECT_TRUE(bts_addr_table_get(&t, 0x1000) == NULL);
	EXPECT_EQ(bts_addr_table_nslots(&t), 0u);	/* nothing allocated yet */
	EXPECT_TRUE(bts_addr_table_put(&t, 0) == NULL);
	e = bts_addr_table_put(&t, 0x1000);
	ASSERT_TRUE(e != NULL);
	EXPECT_EQ(e->key, 0x1000u);
	EXPECT_EQ(e->val, 0u);			/* zeroed but for the key */
	e->val = 9;
	EXPECT_TRUE(bts_addr_table_put(&t, 0x1000) == e);	/* no second entry */
	EXPECT_EQ(t.used, 1u);
	EXPECT_EQ(((struct t_entry *)bts_addr_table_get(&t, 0x1000))->val, 9u);
	EXPECT_TRUE(bts_addr_table_get(&t, 0) == NULL);
	EXPECT_EQ(bts_addr_table_nslots(&t), 16u);
	bts_addr_table_clear(&t);
	EXPECT_TRUE(bts_addr_table_get(&t, 0x1000) == NULL);
	EXPECT_EQ(t.used, 0u);
	bts_addr_table_fini(&t);
}

TEST(util_addr_table, grows_at_half_full_and_keeps_every_entry)
{
	struct bts_addr_table t;
	struct t_entry *e;
	uint64_t k;

	bts_addr_table_init(&t, sizeof(struct t_entry), 16);
	for (k = 1; k <= 8; k++)
		((struct t_entry *)bts_addr_table_put(&t, k * 64))->val = (uint32_t)k;
	EXPECT_EQ(bts_addr_table_nslots(&t), 16u);	/* 8 of 16: half */
	((struct t_entry *)bts_addr_table_put(&t, 9 * 64))->val = 9;
	EXPECT_EQ(bts_addr_table_nslots(&t), 32u);
	for (k = 10; k <= 5000; k++)
		((struct t_entry *)bts_addr_table_put(&t, k * 64))->val = (uint32_t)k;
	EXPECT_EQ(t.used, 5000u);
	EXPECT_EQ(bts_addr_table_nslots(&t), 16384u);
	for (k = 1; k <= 5000; k++) {
		e = bts_addr_table_get(&t, k * 64);
		ASSERT_TRUE(e != NULL);
		ASSERT_EQ(e->val, k);
		ASSERT_TRUE(bts_addr_table_get(&t, k * 64 + 1) == NULL);
	}
	bts_addr_table_fini(&t);
}

TEST(util_addr_table, delete_shifts_a_probe_chain_back)
{
	struct bts_addr_table t;
	uint64_t keys[4];
	struct t_entry *e;
	size_t i;

	colliding(keys, 4, 16);
	bts_addr_table_init(&t, sizeof(struct t_entry), 16);
	for (i = 0; i < 4; i++)
		((struct t_entry *)bts_addr_table_put(&t, keys[i]))->val = (uint32_t)i;
	/* one chain: slots 5, 6, 7, 8 in the order put */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 5 + i)), keys[i]);
	bts_addr_table_del(&t, bts_addr_table_get(&t, keys[1]));
	EXPECT_EQ(t.used, 3u);
	/* the later ones moved back: no hole that would end a probe early */
	EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 6)), keys[2]);
	EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 7)), keys[3]);
	EXPECT_TRUE(bts_addr_table_at(&t, 8) == NULL);
	EXPECT_TRUE(bts_addr_table_get(&t, keys[1]) == NULL);
	for (i = 0; i < 4; i++) {
		e = bts_addr_table_get(&t, keys[i]);
		if (i == 1)
			continue;
		ASSERT_TRUE(e != NULL);
		EXPECT_EQ(e->val, i);
	}
	bts_addr_table_fini(&t);
}

TEST(util_addr_table, delete_keeps_an_entry_at_its_home)
{
	struct bts_addr_table t;
	uint64_t keys[2], other = 0, k;

	colliding(keys, 2, 16);
	/* a key whose home is slot 7, right after the chain of two */
	for (k = 1; !other; k++)
		if (bts_addr_table_home(k, 15) == 7)
			other = k;
	bts_addr_table_init(&t, sizeof(struct t_entry), 16);
	bts_addr_table_put(&t, keys[0]);	/* slot 5 */
	bts_addr_table_put(&t, keys[1]);	/* slot 6 */
	bts_addr_table_put(&t, other);		/* slot 7: its home */
	bts_addr_table_del(&t, bts_addr_table_get(&t, keys[0]));
	EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 5)), keys[1]);
	EXPECT_TRUE(bts_addr_table_at(&t, 6) == NULL);
	EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 7)), other);
	EXPECT_TRUE(bts_addr_table_get(&t, other) != NULL);
	EXPECT_TRUE(bts_addr_table_get(&t, keys[1]) != NULL);
	bts_addr_table_fini(&t);
}

TEST(util_addr_table, delete_wraps_around_the_end)
{
	struct bts_addr_table t;
	uint64_t keys[3], k;
	size_t i = 0;

	for (k = 1; i < 3; k++)
		if (bts_addr_table_home(k, 15) == 15)
			keys[i++] = k;
	bts_addr_table_init(&t, sizeof(struct t_entry), 16);
	for (i = 0; i < 3; i++)
		bts_addr_table_put(&t, keys[i]);	/* slots 15, 0, 1 */
	EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 0)), keys[1]);
	bts_addr_table_del(&t, bts_addr_table_get(&t, keys[0]));
	EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 15)), keys[1]);
	EXPECT_EQ(bts_addr_table_key(bts_addr_table_at(&t, 0)), keys[2]);
	EXPECT_TRUE(bts_addr_table_at(&t, 1) == NULL);
	EXPECT_TRUE(bts_addr_table_get(&t, keys[2]) != NULL);
	bts_addr_table_fini(&t);
}

/* ------------------------------------------------------------- warnings */

static void add(struct bts_warnings *w, bool once, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bts_warnings_vadd(w, once, fmt, ap);
	va_end(ap);
}

TEST(util_warnings, in_order_and_once_when_asked)
{
	struct bts_warnings w = { 0 };

	add(&w, true, "%s: cannot open", "/a");
	add(&w, true, "%s: cannot open", "/a");
	add(&w, false, "%s: cannot open", "/b");
	add(&w, false, "%s: cannot open", "/b");
	EXPECT_EQ(w.n, 3u);
	EXPECT_STREQ(bts_warnings_get(&w, 0), "/a: cannot open");
	EXPECT_STREQ(bts_warnings_get(&w, 1), "/b: cannot open");
	EXPECT_STREQ(bts_warnings_get(&w, 2), "/b: cannot open");
	EXPECT_TRUE(bts_warnings_get(&w, 3) == NULL);
	bts_warnings_free(&w);
	EXPECT_EQ(w.n, 0u);
}
