/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrace view: one HTML page that shows a trace file in speedscope (the
 * timeline of calls per thread on the instruction axis, the flame graph),
 * with the crash report beside it for a crash trace.  The page loads
 * nothing: speedscope's script and style, the history and the report are
 * all inside it.
 */
#ifndef BTRACE_VIEW_H
#define BTRACE_VIEW_H

#include <stddef.h>
#include <stdio.h>

/* What the page is made of, besides the assets. */
struct view_page {
	const char *assets;	/* the directory of view_assets() */
	const char *name;	/* the trace file's name, for the title */
	FILE *profile;		/* 'btrace export --format speedscope' */
	FILE *report;		/* 'btrace report' text, or NULL: no crash */
};

/*
 * The directory of the page's assets (speedscope.js, speedscope.css,
 * page.js, page.css): share/btrace/view in the build directory beside
 * btrace, or in the tree it is installed in.  -1, said on stderr, when
 * neither has them all.
 */
int view_assets(char *dir, size_t len);

/* Writes the page to @out; -1 when reading a part or writing failed. */
int view_page_write(FILE *out, const struct view_page *p);

#endif /* BTRACE_VIEW_H */
