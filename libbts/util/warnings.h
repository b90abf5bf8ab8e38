/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The warnings an object gathers for its caller (a file it could not
 * read, a map it could not symbolize): formatted messages, kept in order.
 */
#ifndef BTS_WARNINGS_H
#define BTS_WARNINGS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct bts_warnings {
	char **msgs;
	size_t n, cap;
};

/*
 * Adds the message @fmt makes (%m included); with @once, not when the
 * same message is there already.  Out of memory, the message is lost.
 */
void bts_warnings_vadd(struct bts_warnings *w, bool once, const char *fmt,
		       va_list ap) __attribute__((format(printf, 3, 0)));
/* Message @i, or NULL past the last. */
const char *bts_warnings_get(const struct bts_warnings *w, size_t i);
void bts_warnings_free(struct bts_warnings *w);

#endif /* BTS_WARNINGS_H */
