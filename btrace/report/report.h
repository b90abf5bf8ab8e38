/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrace report's parts: what died and why (crash.c), and per thread the
 * backtrace, the last branches and the last function calls (thread.c).
 * Both print text or, with --json, members of one JSON object.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "../replay/state.h"

struct report_opts {
	uint64_t last;		/* branches and calls per thread */
	bool json;
};

/* The whole report of trace file @path to stdout; an exit code. */
int report_write(const char *path, const struct report_opts *o);
/* The "crash" part: signal, code, address, the faulting instruction. */
void report_crash(struct replay *r, const struct report_opts *o);
/* One thread: backtrace, last branches, last calls; -1 when it failed. */
int report_thread(struct replay *r, size_t i, const struct report_opts *o);

#endif /* REPORT_H */
