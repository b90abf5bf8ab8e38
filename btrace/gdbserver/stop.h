/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Asking the stub to end, as a disconnect does (stop.c). */
#ifndef BTRACE_GDB_STOP_H
#define BTRACE_GDB_STOP_H

#include <stdbool.h>

/*
 * Catches SIGTERM, SIGHUP and SIGQUIT; returns a descriptor that is
 * readable from the first of them on (-1 when none could be made).
 */
int stub_stop_init(void);
/* Whether a stop was asked for. */
bool stub_stopping(void);
/*
 * One descriptor readable when @in is or a stop was asked for (an epoll
 * set; close it after use), or @in itself when none could be made.
 */
int stub_wake_fd(int in);

#endif /* BTRACE_GDB_STOP_H */
