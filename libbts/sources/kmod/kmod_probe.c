// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Whether the ptrace_bts module is there and what it offers: its
 * capabilities ioctl answers for each source, with a reason when it cannot
 * record.  A module of another ABI version is not used at all: its structs
 * may mean other things.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/kmod/kmod.h"

static const char *const unavail_why[] = {
	[PTBTS_UNAVAIL_NOT_BUILT]	= "the module was built without it",
	[PTBTS_UNAVAIL_NOT_INTEL]	= "the CPU is not Intel's",
	[PTBTS_UNAVAIL_NO_DS]		= "the CPU has no 64-bit debug store (CPUID.1 DS, DTES64)",
	[PTBTS_UNAVAIL_BTS_OFF]		= "BTS is unavailable (IA32_MISC_ENABLE)",
	[PTBTS_UNAVAIL_PEBS_OFF]	= "PEBS is unavailable (IA32_MISC_ENABLE)",
	[PTBTS_UNAVAIL_PTI]		= "page-table isolation is active",
	[PTBTS_UNAVAIL_PEBS_FMT]	= "the PEBS record format is not supported",
	[PTBTS_UNAVAIL_NOT_KERNEL]	= "not a source of the module",
	[PTBTS_UNAVAIL_ERRATUM]		= "this CPU model's BTS records may be wrong (erratum AAJ122)",
	[PTBTS_UNAVAIL_NO_CAP]		= "needs CAP_PERFMON or CAP_SYS_ADMIN (raw records can carry kernel addresses)",
	[PTBTS_UNAVAIL_PERF_BUSY]	= "perf is using BTS or the PMU on a CPU",
	[PTBTS_UNAVAIL_NO_PMU]		= "the CPU has no architectural PMU of version 2 with a counter (CPUID leaf 0xA)",
	[PTBTS_UNAVAIL_LOCKDOWN]	= "the kernel is locked down against perf (lockdown=confidentiality)",
};

bool bts_kmod_caps(struct ptbts_caps *c, char *why, size_t len)
{
	struct stat st;
	int fd;

	if (stat(PTBTS_DEVICE, &st)) {
		snprintf(why, len, PTBTS_DEVICE " not present: module not loaded");
		return false;
	}
	fd = open(PTBTS_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "cannot open " PTBTS_DEVICE ": %s", strerror(errno));
		return false;
	}
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	if (ioctl(fd, PTBTS_IOC_CAPS, c)) {
		snprintf(why, len, PTBTS_DEVICE ": capabilities: %s", strerror(errno));
		close(fd);
		return false;
	}
	close(fd);
	if (c->abi_version != PTBTS_ABI_VERSION) {
		snprintf(why, len, "the ptrace_bts module speaks ABI version %u, "
			 "libbts version %d: load the matching module",
			 c->abi_version, PTBTS_ABI_VERSION);
		return false;
	}
	return true;
}

void bts_kmod_unavail_text(unsigned int u, char *why, size_t len)
{
	if (u < ARRAY_SIZE(unavail_why) && unavail_why[u])
		snprintf(why, len, "%s", unavail_why[u]);
	else
		snprintf(why, len, "the module cannot record with it here (reason %u)", u);
}

void bts_kmod_probe(int source, struct bts_source_info *si)
{
	struct ptbts_caps c;
	unsigned int u;

	si->available = false;
	if (!bts_kmod_caps(&c, si->why, sizeof(si->why)))
		return;
	if (c.sources & (1u << source)) {
		si->available = true;
		return;
	}
	u = c.unavail[source];
	bts_kmod_unavail_text(u, si->why, sizeof(si->why));
}

int bts_kmod_pick(int want)
{
	int source = want == PTBTS_SOURCE_KMOD_BTS || want == PTBTS_SOURCE_KMOD_PEBS ?
		     want : PTBTS_SOURCE_KMOD_STEP;
	struct bts_source_info si = { .source = source };

	bts_kmod_probe(source, &si);
	if (si.available)
		return source;
	if (want != source)
		return 0;
	return bts_fail(BTS_E_NOSOURCE, "%s: %s", bts_source_name(source), si.why);
}
