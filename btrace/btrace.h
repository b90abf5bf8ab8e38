/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the btrace commands share. */
#ifndef BTRACE_H
#define BTRACE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Exit codes.  record exits with the program's own status, so its own
 * failures use the codes of env(1) and timeout(1), which a program rarely
 * returns.  The other commands use the usual 1 (failed) and 2 (misused).
 */
#define EXIT_RECORD_FAILED	125	/* btrace record itself failed */
#define EXIT_RECORD_NOEXEC	126	/* the program cannot be run */
#define EXIT_RECORD_NOENT	127	/* the program was not found */
#define EXIT_FAILED		1	/* dump, info: the work failed */
#define EXIT_USAGE		2	/* dump, info, help: bad command line */

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_index(int argc, char **argv);
/* btrace info FILE (info-trace.c). */
int info_trace(const char *path, bool json);
int cmd_stats(int argc, char **argv);
int cmd_gdbserver(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_selftest(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* One line on stderr: "btrace: " fmt "\n". */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for a libbts failure: "btrace: " prefix ": " errstr[: detail]. */
void error_bts(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct bts_trace;
/*
 * bts_trace_new() for a view: should the file shrink under its mapping
 * all the same (libbts/trace/reader_guard.c), the view stops with an
 * error that says so rather than die of SIGBUS.
 */
int open_trace(const char *path, bool incomplete_ok, struct bts_trace **out);

/*
 * A name from a trace (exe, path, object) for text output: itself when it
 * is plain printable text, else quoted with C escapes as git shows paths
 * (escape.c).  The result lasts for the next three calls of either.
 */
const char *shown(const char *name);
/* A message with its control characters escaped, without quotes. */
const char *shown_msg(const char *msg);
/* A line of a source file: shown_msg(), but its tabs kept. */
const char *shown_text(const char *line);

/*
 * setuid-note.c: one line on stderr, "btrace: @cmd: note: ...", when
 * @prog is set-user-ID or set-group-ID and will run without those
 * privileges under btrace's ptrace.
 */
void note_setuid(const char *cmd, const char *prog);

/*
 * "4096", "64K", "4M", "1G" (powers of 1024) into bytes.  0 and sizes that
 * do not fit in 64 bits are errors.  Returns 0 or -1.
 */
int parse_size(const char *s, uint64_t *out);

#endif /* BTRACE_H */
