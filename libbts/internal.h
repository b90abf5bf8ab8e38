/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* What the parts of libbts share and do not export. */
#ifndef BTS_INTERNAL_H
#define BTS_INTERNAL_H

#include "bts.h"

/*
 * Records the detail of a failure for bts_errdetail() and returns -@err, so
 * that a failing path reads:  return bts_fail(BTS_E_FORMAT, "offset %zu: ...", off);
 */
int bts_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, with ": strerror(errno)" appended to the detail. */
int bts_fail_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* BTS_INTERNAL_H */
