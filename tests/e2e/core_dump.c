// SPDX-License-Identifier: GPL-2.0-or-later
/* Core dumps of traced programs: finding them and reading their memory. */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_dump.h"

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
