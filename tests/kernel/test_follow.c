// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod-step follows children: btrace record --source kmod-step
 * attaches every child to the module at its first stop, as a new thread.
 * The static programs of tests/progs/static-follow*.S take known branches
 * only (no libc, no PIE), so each process's records are compared exactly
 * with the sequences named by their symbols:
 *  - static-follow forks: the child's three branches, none in the parent;
 *  - static-follow-exec forks a child that execs static-follow's leaf
 *    mode: its branch before the exec, the module's exec marker at the
 *    new entry, then the leaf mode's three, and the new image's maps in
 *    the file (the dump names the new image's functions);
 *  - static-follow-vm clones a child into its own memory (CLONE_VM):
 *    both run the same loop, each with its own records.
 * Every test ends with no page pinned.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"

#define RUN_TIMEOUT 120
#define MAX_OUT 4096

/* The value of symbol @name in the static program @path (0: none). */
static uint64_t sym(const char *path, const char *name)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	uint64_t v = 0;
	struct stat st;
	const char *b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		return 0;
	b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (b == MAP_FAILED)
		return 0;
	eh = (const Elf64_Ehdr *)b;
	sh = (const Elf64_Shdr *)(b + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum && !v; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(b + sh[i].sh_offset);
		const char *str = b + sh[sh[i].sh_link].sh_offset;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		for (size_t j = 0; j < sh[i].sh_size / sizeof(*s); j++)
			if (!strcmp(str + s[j].st_name, name))
				v = s[j].st_value;
	}
	munmap((void *)b, (size_t)st.st_size);
	return v;
}

/* Appends "0xFROM 0xTO\n" for each pair of symbol names of @prog. */
static void want_recs(char *out, const char *prog, const char *const pairs[],
		      size_t n)
{
	char *path = harness_path("/progs", prog);

	for (size_t i = 0; i + 1 < n; i += 2) {
		uint64_t from = sym(path, pairs[i]), to = sym(path, pairs[i + 1]);

		if (!from || !to)
			FAIL("%s: no symbol %s or %s", prog, pairs[i], pairs[i + 1]);
		snprintf(out + strlen(out), MAX_OUT - strlen(out),
			 "0x%lx 0x%lx\n", (unsigned long)from, (unsigned long)to);
	}
	free(path);
}

/* `btrace dump [--raw] FILE` (malloc'ed). */
static char *dump(const char *file, bool raw)
{
	char *bt = BTRACE_PATH();
	char *argv[] = { bt, "dump", (char *)file, NULL, NULL };
	struct harness_cmd c;
	char *out;

	if (raw) {
		argv[2] = "--raw";
		argv[3] = (char *)file;
	}
	if (harness_run(argv, RUN_TIMEOUT, &c))
		FAIL("cannot run %s", bt);
	if (harness_exit_code(&c) != 0)
		FAIL("btrace dump %s: exit %d: %s", file, harness_exit_code(&c), c.err);
	out = c.out;
	c.out = NULL;
	harness_cmd_free(&c);
	free(bt);
	return out;
}

/* dump --raw with each "# thread TID" line made "# thread": tids vary. */
static char *dump_raw(const char *file)
{
	char *out = dump(file, true), *p, *q;

	for (p = q = out; *p; ) {
		if (!strncmp(p, "# thread ", 9)) {
			memcpy(q, "# thread", 8);
			q += 8;
			p += 9 + strspn(p + 9, "0123456789");
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	return out;
}

/*
 * btrace record --source kmod-step -o FILE -- /progs/PROG ARG: exit 0,
 * stderr in @err (malloc'ed); the trace's file name (malloc'ed).
 */
static char *record(const char *prog, const char *arg, char **err)
{
	char *bt = BTRACE_PATH(), *p = harness_path("/progs", prog);
	char *file = harness_path(harness_tmpdir(), "follow.btr");
	char *argv[] = { bt, "record", "--source", "kmod-step", "-o", file,
			 "--", p, (char *)arg, NULL };
	struct harness_cmd c;

	if (harness_run(argv, RUN_TIMEOUT, &c))
		FAIL("cannot run %s", bt);
	if (harness_exit_code(&c) != 0)
		FAIL("btrace record %s: exit %d: %s", prog, harness_exit_code(&c), c.err);
	*err = c.err;
	c.err = NULL;
	harness_cmd_free(&c);
	free(bt);
	free(p);
	return file;
}

/*
 * The summary: a line "btrace:   process N (EXE, parent M): exited 0" for
 * each of @exes in order, the second process a child of the first.
 */
static void expect_processes(const char *err, const char *const exes[], size_t n)
{
	const char *p = err;
	int pid[2] = { 0, 0 }, ppid[2] = { 0, 0 };
	char exe[64], end[64];

	for (size_t i = 0; i < n && i < 2; i++) {
		p = strstr(p, "btrace:   process ");
		if (!p || sscanf(p, "btrace:   process %d (%63[^,], parent %d): %63[^\n]",
				 &pid[i], exe, &ppid[i], end) != 4)
			FAIL("no summary line for process %zu:\n%s", i, err);
		EXPECT_STREQ(exe, exes[i]);
		EXPECT_STREQ(end, "exited 0");
		p++;
	}
	EXPECT_EQ(ppid[1], pid[0]);
	EXPECT_TRUE(strstr(err, "(kmod-step)") != NULL);
}

TEST(kmod_follow, kmod_step_records_a_fork_child_exactly)
{
	static const char *const child[] = {
		"fol_jz", "fol_child", "fol_call", "fol_leaf",
		"fol_leaf_ret", "fol_after",
	};
	static const char *const exes[] = { "static-follow", "static-follow" };
	char want[MAX_OUT] = "# thread\n# thread\n", *err, *file, *got;

	want_recs(want, "static-follow", child, 6);
	file = record("static-follow", NULL, &err);
	expect_processes(err, exes, 2);
	got = dump_raw(file);
	EXPECT_STREQ(got, want);
	EXPECT_EQ(kt_pinned(), 0);
	unlink(file);
	free(got);
	free(file);
	free(err);
}

TEST(kmod_follow, kmod_step_records_an_exec_child_exactly)
{
	static const char *const before[] = { "exf_jz", "exf_child" };
	static const char *const leaf[] = {
		"fol_jne", "fol_leafmode", "fol_lcall", "fol_leaf",
		"fol_leaf_ret", "fol_lafter",
	};
	static const char *const exes[] = { "static-follow-exec", "static-follow" };
	char want[MAX_OUT] = "# thread\n# thread\n", *err, *file, *got;
	char *leaf_path = harness_path("/progs", "static-follow");

	want_recs(want, "static-follow-exec", before, 2);
	snprintf(want + strlen(want), sizeof(want) - strlen(want), "# exec 0x%lx\n",
		 (unsigned long)sym(leaf_path, "_start"));
	want_recs(want, "static-follow", leaf, 6);
	file = record("static-follow-exec", leaf_path, &err);
	expect_processes(err, exes, 2);
	got = dump_raw(file);
	EXPECT_STREQ(got, want);
	free(got);
	/* The new image's maps are in the file: its functions have names. */
	got = dump(file, false);
	EXPECT_TRUE(strstr(got, " <fol_leaf>\n") != NULL);
	free(got);
	EXPECT_EQ(kt_pinned(), 0);
	unlink(file);
	free(file);
	free(err);
	free(leaf_path);
}

TEST(kmod_follow, kmod_step_records_a_clone_vm_child_exactly)
{
#define WORK(call, after) call, "vm_work", "vm_jnz", "vm_loop", \
			  "vm_jnz", "vm_loop", "vm_ret", after
	static const char *const parent[] = {
		WORK("vm_call0", "vm_after0"), WORK("vm_pcall1", "vm_pafter1"),
		WORK("vm_pcall2", "vm_pafter2"),
	};
	static const char *const child[] = {
		"vm_jz", "vm_child", "vm_jwait", "vm_cwork",
		WORK("vm_ccall", "vm_cafter"),
	};
#undef WORK
	static const char *const exes[] = { "static-follow-vm", "static-follow-vm" };
	char want[MAX_OUT] = "# thread\n", *err, *file, *got;

	want_recs(want, "static-follow-vm", parent, sizeof(parent) / sizeof(*parent));
	strcat(want, "# thread\n");
	want_recs(want, "static-follow-vm", child, sizeof(child) / sizeof(*child));
	file = record("static-follow-vm", NULL, &err);
	expect_processes(err, exes, 2);
	got = dump_raw(file);
	EXPECT_STREQ(got, want);
	EXPECT_EQ(kt_pinned(), 0);
	unlink(file);
	free(got);
	free(file);
	free(err);
}
