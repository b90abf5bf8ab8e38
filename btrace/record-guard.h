/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btrace record: the recording runs in a child that outlives a SIGKILLed btrace. */
#ifndef BTRACE_RECORD_GUARD_H
#define BTRACE_RECORD_GUARD_H

#define RECORD_GUARD_RECORDER	(-1)

/*
 * Forks the recorder.  In the recorder, returns RECORD_GUARD_RECORDER (go
 * on recording); in btrace, waits for it and returns the exit code to exit
 * with: the recorder's, or 125 when it was killed (said on stderr, naming
 * the incomplete temporary file of @output, NULL for none).
 */
int record_guard(const char *output);

#endif /* BTRACE_RECORD_GUARD_H */
