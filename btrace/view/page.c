// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace view's HTML page.  speedscope's script and btrace's own go in as
 * they are (scripts/speedscope checks that nothing in them ends a
 * <script> or <style> early); the history goes in as base64, which no
 * HTML can misread, inside a <script type="text/plain"> that the page's
 * script hands to speedscope; the report is HTML-escaped text.  Every
 * part is copied in pieces: memory stays flat however long the history.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../export/export.h"
#include "view.h"

#define PIECE 49152	/* a multiple of 3: base64 pieces join up */

static void put_base64(FILE *out, const unsigned char *s, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned int v = s[i] << 16;

		if (i + 1 < n)
			v |= s[i + 1] << 8;
		if (i + 2 < n)
			v |= s[i + 2];
		putc(digits[v >> 18], out);
		putc(digits[(v >> 12) & 63], out);
		putc(i + 1 < n ? digits[(v >> 6) & 63] : '=', out);
		putc(i + 2 < n ? digits[v & 63] : '=', out);
	}
}

/* Text as HTML: the characters that would be markup, escaped. */
static void put_escaped(FILE *out, const char *s, size_t n, bool attribute)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs(attribute ? "&quot;" : "\"", out);
			break;
		default:
			putc(s[i], out);
		}
	}
}

enum copy_as { AS_IS, AS_BASE64, AS_TEXT };

/* @in from its start, in pieces: as it is, as base64 lines, as HTML text. */
static int copy_part(FILE *out, FILE *in, enum copy_as as)
{
	static char buf[PIECE];
	size_t n;

	rewind(in);
	/* fread fills whole pieces until the end: only the last has padding. */
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		switch (as) {
		case AS_IS:
			fwrite(buf, 1, n, out);
			break;
		case AS_BASE64:
			put_base64(out, (const unsigned char *)buf, n);
			putc('\n', out);
			break;
		case AS_TEXT:
			put_escaped(out, buf, n, false);
			break;
		}
	}
	return ferror(in) ? -1 : 0;
}

static int copy_asset(FILE *out, const char *dir, const char *name)
{
	char path[4096];
	FILE *in;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	in = fopen(path, "r");
	if (!in)
		return -1;
	ret = copy_part(out, in, AS_IS);
	fclose(in);
	return ret;
}

static int head(FILE *out, const struct view_page *p)
{
	fputs("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"btrace view (" EXPORT_CLOCK_NOTE
	      ")\">\n<title>btrace view: ", out);
	put_escaped(out, p->name, strlen(p->name), false);
	fputs("</title>\n<style>\n", out);
	if (copy_asset(out, p->assets, "page.css"))
		return -1;
	fputs("</style>\n<style>\n", out);
	if (copy_asset(out, p->assets, "speedscope.css"))
		return -1;
	fputs("</style>\n<script type=\"text/plain\" id=\"btrace-profile\" data-name=\"", out);
	put_escaped(out, p->name, strlen(p->name), true);
	fputs("\">\n", out);
	if (copy_part(out, p->profile, AS_BASE64))
		return -1;
	fputs("</script>\n<script type=\"text/plain\" id=\"btrace-speedscope\">\n", out);
	if (copy_asset(out, p->assets, "speedscope.js"))
		return -1;
	fputs("</script>\n</head>\n", out);
	return 0;
}

static int body(FILE *out, const struct view_page *p)
{
	fputs("<body>\n", out);
	if (p->report) {
		fputs("<aside id=\"btrace-crash\" hidden>\n<h1>Crash report: ", out);
		put_escaped(out, p->name, strlen(p->name), false);
		fputs("</h1>\n<pre>\n", out);
		if (copy_part(out, p->report, AS_TEXT))
			return -1;
		fputs("</pre>\n</aside>\n", out);
	}
	fputs("<script>\n", out);
	if (copy_asset(out, p->assets, "page.js"))
		return -1;
	fputs("</script>\n</body>\n</html>\n", out);
	return 0;
}

int view_page_write(FILE *out, const struct view_page *p)
{
	if (head(out, p) || body(out, p))
		return -1;
	return ferror(out) ? -1 : 0;
}
