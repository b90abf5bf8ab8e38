/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the in-guest tests of the ptrace_bts module: tracees, the
 * device, buffers, and the counters that must come back to where they were.
 */
#ifndef KT_H
#define KT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/ptrace_bts.h>

#define KT_PAGE		4096
#define KT_SYSFS	"/sys/kernel/ptrace_bts"
#define KT_MAX_THREADS	8

/*
 * A traced child: the calling thread is its tracer.  Every thread of it is
 * seized; with @stopped, every one sits in a ptrace stop.
 */
struct kt_tracee {
	pid_t pid;
	int nr;				/* threads */
	pid_t tids[KT_MAX_THREADS];	/* tids[0] == pid */
};

/* A child with @extra more threads, all sleeping, seized by the caller. */
int kt_tracee_start(struct kt_tracee *t, int extra, int stopped);
/* SIGKILL and reap. */
void kt_tracee_kill(struct kt_tracee *t);

/* Waits (10 s at most) until this process has no thread @tid. */
int kt_thread_gone(pid_t tid);

/* A child that is stopped by SIGSTOP but traced by nobody. */
pid_t kt_stopped_child(void);
void kt_reap(pid_t pid);

int kt_open(void);
/* ioctl() as -errno, or its non-negative result. */
long kt_ioctl(int fd, unsigned long cmd, void *arg);
/* The capabilities (CAPS) into @c; 0 or -errno, -1 when the device is absent. */
int kt_caps(struct ptbts_caps *c);
long kt_detach(int fd, pid_t tid);

/* A ready config for @tid and a buffer of @size bytes at @buf. */
struct ptbts_config kt_config(pid_t tid, void *buf, uint64_t size);
long kt_attach(int fd, pid_t tid, void *buf, uint64_t size);

/* Private anonymous read-write memory, page-aligned. */
void *kt_map(size_t size);
void kt_unmap(void *p, size_t size);

/* /sys/kernel/ptrace_bts/@rel as a number, or -1. */
long kt_sysfs_long(const char *rel);
/* The first line of a file, newline stripped, into @buf. */
int kt_read_line(const char *path, char *buf, size_t size);
/* VmLck of this process, in kB, or -1. */
long kt_vmlck_kb(void);
/* VmPin of this process, in kB, or -1: where the module's buffers show. */
long kt_vmpin_kb(void);
/* A "NAME:  N kB" line of /proc/self/status, or -1. */
long kt_status_kb(const char *field);
/* pinned_pages once the queued releases are done, or -1. */
long kt_pinned(void);

/*
 * Runs @fn in a child process and returns what it returned (0 for
 * success), or 1000 + a signal when it died of one.  Checks inside @fn use
 * KT_CHECK, which returns the failing line.
 */
int kt_in_child(int (*fn)(void *), void *arg);
#define KT_CHECK(c) do { if (!(c)) return __LINE__; } while (0)

/*
 * Replaces the loaded module by @ko (the test build is
 * /ptrace_bts-test.ko) with the parameters @args; system()'s status.
 */
int kt_swap_module(const char *ko, const char *args);

/* In a child: become uid/gid 1000 (no capabilities), still dumpable. */
int kt_become_user(void);

/* Lines of the kernel log that hold @what, or -1. */
int kt_klog_count(const char *what);
/* Lines of the kernel log with a WARNING, BUG, Oops, ... (qemu-run's list), or -1. */
int kt_klog_bad(void);

/* @s written to @path (a sysfs or proc file): 0 or -errno. */
int kt_write_file(const char *path, const char *s);
/*
 * Every task but the caller frozen as for a suspend, then thawed: 0, or
 * -errno (-EBUSY: a task could not be frozen).
 */
int kt_freeze_all(void);
/* Lines of @s that start with @prefix. */
size_t kt_count_lines(const char *s, const char *prefix);
/*
 * The number of the first line where @got (of @what) and @want (of @ref)
 * differ, both printed to stderr with the three lines before them; 0 when
 * they are the same.
 */
size_t kt_first_other_line(const char *what, const char *got,
			   const char *ref, const char *want);

#endif /* KT_H */
