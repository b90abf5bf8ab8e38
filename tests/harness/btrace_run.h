/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running the btrace under test with a list of arguments. */
#ifndef BTRACE_RUN_H
#define BTRACE_RUN_H

#include <stdarg.h>

#include "harness.h"

/*
 * Runs BTRACE_PATH() with the NULL-ended arguments (30 at most) into @cmd,
 * for at most @timeout seconds; returns its exit code.  Fails the test if
 * btrace cannot be run.
 */
int harness_btrace(struct harness_cmd *cmd, int timeout, ...);
/* harness_btrace() with the arguments as a va_list, or as an array. */
int harness_btrace_va(struct harness_cmd *cmd, int timeout, va_list ap);
int harness_btrace_argv(struct harness_cmd *cmd, int timeout,
			const char *const args[]);

#endif /* BTRACE_RUN_H */
