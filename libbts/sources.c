// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Branch sources: their names, and which of them work on this machine. */
#include <errno.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod.h"

static const char *const names[] = {
	[PTBTS_SOURCE_KMOD_BTS]		= "kmod-bts",
	[PTBTS_SOURCE_KMOD_PEBS]	= "kmod-pebs",
	[PTBTS_SOURCE_KMOD_STEP]	= "kmod-step",
	[PTBTS_SOURCE_PERF_BTS]		= "perf-bts",
	[PTBTS_SOURCE_PTRACE_STEP]	= "ptrace-step",
};

/* Fastest first: `auto` takes the first available. */
static const int order[] = {
	PTBTS_SOURCE_KMOD_BTS, PTBTS_SOURCE_KMOD_PEBS, PTBTS_SOURCE_KMOD_STEP,
	PTBTS_SOURCE_PERF_BTS, PTBTS_SOURCE_PTRACE_STEP,
};

const char *bts_source_name(int source)
{
	if (source == BTS_SOURCE_AUTO)
		return "auto";
	if (source < 0 || (size_t)source >= ARRAY_SIZE(names) || !names[source])
		return "none";
	return names[source];
}

int bts_source_parse(const char *name)
{
	size_t i;

	if (!name)
		return bts_fail(BTS_E_INVAL, "no source name");
	if (!strcmp(name, "auto"))
		return BTS_SOURCE_AUTO;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i] && !strcmp(name, names[i]))
			return (int)i;
	return bts_fail(BTS_E_INVAL, "unknown source '%s' (auto, kmod-bts, kmod-pebs, "
			"kmod-step, perf-bts, ptrace-step)", name);
}

static int read_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "re");
	int v = dflt;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

/*
 * Can this process trace a child of its own?  A forked child asks to be
 * traced and stops; the answer is what PTRACE_TRACEME said (Yama 3,
 * seccomp filters and container policies all show up here).
 */
static bool ptrace_works(char *why, size_t len)
{
	int status, scope = read_int("/proc/sys/kernel/yama/ptrace_scope", 0);
	pid_t pid;
	bool ok;

	if (scope >= 3) {
		snprintf(why, len, "ptrace is disabled: /proc/sys/kernel/yama/ptrace_scope is 3");
		return false;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "cannot fork to test ptrace: %s", strerror(errno));
		return false;
	}
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ok = WIFSTOPPED(status);
	if (ok) {
		kill(pid, SIGKILL);
		ptrace(PTRACE_CONT, pid, 0, 0);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	} else {
		snprintf(why, len, "ptrace is not permitted here "
			 "(seccomp or container policy)");
	}
	return ok;
}

static bool is_intel(void)
{
	char line[256];
	bool intel = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (!intel && fgets(line, sizeof(line), f))
		if (!strncmp(line, "vendor_id", 9))
			intel = strstr(line, "GenuineIntel") != NULL;
	fclose(f);
	return intel;
}

static void probe_perf(struct bts_source_info *si)
{
	struct stat st;
	const char *cpu;

	if (!is_intel())
		cpu = "this CPU is not Intel, so it has no BTS";
	else if (stat("/sys/bus/event_source/devices/intel_bts", &st))
		cpu = "the intel_bts PMU is missing in /sys/bus/event_source/devices";
	else
		cpu = "this CPU has the intel_bts PMU";
	snprintf(si->why, sizeof(si->why), "not implemented yet (%s)", cpu);
}

static void probe_one(int source, struct bts_source_info *si)
{
	si->source = source;
	si->available = false;
	si->why[0] = '\0';
	switch (source) {
	case PTBTS_SOURCE_KMOD_BTS:
	case PTBTS_SOURCE_KMOD_PEBS:
	case PTBTS_SOURCE_KMOD_STEP:
		bts_kmod_probe(source, si);
		break;
	case PTBTS_SOURCE_PERF_BTS:
		probe_perf(si);
		break;
	case PTBTS_SOURCE_PTRACE_STEP:
		si->available = ptrace_works(si->why, sizeof(si->why));
		break;
	}
}

int bts_probe_sources(struct bts_source_info *out, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order) && out && i < n; i++)
		probe_one(order[i], &out[i]);
	return (int)ARRAY_SIZE(order);
}
