// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf-bts: gdb's vendor and model decisions on fabricated cpuinfo, the
 * reasons `btrace info` gives, and the ring walk on a ring built here the
 * way perf fills it (24-byte samples, an overwriting ring, a record across
 * the wrap).
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_root.h"
#include "bts.h"
#include "sources/perf-bts/perf_bts.h"
#include "sources/refusal/refusal.h"

static void cpuinfo(const char *vendor, int family, int model)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n"
		 "model name\t: Some CPU\nstepping\t: 4\n\n"
		 "processor\t: 1\nvendor_id\t: Other\ncpu family\t: 1\nmodel\t\t: 1\n\n",
		 vendor, family, model);
	fake_root_file("proc/cpuinfo", text);
}

static bool supports(const char *vendor, int family, int model)
{
	struct bts_cpu_id id;

	cpuinfo(vendor, family, model);
	fake_root_enter();
	if (bts_cpu_id_read(&id)) {
		fake_root_leave();
		FAIL("cpuinfo not read");
	}
	fake_root_leave();
	if (strcmp(id.vendor, vendor) || id.family != family || id.model != model)
		FAIL("read %s %d %d", id.vendor, id.family, id.model);
	return bts_cpu_supports_bts(&id);
}

TEST(perf_bts, gdb_vendor_and_model_rules)
{
	static const int aaj122[] = { 0x1a, 0x1f, 0x1e, 0x2e, 0x25, 0x2c, 0x2f,
				      0x2a, 0x2d, 0x3a };
	size_t i;

	EXPECT_FALSE(supports("AuthenticAMD", 0x19, 0x01));
	EXPECT_FALSE(supports("AuthenticAMD", 6, 0x3c));
	for (i = 0; i < sizeof(aaj122) / sizeof(aaj122[0]); i++)
		EXPECT_FALSE(supports("GenuineIntel", 6, aaj122[i]));
	EXPECT_TRUE(supports("GenuineIntel", 6, 0x3c));	/* Haswell */
	EXPECT_TRUE(supports("GenuineIntel", 6, 0xcf));	/* Emerald Rapids */
	EXPECT_TRUE(supports("GenuineIntel", 6, 0x17));	/* Penryn */
	/* The erratum list is family 6's. */
	EXPECT_TRUE(supports("GenuineIntel", 15, 0x2a));
	/* gdb assumes unknown vendors have BTS. */
	EXPECT_TRUE(supports("HygonGenuine", 0x18, 0x01));
	EXPECT_TRUE(supports("CentaurHauls", 6, 0x0f));
}

TEST(perf_bts, cpuinfo_unreadable)
{
	struct bts_cpu_id id;

	fake_root_file("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n\n");
	fake_root_enter();
	EXPECT_EQ(bts_cpu_id_read(&id), -1);
	fake_root_leave();
}

/* A healthy machine but for what each test changes. */
static void machine(const char *vendor, int model, const char *paranoid)
{
	cpuinfo(vendor, 6, model);
	fake_root_file("proc/sys/kernel/perf_event_paranoid", paranoid);
	fake_root_file("proc/self/status", "CapEff:\t0\nSeccomp:\t0\n");
}

static struct bts_source_info probe(void)
{
	struct bts_source_info si = { .source = PTBTS_SOURCE_PERF_BTS };

	fake_root_enter();
	bts_perf_probe(&si);
	fake_root_leave();
	return si;
}

TEST(perf_bts, amd_refused_in_gdb_words)
{
	struct bts_source_info si;

	machine("AuthenticAMD", 0x01, "2\n");
	si = probe();
	EXPECT_FALSE(si.available);
	EXPECT_STREQ(si.why, "BTS support has been disabled for the target cpu.");
}

TEST(perf_bts, erratum_model_refused_in_gdb_words)
{
	struct bts_source_info si;

	machine("GenuineIntel", 0x2a, "2\n");
	si = probe();
	EXPECT_FALSE(si.available);
	EXPECT_STREQ(si.why, "BTS support has been disabled for the target cpu.");
}

/* The vendor decides before perf_event_paranoid does, as in gdb. */
TEST(perf_bts, paranoid_refused_in_gdb_words)
{
	struct bts_source_info si;

	machine("GenuineIntel", 0x3c, "3\n");
	si = probe();
	EXPECT_FALSE(si.available);
	EXPECT_STREQ(si.why, "You do not have permission to record the process.  "
		     "Try setting /proc/sys/kernel/perf_event_paranoid to 2 or less.");
	machine("AuthenticAMD", 0x01, "3\n");
	si = probe();
	EXPECT_STREQ(si.why, "BTS support has been disabled for the target cpu.");
}

TEST(perf_bts, no_cpu_pmu)
{
	struct bts_source_info si;

	/* The fabricated /sys has no bus/event_source/devices/cpu. */
	machine("GenuineIntel", 0xcf, "2\n");
	si = probe();
	EXPECT_FALSE(si.available);
	EXPECT_STREQ(si.why, "the kernel has no CPU performance counters (no "
		     "/sys/bus/event_source/devices/cpu; a VM without a virtual PMU?): "
		     "run on a host with one");
}

/* ------------------------------------------------------------- the ring */

#define PAGE 4096

struct fake_ring {
	struct bts_perf_ring r;
	uint8_t *mem;		/* header page + data */
	size_t size;
	uint64_t head;
};

static void ring_new(struct fake_ring *f, size_t size)
{
	memset(f, 0, sizeof(*f));
	f->mem = calloc(1, PAGE + size);
	f->size = size;
	f->r.fd = -1;
	f->r.base = f->mem;
	f->r.data_offset = PAGE;
	f->r.data_size = size;
}

static void ring_put(struct fake_ring *f, const void *rec, size_t len)
{
	struct perf_event_mmap_page *hdr = (struct perf_event_mmap_page *)f->mem;
	size_t i;

	for (i = 0; i < len; i++)
		f->mem[PAGE + (f->head + i) % f->size] = ((const uint8_t *)rec)[i];
	f->head += len;
	hdr->data_head = f->head;
}

static void sample(struct fake_ring *f, uint64_t from, uint64_t to)
{
	struct {
		struct perf_event_header h;
		uint64_t from, to;
	} s = { { PERF_RECORD_SAMPLE, 0, 24 }, from, to };

	ring_put(f, &s, sizeof(s));
}

struct got {
	uint64_t from[64], to[64];
	size_t n;
};

static void collect(void *arg, uint64_t from, uint64_t to)
{
	struct got *g = arg;

	if (g->n < 64) {
		g->from[g->n] = from;
		g->to[g->n] = to;
	}
	g->n++;
}

TEST(perf_bts, ring_oldest_first_then_only_new)
{
	struct fake_ring f;
	struct got g = { .n = 0 };
	uint64_t i;

	ring_new(&f, 240);		/* 10 samples */
	for (i = 1; i <= 4; i++)
		sample(&f, 0x1000 + i, 0x2000 + i);
	EXPECT_EQ(bts_perf_read(&f.r, collect, &g), 0);
	ASSERT_EQ(g.n, 4u);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(g.from[i], 0x1001 + i);
		EXPECT_EQ(g.to[i], 0x2001 + i);
	}
	/* Nothing new: nothing. */
	g.n = 0;
	EXPECT_EQ(bts_perf_read(&f.r, collect, &g), 0);
	EXPECT_EQ(g.n, 0u);
	sample(&f, 0x1005, 0x2005);
	EXPECT_EQ(bts_perf_read(&f.r, collect, &g), 0);
	ASSERT_EQ(g.n, 1u);
	EXPECT_EQ(g.from[0], 0x1005u);
	free(f.mem);
}

/* An overwritten ring: the newest whole samples, one across the wrap. */
TEST(perf_bts, ring_overwritten_counts_lost)
{
	struct fake_ring f;
	struct got g = { .n = 0 };
	uint64_t i;

	ring_new(&f, 100);		/* 4 whole samples, not a multiple of 24 */
	for (i = 1; i <= 9; i++)
		sample(&f, 0x1000 + i, 0x2000 + i);
	/* 216 bytes written, 96 kept: 120 bytes = 5 samples lost. */
	EXPECT_EQ(bts_perf_read(&f.r, collect, &g), 5);
	ASSERT_EQ(g.n, 4u);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(g.from[i], 0x1006 + i);
	free(f.mem);
}

/* gdb drops records whose from is in the kernel. */
TEST(perf_bts, ring_skips_kernel_from)
{
	struct fake_ring f;
	struct got g = { .n = 0 };

	ring_new(&f, 240);
	sample(&f, 0x1001, 0x2001);
	sample(&f, 0xffffffff81000000ull, 0x2002);
	sample(&f, 0x1003, 0x2003);
	EXPECT_EQ(bts_perf_read(&f.r, collect, &g), 0);
	ASSERT_EQ(g.n, 2u);
	EXPECT_EQ(g.from[0], 0x1001u);
	EXPECT_EQ(g.from[1], 0x1003u);
	free(f.mem);
}

/* A record that is no 24-byte sample ends the walk: gdb's warning. */
TEST(perf_bts, ring_other_record_stops_the_walk)
{
	struct fake_ring f;
	struct got g = { .n = 0 };
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
	} lost = { { PERF_RECORD_LOST, 0, 24 }, 1, 3 };

	ring_new(&f, 240);
	sample(&f, 0x1001, 0x2001);
	ring_put(&f, &lost, sizeof(lost));
	sample(&f, 0x1003, 0x2003);
	sample(&f, 0x1004, 0x2004);
	EXPECT_EQ(bts_perf_read(&f.r, collect, &g), -BTS_E_FORMAT);
	EXPECT_STREQ(bts_errdetail(), "Branch trace may be incomplete.");
	ASSERT_EQ(g.n, 2u);
	EXPECT_EQ(g.from[0], 0x1003u);
	EXPECT_EQ(g.from[1], 0x1004u);
	free(f.mem);
}

/* ------------------------------------------------- the session's pick */

TEST(perf_bts, pick_for_a_session)
{
	machine("AuthenticAMD", 0x01, "2\n");
	fake_root_enter();
	EXPECT_EQ(bts_perf_pick(PTBTS_SOURCE_PERF_BTS, PTBTS_MODE_RING), -BTS_E_NOSOURCE);
	EXPECT_STREQ(bts_errdetail(), "perf-bts: BTS support has been disabled for the "
		     "target cpu.");
	/* auto passes over it; other sources are not its business. */
	EXPECT_EQ(bts_perf_pick(BTS_SOURCE_AUTO, PTBTS_MODE_RING), 0);
	EXPECT_EQ(bts_perf_pick(BTS_SOURCE_AUTO, PTBTS_MODE_BLOCK), 0);
	EXPECT_EQ(bts_perf_pick(PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_RING), 0);
	EXPECT_EQ(bts_perf_pick(PTBTS_SOURCE_KMOD_STEP, PTBTS_MODE_RING), 0);
	fake_root_leave();
}

/* A session that asks for perf-bts where it cannot work: refused, no child. */
TEST(perf_bts, session_refused_here)
{
	char *argv[] = { "/bin/true", NULL };
	struct bts_session *s = NULL;
	BTS_OPTS(bts_session_opts, o, .source = PTBTS_SOURCE_PERF_BTS,
		 .mode = PTBTS_MODE_RING);

	machine("GenuineIntel", 0x2d, "2\n");
	fake_root_enter();
	EXPECT_EQ(bts_session_new_spawn(argv, &o, &s), -BTS_E_NOSOURCE);
	fake_root_leave();
	EXPECT_STREQ(bts_errdetail(), "perf-bts: BTS support has been disabled for the "
		     "target cpu.");
	EXPECT_TRUE(s == NULL);
}
