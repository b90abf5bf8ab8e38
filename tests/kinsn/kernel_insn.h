/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Linux 6.1 kernel's instruction decoder, built in user space from
 * Debian's linux-source-6.1 (scripts/kernel-insn), seen through plain
 * types: the test that compares it with arch/x86/branch/ includes no
 * kernel header.
 */
#ifndef PTBTS_TESTS_KERNEL_INSN_H
#define PTBTS_TESTS_KERNEL_INSN_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct kernel_insn - what insn_decode() found
 * @len:       instruction length
 * @op:        opcode bytes (escapes 0F, 0F 38, 0F 3A included)
 * @nop:       how many of @op there are
 * @modrm:     the ModRM byte, when @has_modrm
 * @has_modrm: the instruction has one
 * @vex:       VEX, EVEX (or XOP) encoded: @op is then the map's opcode
 * @f3:        an F3 prefix is present
 * @sse_pfx:   a 66, F2 or F3 prefix is present (an SSE opcode's
 *             mandatory prefix, in the kernel decoder's opcode map)
 * @attr:      the opcode map's attributes (0: none, or not in the map)
 * @imm_bytes: the immediates' size in bytes
 * @imm:       the first immediate, sign-extended (a relative branch's
 *             displacement)
 * @emulate:   the decoder consumed a Xen/KVM "emulate" prefix (ud2 and a
 *             signature): @len covers two instructions
 */
struct kernel_insn {
	unsigned int len;
	uint8_t op[3];
	unsigned int nop;
	uint8_t modrm;
	bool has_modrm;
	bool vex;
	bool f3;
	bool sse_pfx;
	uint32_t attr;
	unsigned int imm_bytes;
	int32_t imm;
	bool emulate;
};

/*
 * Decodes one instruction of @n bytes at most at @p, 64-bit or 32-bit
 * code.  Returns 0, or insn_decode()'s negative errno when the kernel
 * decoder calls the bytes invalid or incomplete.
 */
int kernel_insn_decode(const uint8_t *p, unsigned int n, bool m64,
		       struct kernel_insn *out);

#endif
