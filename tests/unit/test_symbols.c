// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The symbolizer on a trace of this very process (a PIE built with -g):
 * names, offsets and source lines of its own functions, the cache giving
 * the same answers after it forgot them, and bad arguments.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bts.h>

#include "harness.h"

int symbols_probe(int x);

/* On one line: its entry's line is that line, whatever the compiler does. */
static const int probe_line = __LINE__ + 1;
__attribute__((noinline)) int symbols_probe(int x) { return x * 7 + 3; }

static void self_exe(char *exe, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", exe, len - 1);

	ASSERT_GT(n, 0);
	exe[n] = 0;
}

/*
 * A trace of this process's maps; with @deleted, its executable's maps
 * named as the kernel names a file deleted since it was mapped, with or
 * without their build-id.
 */
static struct bts_trace *self_trace_as(const char *path, bool deleted,
				       bool build_id)
{
	char exe[4096], gone[4200];
	struct bts_map *maps;
	struct bts_writer *w;
	struct bts_trace *t;
	int n = bts_maps_new(getpid(), &maps);

	ASSERT_GT(n, 0);
	self_exe(exe, sizeof(exe));
	snprintf(gone, sizeof(gone), "%s (deleted)", exe);
	ASSERT_EQ(bts_writer_new(path, &w), 0);
	ASSERT_EQ(bts_writer_session(w, PTBTS_SOURCE_PTRACE_STEP, PTBTS_MODE_BLOCK, 4096), 0);
	ASSERT_EQ(bts_writer_process(w, getpid(), 1, "self"), 0);
	for (int i = 0; i < n; i++) {
		struct bts_map m = maps[i];

		if (deleted && !strcmp(m.path, exe)) {
			m.path = gone;
			if (!build_id)
				m.build_id_len = 0;
		}
		ASSERT_EQ(bts_writer_map(w, getpid(), &m), 0);
	}
	bts_maps_free(maps, n);
	ASSERT_EQ(bts_writer_finish(w), 0);
	bts_writer_free(w);
	ASSERT_EQ(bts_trace_new(path, &t), 0);
	return t;
}

static struct bts_trace *self_trace(const char *path)
{
	return self_trace_as(path, false, false);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static void expect_probe(struct bts_symbolizer *s, uint64_t addr, uint64_t want_off)
{
	const char *name, *file;
	uint64_t off;
	int line;

	ASSERT_EQ(bts_symbolize(s, addr, &name, &off), 0);
	EXPECT_STREQ(name, "symbols_probe");
	EXPECT_EQ(off, want_off);
	ASSERT_EQ(bts_symbolize_line(s, addr, &file, &line), 0);
	EXPECT_EQ(line, probe_line);
	/* Joined to the compilation's directory: a path that opens. */
	EXPECT_EQ(file[0], '/');
	EXPECT_TRUE(ends_with(file, "/tests/unit/test_symbols.c"));
	EXPECT_EQ(access(file, R_OK), 0);
}

TEST(symbols, own_function_and_line)
{
	char *path = harness_path(harness_tmpdir(), "self.btr");
	uint64_t probe = (uintptr_t)symbols_probe;
	struct bts_symbolizer *s;
	struct bts_trace *t = self_trace(path);
	const char *exe_warning;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ASSERT_GT(n, 0);
	exe[n] = 0;
	EXPECT_EQ(symbols_probe(1), 10);
	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	/* Other libraries may be stripped; this program is not. */
	for (size_t i = 0; (exe_warning = bts_symbolizer_warning(s, i)); i++)
		EXPECT_TRUE(strncmp(exe_warning, exe, strlen(exe)));
	expect_probe(s, probe, 0);
	expect_probe(s, probe + 1, 1);
	expect_probe(s, probe, 0);	/* from the cache */
	bts_symbolizer_free(s);
	bts_trace_free(t);
	free(path);
}

/*
 * Debian's libc (libc6-dbg) names its sources relative to a relative
 * comp_dir ("./elf" with "./elf/dl-debug.c", "./stdlib" with
 * "../stdlib/labs.c"): shown as gdb 13 shows them (`info line`), never
 * joined into "./elf/./elf/dl-debug.c".
 */
TEST(symbols, relative_compilation_directory_as_gdb_shows_it)
{
	static const struct { const char *sym, *file; int line; } want[] = {
		{ "_dl_debug_state", "./elf/dl-debug.c", 117 },
		{ "abs", "./stdlib/abs.c", 26 },
		{ "labs", "../stdlib/labs.c", 27 },
	};
	char *path = harness_path(harness_tmpdir(), "self-libc.btr");
	struct bts_trace *t = self_trace(path);
	struct bts_symbolizer *s;
	const char *file;
	int line;

	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		void *addr = dlsym(RTLD_DEFAULT, want[i].sym);

		ASSERT_TRUE(addr != NULL);
		ASSERT_EQ(bts_symbolize_line(s, (uintptr_t)addr, &file, &line), 0);
		EXPECT_STREQ(file, want[i].file);
		EXPECT_EQ(line, want[i].line);
	}
	bts_symbolizer_free(s);
	bts_trace_free(t);
	free(path);
}

/*
 * The cache holds a fixed number of answers: after far more addresses than
 * that, the first ones are asked again and must come out the same.
 */
TEST(symbols, answers_survive_the_cache_forgetting_them)
{
	char *path = harness_path(harness_tmpdir(), "self.btr");
	uint64_t probe = (uintptr_t)symbols_probe, base, off;
	struct bts_symbolizer *s;
	struct bts_trace *t = self_trace(path);
	const char *name, *file;
	int line, named = 0;

	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	expect_probe(s, probe, 0);
	base = (uintptr_t)harness_tmpdir;
	for (uint64_t a = base; a < base + 40000; a++) {
		named += !bts_symbolize(s, a, &name, &off);
		bts_symbolize_line(s, a, &file, &line);
	}
	EXPECT_GT(named, 0);
	expect_probe(s, probe, 0);
	expect_probe(s, probe + 2, 2);
	bts_symbolizer_free(s);
	bts_trace_free(t);
	free(path);
}

TEST(symbols, unknown_addresses_and_bad_arguments)
{
	char *path = harness_path(harness_tmpdir(), "self.btr");
	struct bts_symbolizer *s;
	struct bts_trace *t = self_trace(path);
	const char *name, *file;
	uint64_t off;
	int line;

	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	EXPECT_EQ(bts_symbolize(s, 0, &name, &off), -BTS_E_INVAL);
	EXPECT_EQ(bts_symbolize(s, 0x10, &name, &off), -BTS_E_INVAL);
	EXPECT_EQ(bts_symbolize_line(s, 0x10, &file, &line), -BTS_E_INVAL);
	EXPECT_EQ(bts_symbolize_line(NULL, 0x10, &file, &line), -BTS_E_INVAL);
	EXPECT_EQ(bts_symbolize_line(s, (uintptr_t)symbols_probe, NULL, &line),
		  -BTS_E_INVAL);
	bts_symbolizer_free(s);
	EXPECT_EQ(bts_symbolizer_new(NULL, getpid(), &s), -BTS_E_INVAL);
	/* A process the trace does not hold: no maps, no names, no error. */
	ASSERT_EQ(bts_symbolizer_new(t, 1, &s), 0);
	EXPECT_EQ(bts_symbolize(s, (uintptr_t)symbols_probe, &name, &off),
		  -BTS_E_INVAL);
	EXPECT_TRUE(bts_symbolizer_warning(s, 0) == NULL);
	bts_symbolizer_free(s);
	bts_trace_free(t);
	free(path);
}

/* The path of a file deleted since: found again, if the build-id agrees. */
TEST(symbols, deleted_file_is_found_by_its_build_id)
{
	char *path = harness_path(harness_tmpdir(), "self.btr");
	struct bts_symbolizer *s;
	struct bts_trace *t = self_trace_as(path, true, true);
	char exe[4096], want[4300];
	const char *w, *name;
	uint64_t off;

	self_exe(exe, sizeof(exe));
	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	for (size_t i = 0; (w = bts_symbolizer_warning(s, i)); i++)
		EXPECT_TRUE(strncmp(w, exe, strlen(exe)));
	expect_probe(s, (uintptr_t)symbols_probe, 0);
	bts_symbolizer_free(s);
	bts_trace_free(t);

	/* Without a build-id, the file at the path could be any file. */
	unlink(path);
	t = self_trace_as(path, true, false);
	ASSERT_EQ(bts_symbolizer_new(t, getpid(), &s), 0);
	snprintf(want, sizeof(want), "%s (deleted): no build-id was recorded to "
		 "know the file by: no symbols from it", exe);
	EXPECT_STREQ(bts_symbolizer_warning(s, 0), want);
	EXPECT_EQ(bts_symbolize(s, (uintptr_t)symbols_probe, &name, &off),
		  -BTS_E_INVAL);
	bts_symbolizer_free(s);
	bts_trace_free(t);
	free(path);
}
