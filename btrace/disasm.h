/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One instruction as gdb's x/i shows it (GNU objdump's text), in AT&T
 * syntax as gdb does by default or in Intel syntax ("set
 * disassembly-flavor intel"), through Zydis's formatter.
 */
#ifndef BTRACE_DISASM_H
#define BTRACE_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

#include <bts.h>

enum disasm_syntax { DISASM_ATT, DISASM_INTEL };

struct disasm {
	ZydisDecoder dec;
	ZydisFormatter fmt;
	enum disasm_syntax syntax;
};

/* For @bits (64 or 32) code. */
void disasm_init(struct disasm *d, int bits, enum disasm_syntax syntax);

/*
 * The text of the instruction in @raw (@size bytes) at @ip into @out:
 * "mnemonic operands", the mnemonic padded to 6 columns; branch targets
 * and rip-relative addresses named from @sym (may be NULL) as gdb names
 * them.  "(bad)" for bytes that do not decode.
 */
void disasm_format(const struct disasm *d, const uint8_t *raw, size_t size,
		   uint64_t ip, struct bts_symbolizer *sym, char *out, size_t len);

#endif /* BTRACE_DISASM_H */
