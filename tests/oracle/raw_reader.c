// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading `btrace dump --raw`: "# thread TID" opens a thread, "0xFROM 0xTO"
 * (lower-case hex) is a record, any other "# " line a marker.  Nothing else
 * may appear: the format is stable and tests hold it to the letter.
 */
#include <stdio.h>
#include <stdlib.h>

#include "oracle.h"

/* "0x" and lower-case hex digits up to @stop: 0 and *v, or -1. */
static int hex(const char **s, char stop, uint64_t *v)
{
	const char *p = *s;
	int digits = 0;

	if (strncmp(p, "0x", 2))
		return -1;
	*v = 0;
	for (p += 2; *p != stop; p++, digits++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (d < 0 || digits == 16)
			return -1;
		*v = *v << 4 | d;
	}
	*s = p + 1;
	return digits ? 0 : -1;
}

static int thread_line(const char *l, struct oracle_raw *d)
{
	char *end;
	long tid = strtol(l + 9, &end, 10);

	if (tid <= 0 || *end != '\n')
		return -1;
	d->t = realloc(d->t, (d->n + 1) * sizeof(*d->t));
	memset(&d->t[d->n], 0, sizeof(*d->t));
	d->t[d->n++].tid = tid;
	return 0;
}

static int one_line(const char *l, struct oracle_raw *d)
{
	uint64_t from, to;

	if (!strncmp(l, "# thread ", 9))
		return thread_line(l, d);
	if (!d->n)
		return -1;
	if (!strncmp(l, "# ", 2)) {
		d->t[d->n - 1].markers++;
		return 0;
	}
	if (hex(&l, ' ', &from) || hex(&l, '\n', &to))
		return -1;
	oracle_pairs_add(&d->t[d->n - 1].pairs, from, to);
	return 0;
}

int oracle_raw_parse(const char *text, struct oracle_raw *out,
		   char *err, size_t errlen)
{
	size_t lineno = 0;

	memset(out, 0, sizeof(*out));
	for (const char *l = text; *l; lineno++) {
		const char *nl = strchr(l, '\n');

		if (!nl || one_line(l, out)) {
			snprintf(err, errlen, "line %zu: not a --raw line: %.*s",
				 lineno + 1, nl ? (int)(nl - l) : 60, l);
			oracle_raw_free(out);
			return -1;
		}
		l = nl + 1;
	}
	return 0;
}

void oracle_raw_free(struct oracle_raw *d)
{
	for (size_t i = 0; i < d->n; i++)
		oracle_pairs_free(&d->t[i].pairs);
	free(d->t);
	memset(d, 0, sizeof(*d));
}
