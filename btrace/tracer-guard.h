/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record, gdbserver: the tracer is a child that outlives a SIGKILLed btrace. */
#ifndef BTRACE_TRACER_GUARD_H
#define BTRACE_TRACER_GUARD_H

#define TRACER_GUARD_CHILD	(-1)

/*
 * Forks the tracer.  In the tracer, returns TRACER_GUARD_CHILD (go on
 * tracing); in btrace, waits for it and returns the exit code to exit
 * with: the tracer's, or 125 when it was killed, said on stderr as "@who
 * (process N) was killed by SIG...", naming the incomplete temporary file
 * of @output (NULL for none).
 */
int tracer_guard(const char *who, const char *output);

#endif /* BTRACE_TRACER_GUARD_H */
