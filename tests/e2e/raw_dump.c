// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsing btrace's outputs for the end-to-end tests (see raw_dump.h). */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "raw_dump.h"

#define BTRACE_TIMEOUT 120

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* Copies the line at *@pos without its newline and moves past it. */
static char *next_line(const char **pos)
{
	const char *s = *pos, *e = strchr(s, '\n');
	size_t len = e ? (size_t)(e - s) : strlen(s);
	char *line = xrealloc(NULL, len + 1);

	memcpy(line, s, len);
	line[len] = 0;
	*pos = e ? e + 1 : s + len;
	return line;
}

static bool parse_hex(const char *s, uint64_t *v, const char **end)
{
	char *e;

	if (s[0] != '0' || s[1] != 'x' || !strchr("0123456789abcdef", s[2]) ||
	    !s[2])
		return false;
	*v = strtoull(s + 2, &e, 16);
	*end = e;
	return true;
}

/* "0xFROM 0xTO", lower-case hex and nothing else. */
static bool parse_rec(const char *line, struct raw_rec *r)
{
	const char *e;

	if (!parse_hex(line, &r->from, &e) || *e != ' ')
		return false;
	if (!parse_hex(e + 1, &r->to, &e) || *e)
		return false;
	for (const char *c = line; *c; c++)
		if (*c >= 'A' && *c <= 'F')
			return false;
	return true;
}

static void add_marker(struct raw_thread *t, const char *text)
{
	uint64_t n;
	char end;

	t->markers = harness_grow(t->markers, t->nmarkers, sizeof(char *));
	t->marker_pos = harness_grow(t->marker_pos, t->nmarkers, sizeof(size_t));
	t->marker_pos[t->nmarkers] = t->n;
	t->markers[t->nmarkers++] = strdup(text);
	if (sscanf(text, "lost %" SCNu64 "%c", &n, &end) == 1)
		t->lost += n;
}

static void parse_line(struct raw_dump *d, const char *line, size_t lineno)
{
	struct raw_thread *t = d->n ? &d->threads[d->n - 1] : NULL;
	struct raw_rec r;
	int tid;
	char end;

	if (sscanf(line, "# thread %d%c", &tid, &end) == 1) {
		d->threads = harness_grow(d->threads, d->n, sizeof(*t));
		d->threads[d->n++] = (struct raw_thread){ .tid = tid };
		return;
	}
	if (!t)
		FAIL("dump --raw line %zu before any thread: \"%s\"", lineno, line);
	if (!strncmp(line, "# ", 2)) {
		add_marker(t, line + 2);
		return;
	}
	if (!parse_rec(line, &r))
		FAIL("dump --raw line %zu is malformed: \"%s\"", lineno, line);
	t->recs = harness_grow(t->recs, t->n, sizeof(r));
	t->recs[t->n++] = r;
}

void raw_dump_parse(const char *text, struct raw_dump *d)
{
	const char *pos = text;
	size_t lineno = 0;

	memset(d, 0, sizeof(*d));
	if (*text && text[strlen(text) - 1] != '\n')
		FAIL("dump --raw output does not end with a newline");
	while (*pos) {
		char *line = next_line(&pos);

		parse_line(d, line, ++lineno);
		free(line);
	}
}

void raw_dump_free(struct raw_dump *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct raw_thread *t = &d->threads[i];

		for (size_t j = 0; j < t->nmarkers; j++)
			free(t->markers[j]);
		free(t->markers);
		free(t->marker_pos);
		free(t->recs);
	}
	free(d->threads);
	memset(d, 0, sizeof(*d));
}

const struct raw_thread *raw_dump_thread(const struct raw_dump *d, int tid)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->threads[i].tid == tid)
			return &d->threads[i];
	return NULL;
}

const struct raw_thread *raw_only_thread(const struct raw_dump *d,
					 size_t *index)
{
	const struct raw_thread *t = NULL;

	for (size_t i = 0; i < d->n; i++) {
		if (!d->threads[i].n && !d->threads[i].nmarkers)
			continue;
		if (t)
			FAIL("more than one thread with records");
		t = &d->threads[i];
		*index = i;
	}
	if (!t)
		FAIL("no thread with records");
	return t;
}

void raw_summary_parse(const char *err, struct raw_summary *s)
{
	const char *p = strstr(err, "btrace: recorded ");
	char *e;

	if (!p)
		FAIL("no summary line in btrace's stderr:\n%s", err);
	p += strlen("btrace: recorded ");
	s->threads = strtoull(p, &e, 10);
	if (strncmp(e, " thread", 7) || !(p = strstr(e, ", ")))
		FAIL("malformed summary: %s", err);
	s->records = strtoull(p + 2, &e, 10);
	if (strncmp(e, " records, ", 10))
		FAIL("malformed summary: %s", err);
	s->lost = strtoull(e + 10, &e, 10);
	if (strncmp(e, " lost (", 7))
		FAIL("malformed summary: %s", err);
}

void raw_labels_add(struct raw_labels *l, const char *name, uint64_t addr)
{
	l->names = harness_grow(l->names, l->n, sizeof(char *));
	l->addrs = harness_grow(l->addrs, l->n, sizeof(uint64_t));
	l->names[l->n] = strdup(name);
	l->addrs[l->n++] = addr;
}

void raw_labels_parse(const char *out, struct raw_labels *l)
{
	const char *pos = out;

	memset(l, 0, sizeof(*l));
	while (*pos) {
		char *line = next_line(&pos);
		char name[128];
		void *addr;

		if (sscanf(line, "label %127s %p", name, &addr) == 2)
			raw_labels_add(l, name, (uint64_t)(uintptr_t)addr);
		free(line);
	}
}

static void add_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		       struct raw_labels *l)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Sym sym;

	for (size_t i = 0; data && i < sh->sh_size / sh->sh_entsize; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name ||
		    GELF_ST_TYPE(sym.st_info) == STT_FILE ||
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name)
			raw_labels_add(l, name, sym.st_value);
	}
}

void raw_labels_from_elf(const char *path, struct raw_labels *l)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf *elf;

	memset(l, 0, sizeof(*l));
	if (fd < 0)
		FAIL("cannot open %s: %m", path);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type != ET_EXEC)
		FAIL("%s: not a non-PIE ELF executable", path);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_entsize)
			add_symtab(elf, scn, &sh, l);
	elf_end(elf);
	close(fd);
}

uint64_t raw_label(const struct raw_labels *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return l->addrs[i];
	FAIL("the program printed no label \"%s\"", name);
}

const char *raw_labels_describe(const struct raw_labels *l, uint64_t addr,
				char *buf, size_t len)
{
	size_t best = l->n;

	for (size_t i = 0; i < l->n; i++)
		if (l->addrs[i] <= addr &&
		    (best == l->n || l->addrs[i] > l->addrs[best]))
			best = i;
	if (best == l->n || addr - l->addrs[best] > 0x1000)
		snprintf(buf, len, "?");
	else if (addr == l->addrs[best])
		snprintf(buf, len, "%s", l->names[best]);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, l->names[best],
			 addr - l->addrs[best]);
	return buf;
}

void raw_labels_free(struct raw_labels *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->addrs);
	memset(l, 0, sizeof(*l));
}

char *raw_record(const char *prog, const char *const opts[], int want_exit,
		 struct harness_cmd *cmd)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH(prog), *btr;
	const char *argv[32];
	size_t n = 0;

	btr = harness_path(harness_tmpdir(), prog);
	btr = xrealloc(btr, strlen(btr) + 5);
	strcat(btr, ".btr");
	argv[n++] = btrace;
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = btr;
	argv[n++] = "--no-follow";	/* one process: children are let go */
	for (size_t i = 0; opts && opts[i] && n < 28; i++)
		argv[n++] = opts[i];
	argv[n++] = "--";
	argv[n++] = path;
	argv[n] = NULL;
	ASSERT_EQ(harness_run((char *const *)argv, BTRACE_TIMEOUT, cmd), 0);
	if (harness_exit_code(cmd) != want_exit)
		FAIL("btrace record of %s exited with %d, expected %d; stderr:\n%s",
		     prog, harness_exit_code(cmd), want_exit, cmd->err);
	free(btrace);
	free(path);
	return btr;
}

void raw_dump_load(const char *btr, struct raw_dump *d)
{
	char *btrace = BTRACE_PATH();
	char *argv[] = { btrace, "dump", "--raw", (char *)btr, NULL };
	struct harness_cmd cmd;

	ASSERT_EQ(harness_run(argv, BTRACE_TIMEOUT, &cmd), 0);
	if (harness_exit_code(&cmd) != 0)
		FAIL("btrace dump --raw %s exited with %d; stderr:\n%s", btr,
		     harness_exit_code(&cmd), cmd.err);
	if (cmd.err_len)
		FAIL("btrace dump --raw wrote to stderr:\n%s", cmd.err);
	raw_dump_parse(cmd.out, d);
	harness_cmd_free(&cmd);
	free(btrace);
}

char *raw_dump_view(const char *btr, const char *view)
{
	char *btrace = BTRACE_PATH();
	char *argv[] = { btrace, "dump", (char *)view, (char *)btr, NULL };
	struct harness_cmd cmd;
	char *out;

	ASSERT_EQ(harness_run(argv, BTRACE_TIMEOUT, &cmd), 0);
	if (harness_exit_code(&cmd) != 0)
		FAIL("btrace dump %s exited with %d: %s", view,
		     harness_exit_code(&cmd), cmd.err);
	out = cmd.out;
	cmd.out = NULL;
	harness_cmd_free(&cmd);
	free(btrace);
	return out;
}

void raw_expect_seq(const char *what, const struct raw_labels *l,
		    const struct raw_rec *got, size_t n,
		    const struct raw_pair *want, size_t nwant)
{
	char a[96], b[96];

	for (size_t i = 0; i < nwant; i++) {
		uint64_t from = raw_label(l, want[i].from);
		uint64_t to = raw_label(l, want[i].to);

		if (i >= n)
			FAIL("%s: record %zu missing: expected %s -> %s (only %zu records)",
			     what, i, want[i].from, want[i].to, n);
		if (got[i].from == from && got[i].to == to)
			continue;
		FAIL("%s: record %zu is 0x%" PRIx64 " -> 0x%" PRIx64
		     " (%s -> %s), expected %s -> %s (0x%" PRIx64 " -> 0x%" PRIx64 ")",
		     what, i, got[i].from, got[i].to,
		     raw_labels_describe(l, got[i].from, a, sizeof(a)),
		     raw_labels_describe(l, got[i].to, b, sizeof(b)),
		     want[i].from, want[i].to, from, to);
	}
	if (n != nwant)
		FAIL("%s: %zu records, expected %zu; the first extra one is 0x%"
		     PRIx64 " -> 0x%" PRIx64 " (%s -> %s)", what, n, nwant,
		     got[nwant].from, got[nwant].to,
		     raw_labels_describe(l, got[nwant].from, a, sizeof(a)),
		     raw_labels_describe(l, got[nwant].to, b, sizeof(b)));
}

size_t raw_find_one(const struct raw_thread *t, uint64_t from, uint64_t to)
{
	size_t found = t->n, count = 0;

	for (size_t i = 0; i < t->n; i++) {
		if ((from && t->recs[i].from != from) || (to && t->recs[i].to != to))
			continue;
		if (!count++)
			found = i;
	}
	if (count != 1)
		FAIL("thread %d: %zu records 0x%" PRIx64 " -> 0x%" PRIx64
		     " (0 = any), expected exactly one", t->tid, count, from, to);
	return found;
}

void raw_expect_no_marker(const struct raw_thread *t, size_t first, size_t last)
{
	for (size_t j = 0; j < t->nmarkers; j++)
		if (t->marker_pos[j] > first && t->marker_pos[j] <= last)
			FAIL("thread %d: marker \"# %s\" between records %zu and %zu",
			     t->tid, t->markers[j], t->marker_pos[j] - 1,
			     t->marker_pos[j]);
}

void raw_expect_same_thread(const struct raw_thread *a, const char *an,
			    const struct raw_thread *b, const char *bn)
{
	size_t i, n = a->n < b->n ? a->n : b->n;

	EXPECT_EQ(a->n, b->n);
	for (i = 0; i < n; i++) {
		if (a->recs[i].from == b->recs[i].from && a->recs[i].to == b->recs[i].to)
			continue;
		FAIL("record %zu: %s 0x%llx -> 0x%llx, %s 0x%llx -> 0x%llx", i,
		     an, (unsigned long long)a->recs[i].from,
		     (unsigned long long)a->recs[i].to,
		     bn, (unsigned long long)b->recs[i].from,
		     (unsigned long long)b->recs[i].to);
	}
	EXPECT_EQ(a->nmarkers, b->nmarkers);
	for (i = 0; i < a->nmarkers && i < b->nmarkers; i++) {
		EXPECT_STREQ(a->markers[i], b->markers[i]);
		EXPECT_EQ(a->marker_pos[i], b->marker_pos[i]);
	}
}

size_t raw_count_markers(const struct raw_thread *t, const char *prefix)
{
	size_t n = 0;

	for (size_t j = 0; j < t->nmarkers; j++)
		n += !strncmp(t->markers[j], prefix, strlen(prefix));
	return n;
}

char **raw_lines(char *out, size_t *n)
{
	char **v = NULL, *save, *l;

	*n = 0;
	for (l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		v = harness_grow(v, *n, sizeof(*v));
		v[(*n)++] = l;
	}
	return v;
}
