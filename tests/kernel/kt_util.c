// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers of the in-guest tests: tracees, the device, buffers, counters. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kt.h"

static void *kt_sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void kt_child_body(int extra, int ready_fd)
{
	pthread_t th;
	int i;

	/* The tracee must not keep the tracer's session open. */
	for (i = 3; i < 1024; i++)
		if (i != ready_fd)
			close(i);
	for (i = 0; i < extra; i++)
		if (pthread_create(&th, NULL, kt_sleeper, NULL))
			_exit(2);
	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

static int kt_list_threads(struct kt_tracee *t)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	d = opendir(path);
	if (!d)
		return -errno;
	t->nr = 1;
	t->tids[0] = t->pid;
	while ((de = readdir(d))) {
		pid_t tid = atoi(de->d_name);

		if (tid > 0 && tid != t->pid && t->nr < KT_MAX_THREADS)
			t->tids[t->nr++] = tid;
	}
	closedir(d);
	return 0;
}

static int kt_seize(struct kt_tracee *t, int stopped)
{
	int i, st;

	for (i = 0; i < t->nr; i++)
		if (ptrace(PTRACE_SEIZE, t->tids[i], 0, 0))
			return -errno;
	if (!stopped)
		return 0;
	for (i = 0; i < t->nr; i++) {
		if (ptrace(PTRACE_INTERRUPT, t->tids[i], 0, 0))
			return -errno;
		if (waitpid(t->tids[i], &st, __WALL) != t->tids[i])
			return -errno;
		if (!WIFSTOPPED(st))
			return -ECHILD;
	}
	return 0;
}

int kt_tracee_start(struct kt_tracee *t, int extra, int stopped)
{
	int p[2], err;
	char c;

	memset(t, 0, sizeof(*t));
	if (extra >= KT_MAX_THREADS || pipe(p))
		return -EINVAL;
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (!t->pid) {
		close(p[0]);
		kt_child_body(extra, p[1]);
	}
	close(p[1]);
	err = read(p[0], &c, 1) == 1 ? 0 : -EIO;
	close(p[0]);
	if (!err)
		err = kt_list_threads(t);
	if (!err && t->nr != extra + 1)
		err = -EAGAIN;
	if (!err)
		err = kt_seize(t, stopped);
	if (err)
		kt_tracee_kill(t);
	return err;
}

/* Waits for @tid's end, resuming it from any stop on the way. */
static void kt_wait_end(pid_t tid)
{
	int st;

	while (waitpid(tid, &st, __WALL) == tid && WIFSTOPPED(st))
		ptrace(PTRACE_CONT, tid, 0, 0);
}

void kt_tracee_kill(struct kt_tracee *t)
{
	int i;

	if (t->pid <= 0)
		return;
	kill(t->pid, SIGKILL);
	/* Traced threads are reaped by their tracer, the leader last. */
	for (i = t->nr - 1; i >= 1; i--)
		kt_wait_end(t->tids[i]);
	kt_wait_end(t->pid);
	t->pid = 0;
}

int kt_thread_gone(pid_t tid)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	for (i = 0; i < 10000; i++) {
		if (access(path, F_OK))
			return 1;
		usleep(1000);
	}
	return 0;
}

pid_t kt_stopped_child(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		raise(SIGSTOP);
		for (;;)
			pause();
	}
	if (pid > 0 && waitpid(pid, &st, WUNTRACED) != pid)
		return -1;
	return pid;
}

void kt_reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	kt_wait_end(pid);
}

int kt_open(void)
{
	return open(PTBTS_DEVICE, O_RDWR | O_CLOEXEC);
}

long kt_ioctl(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

long kt_detach(int fd, pid_t tid)
{
	long r = ioctl(fd, PTBTS_IOC_DETACH, (unsigned long)tid);

	return r < 0 ? -errno : r;
}

int kt_caps(struct ptbts_caps *c)
{
	int fd = kt_open();
	long r;

	if (fd < 0)
		return -1;
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	r = kt_ioctl(fd, PTBTS_IOC_CAPS, c);
	close(fd);
	return (int)r;
}

struct ptbts_config kt_config(pid_t tid, void *buf, uint64_t size)
{
	struct ptbts_config c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.tid = tid;
	c.source = PTBTS_SOURCE_KMOD_STEP;
	c.mode = PTBTS_MODE_RING;
	c.buffer = (uintptr_t)buf;
	c.buffer_size = size;
	return c;
}

long kt_attach(int fd, pid_t tid, void *buf, uint64_t size)
{
	struct ptbts_config c = kt_config(tid, buf, size);

	return kt_ioctl(fd, PTBTS_IOC_ATTACH, &c);
}

void *kt_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void kt_unmap(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

int kt_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, size, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

long kt_sysfs_long(const char *rel)
{
	char path[256], line[64];

	snprintf(path, sizeof(path), "%s/%s", KT_SYSFS, rel);
	if (kt_read_line(path, line, sizeof(line)))
		return -1;
	return strtol(line, NULL, 10);
}

/*
 * The count once the releases that exits queued are done (sysfs never
 * waits for them itself): 10 s at most.
 */
long kt_pinned(void)
{
	struct timespec tick = { 0, 5000000 };
	int i;

	for (i = 0; i < 2000 && kt_sysfs_long("releases_queued") > 0; i++)
		nanosleep(&tick, NULL);
	return kt_sysfs_long("pinned_pages");
}

long kt_status_kb(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

long kt_vmlck_kb(void)
{
	return kt_status_kb("VmLck");
}

long kt_vmpin_kb(void)
{
	return kt_status_kb("VmPin");
}

int kt_in_child(int (*fn)(void *), void *arg)
{
	int p[2], st, res = -1;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(p[0]);
		res = fn(arg);
		if (write(p[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &res, sizeof(res)) != sizeof(res))
		res = -1;
	close(p[0]);
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		return 1000 + WTERMSIG(st);
	return res;
}

int kt_become_user(void)
{
	if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
	    setresuid(1000, 1000, 1000))
		return -1;
	/* A changed uid makes the process undumpable, and so untraceable. */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

int kt_klog_count(const char *what)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *at;
	int len, count = 0;

	if (n <= 0)
		return -1;
	buf = malloc(n + 1);
	if (!buf)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	for (at = buf; (at = strstr(at, what)); at++)
		count++;
	free(buf);
	return count;
}

/* qemu-run's verdict on a whole boot's log, asked by one test of it. */
int kt_klog_bad(void)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "general protection fault",
		"UBSAN", "sleeping function called from invalid context",
	};
	size_t i;
	int n, sum = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = kt_klog_count(bad[i]);
		if (n < 0)
			return -1;
		sum += n;
	}
	return sum;
}

int kt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -errno;
}

/*
 * The suspend's freezer without the suspend: /sys/power/pm_test "freezer"
 * stops a suspend to idle right after every task was frozen, and thaws
 * them.  The write fails (EBUSY) when a task could not be frozen within
 * the kernel's freeze timeout.  pm_test and its delay are put back.
 */
int kt_freeze_all(void)
{
	static const char delay[] = "/sys/module/suspend/parameters/pm_test_delay";
	char old[32];
	int err;

	err = kt_read_line(delay, old, sizeof(old));
	if (!err)
		err = kt_write_file(delay, "0");
	if (err)
		return err;
	err = kt_write_file("/sys/power/pm_test", "freezer");
	if (!err)
		err = kt_write_file("/sys/power/state", "freeze");
	kt_write_file("/sys/power/pm_test", "none");
	kt_write_file(delay, old);
	return err;
}

size_t kt_count_lines(const char *s, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (; *s; s = strchrnul(s, '\n') + !!*strchrnul(s, '\n'))
		if (!strncmp(s, prefix, len))
			n++;
	return n;
}

/* The (up to) @n lines before line start @at of @start's text, to stderr. */
static void context_before(const char *who, const char *start, const char *at,
			   int n)
{
	const char *p = at;

	for (; n > 0 && p > start; n--) {
		p--;			/* the previous line's newline */
		while (p > start && p[-1] != '\n')
			p--;
	}
	if (p < at)
		fprintf(stderr, "%s, the lines before:\n%.*s", who, (int)(at - p), p);
}

size_t kt_first_other_line(const char *what, const char *got,
			   const char *ref, const char *want)
{
	const char *got0 = got, *want0 = want;
	size_t line = 1;

	while (*got || *want) {
		size_t a = strcspn(got, "\n"), b = strcspn(want, "\n");

		if (a != b || memcmp(got, want, a)) {
			context_before(what, got0, got, 3);
			context_before(ref, want0, want, 3);
			fprintf(stderr, "%s: line %zu: '%.*s' where %s has '%.*s'\n",
				what, line, (int)a, got, ref, (int)b, want);
			return line;
		}
		got += a + !!got[a];
		want += b + !!want[b];
		line++;
	}
	return 0;
}

int kt_swap_module(const char *ko, const char *args)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rmmod ptrace_bts && insmod %s %s", ko, args);
	return system(cmd);
}
