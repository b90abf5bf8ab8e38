/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running real gdb (13, batch mode) against `btrace gdbserver`, for the
 * tests of tests/gdb/.
 */
#ifndef TESTS_GDB_UTIL_H
#define TESTS_GDB_UTIL_H

#include <stdbool.h>
#include <sys/types.h>

#include "harness.h"

#define GDB_TIMEOUT 60

/*
 * gdb -batch -nx PROG, connected with `target remote | btrace gdbserver
 * [STUB_ARGS] -- PROG` (or, when @target is given, with that target
 * command), then one -ex per NULL-ended command.  PROG is a name in the
 * build's progs/.  Fails the test when gdb cannot run.
 */
void gdb_run(struct harness_cmd *cmd, const char *prog, const char *target,
	     const char *const *cmds);

/* The gdbserver target command for @prog ("target remote | ... -- PATH"). */
char *gdb_target(const char *prog, const char *stub_args);

/*
 * The text of gdb's stdout between the lines "@@begin NAME" and
 * "@@end NAME" (echoed by the commands), malloc'ed; fails the test when
 * they are missing.
 */
char *gdb_section(const struct harness_cmd *cmd, const char *name);

/* Fails the test, showing gdb's output, when @text is not in stdout. */
void gdb_expect_out(const struct harness_cmd *cmd, const char *text);

/* Waits (up to 10 s) until process @pid is gone; true when it is. */
bool gdb_wait_gone(pid_t pid);

#endif /* TESTS_GDB_UTIL_H */
