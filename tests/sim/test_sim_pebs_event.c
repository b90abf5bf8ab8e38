// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-pebs's event and period (arch/x86/ds/ds_pebs_event.c): which the
 * module accepts, and what the simulated CPU then does with them: one
 * record every period events, the counter reloaded from the DS area's
 * reset field, user-only or kernel too as the event select says.
 */
#include <errno.h>

#include "harness.h"
#include "sim_trace.h"

#define EVTSEL_EN	(1ULL << 22)
#define EVTSEL_USR	(1ULL << 16)
#define EVTSEL_OS	(1ULL << 17)

TEST(sim_pebs_event, check_accepts_and_refuses)
{
	EXPECT_EQ(ds_pebs_event_check(PTBTS_PEBS_EVENT_BRANCHES,
				      PTBTS_PEBS_PERIOD_DEFAULT), 0);
	EXPECT_EQ(ds_pebs_event_check(0xc4, 1), 0);
	EXPECT_EQ(ds_pebs_event_check(0xc4, PTBTS_PEBS_PERIOD_MAX), 0);
	EXPECT_EQ(ds_pebs_event_check(0x20c4, 5), 0);	/* a unit mask */
	EXPECT_EQ(ds_pebs_event_check(0xffff, 5), 0);
	/* Period 0 and past 31 bits. */
	EXPECT_EQ(ds_pebs_event_check(0xc4, 0), -EINVAL);
	EXPECT_EQ(ds_pebs_event_check(0xc4, PTBTS_PEBS_PERIOD_MAX + 1), -EINVAL);
	EXPECT_EQ(ds_pebs_event_check(0xc4, ~0ULL), -EINVAL);
	/* No event select; bits that are not the caller's. */
	EXPECT_EQ(ds_pebs_event_check(0, 1000), -EINVAL);
	EXPECT_EQ(ds_pebs_event_check(0x0100, 1000), -EINVAL);
	EXPECT_EQ(ds_pebs_event_check(0xc4 | EVTSEL_USR, 1000), -EINVAL);
	EXPECT_EQ(ds_pebs_event_check(0xc4 | EVTSEL_EN, 1000), -EINVAL);
	EXPECT_EQ(ds_pebs_event_check(0xc4 | (1ULL << 20), 1000), -EINVAL);
	EXPECT_EQ(ds_pebs_event_check(0xc4 | (1ULL << 63), 1000), -EINVAL);
}

TEST(sim_pebs_event, evtsel_and_counter)
{
	struct ds_task t = { 0 };

	ds_task_pebs_event(&t, 0x20c4, 4000, false);
	EXPECT_EQ(t.pebs_evtsel, EVTSEL_EN | EVTSEL_USR | 0x20c4);
	EXPECT_EQ(t.pebs_reset, 4000u);
	EXPECT_EQ(t.pebs_ctr, (uint64_t)-4000);
	ds_task_pebs_event(&t, 0xc4, 1, true);
	EXPECT_EQ(t.pebs_evtsel, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | 0xc4);
	EXPECT_EQ(t.pebs_ctr, (uint64_t)-1);
}

/* @n user branches (a kernel one after every 3rd) with @period, @kernel. */
static void period_run(uint64_t period, bool kernel, uint64_t n)
{
	struct sim_model m = sim_model_full();
	uint64_t events = kernel ? n + n / 3 : n;
	struct sim_trace tr;

	sim_trace_init(&tr, 64, PTBTS_MODE_RING, 64, 4, 2, &m);
	sim_trace_pebs(&tr, 40, 1);
	ds_task_pebs_event(&tr.task, 0xc4, period, kernel);
	sim_trace_in(&tr, 0);
	/* In the slice: counter 0 runs the event, reloads from -period. */
	EXPECT_EQ(tr.cpus[0].msr[SIM_EVNTSEL0], tr.task.pebs_evtsel);
	EXPECT_EQ(tr.cpus[0].msr[SIM_PMC0], (uint64_t)-period);
	EXPECT_EQ(tr.own_area->pebs_reset[0], (uint64_t)-period);
	sim_trace_run(&tr, n, 97, true);
	sim_trace_out(&tr);
	EXPECT_EQ(tr.task.pebs.count, events / period);
	EXPECT_EQ(tr.cpus[0].pebs_stored + tr.cpus[1].pebs_stored,
		  events / period);
	/* The count goes on across slices: what is left of the period. */
	EXPECT_EQ(tr.task.pebs_ctr, (uint64_t)-(period - events % period));
	EXPECT_EQ(tr.cpus[0].msr[SIM_EVNTSEL0], 0u);
	EXPECT_EQ(tr.cpus[1].msr[SIM_EVNTSEL0], 0u);
	EXPECT_EQ(tr.own_area->pebs_reset[0], 0u);
	EXPECT_EQ(tr.cpus[0].gp_faults + tr.cpus[1].gp_faults, 0u);
	EXPECT_EQ(tr.cpus[0].overruns + tr.cpus[1].overruns, 0u);
	sim_trace_free(&tr);
}

TEST(sim_pebs_event, one_record_every_period_events)
{
	period_run(1, false, 300);
	period_run(13, false, 1000);
	period_run(1000, false, 5000);
	period_run(999, false, 5000);
}

TEST(sim_pebs_event, kernel_counts_kernel_events_too)
{
	period_run(13, true, 1000);
	period_run(7, true, 999);
}
