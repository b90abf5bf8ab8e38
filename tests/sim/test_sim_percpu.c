// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-CPU mode's state machine (arch/x86/ds/ds_percpu.c) on four
 * simulated CPUs, each recording kernel and user branches into its own
 * RING region: all-or-nothing start, hotplug join and leave, stop.
 */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "sim_cpu.h"

#define NCPU 4
#define NSLOTS 64
#define MARGIN 4

struct machine {
	struct sim_cpu cpu[NCPU];
	struct ds_task task[NCPU];
	uint8_t buf[NCPU][NSLOTS * DS_BTS_RECORD];
	uint8_t scratch[NCPU][DS_SCRATCH_RECS(MARGIN) * DS_BTS_RECORD];
	struct ds_area own[NCPU];
	struct ds_percpu_ops ops;
	struct ds_percpu s;
	uint64_t online;
};

static void m_nmi(struct sim_cpu *cpu, void *arg)
{
	struct machine *m = arg;

	ds_task_pmi(&cpu->ops, &m->task[cpu->id], m->task[cpu->id].bts.count, 0);
}

static int m_start(void *ctx, unsigned int cpu)
{
	struct machine *m = ctx;

	return ds_task_sched_in(&m->cpu[cpu].ops, &m->task[cpu],
				m->task[cpu].bts.count, 0);
}

static void m_stop(void *ctx, unsigned int cpu)
{
	struct machine *m = ctx;

	ds_task_sched_out(&m->cpu[cpu].ops, &m->task[cpu],
			  m->task[cpu].bts.count, 0);
	sim_flush_nmi(&m->cpu[cpu]);
}

static struct machine *m_new(uint64_t want)
{
	struct machine *m = calloc(1, sizeof(*m));
	struct sim_model model = sim_model_full();
	int i;

	for (i = 0; i < NCPU; i++) {
		struct ds_win_cfg cfg = {
			.buf = m->buf[i], .scratch = m->scratch[i],
			.rec_size = DS_BTS_RECORD, .nslots = NSLOTS,
			.mode = PTBTS_MODE_RING, .wakeup = NSLOTS,
			.margin = MARGIN, .markers = true,
		};

		sim_cpu_init(&m->cpu[i], i, &model);
		m->cpu[i].latency = 2;
		m->cpu[i].nmi = m_nmi;
		m->cpu[i].nmi_arg = m;
		ds_win_init(&m->task[i].bts, &cfg);
		ds_task_init(&m->task[i], ds_debugctl_bts(true, true), &m->own[i]);
	}
	m->ops = (struct ds_percpu_ops){ .ctx = m, .start = m_start,
					 .stop = m_stop };
	ds_percpu_init(&m->s, &m->ops, want);
	m->online = (1u << NCPU) - 1;
	return m;
}

/* @n branches on @cpu, alternately kernel and user. */
static void m_run(struct machine *m, int cpu, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sim_branch(&m->cpu[cpu], 0x1000 + i, 0x2000, i % 2 ? 0 : 3);
}

static uint64_t debugctl(const struct machine *m, int cpu)
{
	return m->cpu[cpu].msr[SIM_DEBUGCTL];
}

TEST(sim_percpu, records_kernel_and_user_on_each_cpu)
{
	struct machine *m = m_new(0xb);	/* CPUs 0, 1, 3 */
	int i;

	ASSERT_EQ(ds_percpu_start(&m->s, m->online), 0);
	EXPECT_EQ(m->s.on, 0xbu);
	for (i = 0; i < NCPU; i++)
		m_run(m, i, 100 + i);
	ds_percpu_stop(&m->s);
	EXPECT_EQ(m->task[0].bts.count, 100u);
	EXPECT_EQ(m->task[1].bts.count, 101u);
	EXPECT_EQ(m->task[2].bts.count, 0u);	/* not wanted */
	EXPECT_EQ(m->task[3].bts.count, 103u);
	EXPECT_EQ(m->cpu[2].stored, 0u);
	for (i = 0; i < NCPU; i++) {
		EXPECT_EQ(m->cpu[i].filtered, 0u);
		EXPECT_EQ(m->cpu[i].overruns + m->cpu[i].undefined, 0u);
		EXPECT_EQ(debugctl(m, i), 0u);
		EXPECT_EQ(m->cpu[i].msr[SIM_DS_AREA], 0u);
	}
	EXPECT_FALSE(m->s.running);
	free(m);
}

/* CPU 2 has someone else's BTS on: nothing starts, all is as it was. */
TEST(sim_percpu, partial_start_rolls_back)
{
	struct machine *m = m_new(0xf);
	struct ds_area perf = { .bts_base = 0x5000, .bts_index = 0x5000,
				.bts_abs_max = 0x6000, .bts_threshold = 0x5800 };
	uint64_t foreign = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
	int i;

	m->cpu[1].msr[SIM_DS_AREA] = (uintptr_t)&perf;
	m->cpu[2].msr[SIM_DEBUGCTL] = foreign;
	EXPECT_EQ(ds_percpu_start(&m->s, m->online), -EBUSY);
	EXPECT_FALSE(m->s.running);
	EXPECT_EQ(m->s.on, 0u);
	EXPECT_EQ(debugctl(m, 0), 0u);
	EXPECT_EQ(debugctl(m, 1), 0u);
	EXPECT_EQ(debugctl(m, 2), foreign);
	EXPECT_EQ(debugctl(m, 3), 0u);
	EXPECT_EQ(m->cpu[0].msr[SIM_DS_AREA], 0u);
	EXPECT_EQ(m->cpu[1].msr[SIM_DS_AREA], (uint64_t)(uintptr_t)&perf);
	EXPECT_EQ(perf.bts_base, 0x5000u);
	EXPECT_EQ(perf.bts_threshold, 0x5800u);
	m->cpu[2].msr[SIM_DEBUGCTL] = 0;
	for (i = 0; i < NCPU; i++)
		m_run(m, i, 10);
	for (i = 0; i < NCPU; i++)
		EXPECT_EQ(m->cpu[i].stored, 0u);
	/* Once the other user is gone, the same session starts. */
	EXPECT_EQ(ds_percpu_start(&m->s, m->online), 0);
	EXPECT_EQ(m->s.on, 0xfu);
	ds_percpu_stop(&m->s);
	free(m);
}

/* CPU 1 goes offline (flushes, leaves), comes back (joins). */
TEST(sim_percpu, hotplug_leave_and_join)
{
	struct machine *m = m_new(0x3);

	ASSERT_EQ(ds_percpu_start(&m->s, m->online), 0);
	m_run(m, 1, 30);
	ds_percpu_offline(&m->s, 1);
	m->online &= ~2u;
	EXPECT_EQ(m->s.on, 0x1u);
	EXPECT_EQ(m->s.left, 0x2u);
	EXPECT_EQ(m->task[1].bts.count, 30u);	/* flushed on the way out */
	EXPECT_EQ(debugctl(m, 1), 0u);
	m->online |= 2u;
	EXPECT_EQ(ds_percpu_online(&m->s, 1), 0);
	EXPECT_EQ(m->s.on, 0x3u);
	EXPECT_EQ(m->s.left, 0u);
	m_run(m, 1, 200);
	/* A CPU not wanted joins nothing. */
	EXPECT_EQ(ds_percpu_online(&m->s, 3), 0);
	EXPECT_EQ(m->s.on, 0x3u);
	ds_percpu_stop(&m->s);
	EXPECT_EQ(m->task[1].bts.count, 230u);
	EXPECT_EQ(m->cpu[1].overruns + m->cpu[1].undefined, 0u);
	free(m);
}

/* A CPU that cannot join is remembered; the others go on. */
TEST(sim_percpu, failed_join_keeps_the_rest)
{
	struct machine *m = m_new(0x3);

	m->online = 0x1;
	ASSERT_EQ(ds_percpu_start(&m->s, m->online), 0);
	m->cpu[1].msr[SIM_DEBUGCTL] = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
	m->online = 0x3;
	EXPECT_EQ(ds_percpu_online(&m->s, 1), -EBUSY);
	EXPECT_EQ(m->s.failed, 0x2u);
	EXPECT_EQ(m->s.on, 0x1u);
	EXPECT_TRUE(m->s.running);
	m_run(m, 0, 20);
	ds_percpu_stop(&m->s);
	EXPECT_EQ(m->task[0].bts.count, 20u);
	/* Starting twice, or with no wanted CPU online, is refused. */
	ASSERT_EQ(ds_percpu_start(&m->s, 0x1), 0);
	EXPECT_EQ(ds_percpu_start(&m->s, 0x1), -EBUSY);
	ds_percpu_stop(&m->s);
	EXPECT_EQ(ds_percpu_start(&m->s, 0x4), -ENODEV);
	free(m);
}
