// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-CPU mode's regions (arch/x86/ds/ds_percpu.c) as the module
 * allocates them, one per CPU, on four simulated CPUs: a start that fails
 * on any CPU, at its allocation or at its start, leaves nothing allocated
 * and nothing recording; hotplug allocates for a CPU that joins and frees
 * what a CPU that cannot join got; a CPU that leaves keeps its records;
 * release frees everything.  The allocator counts what is live, as the
 * module's percpu_pages does.
 */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "sim_cpu.h"

#define NCPU 4
#define NSLOTS 64
#define MARGIN 4

struct pcpu {
	struct ds_task task;
	uint8_t *buf;
	uint8_t *scratch;
	struct ds_area *own;
};

struct machine {
	struct sim_cpu cpu[NCPU];
	struct pcpu *pc[NCPU];
	struct ds_percpu_ops ops;
	struct ds_percpu s;
	int fail_alloc;		/* the CPU whose allocation fails, or -1 */
	int live;		/* regions allocated and not released */
	int allocs;		/* allocations tried */
};

static void m_nmi(struct sim_cpu *cpu, void *arg)
{
	struct machine *m = arg;

	if (m->pc[cpu->id])
		ds_task_pmi(&cpu->ops, &m->pc[cpu->id]->task, 0, 0);
}

static int m_alloc(void *ctx, unsigned int cpu)
{
	struct machine *m = ctx;
	struct pcpu *pc;
	struct ds_win_cfg cfg = {
		.rec_size = DS_BTS_RECORD, .nslots = NSLOTS,
		.mode = PTBTS_MODE_RING, .wakeup = NSLOTS, .margin = MARGIN,
		.markers = true,
	};

	m->allocs++;
	if ((int)cpu == m->fail_alloc)
		return -ENOMEM;
	pc = calloc(1, sizeof(*pc));
	pc->buf = calloc(NSLOTS, DS_BTS_RECORD);
	pc->scratch = calloc(DS_SCRATCH_RECS(MARGIN), DS_BTS_RECORD);
	pc->own = calloc(1, sizeof(*pc->own));
	cfg.buf = pc->buf;
	cfg.scratch = pc->scratch;
	ds_win_init(&pc->task.bts, &cfg);
	ds_task_init(&pc->task, ds_debugctl_bts(true, true), pc->own);
	m->pc[cpu] = pc;
	m->live++;
	return 0;
}

static void m_release(void *ctx, unsigned int cpu)
{
	struct machine *m = ctx;
	struct pcpu *pc = m->pc[cpu];

	free(pc->buf);
	free(pc->scratch);
	free(pc->own);
	free(pc);
	m->pc[cpu] = NULL;
	m->live--;
}

static int m_start(void *ctx, unsigned int cpu)
{
	struct machine *m = ctx;

	return ds_task_sched_in(&m->cpu[cpu].ops, &m->pc[cpu]->task, 0, 0);
}

static void m_stop(void *ctx, unsigned int cpu)
{
	struct machine *m = ctx;

	ds_task_sched_out(&m->cpu[cpu].ops, &m->pc[cpu]->task, 0, 0);
	sim_flush_nmi(&m->cpu[cpu]);
}

static struct machine *m_new(uint64_t want)
{
	struct machine *m = calloc(1, sizeof(*m));
	struct sim_model model = sim_model_full();
	int i;

	for (i = 0; i < NCPU; i++) {
		sim_cpu_init(&m->cpu[i], i, &model);
		m->cpu[i].latency = 2;
		m->cpu[i].nmi = m_nmi;
		m->cpu[i].nmi_arg = m;
	}
	m->ops = (struct ds_percpu_ops){ .ctx = m, .alloc = m_alloc,
					 .release = m_release,
					 .start = m_start, .stop = m_stop };
	m->fail_alloc = -1;
	ds_percpu_init(&m->s, &m->ops, want);
	return m;
}

static void m_run(struct machine *m, int cpu, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sim_branch(&m->cpu[cpu], 0x1000 + i, 0x2000, i % 2 ? 0 : 3);
}

/* Nothing recording, nothing allocated, every CPU as it was. */
static void expect_untouched(struct machine *m)
{
	int i;

	EXPECT_FALSE(m->s.running);
	EXPECT_EQ(m->s.on, 0u);
	EXPECT_EQ(m->s.have, 0u);
	EXPECT_EQ(m->live, 0);
	for (i = 0; i < NCPU; i++) {
		EXPECT_TRUE(m->pc[i] == NULL);
		EXPECT_EQ(m->cpu[i].msr[SIM_DEBUGCTL], 0u);
		EXPECT_EQ(m->cpu[i].msr[SIM_DS_AREA], 0u);
	}
	for (i = 0; i < NCPU; i++)
		m_run(m, i, 10);
	for (i = 0; i < NCPU; i++)
		EXPECT_EQ(m->cpu[i].stored, 0u);
}

/* The allocation for CPU N fails, for each N: nothing is left. */
TEST(sim_percpu_alloc, failed_allocation_rolls_back)
{
	int n;

	for (n = 0; n < NCPU; n++) {
		struct machine *m = m_new(0xf);

		m->fail_alloc = n;
		EXPECT_EQ(ds_percpu_start(&m->s, 0xf), -ENOMEM);
		EXPECT_EQ(m->allocs, n + 1);	/* it stopped at the first failure */
		expect_untouched(m);
		/* Once memory is there, the same session starts everywhere. */
		m->fail_alloc = -1;
		ASSERT_EQ(ds_percpu_start(&m->s, 0xf), 0);
		EXPECT_EQ(m->s.on, 0xfu);
		EXPECT_EQ(m->live, NCPU);
		ds_percpu_release(&m->s);
		EXPECT_EQ(m->live, 0);
		free(m);
	}
}

/* Every region allocated, then CPU 3 cannot start: all freed again. */
TEST(sim_percpu_alloc, failed_start_frees_every_region)
{
	struct machine *m = m_new(0xf);

	m->cpu[3].msr[SIM_DEBUGCTL] = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
	EXPECT_EQ(ds_percpu_start(&m->s, 0xf), -EBUSY);
	EXPECT_EQ(m->allocs, NCPU);
	m->cpu[3].msr[SIM_DEBUGCTL] = 0;
	expect_untouched(m);
	free(m);
}

/* Stopped, the regions keep their records until released. */
TEST(sim_percpu_alloc, stop_keeps_records_release_frees)
{
	struct machine *m = m_new(0x5);	/* CPUs 0 and 2 */
	const struct ptbts_record *r;

	ASSERT_EQ(ds_percpu_start(&m->s, 0xf), 0);
	EXPECT_EQ(m->s.have, 0x5u);
	EXPECT_EQ(m->live, 2);
	m_run(m, 2, 40);
	ds_percpu_stop(&m->s);
	EXPECT_EQ(m->live, 2);
	EXPECT_EQ(m->pc[2]->task.bts.count, 40u);
	r = (const void *)m->pc[2]->buf;
	EXPECT_EQ(r[39].from, 0x1000u + 39);	/* a kernel branch (odd) */
	EXPECT_EQ(r[38].from, 0x1000u + 38);	/* a user one */
	ds_percpu_release(&m->s);
	EXPECT_EQ(m->live, 0);
	EXPECT_EQ(m->s.have, 0u);
	free(m);
}

/*
 * Hotplug: CPU 1, offline at the start, gets its region when it comes
 * online; CPU 2 leaves and keeps its records; CPU 3 cannot join (someone
 * else's BTS) and keeps no region.
 */
TEST(sim_percpu_alloc, hotplug_allocates_and_frees)
{
	struct machine *m = m_new(0xf);

	ASSERT_EQ(ds_percpu_start(&m->s, 0x5), 0);
	EXPECT_EQ(m->s.have, 0x5u);
	EXPECT_EQ(ds_percpu_online(&m->s, 1), 0);
	EXPECT_EQ(m->s.have, 0x7u);
	EXPECT_EQ(m->s.on, 0x7u);
	m_run(m, 1, 20);
	m_run(m, 2, 30);
	ds_percpu_offline(&m->s, 2);
	EXPECT_EQ(m->s.left, 0x4u);
	EXPECT_EQ(m->s.have, 0x7u);
	EXPECT_EQ(m->pc[2]->task.bts.count, 30u);
	m->cpu[3].msr[SIM_DEBUGCTL] = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
	EXPECT_EQ(ds_percpu_online(&m->s, 3), -EBUSY);
	EXPECT_EQ(m->s.failed, 0x8u);
	EXPECT_EQ(m->s.have, 0x7u);
	EXPECT_EQ(m->live, 3);
	/* Its allocation failing is the same: out, nothing kept. */
	m->cpu[3].msr[SIM_DEBUGCTL] = 0;
	m->fail_alloc = 3;
	EXPECT_EQ(ds_percpu_online(&m->s, 3), -ENOMEM);
	EXPECT_EQ(m->live, 3);
	m->fail_alloc = -1;
	EXPECT_EQ(ds_percpu_online(&m->s, 3), 0);
	EXPECT_EQ(m->s.failed, 0u);
	EXPECT_EQ(m->live, 4);
	/* CPU 2 back: its region and count go on. */
	EXPECT_EQ(ds_percpu_online(&m->s, 2), 0);
	m_run(m, 2, 5);
	ds_percpu_stop(&m->s);
	EXPECT_EQ(m->pc[1]->task.bts.count, 20u);
	EXPECT_EQ(m->pc[2]->task.bts.count, 35u);
	ds_percpu_release(&m->s);
	EXPECT_EQ(m->live, 0);
	free(m);
}
