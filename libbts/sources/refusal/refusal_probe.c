// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The facts behind the refusal checks: files under /proc and /sys (below
 * $BTS_PROC_ROOT / $BTS_SYSFS_ROOT when a test sets them), and two tries
 * that only the kernel can answer: may a child of ours be traced, and may
 * we open a perf event.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sources/refusal/refusal.h"

const char *bts_root_path(const char *path, char *buf, size_t len)
{
	const char *root = NULL;
	size_t skip = 0;

	/* secure_getenv: a setuid btrace must not read files of the caller's choice. */
	if (!strncmp(path, "/proc/", 6)) {
		root = secure_getenv("BTS_PROC_ROOT");
		skip = 5;
	} else if (!strncmp(path, "/sys/", 5)) {
		root = secure_getenv("BTS_SYSFS_ROOT");
		skip = 4;
	}
	if (!root || !*root)
		return path;
	snprintf(buf, len, "%s%s", root, path + skip);
	return buf;
}

int bts_read_line_file(const char *path, char *buf, size_t len)
{
	char where[4096];
	FILE *f = fopen(bts_root_path(path, where, sizeof(where)), "re");
	int err = -1;

	if (!f)
		return -1;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		err = 0;
	}
	fclose(f);
	return err;
}

int bts_read_int_file(const char *path, long long *val)
{
	char line[64], *end;

	if (bts_read_line_file(path, line, sizeof(line)))
		return -1;
	*val = strtoll(line, &end, 10);
	return end == line ? -1 : 0;
}

int bts_self_status(const char *field, int base, unsigned long long *val)
{
	char where[4096];

	return bts_status_field(bts_root_path("/proc/self/status", where,
					      sizeof(where)), field, base, val);
}

bool bts_has_cap(unsigned long long cap_eff, int cap)
{
	return (cap_eff >> cap) & 1;
}

/*
 * A forked child asks to be traced and stops; what PTRACE_TRACEME said is
 * what Yama, seccomp filters and container policies allow us.
 */
static int try_ptrace(void)
{
	int status, fds[2], err = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0)) {
			err = errno;
			if (write(fds[1], &err, sizeof(err)) < 0)
				_exit(2);
			_exit(1);
		}
		raise(SIGSTOP);
		_exit(0);
	}
	close(fds[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSTOPPED(status)) {
		kill(pid, SIGKILL);
		ptrace(PTRACE_CONT, pid, 0, 0);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	} else if (read(fds[0], &err, sizeof(err)) != sizeof(err)) {
		err = EPERM;
	}
	close(fds[0]);
	return err;
}

int bts_perf_try(struct perf_event_attr *attr)
{
	long fd = syscall(SYS_perf_event_open, attr, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

/*
 * A software dummy event on ourselves, user mode only: allowed at every
 * perf_event_paranoid level up to 2, so a refusal at 2 or less is a policy.
 */
static int try_perf(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return bts_perf_try(&attr);
}

static int read_yama(void)
{
	long long v;

	return bts_read_int_file("/proc/sys/kernel/yama/ptrace_scope", &v) ? -1 : (int)v;
}

static int read_paranoid(void)
{
	long long v;

	return bts_read_int_file("/proc/sys/kernel/perf_event_paranoid", &v) ?
	       BTS_NO_PERF : (int)v;
}

static int read_module_abi(void)
{
	long long v;

	if (!bts_read_int_file("/sys/kernel/ptrace_bts/abi_version", &v))
		return (int)v;
	return -1;
}

/* "none [integrity] confidentiality": the bracketed word. */
static void read_lockdown(char *out, size_t len)
{
	char line[128], *open, *close;

	out[0] = '\0';
	if (bts_read_line_file("/sys/kernel/security/lockdown", line, sizeof(line)))
		return;
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (open && close)
		snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
}

static bool wants(int check, int which)
{
	return check < 0 || check == which;
}

void bts_refusal_probe(int check, struct bts_refusal_facts *f)
{
	unsigned long long v;

	memset(f, 0, sizeof(*f));
	f->seccomp = bts_self_status("Seccomp", 10, &v) ? -1 : (int)v;
	if (!bts_self_status("CapEff", 16, &v))
		f->cap_eff = v;
	f->yama = read_yama();
	f->paranoid = read_paranoid();
	if (wants(check, BTS_REFUSAL_POLICY)) {
		f->ptrace_err = try_ptrace();
		f->perf_err = try_perf();
	}
	if (bts_read_line_file("/sys/devices/system/cpu/vulnerabilities/meltdown",
			       f->meltdown, sizeof(f->meltdown)))
		f->meltdown[0] = '\0';
	f->module_abi = read_module_abi();
	read_lockdown(f->lockdown, sizeof(f->lockdown));
}
