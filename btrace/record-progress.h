/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btrace record's live progress line on stderr (record-progress.c). */
#ifndef BTRACE_RECORD_PROGRESS_H
#define BTRACE_RECORD_PROGRESS_H

#include <stdbool.h>

struct bts_session;

/* --progress, --no-progress, or neither: on when stderr is a terminal. */
enum progress_mode { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

/*
 * Shows the session's counts a few times a second until
 * record_progress_stop(), which erases the line: the summary line that
 * follows is all a finished recording leaves.  Does nothing when off.
 * With @hint, a ptrace-step recording slow for a few seconds also gets
 * one line naming --source qemu-user, which stays.
 */
void record_progress_start(struct bts_session *s, enum progress_mode mode,
			   bool hint);
void record_progress_stop(void);

#endif /* BTRACE_RECORD_PROGRESS_H */
