// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Which of QEMU's mappings hold the guest's code.  qemu-user never runs
 * guest code on the host: it maps the guest's executable pages readable
 * only, and its own code (qemu-x86_64, its libraries, the translated
 * blocks) executable.  So a mapping is the guest's code when the host
 * cannot execute it, yet its file's program header there says executable
 * (PF_X).  The guest's libraries are files of the same names as QEMU's
 * (libc.so.6 twice), told apart that way.  Code the guest made itself
 * (a JIT, anonymous memory) has no file to ask: the plugin copies it into
 * the ring as it translates it (plugin/code.c), and the trace carries the
 * copies instead.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>

#include "sources/qemu-user/qemu_user.h"

/*
 * Whether an executable segment lies in the file's bytes [@lo, @hi): QEMU
 * maps a library's segments with one protection, so the kernel shows
 * them merged into one mapping from the file's start.
 */
static bool exec_segment(Elf *elf, uint64_t lo, uint64_t hi)
{
	size_t i, nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return false;
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		if (ph.p_offset < hi && ph.p_offset + ph.p_filesz > lo)
			return true;
	}
	return false;
}

bool bts_qemu_map_code(pid_t pid, const char *perms, const char *path,
		       uint64_t start, uint64_t end, uint64_t offset)
{
	char mapped[96];
	bool code = false;
	Elf *elf;
	int fd;

	if (perms[0] != 'r' || perms[2] == 'x' || path[0] != '/')
		return false;
	snprintf(mapped, sizeof(mapped), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(mapped, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		code = exec_segment(elf, offset, offset + (end - start));
	if (elf)
		elf_end(elf);
	close(fd);
	return code;
}
