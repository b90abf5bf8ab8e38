// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace record: what it says about the processes it followed, and the
 * summary of the flight recorder (--on-crash).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "btrace.h"
#include "record-crash.h"

const char *parse_keep(const char *arg, void *value)
{
	char *end;
	unsigned long long n;

	if (*arg < '0' || *arg > '9')
		return "not a number of records";
	n = strtoull(arg, &end, 10);
	if (*end)
		return "not a number of records";
	if (n == 0 || n > RECORD_KEEP_MAX)
		return "out of range (1 to 67108864 records)";
	*(uint64_t *)value = n;
	return NULL;
}

static const char *base_name(const char *exe)
{
	const char *b = exe ? strrchr(exe, '/') : NULL;

	b = b ? b + 1 : exe;
	return b && *b ? b : "?";
}

/* "exited 0", "killed by SIGSEGV (core dumped)", "running". */
static void describe(const struct bts_session_process *p, char *buf, size_t len)
{
	if (!p->exited)
		snprintf(buf, len, "did not end while traced");
	else if (WIFSIGNALED(p->status))
		snprintf(buf, len, "killed by SIG%s%s",
			 sigabbrev_np(WTERMSIG(p->status)) ?: "?",
			 WCOREDUMP(p->status) ? " (core dumped)" : "");
	else
		snprintf(buf, len, "exited %d", WEXITSTATUS(p->status));
}

void record_print_processes(const struct bts_session *s)
{
	size_t n = bts_session_nprocesses(s);
	char how[96];

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct bts_session_process *p = bts_session_process(s, i);

		describe(p, how, sizeof(how));
		fprintf(stderr, "btrace:   process %d (%s, parent %d): %s\n",
			(int)p->pid, shown(base_name(p->exe)), (int)p->ppid, shown_msg(how));
	}
}

/*
 * qemu-user records what runs under QEMU; a program a process exec'd runs
 * natively (its trace ends with an EXEC marker and a gap): said here, one
 * line a process.
 */
void record_print_unrecorded(const struct bts_session *s, int source)
{
	size_t n = bts_session_nprocesses(s);

	if (source != PTBTS_SOURCE_QEMU_USER)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct bts_session_process *p = bts_session_process(s, i);

		if (!p->exe || !strncmp(base_name(p->exe), "qemu-", 5))
			continue;
		fprintf(stderr, "btrace:   process %d exec'd %s, which qemu-user ran "
			"natively: not recorded from its exec on\n", (int)p->pid,
			shown(base_name(p->exe)));
	}
}

int record_crash_summary(const struct bts_session *s,
			 const struct bts_session_stats *st, uint64_t keep)
{
	size_t n = bts_session_nprocesses(s);
	int crashes = 0, failed = 0;

	for (size_t i = 0; i < n; i++) {
		const struct bts_session_process *p = bts_session_process(s, i);

		if (!p->crash_signal)
			continue;
		crashes++;
		if (p->crash_file) {
			error("process %d (%s) crashed with SIG%s: crash trace in %s",
			      (int)p->pid, base_name(p->exe),
			      sigabbrev_np(p->crash_signal) ?: "?", p->crash_file);
		} else {
			failed++;
			error("process %d (%s) crashed with SIG%s: no crash trace: %s",
			      (int)p->pid, base_name(p->exe),
			      sigabbrev_np(p->crash_signal) ?: "?",
			      p->crash_error ? p->crash_error : "unknown error");
		}
	}
	if (!crashes)
		error("no crash: %zu process%s, %" PRIu64 " thread%s, newest %" PRIu64
		      " records per thread kept (%s); nothing written",
		      n, n == 1 ? "" : "es", st->threads,
		      st->threads == 1 ? "" : "s", keep, bts_source_name(st->source));
	return failed;
}
