// SPDX-License-Identifier: GPL-2.0-or-later
/* Core dumps of traced programs: finding them and reading their memory. */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_dump.h"
#include "raw_dump.h"

#define PAGE 4096

void core_file_bytes(const char *path, uint64_t off, unsigned char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

char *core_find(const char *dir)
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

bool core_read(const char *path, uint64_t vaddr, unsigned char *buf, size_t len)
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

void core_require_cwd_pattern(void)
{
	char buf[256];
	FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");

	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(fgets(buf, (int)sizeof(buf), f) != NULL);
	fclose(f);
	if (buf[0] == '|' || buf[0] == '/')
		FAIL("core_pattern is \"%s\": this test needs cores in the working "
		     "directory", buf);
}

void core_run_in(const char *dir, char *const argv[], struct harness_cmd *cmd)
{
	char *sh[40] = {
		"/bin/sh", "-c",
		"cd \"$1\" && ulimit -c unlimited && shift && "
		"ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}disable_coredump=0\" "
		"exec \"$@\"",
		"sh", (char *)dir,
	};
	size_t n = 5;

	for (size_t i = 0; argv[i]; i++) {
		ASSERT_TRUE(n + 1 < sizeof(sh) / sizeof(sh[0]));
		sh[n++] = argv[i];
	}
	sh[n] = NULL;
	ASSERT_EQ(harness_run(sh, 120, cmd), 0);
}

char *core_dir_new(void)
{
	char *dir;

	core_require_cwd_pattern();
	dir = harness_path(harness_tmpdir(), "cores");
	ASSERT_EQ(mkdir(dir, 0700), 0);
	return dir;
}

void core_expect_clean_page(const char *dir, const char *prog,
			    const struct harness_cmd *cmd)
{
	unsigned char orig[PAGE], dumped[PAGE];
	struct raw_labels labels;
	char *exe, *core;
	const char *c;

	if (harness_exit_code(cmd) != 128 + SIGABRT)
		FAIL("btrace record of %s exited with %d, not 128 + SIGABRT; stderr:\n%s",
		     prog, harness_exit_code(cmd), cmd->err);
	raw_labels_parse(cmd->out, &labels);
	c = strstr(cmd->out, "changed ");
	ASSERT_TRUE(c != NULL);
	/* The tracer's int3s were in the page while the program ran. */
	EXPECT_GT(atoi(c + 8), 0);
	exe = PROG_PATH(prog);
	core_file_bytes(exe, raw_label(&labels, "page") - raw_label(&labels, "base"),
			orig, sizeof(orig));
	core = core_find(dir);
	if (!core)
		FAIL("no core file in %s; stderr:\n%s", dir, cmd->err);
	ASSERT_TRUE(core_read(core, raw_label(&labels, "page"), dumped, sizeof(dumped)));
	EXPECT_EQ(memcmp(dumped, orig, sizeof(orig)), 0);
	unlink(core);
	raw_labels_free(&labels);
	free(core);
	free(exe);
}

void core_record_expect_clean(const char *prog)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH(prog);
	char *dir = core_dir_new(), *btr = harness_path(dir, "traced.btr");
	char *argv[] = {
		btrace, "record", "-o", btr, "--no-follow", "--", path, NULL,
	};
	struct harness_cmd cmd;

	core_run_in(dir, argv, &cmd);
	core_expect_clean_page(dir, prog, &cmd);
	harness_cmd_free(&cmd);
	free(btr);
	free(dir);
	free(path);
	free(btrace);
}
