/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tests of btrace view share. */
#ifndef VIEW_UTIL_H
#define VIEW_UTIL_H

#include <stdbool.h>

#include "harness.h"

/*
 * A crash trace of crash-deep (main -> level1 -> level2 -> level3, SIGSEGV
 * at 0x10), its newest 100 records: a history of a few dozen functions.
 */
char *view_record_crash(struct harness_cmd *rec);
/* No *.tmp.* file in @dir: no page was left half written. */
bool view_no_temporary(const char *dir);

#endif /* VIEW_UTIL_H */
