// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The int3s of branch stops are out of the program before a fatal signal
 * is delivered, so its core dump shows the original code: speed-core sees
 * int3s in its own code page while it runs traced, then dies of SIGABRT;
 * the page in the core must equal the same bytes of its file.
 *
 * Cores are enabled for btrace (and so the program) with `ulimit -c` in a
 * shell that also enters a fresh temporary directory; the host's
 * core_pattern must name a file there (this host: "core"): a pattern that
 * pipes to a program is reported as a failure, not skipped.
 */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "raw_dump.h"

#define PAGE 4096

static void read_file(const char *path, uint64_t off, unsigned char *buf,
		      size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

/* The core file the kernel wrote into @dir ("core" or "core.PID"). */
static char *find_core(const char *dir)
{
	struct dirent *e;
	char *path = NULL;
	DIR *d = opendir(dir);

	ASSERT_TRUE(d != NULL);
	while ((e = readdir(d)))
		if (!path && (!strcmp(e->d_name, "core") ||
			      !strncmp(e->d_name, "core.", 5)))
			path = harness_path(dir, e->d_name);
	closedir(d);
	return path;
}

/* @len bytes at @vaddr of the process in the ELF core @path. */
static bool core_read(const char *path, uint64_t vaddr, unsigned char *buf,
		      size_t len)
{
	bool found = false;
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n && !found; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    vaddr < ph.p_vaddr || vaddr + len > ph.p_vaddr + ph.p_filesz)
				continue;
			found = pread(fd, buf, len, (off_t)(ph.p_offset + vaddr - ph.p_vaddr)) ==
				(ssize_t)len;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static void core_pattern(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");

	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fgets(buf, (int)len, f) != NULL);
	fclose(f);
}

/*
 * btrace record in @dir, cores enabled there (a shell sets the limit and
 * the directory; ASan, when btrace has it, must not turn cores off).
 */
static void record_in(const char *dir, const char *btr, struct harness_cmd *cmd)
{
	char *btrace = BTRACE_PATH(), *prog = PROG_PATH("speed-core");
	char *argv[] = {
		"/bin/sh", "-c",
		"cd \"$1\" && ulimit -c unlimited && shift && "
		"ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}disable_coredump=0\" "
		"exec \"$@\"",
		"sh", (char *)dir, btrace, "record", "-o", (char *)btr, "--no-follow",
		"--", prog, NULL,
	};

	ASSERT_EQ(harness_run(argv, 120, cmd), 0);
	free(btrace);
	free(prog);
}

TEST(speed_core, a_core_dump_shows_no_int3_of_ours)
{
	unsigned char orig[PAGE], dumped[PAGE];
	char pattern[256], *dir, *exe, *core, *btr;
	struct raw_labels labels;
	struct harness_cmd cmd;
	const char *c;

	core_pattern(pattern, sizeof(pattern));
	if (pattern[0] == '|' || pattern[0] == '/')
		FAIL("core_pattern is \"%s\": this test needs cores in the working "
		     "directory", pattern);
	dir = harness_path(harness_tmpdir(), "cores");
	btr = harness_path(dir, "speed-core.btr");
	ASSERT_EQ(mkdir(dir, 0700), 0);
	record_in(dir, btr, &cmd);
	if (harness_exit_code(&cmd) != 128 + SIGABRT)
		FAIL("btrace record speed-core exited with %d; stderr:\n%s",
		     harness_exit_code(&cmd), cmd.err);
	raw_labels_parse(cmd.out, &labels);
	c = strstr(cmd.out, "changed ");
	ASSERT_TRUE(c != NULL);
	/* The tracer's int3s were in the page while the program ran. */
	EXPECT_GT(atoi(c + 8), 0);
	exe = PROG_PATH("speed-core");
	read_file(exe, raw_label(&labels, "page") - raw_label(&labels, "base"),
		  orig, sizeof(orig));
	core = find_core(dir);
	if (!core)
		FAIL("no core file in %s (core_pattern \"%s\")", dir, pattern);
	ASSERT_TRUE(core_read(core, raw_label(&labels, "page"), dumped, sizeof(dumped)));
	EXPECT_EQ(memcmp(dumped, orig, sizeof(orig)), 0);
	raw_labels_free(&labels);
	harness_cmd_free(&cmd);
	unlink(core);
	free(core);
	free(btr);
	free(exe);
	free(dir);
}
