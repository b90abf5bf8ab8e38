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

struct rsp_client;
/* btrace gdbserver -- PROG (a name in the build's progs/), on pipes. */
void gdb_stub_start(struct rsp_client *s, const char *prog);

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

/*
 * Fails the test when stdout lacks @before "process PID" @after, for any
 * decimal PID: the stub speaks multiprocess ids, so gdb names the inferior
 * by the program's real pid.
 */
void gdb_expect_process(const struct harness_cmd *cmd, const char *before,
			const char *after);

/* gdb's line for the end of inferior 1, @how: "exited with code 06", ... */
#define gdb_expect_exit(cmd, how) \
	gdb_expect_process(cmd, "[Inferior 1 (", ") " how "]")

/*
 * What @fd gives until its first newline (a stub's first stderr line,
 * "listening on ..."), NUL-ended in @buf of @size bytes; less at its end.
 */
void gdb_read_line(int fd, char *buf, size_t size);

/* Waits (up to 10 s) until process @pid is gone; true when it is. */
bool gdb_wait_gone(pid_t pid);

/*
 * A gdb command that prints where the replay of the sequence at seq_run
 * stands: "@@pos N OFFSET" (OFFSET from seq_run), or "@@pos end OFFSET"
 * when live.
 */
#define GDB_PY_WHERE							\
	"python p = gdb.current_recording().replay_position; "		\
	"print('@@pos', p.number if p else 'end', "			\
	"int(gdb.parse_and_eval('$pc')) - "				\
	"int(gdb.parse_and_eval('(long)&seq_run')))"

/*
 * The walk through a recorded sequence that the reverse / record goto
 * tests share, from a stop at its end: seven GDB_PY_WHERE lines, live,
 * then after reverse-stepi, reverse-stepi 4, record goto begin, stepi 2,
 * record goto 8 and record goto end.
 */
#define GDB_GOTO_WALK							\
	GDB_PY_WHERE,							\
	"reverse-stepi", GDB_PY_WHERE,					\
	"reverse-stepi 4", GDB_PY_WHERE,				\
	"record goto begin", GDB_PY_WHERE,				\
	"stepi 2", GDB_PY_WHERE,					\
	"record goto 8", GDB_PY_WHERE,					\
	"record goto end", GDB_PY_WHERE

#endif /* TESTS_GDB_UTIL_H */
