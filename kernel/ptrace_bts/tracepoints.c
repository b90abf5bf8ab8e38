// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptrace_bts: the kernel's tracepoints the module probes, the one place it
 * uses what the kernel does not offer modules.  Linux exports none of them,
 * so they are found by name (for_each_kernel_tracepoint()), and nothing
 * checks their prototypes at load: the build checks them instead, against
 * the headers it builds with (check_trace_callback_type_*()), and Kbuild
 * refuses any kernel series but the ones these probes were checked
 * against (PTBTS_CHECKED_SERIES).
 *
 * Checked against: Linux 6.1 (Debian 6.1.0-56-amd64, the guest of
 * "make test-kernel"): each tracepoint's place in the kernel, its context
 * (what the probe may do there), and its prototype.  A new kernel series
 * is added only after the same reading of its kernel/exit.c, fs/exec.c,
 * kernel/fork.c and kernel/signal.c.
 *
 * Why nothing supported serves, one by one:
 *  - sched_process_exit (lifetime.c): 6.1 exports no notifier of task
 *    exit (the profiling one is gone).  A tracee's exit could be seen
 *    through its tracer's child notification, but a tracer thread that
 *    exits while its process lives on notifies nobody, and its tracees'
 *    buffers must be released then;
 *  - sched_process_exec (lifetime.c, step_hooks.c): exec clears the trap
 *    flag, and nothing tells a module of an exec; ptrace's exec stop comes
 *    only when the tracer asked for it (PTRACE_O_TRACEEXEC), and never for
 *    the tracer's own exec.  Without the probe a recording would end
 *    silently at exec, and the hardware would record on past a tracer's
 *    exec or a thread's setuid exec until the thread's next slice;
 *  - sched_process_fork (step_hooks.c): a child inherits the trap flag the
 *    module set, and nothing tells a module of a fork: the child would die
 *    of SIGTRAP at its first instruction;
 *  - signal_deliver (step_hooks.c): signal delivery clears the trap flag
 *    for the handler, and nothing tells a module of it.
 */
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>

#include "ptbts.h"

struct ptbts_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct ptbts_tp ptbts_tps[] = {
	{ "sched_process_exit", ptbts_on_exit },
	{ "sched_process_exec", ptbts_on_exec },
	{ "sched_process_fork", ptbts_step_on_fork },
	{ "signal_deliver", ptbts_step_on_signal },
};

/* The prototypes, checked by the compiler; never called. */
static void __maybe_unused ptbts_tp_check_types(void)
{
	check_trace_callback_type_sched_process_exit(ptbts_on_exit);
	check_trace_callback_type_sched_process_exec(ptbts_on_exec);
	check_trace_callback_type_sched_process_fork(ptbts_step_on_fork);
	check_trace_callback_type_signal_deliver(ptbts_step_on_signal);
}

static void ptbts_tp_find(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ptbts_tps); i++)
		if (!strcmp(tp->name, ptbts_tps[i].name))
			ptbts_tps[i].tp = tp;
}

static void ptbts_tp_unregister(size_t n)
{
	while (n--)
		tracepoint_probe_unregister(ptbts_tps[n].tp,
					    ptbts_tps[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

/**
 * ptbts_tracepoints_init() - find and probe the tracepoints
 *
 * Return: 0, -ENOENT when one is missing, or the error of registering.
 */
int ptbts_tracepoints_init(void)
{
	size_t i;
	int err;

	for_each_kernel_tracepoint(ptbts_tp_find, NULL);
	for (i = 0; i < ARRAY_SIZE(ptbts_tps); i++) {
		err = ptbts_tps[i].tp ? 0 : -ENOENT;
		if (!err)
			err = tracepoint_probe_register(ptbts_tps[i].tp,
							ptbts_tps[i].probe,
							NULL);
		if (err) {
			ptbts_tp_unregister(i);
			return err;
		}
	}
	return 0;
}

/**
 * ptbts_tracepoints_exit() - remove the probes and wait for running ones
 */
void ptbts_tracepoints_exit(void)
{
	ptbts_tp_unregister(ARRAY_SIZE(ptbts_tps));
}
