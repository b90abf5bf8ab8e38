// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The index of a history (bts_index_*, the INDEX chunk, btrace index):
 * a decoder sought to any entry hands out exactly the entries a walk from
 * the start hands out there, at every point of the index and on either
 * side of it, in every thread; a point's depth and return sites are the
 * walk's; the file's chunk is the index built in memory; dump --insns
 * windows print the same with and without it; a damaged chunk is refused
 * with the offset and what is wrong, and btrace index leaves a file it
 * cannot index as it was; btrace record writes the index into the file
 * it completes.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bts.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

#define TIMEOUT 300
/* Small, so that a short recording has many points. */
#define INTERVAL 16

/* Recorded without the index btrace record writes, to build ours. */
static const char *const unindexed[] = { "--no-index", NULL };

/* What a walk from the start gave, entry by entry (entry n at [n - 1]). */
struct walk {
	struct bts_insn_entry *e;
	int64_t *depth;		/* frames entered minus left before entry n */
	uint64_t **sites;	/* the return sites then, innermost first */
	size_t *nsites;
	size_t n;
};

/* Stack @i is stack @i - 1 with @push (of @npush) on top, less @pop. */
static void push_site(struct walk *w, size_t i, const uint64_t *push,
		      size_t npush, bool pop)
{
	const uint64_t *prev = w->sites[i - 1];
	size_t nprev = w->nsites[i - 1];
	size_t drop = pop && nprev + npush ? 1 : 0;
	size_t n = nprev + npush - drop;
	uint64_t *all = malloc((nprev + npush + 1) * sizeof(uint64_t));

	ASSERT_TRUE(all != NULL);
	/* Innermost first: the last pushed on top. */
	for (size_t k = 0; k < npush; k++)
		all[k] = push[npush - 1 - k];
	memcpy(all + npush, prev, nprev * sizeof(uint64_t));
	memmove(all, all + drop, n * sizeof(uint64_t));
	w->sites[i] = all;
	w->nsites[i] = n;
}

/*
 * Entry @e's frames: a signal enters two (the interrupted pc, then the
 * signal frame, site 0; none known when nothing ran before), a taken
 * call one, a return or sigreturn leaves one.
 */
static void walk_step(struct walk *w, size_t i, const struct bts_insn_entry *e,
		      uint64_t end)
{
	uint64_t push[3];
	size_t npush = 0;
	int64_t d = w->depth[i];
	bool call = e->iclass == BTS_ICLASS_CALL && (e->flags & BTS_IF_TAKEN);
	bool pop = e->iclass == BTS_ICLASS_RETURN ||
		   (e->flags & BTS_IF_SIGRETURN);

	if (e->flags & BTS_IF_SIGNAL) {
		d += 2;
		if (end) {
			push[npush++] = end;
			push[npush++] = BTS_INDEX_SIGNAL_FRAME;
		}
	}
	if (call)
		push[npush++] = e->ip + e->size;
	w->depth[i + 1] = d + call - pop;
	push_site(w, i + 1, push, npush, pop);
}

/* The whole history of @thread, with the depth and stack before each entry. */
static void walk_all(const struct bts_trace *t, size_t thread, struct walk *w)
{
	struct bts_insn_decoder *d;
	struct bts_insn_entry e;
	size_t cap = 1024;
	uint64_t end = 0;
	int ret;

	memset(w, 0, sizeof(*w));
	ASSERT_EQ(bts_insn_decoder_new(t, thread, NULL, &d), 0);
	w->e = malloc(cap * sizeof(*w->e));
	w->depth = malloc((cap + 1) * sizeof(*w->depth));
	w->sites = malloc((cap + 1) * sizeof(*w->sites));
	w->nsites = malloc((cap + 1) * sizeof(*w->nsites));
	w->depth[0] = 0;
	w->sites[0] = malloc(sizeof(uint64_t));
	w->nsites[0] = 0;
	while ((ret = bts_insn_next(d, &e, sizeof(e))) > 0) {
		size_t i = w->n++;

		if (w->n + 1 > cap) {
			cap *= 2;
			w->e = realloc(w->e, cap * sizeof(*w->e));
			w->depth = realloc(w->depth, (cap + 1) * sizeof(*w->depth));
			w->sites = realloc(w->sites, (cap + 1) * sizeof(*w->sites));
			w->nsites = realloc(w->nsites, (cap + 1) * sizeof(*w->nsites));
			ASSERT_TRUE(w->e && w->depth && w->sites && w->nsites);
		}
		ASSERT_EQ(e.index, (uint64_t)w->n);
		e.raw = NULL;
		w->e[i] = e;
		walk_step(w, i, &e, end);
		end = e.iclass == BTS_ICLASS_GAP ? e.gap_arg : e.ip + e.size;
	}
	ASSERT_EQ(ret, 0);
	bts_insn_decoder_free(d);
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i <= w->n; i++)
		free(w->sites[i]);
	free(w->sites);
	free(w->nsites);
	free(w->depth);
	free(w->e);
}

/* The next @k entries of @d are the walk's from entry @from (from 1). */
static void expect_from(struct bts_insn_decoder *d, const struct walk *w,
			uint64_t from, unsigned int k)
{
	struct bts_insn_entry e;

	for (unsigned int i = 0; i < k; i++) {
		const struct bts_insn_entry *want = &w->e[from - 1 + i];
		int ret = bts_insn_next(d, &e, sizeof(e));

		if (from + i > w->n) {
			ASSERT_EQ(ret, 0);
			return;
		}
		ASSERT_EQ(ret, 1);
		ASSERT_EQ(e.index, want->index);
		ASSERT_EQ(e.ip, want->ip);
		ASSERT_EQ(e.iclass, want->iclass);
		ASSERT_EQ(e.flags, want->flags);
		ASSERT_EQ(e.gap, want->gap);
		ASSERT_EQ(e.gap_arg, want->gap_arg);
	}
}

static struct bts_index *index_of(const struct bts_trace *t, size_t thread,
				  bool rebuild)
{
	struct bts_index_opts o = {
		.sz = sizeof(o), .interval = INTERVAL, .rebuild = rebuild,
	};
	struct bts_index *ix;

	ASSERT_EQ(bts_index_new(t, thread, &o, &ix), 0);
	return ix;
}

/*
 * Every point's depth and sites are the walk's; one decoder sought to
 * each point, one entry on either side and back again gives the walk's
 * entries there.
 */
static void check_thread(const struct bts_trace *t, size_t thread)
{
	struct bts_insn_decoder *d;
	struct bts_index *ix = index_of(t, thread, false);
	struct walk w;
	size_t np = bts_index_npoints(ix);

	walk_all(t, thread, &w);
	ASSERT_EQ(bts_index_entries(ix), (uint64_t)w.n);
	ASSERT_GT(np, (size_t)2);
	ASSERT_EQ(bts_insn_decoder_new(t, thread, NULL, &d), 0);
	for (size_t i = 0; i < np; i++) {
		struct bts_index_point pt;
		size_t ns;

		ASSERT_EQ(bts_index_point(ix, i, &pt, sizeof(pt)), 0);
		ASSERT_LE(pt.entry, (uint64_t)w.n);
		ASSERT_EQ(pt.depth, w.depth[pt.entry]);
		ns = w.nsites[pt.entry] < BTS_INDEX_SITES ? w.nsites[pt.entry]
							   : BTS_INDEX_SITES;
		ASSERT_EQ(pt.nsites, ns);
		for (size_t k = 0; k < ns; k++)
			ASSERT_EQ(pt.sites[k], w.sites[pt.entry][k]);
		for (uint64_t at = pt.entry ? pt.entry : 1; at <= pt.entry + 2; at++) {
			ASSERT_EQ(bts_insn_decoder_seek(d, ix, at), 0);
			expect_from(d, &w, at, 3);
		}
	}
	/* Backwards, to the first entry and past the last. */
	ASSERT_EQ(bts_insn_decoder_seek(d, ix, 1), 0);
	expect_from(d, &w, 1, 3);
	ASSERT_EQ(bts_insn_decoder_seek(d, ix, w.n), 0);
	expect_from(d, &w, w.n, 2);
	ASSERT_EQ(bts_insn_decoder_seek(d, ix, w.n + 5), 0);
	EXPECT_EQ(bts_insn_next(d, &(struct bts_insn_entry){ 0 }, sizeof(struct bts_insn_entry)), 0);
	bts_insn_decoder_free(d);
	bts_index_free(ix);
	walk_free(&w);
}

TEST(trace_index, seek_gives_the_entries_of_a_walk_from_the_start)
{
	struct harness_cmd rec;
	char *btr = raw_record("skip-qsort", unindexed, 0, &rec);
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	check_thread(t, 0);
	bts_trace_free(t);
	harness_cmd_free(&rec);
	free(btr);
}

TEST(trace_index, every_thread_seeks_in_its_own_history)
{
	struct harness_cmd rec;
	char *btr = raw_record("threads-count", unindexed, 0, &rec);
	struct bts_index *ix;
	struct bts_insn_decoder *d;
	struct bts_trace *t;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)5);
	for (size_t i = 0; i < bts_trace_nthreads(t); i++)
		check_thread(t, i);
	/* One thread's index does not seek another's decoder. */
	ix = index_of(t, 1, false);
	ASSERT_EQ(bts_insn_decoder_new(t, 2, NULL, &d), 0);
	EXPECT_EQ(bts_insn_decoder_seek(d, ix, 10), -BTS_E_INVAL);
	EXPECT_STREQ(bts_errdetail(), "decoder seek: the index of another thread");
	bts_insn_decoder_free(d);
	bts_index_free(ix);
	bts_trace_free(t);
	harness_cmd_free(&rec);
	free(btr);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	ASSERT_TRUE(buf != NULL);
	ASSERT_EQ(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

static char *spill(const char *name, const uint8_t *buf, size_t len)
{
	char *path = harness_path(harness_tmpdir(), name);
	FILE *f = fopen(path, "wb");

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fwrite(buf, 1, len, f), len);
	ASSERT_EQ(fclose(f), 0);
	return path;
}

/* The offset of the first chunk of @type in the file @buf. */
static size_t chunk_at(const uint8_t *buf, size_t len, uint32_t type)
{
	for (size_t off = 16; off + 8 <= len;) {
		uint32_t h[2];

		memcpy(h, buf + off, 8);
		if ((le32toh(h[0]) & 0xffff) == type)
			return off;
		off += 8 + le32toh(h[1]);
		off += (8 - off % 8) % 8;
	}
	FAIL("no chunk of type %u", type);
	return 0;
}

/* @plain's unindexed bytes, and @btr indexed in place with INTERVAL. */
static char *indexed_pair(const char *prog, char **plain)
{
	struct bts_index_opts o = { .sz = sizeof(o), .interval = INTERVAL };
	struct harness_cmd rec;
	char *btr = raw_record(prog, unindexed, 0, &rec);
	uint8_t *buf;
	size_t len;

	buf = slurp(btr, &len);
	*plain = spill("plain.btr", buf, len);
	free(buf);
	ASSERT_EQ(bts_trace_index_file(btr, &o), 0);
	harness_cmd_free(&rec);
	return btr;
}

static void expect_points_equal(const struct bts_index *a,
				const struct bts_index *b)
{
	ASSERT_EQ(bts_index_npoints(a), bts_index_npoints(b));
	ASSERT_EQ(bts_index_entries(a), bts_index_entries(b));
	for (size_t i = 0; i < bts_index_npoints(a); i++) {
		struct bts_index_point p, q;

		ASSERT_EQ(bts_index_point(a, i, &p, sizeof(p)), 0);
		ASSERT_EQ(bts_index_point(b, i, &q, sizeof(q)), 0);
		ASSERT_EQ(p.record, q.record);
		ASSERT_EQ(p.entry, q.entry);
		ASSERT_EQ(p.depth, q.depth);
		ASSERT_EQ(p.nsites, q.nsites);
		for (size_t k = 0; k < p.nsites; k++)
			ASSERT_EQ(p.sites[k], q.sites[k]);
	}
}

TEST(trace_index, the_file_chunk_is_the_index_built_in_memory)
{
	char *plain, *btr = indexed_pair("threads-count", &plain);
	struct bts_index_opts only = { .sz = sizeof(only), .file_only = true };
	struct bts_trace *t, *old;
	struct bts_index *ix;

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_new(plain, &old), 0);
	ASSERT_EQ(bts_trace_nthreads(t), bts_trace_nthreads(old));
	for (size_t i = 0; i < bts_trace_nthreads(t); i++) {
		EXPECT_EQ(bts_trace_thread(t, i)->nrecords,
			  bts_trace_thread(old, i)->nrecords);
		struct bts_index *file = index_of(t, i, false);
		struct bts_index *built = index_of(t, i, true);

		EXPECT_TRUE(bts_index_from_file(file));
		EXPECT_FALSE(bts_index_from_file(built));
		expect_points_equal(file, built);
		bts_index_free(built);
		bts_index_free(file);
		/* Without the chunk: none unless built. */
		ASSERT_EQ(bts_index_new(old, i, &only, &ix), 0);
		EXPECT_TRUE(ix == NULL);
	}
	bts_trace_free(old);
	bts_trace_free(t);
	free(plain);
	free(btr);
}

/* btrace @args... FILE prints the same for @a and @b. */
static void expect_same_dump(const char *a, const char *b, const char *o1,
			     const char *o2, const char *o3, const char *o4)
{
	const char *args[8] = { "dump", "--insns", o1, o2, o3, o4 };
	struct harness_cmd x, y;
	size_t n = 2;

	while (n < 6 && args[n])
		n++;
	args[n] = a;
	args[n + 1] = NULL;
	ASSERT_EQ(harness_btrace_argv(&x, TIMEOUT, args), 0);
	args[n] = b;
	ASSERT_EQ(harness_btrace_argv(&y, TIMEOUT, args), 0);
	EXPECT_STREQ(x.out, y.out);
	EXPECT_GT(x.out_len, (size_t)40);
	harness_cmd_free(&x);
	harness_cmd_free(&y);
}

TEST(trace_index, dump_windows_are_the_same_with_and_without_the_chunk)
{
	char *plain, *btr = indexed_pair("skip-qsort", &plain);
	struct bts_index_point pt;
	struct bts_trace *t;
	struct bts_index *ix;
	char from[32], to[32], edge[32];

	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ix = index_of(t, 0, false);
	ASSERT_GT(bts_index_npoints(ix), (size_t)10);
	ASSERT_EQ(bts_index_point(ix, 7, &pt, sizeof(pt)), 0);
	snprintf(from, sizeof(from), "%llu", (unsigned long long)pt.entry);
	snprintf(edge, sizeof(edge), "%llu", (unsigned long long)pt.entry + 1);
	snprintf(to, sizeof(to), "%llu", (unsigned long long)pt.entry + 30);
	expect_same_dump(btr, plain, "--last", "9", NULL, NULL);
	expect_same_dump(btr, plain, "--from", from, "--to", to);
	expect_same_dump(btr, plain, "--from", edge, "--to", to);
	expect_same_dump(btr, plain, "--json", "--from", from, NULL);
	expect_same_dump(btr, plain, "--last", "3", "--json", NULL);
	bts_index_free(ix);
	bts_trace_free(t);
	free(plain);
	free(btr);
}

/* @buf with the 4 bytes at @off set to @v, opened: the error detail. */
static void expect_refused(const uint8_t *buf, size_t len, size_t off,
			   uint32_t v, const char *want)
{
	uint8_t *bad = malloc(len);
	struct bts_trace *t = NULL;
	struct harness_cmd cmd;
	char *path;

	ASSERT_TRUE(bad != NULL);
	memcpy(bad, buf, len);
	v = htole32(v);
	memcpy(bad + off, &v, 4);
	path = spill("bad.btr", bad, len);
	EXPECT_EQ(bts_trace_new(path, &t), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), want);
	EXPECT_EQ(harness_btrace(&cmd, TIMEOUT, "dump", "--insns", path, NULL), 1);
	EXPECT_TRUE(strstr(cmd.err, want) != NULL);
	harness_cmd_free(&cmd);
	free(path);
	free(bad);
}

TEST(trace_index, a_damaged_index_chunk_is_refused)
{
	char *plain, *btr = indexed_pair("skip-qsort", &plain);
	char want[160];
	uint8_t *buf;
	size_t len, off, pts;

	buf = slurp(btr, &len);
	off = chunk_at(buf, len, 20);
	pts = off + 8 + 40;
	/* Point 1's record (low half) back to 0: before point 0's. */
	snprintf(want, sizeof(want), "offset %zu: index chunk: point 1: its points are out of order", off);
	expect_refused(buf, len, pts + 40, 0, want);
	snprintf(want, sizeof(want), "offset %zu: index chunk: point 0: its first point is not the start of the history", off);
	expect_refused(buf, len, pts + 8, 1, want);
	snprintf(want, sizeof(want), "offset %zu: index chunk: its points do not fit in the chunk", off);
	expect_refused(buf, len, off + 8 + 8, 0xffffff, want);
	snprintf(want, sizeof(want), "offset %zu: index chunk: its records are not the thread's", off);
	expect_refused(buf, len, off + 8 + 24, 3, want);
	snprintf(want, sizeof(want), "offset %zu: index chunk: point 2: a point keeps more return sites than the chunk allows", off);
	expect_refused(buf, len, pts + 2 * 40 + 36, 65, want);
	free(buf);
	free(plain);
	free(btr);
}

/*
 * A file's index is read again from the file a group of points at a time:
 * a point rewritten in place after the file was opened is refused, never
 * given as another; those read before stay as they were.
 */
TEST(trace_index, an_index_rewritten_after_opening_is_refused)
{
	char *plain, *btr = indexed_pair("skip-qsort", &plain);
	struct bts_index_point first, last;
	uint32_t h[2];
	size_t len, off, n;
	struct bts_index *ix;
	struct bts_trace *t;
	uint8_t *buf;
	uint64_t v;
	FILE *f;

	buf = slurp(btr, &len);
	off = chunk_at(buf, len, 20);
	memcpy(h, buf + off, 8);
	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_index_new(t, 0, NULL, &ix), 0);
	ASSERT_TRUE(bts_index_from_file(ix));
	n = bts_index_npoints(ix);
	/* More than one group: the last point is read after the change. */
	ASSERT_GT(n, (size_t)200);
	ASSERT_EQ(bts_index_point(ix, 0, &first, sizeof(first)), 0);
	ASSERT_EQ(bts_index_point(ix, n - 1, &last, sizeof(last)), 0);
	ASSERT_GT(last.nsites, (size_t)0);
	ASSERT_EQ(bts_index_point(ix, 0, &first, sizeof(first)), 0);
	/* The last return site of the chunk, the last point's outermost. */
	memcpy(&v, buf + off + 8 + le32toh(h[1]) - 8, 8);
	v ^= 0x10;
	f = fopen(btr, "r+b");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fseek(f, (long)(off + 8 + le32toh(h[1]) - 8), SEEK_SET), 0);
	ASSERT_EQ(fwrite(&v, 8, 1, f), (size_t)1);
	ASSERT_EQ(fclose(f), 0);
	EXPECT_EQ(bts_index_point(ix, n - 1, &last, sizeof(last)), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "the index changed since the trace was opened");
	ASSERT_EQ(bts_index_point(ix, 0, &first, sizeof(first)), 0);
	EXPECT_EQ(first.entry, (uint64_t)0);
	bts_index_free(ix);
	bts_trace_free(t);
	free(buf);
	free(plain);
	free(btr);
}

TEST(trace_index, btrace_index_leaves_a_file_it_cannot_read_as_it_was)
{
	char *plain, *btr = indexed_pair("skip-qsort", &plain);
	struct harness_cmd cmd;
	uint8_t *buf, *after;
	size_t len, alen;
	char *cut;

	buf = slurp(plain, &len);
	cut = spill("cut.btr", buf, len - 8);
	EXPECT_EQ(harness_btrace(&cmd, TIMEOUT, "index", cut, NULL), 1);
	EXPECT_TRUE(strstr(cmd.err, "truncated") != NULL);
	harness_cmd_free(&cmd);
	after = slurp(cut, &alen);
	ASSERT_EQ(alen, len - 8);
	EXPECT_EQ(memcmp(after, buf, alen), 0);
	free(after);
	EXPECT_EQ(harness_btrace(&cmd, TIMEOUT, "index", NULL), 2);
	EXPECT_STREQ(cmd.err, "btrace: index: no trace file given\n");
	harness_cmd_free(&cmd);
	/* Indexed twice: one chunk per thread, replaced. */
	EXPECT_EQ(harness_btrace(&cmd, TIMEOUT, "index", btr, NULL), 0);
	harness_cmd_free(&cmd);
	after = slurp(btr, &alen);
	EXPECT_EQ(chunk_at(after, alen, 20), chunk_at(after, alen, 7) -
		  (chunk_at(after, alen, 7) - chunk_at(after, alen, 20)));
	free(after);
	free(cut);
	free(buf);
	free(plain);
	free(btr);
}

/*
 * @path's bytes without its INDEX chunks, in a new file whose END counts
 * the chunks left: the file as it was before its index was written.
 */
static char *without_index(const char *path)
{
	size_t len, n = 0, dropped = 0;
	uint8_t *buf = slurp(path, &len), *out = malloc(len);
	char *plain;

	ASSERT_TRUE(out != NULL);
	memcpy(out, buf, 16);
	n = 16;
	for (size_t off = 16; off + 8 <= len;) {
		uint32_t h[2];
		size_t whole;

		memcpy(h, buf + off, 8);
		whole = 8 + le32toh(h[1]);
		whole += (8 - whole % 8) % 8;
		if ((le32toh(h[0]) & 0xffff) == 20) {
			dropped++;
		} else {
			memcpy(out + n, buf + off, whole);
			if ((le32toh(h[0]) & 0xffff) == 7) {
				uint64_t chunks;

				memcpy(&chunks, out + n + 8, 8);
				chunks = htole64(le64toh(chunks) - dropped);
				memcpy(out + n + 8, &chunks, 8);
			}
			n += whole;
		}
		off += whole;
	}
	ASSERT_GT(dropped, (size_t)0);
	plain = spill("unindexed.btr", out, n);
	free(out);
	free(buf);
	return plain;
}

/*
 * A recording is complete with its index: every thread's, as the one
 * built in memory at the default interval; without it (the same bytes,
 * its chunks cut out), the views print the same, and --no-index writes
 * none.
 */
TEST(trace_index, a_recording_is_written_with_its_index)
{
	struct bts_index_opts built = { .sz = sizeof(built), .rebuild = true };
	struct bts_index_opts only = { .sz = sizeof(only), .file_only = true };
	struct harness_cmd rec;
	char *btr = raw_record("threads-count", NULL, 0, &rec), *plain;
	struct bts_trace *t;
	struct bts_index *file, *mem;

	harness_cmd_free(&rec);
	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	ASSERT_EQ(bts_trace_nthreads(t), (size_t)5);
	for (size_t i = 0; i < bts_trace_nthreads(t); i++) {
		ASSERT_EQ(bts_index_new(t, i, &only, &file), 0);
		ASSERT_TRUE(file != NULL);
		EXPECT_TRUE(bts_index_from_file(file));
		ASSERT_EQ(bts_index_new(t, i, &built, &mem), 0);
		expect_points_equal(file, mem);
		bts_index_free(mem);
		bts_index_free(file);
	}
	bts_trace_free(t);
	plain = without_index(btr);
	ASSERT_EQ(bts_trace_new(plain, &t), 0);
	ASSERT_EQ(bts_index_new(t, 0, &only, &file), 0);
	EXPECT_TRUE(file == NULL);
	bts_trace_free(t);
	expect_same_dump(btr, plain, "--last", "9", NULL, NULL);
	expect_same_dump(btr, plain, "--from", "5000", "--to", "5040");
	expect_same_dump(btr, plain, "--json", "--last", "20", NULL);
	free(plain);
	free(btr);
	btr = raw_record("threads-count", unindexed, 0, &rec);
	harness_cmd_free(&rec);
	ASSERT_EQ(bts_trace_new(btr, &t), 0);
	for (size_t i = 0; i < bts_trace_nthreads(t); i++) {
		ASSERT_EQ(bts_index_new(t, i, &only, &file), 0);
		EXPECT_TRUE(file == NULL);
	}
	bts_trace_free(t);
	free(btr);
}
