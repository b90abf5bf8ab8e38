// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one file built against the kernel's tools/ headers: it calls
 * insn_decode() and copies what the comparison needs into plain types.
 */
#include <string.h>

#include <asm/insn.h>

#include "kernel_insn.h"

int kernel_insn_decode(const uint8_t *p, unsigned int n, bool m64,
		       struct kernel_insn *out)
{
	struct insn insn;
	int ret, i;

	memset(out, 0, sizeof(*out));
	ret = insn_decode(&insn, p, (int)n, m64 ? INSN_MODE_64 : INSN_MODE_32);
	if (ret)
		return ret;
	out->len = insn.length;
	out->nop = insn.opcode.nbytes;
	for (i = 0; i < insn.opcode.nbytes && i < 3; i++)
		out->op[i] = insn.opcode.bytes[i];
	out->has_modrm = insn.modrm.nbytes != 0;
	out->modrm = insn.modrm.bytes[0];
	out->vex = insn.vex_prefix.nbytes != 0;
	for (i = 0; i < insn.prefixes.nbytes && i < 4; i++) {
		insn_byte_t b = insn.prefixes.bytes[i];

		out->f3 |= b == 0xf3;
		out->sse_pfx |= b == 0x66 || b == 0xf2 || b == 0xf3;
	}
	out->attr = insn.attr;
	out->imm_bytes = insn.immediate1.nbytes + insn.immediate2.nbytes;
	out->imm = insn.immediate.value;
	out->emulate = insn.emulate_prefix_size != 0;
	return 0;
}
