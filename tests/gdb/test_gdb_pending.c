// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stub's pending events (libbts/control/control_events.c), in process: which
 * one a stop reports, when they are due, and the signals sent for gdb.
 */
#include <signal.h>

#include "harness.h"
#include "bts.h"
#include "control/control_events.h"

static int take_tid(struct ctl_queues *q)
{
	struct ctl_event e;

	return ctl_event_take(q, &e) ? e.tid : 0;
}

TEST(gdb_pending, oldest_first_but_a_step_before_all)
{
	struct ctl_queues q = { 0 };

	ASSERT_EQ(ctl_event_add(&q, 30, BTS_STOP_BREAKPOINT, SIGTRAP, 0x1000), 0);
	ASSERT_EQ(ctl_event_add(&q, 10, BTS_STOP_SIGNAL, SIGUSR1, 0), 0);
	ASSERT_EQ(ctl_event_add(&q, 20, BTS_STOP_STEP, SIGTRAP, 0), 0);
	/* A thread keeps its first event. */
	ASSERT_EQ(ctl_event_add(&q, 30, BTS_STOP_SIGNAL, SIGUSR2, 0), 0);
	EXPECT_EQ(ctl_event_find(&q, 30)->kind, BTS_STOP_BREAKPOINT);
	EXPECT_EQ(ctl_event_find(&q, 30)->pc, 0x1000u);
	EXPECT_EQ(take_tid(&q), 20);
	EXPECT_EQ(take_tid(&q), 30);
	EXPECT_EQ(take_tid(&q), 10);
	EXPECT_EQ(take_tid(&q), 0);
	ctl_queues_free(&q);
}

TEST(gdb_pending, due_only_once_resumed)
{
	struct ctl_queues q = { 0 };

	ASSERT_EQ(ctl_event_add(&q, 7, BTS_STOP_BREAKPOINT, SIGTRAP, 0x2000), 0);
	ASSERT_EQ(ctl_event_add(&q, 8, BTS_STOP_BREAKPOINT, SIGTRAP, 0x3000), 0);
	ctl_event_undue(&q);
	EXPECT_EQ(take_tid(&q), 0);	/* neither thread resumed */
	ctl_event_find(&q, 8)->due = true;
	EXPECT_EQ(take_tid(&q), 8);
	EXPECT_EQ(take_tid(&q), 0);
	ctl_event_drop(&q, 7);
	EXPECT_TRUE(ctl_event_find(&q, 7) == NULL);
	ctl_queues_free(&q);
}

TEST(gdb_pending, resumes_and_injected_signals)
{
	struct ctl_queues q = { 0 };

	ASSERT_EQ(ctl_resume_add(&q, 5, BTS_RESUME_CONT, 0), 0);
	ASSERT_EQ(ctl_resume_add(&q, 6, BTS_RESUME_STEP, SIGUSR1), 0);
	ASSERT_EQ(ctl_resume_add(&q, 5, BTS_RESUME_STEP, 0), 0);
	ASSERT_EQ(q.nrs, 2u);
	EXPECT_EQ(q.rs[0].action, BTS_RESUME_STEP);
	EXPECT_EQ(q.rs[1].sig, SIGUSR1);
	ASSERT_EQ(ctl_inject_add(&q, 6, SIGUSR1), 0);
	EXPECT_FALSE(ctl_inject_take(&q, 6, SIGUSR2));
	EXPECT_FALSE(ctl_inject_take(&q, 5, SIGUSR1));
	EXPECT_TRUE(ctl_inject_take(&q, 6, SIGUSR1));
	EXPECT_FALSE(ctl_inject_take(&q, 6, SIGUSR1));
	ctl_queues_clear(&q);
	EXPECT_EQ(q.nrs, 0u);
	ctl_queues_free(&q);
}
