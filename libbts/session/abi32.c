// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * 32-bit programs: their classification (insn.c in legacy 32-bit mode),
 * their sigreturn numbers and how a session notices them.  ptrace-step
 * runs them by branch stops as it runs 64-bit ones (step_fast.c decodes
 * their blocks in 32-bit mode, step_emulate.c carries out their branches
 * on 4-byte words); its single steps classify here.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "session/abi32.h"
#include "session/session.h"

/* The i386 syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define NR32_SIGRETURN		119
#define NR32_RT_SIGRETURN	173

int bts_abi32_classify(const void *buf, size_t len, struct bts_insn *out)
{
	return bts_insn_classify_mode(true, buf, len, out);
}

bool bts_abi32_sigreturn(uint64_t nr)
{
	/* The upper half of rax is not the 32-bit program's. */
	return (uint32_t)nr == NR32_SIGRETURN || (uint32_t)nr == NR32_RT_SIGRETURN;
}

static bool elf32_file(const char *path)
{
	unsigned char id[EI_NIDENT];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, id, sizeof(id), 0);
	close(fd);
	return n == (ssize_t)sizeof(id) && !memcmp(id, ELFMAG, SELFMAG) &&
	       id[EI_CLASS] == ELFCLASS32;
}

const struct bts_session_opts *bts_abi32_opts(const struct bts_session_opts *opts,
					      const char *path,
					      struct bts_session_opts *out)
{
	/* Options that do not read are refused by the session, as given. */
	if (bts_session_opts_take(opts, out) ||
	    (out->source && out->source != BTS_SOURCE_AUTO) || !elf32_file(path))
		return opts;
	out->source = PTBTS_SOURCE_PTRACE_STEP;
	return out;
}
