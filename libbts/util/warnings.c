// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The warnings of an object (util/warnings.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/warnings.h"

static bool has(const struct bts_warnings *w, const char *msg)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->msgs[i], msg))
			return true;
	return false;
}

void bts_warnings_vadd(struct bts_warnings *w, bool once, const char *fmt,
		       va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	if ((once && has(w, msg)) || BTS_ARRAY_RESERVE(w->msgs, w->cap, w->n + 1)) {
		free(msg);
		return;
	}
	w->msgs[w->n++] = msg;
}

const char *bts_warnings_get(const struct bts_warnings *w, size_t i)
{
	return i < w->n ? w->msgs[i] : NULL;
}

void bts_warnings_free(struct bts_warnings *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->msgs[i]);
	free(w->msgs);
	*w = (struct bts_warnings){ 0 };
}
