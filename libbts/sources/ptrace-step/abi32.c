// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * 32-bit programs: their classification (insn.c in legacy 32-bit mode)
 * and their sigreturn numbers.  ptrace-step runs them by branch stops as
 * it runs 64-bit ones (step_fast.c decodes their blocks in 32-bit mode,
 * step_emulate.c carries out their branches on 4-byte words); its single
 * steps classify here.
 */
#include "sources/ptrace-step/abi32.h"
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
