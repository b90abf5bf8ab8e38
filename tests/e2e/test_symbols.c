// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symbols and source lines of traced programs: a PIE program and its
 * shared library at their ASLR addresses (sym-lines, libsymlib.so), a
 * library that changed since the trace, stripped copies, and the vDSO.
 * Expected lines come from the "MARK:" comments of the sources.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

#define TIMEOUT 120

/* The line of @src (under tests/progs/) holding the comment MARK:@what. */
static int mark_line(const char *src, const char *what)
{
	char *path = harness_path(BTS_SRC_DIR "/tests/progs", src);
	char want[128], buf[512];
	FILE *f = fopen(path, "r");
	int line = 0, found = 0;

	ASSERT_TRUE(f);
	snprintf(want, sizeof(want), "/* MARK:%s */", what);
	for (int n = 1; fgets(buf, sizeof(buf), f); n++)
		if (strstr(buf, want)) {
			line = n;
			found++;
		}
	fclose(f);
	free(path);
	if (found != 1)
		FAIL("%d lines of %s hold \"%s\"", found, src, want);
	return line;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static void run(char *const argv[], int want_exit, struct harness_cmd *cmd)
{
	ASSERT_EQ(harness_run(argv, TIMEOUT, cmd), 0);
	if (harness_exit_code(cmd) != want_exit)
		FAIL("%s %s exited with %d, expected %d; stderr:\n%s", argv[0],
		     argv[1] ? argv[1] : "", harness_exit_code(cmd), want_exit,
		     cmd->err);
}

/* `btrace record -o BTR PROG` of a program at any path; its labels. */
static void record(const char *prog, const char *btr, struct raw_labels *l)
{
	char *btrace = BTRACE_PATH();
	char *argv[] = { btrace, "record", "-o", (char *)btr, "--", (char *)prog, NULL };
	struct harness_cmd cmd;

	run(argv, 0, &cmd);
	raw_labels_parse(cmd.out, l);
	harness_cmd_free(&cmd);
	free(btrace);
}

static void copy_file(const char *from, const char *to)
{
	char *argv[] = { "/bin/cp", (char *)from, (char *)to, NULL };
	struct harness_cmd cmd;

	run(argv, 0, &cmd);
	harness_cmd_free(&cmd);
}

/* The traced process of @btr, its only thread's records and a symbolizer. */
struct traced {
	struct bts_trace *t;
	struct bts_symbolizer *s;
	struct ptbts_record *recs;
	size_t n;
};

static void traced_open(const char *btr, struct traced *tr)
{
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	pid_t pid;

	*tr = (struct traced){ NULL };
	ASSERT_EQ(bts_trace_new(btr, &tr->t), 0);
	ASSERT_EQ(bts_trace_nthreads(tr->t), (size_t)1);
	pid = bts_trace_process(tr->t, 0)->pid;
	ASSERT_EQ(bts_symbolizer_new(tr->t, pid, &tr->s), 0);
	ASSERT_EQ(bts_rec_iter_new(tr->t, 0, &it), 0);
	while (bts_rec_iter_next(it, &r) > 0) {
		tr->recs = harness_grow(tr->recs, tr->n, sizeof(r));
		tr->recs[tr->n++] = r;
	}
	bts_rec_iter_free(it);
}

static void traced_close(struct traced *tr)
{
	bts_symbolizer_free(tr->s);
	bts_trace_free(tr->t);
	free(tr->recs);
}

static void expect_name(struct traced *tr, uint64_t addr, const char *name,
			uint64_t off)
{
	const char *got;
	uint64_t got_off;

	ASSERT_EQ(bts_symbolize(tr->s, addr, &got, &got_off), 0);
	EXPECT_STREQ(got, name);
	EXPECT_EQ(got_off, off);
}

/* @addr is inside function @name, past its entry. */
static void expect_inside(struct traced *tr, uint64_t addr, const char *name)
{
	const char *got;
	uint64_t off;

	ASSERT_EQ(bts_symbolize(tr->s, addr, &got, &off), 0);
	EXPECT_STREQ(got, name);
	EXPECT_GT(off, 0u);
}

/* Records from inside @from to the entry of @to. */
static int count_calls(struct traced *tr, const char *from, const char *to)
{
	const char *a, *b;
	uint64_t aoff, boff;
	int n = 0;

	for (size_t i = 0; i < tr->n; i++)
		n += tr->recs[i].from &&
		     !bts_symbolize(tr->s, tr->recs[i].from, &a, &aoff) &&
		     !bts_symbolize(tr->s, tr->recs[i].to, &b, &boff) &&
		     !strcmp(a, from) && !strcmp(b, to) && !boff;
	return n;
}

static void expect_no_name(struct traced *tr, uint64_t addr)
{
	const char *got = NULL;
	uint64_t off;

	if (bts_symbolize(tr->s, addr, &got, &off) != -BTS_E_INVAL)
		FAIL("0x%llx named %s", (unsigned long long)addr, got);
}

static void expect_line(struct traced *tr, uint64_t addr, const char *src,
			const char *mark)
{
	char tail[64];
	const char *file;
	int line;

	ASSERT_EQ(bts_symbolize_line(tr->s, addr, &file, &line), 0);
	snprintf(tail, sizeof(tail), "/tests/progs/%s", src);
	if (!ends_with(file, tail))
		FAIL("0x%llx: file %s, expected .../%s", (unsigned long long)addr,
		     file, tail);
	EXPECT_EQ(line, mark_line(src, mark));
}

/* The one record whose target is @to (and whose source is named @from). */
static const struct ptbts_record *one_call(struct traced *tr, uint64_t to,
					   const char *from)
{
	const struct ptbts_record *found = NULL;
	const char *name;
	uint64_t off;
	int n = 0;

	for (size_t i = 0; i < tr->n; i++) {
		if (tr->recs[i].to != to || !tr->recs[i].from)
			continue;
		if (from && (bts_symbolize(tr->s, tr->recs[i].from, &name, &off) ||
			     strcmp(name, from)))
			continue;
		found = &tr->recs[i];
		n++;
	}
	if (n != 1)
		FAIL("%d records from %s to 0x%llx, expected 1", n,
		     from ? from : "anywhere", (unsigned long long)to);
	return found;
}

/* The address named <main>: the target of the one record entering main. */
static uint64_t main_entry(struct traced *tr)
{
	const char *name;
	uint64_t off;

	for (size_t i = 0; i < tr->n; i++)
		if (!bts_symbolize(tr->s, tr->recs[i].to, &name, &off) &&
		    !strcmp(name, "main") && !off)
			return tr->recs[i].to;
	FAIL("no record enters main");
}

/* The record leaving symlib_add: its call of symlib_twice. */
static const struct ptbts_record *call_in_lib(struct traced *tr, uint64_t add)
{
	for (size_t i = 0; i < tr->n; i++)
		if (tr->recs[i].from > add && tr->recs[i].from < add + 64 &&
		    tr->recs[i].to < add)
			return &tr->recs[i];
	FAIL("no call out of symlib_add");
}

TEST(symbols, pie_program_and_its_library)
{
	char *prog = PROG_PATH("sym-lines");
	char *btr = harness_path(harness_tmpdir(), "sym.btr");
	const struct ptbts_record *r;
	struct raw_labels l;
	struct traced tr;
	uint64_t leaf, add;

	record(prog, btr, &l);
	traced_open(btr, &tr);
	EXPECT_TRUE(bts_symbolizer_warning(tr.s, 0) == NULL);
	leaf = raw_label(&l, "sym_leaf");
	add = raw_label(&l, "symlib_add");

	/* The program: a function's entry, and a call from main. */
	expect_name(&tr, leaf, "sym_leaf", 0);
	expect_line(&tr, leaf, "sym-lines.c", "sym_leaf");
	r = one_call(&tr, leaf, NULL);
	expect_inside(&tr, r->from, "main");
	expect_line(&tr, r->from, "sym-lines.c", "call sym_leaf");

	/* The library, mapped elsewhere: its exported and local functions. */
	expect_name(&tr, add, "symlib_add", 0);
	expect_line(&tr, add, "libsymlib.c", "symlib_add");
	r = call_in_lib(&tr, add);
	expect_line(&tr, r->from, "libsymlib.c", "symlib_add");
	expect_name(&tr, r->to, "symlib_twice", 0);
	expect_line(&tr, r->to, "libsymlib.c", "symlib_twice");

	/* main calls the library through its PLT stub. */
	EXPECT_EQ(count_calls(&tr, "main", "symlib_add@plt"), 1);

	/*
	 * libc is stripped; its debug file (libc6-dbg) is found by build-id
	 * under /usr/lib/debug/.build-id/: it names the local function that
	 * calls main, which .dynsym lacks, and gives its source line.
	 */
	{
		const struct ptbts_record *in = one_call(&tr, main_entry(&tr), NULL);
		const char *file;
		int line;

		expect_inside(&tr, in->from, "__libc_start_call_main");
		ASSERT_EQ(bts_symbolize_line(tr.s, in->from, &file, &line), 0);
		EXPECT_TRUE(ends_with(file, "/libc_start_call_main.h"));
		EXPECT_GT(line, 0);
	}
	traced_close(&tr);
	raw_labels_free(&l);
	free(prog);
	free(btr);
}

/* sym-lines and its library copied into the test's directory. */
static void copy_prog(char **prog, char **lib)
{
	char *orig = PROG_PATH("sym-lines"), *orig_lib = PROG_PATH("libsymlib.so");

	*prog = harness_path(harness_tmpdir(), "sym-lines");
	*lib = harness_path(harness_tmpdir(), "libsymlib.so");
	copy_file(orig, *prog);
	copy_file(orig_lib, *lib);
	free(orig);
	free(orig_lib);
}

/* The one warning of @tr, which must be @path followed by @what. */
static void expect_warning(struct traced *tr, size_t i, const char *path,
			   const char *what)
{
	const char *w = bts_symbolizer_warning(tr->s, i);
	char want[4200];

	snprintf(want, sizeof(want), "%s: %s", path, what);
	ASSERT_TRUE(w);
	EXPECT_STREQ(w, want);
}

TEST(symbols, changed_library_gives_a_warning_not_wrong_names)
{
	char *btr = harness_path(harness_tmpdir(), "changed.btr");
	char *prog, *lib, *btrace = BTRACE_PATH();
	char *argv[] = { btrace, "dump", btr, NULL };
	struct harness_cmd cmd;
	struct raw_labels l;
	struct traced tr;
	uint64_t add;
	const char *file;
	int line;
	char want[4200];

	copy_prog(&prog, &lib);
	record(prog, btr, &l);
	add = raw_label(&l, "symlib_add");
	/* Same path, another ELF file: its symbols would give wrong names. */
	unlink(lib);
	copy_file(prog, lib);

	traced_open(btr, &tr);
	expect_warning(&tr, 0, lib,
		       "not the file that was traced (build-id differs): no symbols from it");
	EXPECT_TRUE(bts_symbolizer_warning(tr.s, 1) == NULL);
	expect_no_name(&tr, add);
	expect_no_name(&tr, call_in_lib(&tr, add)->to);
	EXPECT_EQ(bts_symbolize_line(tr.s, add, &file, &line), -BTS_E_INVAL);
	/* The program itself did not change. */
	expect_name(&tr, raw_label(&l, "sym_leaf"), "sym_leaf", 0);
	traced_close(&tr);

	run(argv, 0, &cmd);
	snprintf(want, sizeof(want), "btrace: warning: %s: not the file that was "
		 "traced (build-id differs): no symbols from it\n", lib);
	EXPECT_STREQ(cmd.err, want);
	/* The program's own PLT stub keeps its name; the library has none. */
	EXPECT_TRUE(strstr(cmd.out, "<symlib_add@plt>"));
	EXPECT_FALSE(strstr(cmd.out, "<symlib_add>"));
	EXPECT_FALSE(strstr(cmd.out, "<symlib_add+"));
	EXPECT_FALSE(strstr(cmd.out, "<symlib_twice"));
	EXPECT_TRUE(strstr(cmd.out, "<sym_leaf>"));
	harness_cmd_free(&cmd);
	raw_labels_free(&l);
	free(btrace);
	free(prog);
	free(lib);
	free(btr);
}

TEST(symbols, stripped_files_give_dynamic_names_and_say_so)
{
	char *btr = harness_path(harness_tmpdir(), "stripped.btr");
	char *prog, *lib;
	const char *only = "stripped, and no debug file found: names from its "
			   "dynamic symbols only";
	struct harness_cmd cmd;
	struct raw_labels l;
	struct traced tr;
	uint64_t add;
	const char *file;
	int line;

	copy_prog(&prog, &lib);
	{
		char *argv[] = { "/usr/bin/strip", prog, lib, NULL };

		run(argv, 0, &cmd);
		harness_cmd_free(&cmd);
	}
	record(prog, btr, &l);
	add = raw_label(&l, "symlib_add");
	traced_open(btr, &tr);
	/* Maps are sorted: the program (PIE) lies below the library. */
	expect_warning(&tr, 0, prog, only);
	expect_warning(&tr, 1, lib, only);
	EXPECT_TRUE(bts_symbolizer_warning(tr.s, 2) == NULL);

	/* Exported: in .dynsym.  Local: nameless, not named wrongly. */
	expect_name(&tr, add, "symlib_add", 0);
	expect_no_name(&tr, call_in_lib(&tr, add)->to);
	expect_no_name(&tr, raw_label(&l, "sym_leaf"));
	EXPECT_EQ(bts_symbolize_line(tr.s, add, &file, &line), -BTS_E_INVAL);
	/* PLT stubs are named from the dynamic relocations, which remain. */
	EXPECT_EQ(count_calls(&tr, "symlib_add@plt", "symlib_add"), 1);
	traced_close(&tr);
	raw_labels_free(&l);
	free(prog);
	free(lib);
	free(btr);
}

/*
 * A trace is read offline: with debuginfod servers named, a missing debug
 * file is not asked of them.  The "server" here is a listening socket
 * that must see no connection.
 */
TEST(symbols, debuginfod_is_never_asked)
{
	char *btr = harness_path(harness_tmpdir(), "offline.btr");
	char *prog, *lib, url[64];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	struct harness_cmd cmd;
	struct raw_labels l;
	struct traced tr;
	int srv = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	ASSERT_TRUE(srv >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(bind(srv, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(listen(srv, 8), 0);
	ASSERT_EQ(getsockname(srv, (struct sockaddr *)&sa, &salen), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", ntohs(sa.sin_port));

	copy_prog(&prog, &lib);
	{
		char *argv[] = { "/usr/bin/strip", prog, lib, NULL };

		run(argv, 0, &cmd);
		harness_cmd_free(&cmd);
	}
	record(prog, btr, &l);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", harness_tmpdir(), 1);
	setenv("DEBUGINFOD_TIMEOUT", "2", 1);	/* a failure fails fast */
	traced_open(btr, &tr);
	expect_name(&tr, raw_label(&l, "symlib_add"), "symlib_add", 0);
	traced_close(&tr);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	unsetenv("DEBUGINFOD_TIMEOUT");
	EXPECT_EQ(accept(srv, NULL, NULL), -1);
	close(srv);
	raw_labels_free(&l);
	free(prog);
	free(lib);
	free(btr);
}

/*
 * sym-lines stripped, its symbols and DWARF in a debug file that its
 * .gnu_debuglink names: the file's path, malloc'ed.
 */
static char *split_debug(const char *prog)
{
	char *debug = harness_path(harness_tmpdir(), "sym-lines.debug");
	char link[4200];
	char *keep[] = { "/usr/bin/objcopy", "--only-keep-debug", (char *)prog, debug, NULL };
	char *strip[] = { "/usr/bin/objcopy", "--strip-all", link, (char *)prog, NULL };
	struct harness_cmd cmd;

	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", debug);
	run(keep, 0, &cmd);
	harness_cmd_free(&cmd);
	run(strip, 0, &cmd);
	harness_cmd_free(&cmd);
	return debug;
}

/* The debug file beside the program, or in .debug there, gives all names. */
TEST(symbols, a_debug_file_beside_the_program_is_found)
{
	char *btr = harness_path(harness_tmpdir(), "split.btr");
	char *sub = harness_path(harness_tmpdir(), ".debug");
	char *moved = harness_path(sub, "sym-lines.debug");
	char *prog, *lib, *debug;
	struct raw_labels l;
	struct traced tr;

	copy_prog(&prog, &lib);
	debug = split_debug(prog);
	record(prog, btr, &l);
	for (int i = 0; i < 2; i++) {
		traced_open(btr, &tr);
		EXPECT_TRUE(bts_symbolizer_warning(tr.s, 0) == NULL);
		expect_name(&tr, raw_label(&l, "sym_leaf"), "sym_leaf", 0);
		expect_line(&tr, raw_label(&l, "sym_leaf"), "sym-lines.c", "sym_leaf");
		traced_close(&tr);
		if (!i) {
			ASSERT_EQ(mkdir(sub, 0700), 0);
			ASSERT_EQ(rename(debug, moved), 0);
		}
	}
	raw_labels_free(&l);
	free(prog);
	free(lib);
	free(debug);
	free(moved);
	free(sub);
	free(btr);
}

/*
 * The debug link is the program's word, and the program's directory the
 * trace's: a FIFO there, beside it or in .debug, would block a reader's
 * open() forever.  Neither is opened, and the reader goes on without.
 */
TEST(symbols, a_fifo_as_debug_file_blocks_nothing)
{
	char *btr = harness_path(harness_tmpdir(), "fifo-debug.btr");
	char *sub = harness_path(harness_tmpdir(), ".debug");
	char *other = harness_path(sub, "sym-lines.debug");
	char *prog, *lib, *debug;
	struct harness_cmd cmd;
	struct raw_labels l;
	char want[4200];

	copy_prog(&prog, &lib);
	debug = split_debug(prog);
	record(prog, btr, &l);
	ASSERT_EQ(unlink(debug), 0);
	ASSERT_EQ(mkfifo(debug, 0600), 0);
	ASSERT_EQ(mkdir(sub, 0700), 0);
	ASSERT_EQ(mkfifo(other, 0600), 0);
	snprintf(want, sizeof(want), "btrace: warning: %s: stripped, and no debug "
		 "file found: names from its dynamic symbols only\n", prog);
	EXPECT_EQ(harness_btrace(&cmd, 20, "dump", "--insns", "--source", btr, NULL), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 0);
	EXPECT_TRUE(strstr(cmd.err, want) != NULL);
	harness_cmd_free(&cmd);
	raw_labels_free(&l);
	free(prog);
	free(lib);
	free(debug);
	free(other);
	free(sub);
	free(btr);
}

/* ------------------------------------------------------------ vDSO */

TEST(symbols, vdso_is_carried_in_the_trace_and_named)
{
	char *btr = harness_path(harness_tmpdir(), "vdso.btr");
	char *prog = PROG_PATH("seq-vdso"), *btrace = BTRACE_PATH();
	char *argv[] = { btrace, "dump", btr, NULL };
	const struct bts_code *code;
	const struct bts_map *maps;
	struct harness_cmd cmd;
	struct raw_labels l;
	struct traced tr;
	uint64_t fn;
	size_t n, vdso = 0;
	pid_t pid;

	record(prog, btr, &l);
	fn = raw_label(&l, "vdso_clock_gettime");
	traced_open(btr, &tr);
	pid = bts_trace_process(tr.t, 0)->pid;

	/* One copy: the whole [vdso] mapping, an ELF image. */
	n = bts_trace_maps(tr.t, pid, &maps);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(maps[i].path, "[vdso]"))
			vdso = i + 1;
	ASSERT_NE(vdso, 0u);
	ASSERT_EQ(bts_trace_code(tr.t, pid, &code), (size_t)1);
	EXPECT_EQ(code[0].addr, maps[vdso - 1].start);
	EXPECT_EQ(code[0].addr, raw_label(&l, "vdso_base"));
	EXPECT_EQ(code[0].len, maps[vdso - 1].end - maps[vdso - 1].start);
	EXPECT_EQ(memcmp(code[0].bytes, "\177ELF", 4), 0);

	EXPECT_TRUE(bts_symbolizer_warning(tr.s, 0) == NULL);
	/* The global name, not its weak alias clock_gettime. */
	expect_name(&tr, fn, "__vdso_clock_gettime", 0);
	traced_close(&tr);

	/* In the dump: the asm's call enters the vDSO at a named function. */
	run(argv, 0, &cmd);
	EXPECT_EQ(cmd.err_len, 0u);
	{
		char want[128];

		snprintf(want, sizeof(want), "<seq_vdso_run+9>  ->  0x%016llx "
			 "<__vdso_clock_gettime>\n", (unsigned long long)fn);
		EXPECT_TRUE(strstr(cmd.out, want));
	}
	harness_cmd_free(&cmd);
	raw_labels_free(&l);
	free(btrace);
	free(prog);
	free(btr);
}
