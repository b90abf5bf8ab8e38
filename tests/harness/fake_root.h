/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fabricated machine for the refusal tests: files under the test's
 * temporary folder stand for /proc and /sys, and libbts reads them there
 * when BTS_PROC_ROOT and BTS_SYSFS_ROOT point at them.
 */
#ifndef FAKE_ROOT_H
#define FAKE_ROOT_H

#include "harness.h"

/* Writes @content to @rel ("proc/..." or "sys/...") in the tree. */
void fake_root_file(const char *rel, const char *content);
/* Points libbts (and the programs this process runs) at the tree. */
void fake_root_enter(void);
/* Back to the real /proc and /sys. */
void fake_root_leave(void);
/*
 * An Intel machine (Haswell, no capabilities, no seccomp) with Yama scope
 * @yama, perf_event_paranoid @paranoid, the meltdown line @meltdown and
 * the lockdown line @lockdown (file contents, newline included).
 */
void fake_root_intel(const char *yama, const char *paranoid,
		     const char *meltdown, const char *lockdown);
/* harness_run() of @argv inside the tree; fails the test if it cannot run. */
void fake_root_run(char *const argv[], int timeout, struct harness_cmd *cmd);

#endif /* FAKE_ROOT_H */
