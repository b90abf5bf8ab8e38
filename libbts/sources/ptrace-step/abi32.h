/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * 32-bit (i386) programs on the 64-bit kernel.  Their
 * registers come through PTRACE_GETREGS in the 64-bit layout (eip in rip,
 * the syscall number in orig_rax); what differs is how their code decodes
 * and how they enter the kernel (int $0x80, sysenter through the vDSO's
 * __kernel_vsyscall) and return from a signal handler.
 */
#ifndef BTS_ABI32_H
#define BTS_ABI32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode/insn.h"

/*
 * bts_insn_classify() for 32-bit code: Zydis in legacy 32-bit mode with a
 * 32-bit stack.  0, or -BTS_E_DECODE / -BTS_E_TRUNCATED.
 */
int bts_abi32_classify(const void *buf, size_t len, struct bts_insn *out);

/* Whether syscall number @nr of a 32-bit process is sigreturn or rt_sigreturn. */
bool bts_abi32_sigreturn(uint64_t nr);

#endif /* BTS_ABI32_H */
