// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names from a trace (exe and map paths, objects) and the messages that
 * carry them go to a terminal: a control character in one would pass an
 * escape sequence through, or a newline forge a line of output.  As git
 * shows paths (core.quotePath), a name that needs it is shown quoted, with
 * C escapes for the control characters, '"' and '\', and \ooo for bytes
 * that are no well-formed UTF-8 (or are C1 controls); messages get the
 * escapes without the quotes, and the lines of source files shown beside
 * instructions keep their tabs too.  JSON output escapes for itself.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace.h"

/* Length of the well-formed, printable UTF-8 character at @s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, surrogates, or code points past U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	/* U+0080..U+009F: the C1 controls (CSI among them). */
	if (s[0] == 0xc2 && s[1] <= 0x9f)
		return 0;
	return n;
}

/* The C escape of @c, or 0 when it has none of its own. */
static char c_escape(unsigned char c)
{
	static const char from[] = "\a\b\t\n\v\f\r\"\\", to[] = "abtnvfr\"\\";
	const char *p = c ? strchr(from, c) : NULL;

	return p ? to[p - from] : 0;
}

enum mode { NAME, MESSAGE, TEXT };

/* Whether the character at @s is escaped; its length in *n. */
static bool escaped(const unsigned char *s, enum mode mode, size_t *n)
{
	*n = 1;
	if (*s >= 0x80) {
		size_t len = utf8_len(s);

		if (!len)
			return true;
		*n = len;
		return false;
	}
	if (*s == '\t' && mode == TEXT)
		return false;
	return *s < 0x20 || *s == 0x7f || (mode == NAME && (*s == '"' || *s == '\\'));
}

static bool plain(const unsigned char *s, enum mode mode)
{
	for (size_t n; *s; s += n)
		if (escaped(s, mode, &n))
			return false;
	return true;
}

/* @str escaped into a string of a ring of buffers (valid for a few calls). */
static const char *escape(const char *str, enum mode mode)
{
	bool quote = mode == NAME;
	static char *ring[4];
	static unsigned int next;
	const unsigned char *s = (const unsigned char *)str;
	char *out, *o;

	if (!str || plain(s, mode))
		return str;
	/* At most 4 bytes ("\ooo") for each, the quotes and the NUL. */
	out = malloc(4 * strlen(str) + 3);
	if (!out)
		return quote ? "\"?\"" : "?";
	o = out;
	if (quote)
		*o++ = '"';
	for (size_t n; *s; s += n) {
		if (!escaped(s, mode, &n)) {
			memcpy(o, s, n);
			o += n;
		} else if (c_escape(*s)) {
			o += sprintf(o, "\\%c", c_escape(*s));
		} else {
			o += sprintf(o, "\\%03o", *s);
		}
	}
	if (quote)
		*o++ = '"';
	*o = 0;
	free(ring[next]);
	ring[next] = out;
	next = (next + 1) % (sizeof(ring) / sizeof(ring[0]));
	return out;
}

const char *shown(const char *name)
{
	return escape(name, NAME);
}

const char *shown_msg(const char *msg)
{
	return escape(msg, MESSAGE);
}

const char *shown_text(const char *line)
{
	return escape(line, TEXT);
}
