// SPDX-License-Identifier: GPL-2.0-or-later
/* Symbols, ranges, gap texts, JSON strings and source lines for the views. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrace.h"
#include "dump.h"

static void report_symbolizer(pid_t pid, int err, struct bts_symbolizer *sym)
{
	const char *w;

	if (err < 0) {
		error_bts(err, "warning: process %d: no symbols", (int)pid);
		return;
	}
	for (size_t i = 0; (w = bts_symbolizer_warning(sym, i)); i++)
		error("warning: %s", w);
}

static struct dump_proc *proc_of(struct dump_ctx *c, pid_t pid)
{
	struct dump_proc *procs;
	struct bts_symbolizer *sym = NULL;
	int err;

	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid)
			return &c->procs[i];
	procs = realloc(c->procs, (c->nprocs + 1) * sizeof(*procs));
	if (!procs)
		return NULL;
	c->procs = procs;
	err = bts_symbolizer_new(c->trace, pid, &sym);
	report_symbolizer(pid, err, sym);
	c->procs[c->nprocs] = (struct dump_proc){ pid, err < 0 ? NULL : sym, false };
	return &c->procs[c->nprocs++];
}

struct bts_symbolizer *dump_symbolizer(struct dump_ctx *c, pid_t pid)
{
	struct dump_proc *p = proc_of(c, pid);

	return p ? p->sym : NULL;
}

void dump_decoder_warnings(struct dump_ctx *c, pid_t pid,
			   const struct bts_insn_decoder *d)
{
	struct dump_proc *p = proc_of(c, pid);
	const char *w;

	if (!p || p->warned)
		return;
	p->warned = true;
	for (size_t i = 0; (w = bts_insn_decoder_warning(d, i)); i++)
		error("warning: %s", w);
}

void dump_ctx_free(struct dump_ctx *c)
{
	for (size_t i = 0; i < c->nprocs; i++)
		bts_symbolizer_free(c->procs[i].sym);
	free(c->procs);
	c->procs = NULL;
	c->nprocs = 0;
	source_cache_free();
}

bool dump_range(const struct dump_opts *o, uint64_t first, uint64_t total,
		uint64_t *lo, uint64_t *hi)
{
	uint64_t end = first + total - 1;

	if (!total)
		return false;
	*lo = first;
	*hi = end;
	if (o->last) {
		if (o->last < total)
			*lo = end - o->last + 1;
		return true;
	}
	if (o->from)
		*lo = o->from;
	if (o->to && o->to < end)
		*hi = o->to;
	return *lo <= *hi && *lo <= end;
}

static const char *const marker_gaps[] = {
	[PTBTS_GAP_UNKNOWN]	= "unknown",
	[PTBTS_GAP_UNREADABLE]	= "unreadable",
	[PTBTS_GAP_DISABLED]	= "disabled",
	[PTBTS_GAP_UNDECODABLE]	= "undecodable",
	[PTBTS_GAP_CODE_CHANGED] = "code-changed",
};

void dump_gap_text(int reason, uint64_t arg, char *buf, size_t len)
{
	switch (reason) {
	case BTS_GAP_LOST:
		snprintf(buf, len, "lost %" PRIu64 " records", arg);
		break;
	case BTS_GAP_MARKER:
		snprintf(buf, len, "trace gap: %s",
			 arg < sizeof(marker_gaps) / sizeof(marker_gaps[0]) ?
			 marker_gaps[arg] : "unknown");
		break;
	case BTS_GAP_FILTERED:
		if (arg)
			snprintf(buf, len, "%" PRIu64 " branches filtered", arg);
		else
			snprintf(buf, len, "filtered: ran in a skipped object");
		break;
	case BTS_GAP_EXEC:
		snprintf(buf, len, "exec, entry 0x%" PRIx64, arg);
		break;
	case BTS_GAP_NOCODE:
		snprintf(buf, len, "no code at 0x%" PRIx64, arg);
		break;
	case BTS_GAP_UNDECODABLE:
		snprintf(buf, len, "cannot decode the instruction at 0x%" PRIx64, arg);
		break;
	case BTS_GAP_NO_PATH:
		snprintf(buf, len, "no path to the branch at 0x%" PRIx64, arg);
		break;
	case BTS_GAP_NOT_BRANCH:
		snprintf(buf, len, "no branch at 0x%" PRIx64, arg);
		break;
	case BTS_GAP_CODE_CHANGED:
		snprintf(buf, len, "code at 0x%" PRIx64 " rewritten later: "
			 "the trace holds only its last version", arg);
		break;
	default:
		snprintf(buf, len, "unknown gap");
	}
}

void json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* ------------------------------------------------------------ sources */

/* The one source file read last: views walk a file's lines in runs. */
static struct {
	char *path;
	char *text;		/* NULL: unreadable */
	char **lines;		/* NUL-terminated in @text */
	size_t n;
} src;

void source_cache_free(void)
{
	free(src.path);
	free(src.text);
	free(src.lines);
	memset(&src, 0, sizeof(src));
}

/*
 * @file, opened for reading when it is a regular file.  Its name comes
 * from debug information, and a relative one is found from the current
 * directory: a FIFO there would block the view forever in open(), and a
 * device may act on being opened.
 */
static FILE *open_source(const char *file)
{
	struct stat st;
	FILE *f;
	int fd;

	if (stat(file, &st) || !S_ISREG(st.st_mode))
		return NULL;
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "re"))) {
		close(fd);
		return NULL;
	}
	return f;
}

static void source_load(const char *file)
{
	FILE *f;
	size_t len = 0;
	char *line;

	source_cache_free();
	src.path = strdup(file);
	f = open_source(file);
	if (!f)
		return;
	if (getdelim(&src.text, &len, '\0', f) < 0) {
		free(src.text);
		src.text = NULL;
	}
	fclose(f);
	for (line = src.text; line && *line; src.n++) {
		char **lines = realloc(src.lines, (src.n + 1) * sizeof(*lines));
		char *nl = strchr(line, '\n');

		if (!lines)
			break;
		src.lines = lines;
		src.lines[src.n] = line;
		if (!nl) {
			src.n++;
			break;
		}
		*nl = 0;
		line = nl + 1;
	}
}

const char *source_line(const char *file, int line)
{
	if (!src.path || strcmp(src.path, file))
		source_load(file);
	if (line < 1 || (size_t)line > src.n)
		return NULL;
	/* A source file is text like any other: no escape sequence passes. */
	return shown_text(src.lines[line - 1]);
}
