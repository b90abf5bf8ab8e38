// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Whether perf-bts can record here.  The vendor and model decide first,
 * exactly as gdb decides: on AMD the branch-instructions event opens and
 * samples, but without BTS its "from" addresses are not branch sources, so
 * a working open proves nothing.  Then the refusal checks (ptrace, policy,
 * perf_event_paranoid), then whether the kernel has a CPU PMU at all, and
 * last an open of the real event, disabled, on ourselves: perf refuses a
 * period-1 branch event when its driver has no BTS (no DS).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sources/perf-bts/perf_bts.h"
#include "sources/refusal/refusal.h"

static int field_int(const char *line)
{
	const char *colon = strchr(line, ':');

	return colon ? (int)strtol(colon + 1, NULL, 10) : -1;
}

/* Copies the value after "name\t: " without its newline. */
static void field_str(const char *line, char *out, size_t len)
{
	const char *colon = strchr(line, ':');

	out[0] = '\0';
	if (!colon)
		return;
	colon += strspn(colon + 1, " \t") + 1;
	snprintf(out, len, "%.*s", (int)strcspn(colon, "\n"), colon);
}

int bts_cpu_id_read(struct bts_cpu_id *id)
{
	char where[4096], line[512];
	FILE *f = fopen(bts_root_path("/proc/cpuinfo", where, sizeof(where)), "re");
	int seen = 0;

	memset(id, 0, sizeof(*id));
	id->family = id->model = -1;
	if (!f)
		return -1;
	/* The first processor's block only: it ends at the first empty line. */
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		if (!strncmp(line, "vendor_id", 9)) {
			field_str(line, id->vendor, sizeof(id->vendor));
			seen |= 1;
		} else if (!strncmp(line, "cpu family", 10)) {
			id->family = field_int(line);
			seen |= 2;
		} else if (!strncmp(line, "model", 5) &&
			   line[5 + strspn(line + 5, " \t")] == ':') {
			/* "model", not "model name" */
			id->model = field_int(line);
			seen |= 4;
		}
	}
	fclose(f);
	return seen == 7 ? 0 : -1;
}

bool bts_cpu_supports_bts(const struct bts_cpu_id *id)
{
	/* AAJ122: BTS "from" may be wrong after EIST, T-states, C1E. */
	static const int aaj122[] = {
		0x1a, 0x1f, 0x1e, 0x2e,		/* Nehalem */
		0x25, 0x2c, 0x2f,		/* Westmere */
		0x2a, 0x2d,			/* Sandy Bridge */
		0x3a,				/* Ivy Bridge */
	};
	size_t i;

	if (!strcmp(id->vendor, "AuthenticAMD"))
		return false;
	if (strcmp(id->vendor, "GenuineIntel") || id->family != 6)
		return true;
	for (i = 0; i < ARRAY_SIZE(aaj122); i++)
		if (id->model == aaj122[i])
			return false;
	return true;
}

static bool have_cpu_pmu(void)
{
	char where[4096];
	struct stat st;

	return !stat(bts_root_path("/sys/bus/event_source/devices/cpu", where,
				   sizeof(where)), &st);
}

/* The event gdb opens, disabled and on ourselves: 0 or errno. */
static int try_branch_event(void)
{
	struct perf_event_attr attr;

	bts_perf_branch_attr(&attr);
	attr.disabled = 1;
	return bts_perf_try(&attr);
}

void bts_perf_probe(struct bts_source_info *si)
{
	struct bts_refusal r;
	struct bts_cpu_id id;
	int err;

	si->available = false;
	if (bts_cpu_id_read(&id)) {
		snprintf(si->why, sizeof(si->why), "cannot read the CPU's vendor "
			 "and model from /proc/cpuinfo");
		return;
	}
	if (!bts_cpu_supports_bts(&id)) {
		snprintf(si->why, sizeof(si->why), "%s", BTS_PERF_CPU_REFUSED);
		return;
	}
	if (bts_refusal_find(PTBTS_SOURCE_PERF_BTS, false, 0, &r)) {
		snprintf(si->why, sizeof(si->why), "%s", r.line);
		return;
	}
	if (!have_cpu_pmu()) {
		snprintf(si->why, sizeof(si->why), "the kernel has no CPU performance "
			 "counters (no /sys/bus/event_source/devices/cpu; a VM without "
			 "a virtual PMU?): run on a host with one");
		return;
	}
	err = try_branch_event();
	if (err == EOPNOTSUPP)
		snprintf(si->why, sizeof(si->why), "perf has no BTS on this CPU "
			 "(branch sampling with period 1: %s)", strerror(err));
	else if (err)
		snprintf(si->why, sizeof(si->why), "perf_event_open of branch sampling "
			 "failed: %s", strerror(err));
	si->available = !err;
}
