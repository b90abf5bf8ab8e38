// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The machine, as a bug report about its branch sources needs it: the
 * CPU (vendor, family, model, stepping, name, microcode, whether Linux
 * sees DS, BTS, PEBS and page-table isolation), IA32_PERF_CAPABILITIES
 * (through the msr driver, root only), the PMU perf found and its PEBS
 * format in perf's boot line, the kernel, and the ptrace_bts module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "selftest.h"

#define MSR_PERF_CAPABILITIES 0x345

/* The value of the first "@key\t: value" line of /proc/cpuinfo, or "?". */
static void cpuinfo(const char *key, char *val, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	size_t n = strlen(key);

	snprintf(val, size, "?");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, n) || !colon ||
		    strspn(line + n, " \t") != (size_t)(colon - line - n))
			continue;
		colon += 1 + strspn(colon + 1, " ");
		colon[strcspn(colon, "\n")] = 0;
		snprintf(val, size, "%s", colon);
		break;
	}
	fclose(f);
}

static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *at = flags;

	while ((at = strstr(at, flag))) {
		if ((at == flags || at[-1] == ' ') && (!at[n] || at[n] == ' '))
			return true;
		at += n;
	}
	return false;
}

static void perf_capabilities(FILE *f)
{
	uint64_t v;
	int fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(f, "perf-caps   unknown (/dev/cpu/0/msr: %s; as root: modprobe msr)\n",
			strerror(errno));
		return;
	}
	if (pread(fd, &v, sizeof(v), MSR_PERF_CAPABILITIES) != sizeof(v))
		fprintf(f, "perf-caps   unknown (IA32_PERF_CAPABILITIES: %s)\n",
			strerror(errno));
	else
		fprintf(f, "perf-caps   IA32_PERF_CAPABILITIES 0x%llx (PEBS format %llu)\n",
			(unsigned long long)v, (unsigned long long)((v >> 8) & 0xf));
	close(fd);
}

/* perf's boot line ("Performance Events: PEBS fmt3+, ..."), if readable. */
static void perf_boot_line(FILE *f)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *at;

	if (n <= 0 || !(buf = malloc((size_t)n + 1)))
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	if (n > 0) {
		buf[n] = 0;
		at = strstr(buf, "Performance Events: ");
		if (at) {
			at += strlen("Performance Events: ");
			fprintf(f, "perf        %.*s\n", (int)strcspn(at, "\n"), at);
		}
	}
	free(buf);
}

static void file_line(FILE *f, const char *name, const char *path)
{
	char line[256] = "";
	FILE *in = fopen(path, "re");

	if (!in)
		return;
	if (fgets(line, sizeof(line), in))
		fprintf(f, "%-11s %.*s\n", name, (int)strcspn(line, "\n"), line);
	fclose(in);
}

void selftest_machine(FILE *f)
{
	char vendor[64], family[16], model[16], stepping[16], name[128];
	char microcode[32], flags[4096];
	struct utsname u;

	cpuinfo("vendor_id", vendor, sizeof(vendor));
	cpuinfo("cpu family", family, sizeof(family));
	cpuinfo("model", model, sizeof(model));
	cpuinfo("stepping", stepping, sizeof(stepping));
	cpuinfo("model name", name, sizeof(name));
	cpuinfo("microcode", microcode, sizeof(microcode));
	cpuinfo("flags", flags, sizeof(flags));
	fprintf(f, "cpu         %s family %s model %s stepping %s: %s\n", vendor,
		family, model, stepping, name);
	fprintf(f, "microcode   %s\n", microcode);
	fprintf(f, "cpu-flags   ds %s, dtes64 %s, bts %s, pebs %s, pdcm %s, pti %s\n",
		has_flag(flags, "dts") ? "yes" : "no",
		has_flag(flags, "dtes64") ? "yes" : "no",
		has_flag(flags, "bts") ? "yes" : "no",
		has_flag(flags, "pebs") ? "yes" : "no",
		has_flag(flags, "pdcm") ? "yes" : "no",
		has_flag(flags, "pti") ? "on" : "off");
	perf_capabilities(f);
	file_line(f, "pmu", "/sys/bus/event_source/devices/cpu/caps/pmu_name");
	perf_boot_line(f);
	if (!uname(&u))
		fprintf(f, "kernel      %s %s %s %s\n", u.sysname, u.release,
			u.version, u.machine);
	fprintf(f, "module      ptrace_bts %s\n",
		access("/sys/module/ptrace_bts", F_OK) ? "not loaded" : "loaded");
	file_line(f, "hw-verified", "/sys/kernel/ptrace_bts/hw_verified");
}
