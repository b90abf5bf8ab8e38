// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which instructions are control transfers, for the oracle: Zydis's own
 * categories, not libbts's classifier, so that the two can disagree.
 */
#include <stdio.h>
#include <Zydis/Zydis.h>

#include "oracle.h"

static ZydisMachineMode mode(bool is32)
{
	return is32 ? ZYDIS_MACHINE_MODE_LEGACY_32 : ZYDIS_MACHINE_MODE_LONG_64;
}

int oracle_classify(bool is32, const void *bytes, size_t len,
		    unsigned int *insn_len)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction insn;

	ZydisDecoderInit(&dec, mode(is32),
			 is32 ? ZYDIS_STACK_WIDTH_32 : ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, bytes, len,
							&insn)))
		return -1;
	*insn_len = insn.length;
	switch (insn.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:	/* jcc, loop*, jrcxz/jecxz */
		return ORACLE_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return ORACLE_UNCOND;
	default:	/* syscall, int $0x80, rep movs: no branch */
		return ORACLE_PLAIN;
	}
}

const char *oracle_disasm(const struct oracle_image *img, uint64_t vaddr,
			  char *buf, size_t len)
{
	ZydisDisassembledInstruction d;
	unsigned char code[16];
	size_t n = oracle_image_read(img, vaddr, code, sizeof(code));

	if (!n || !ZYAN_SUCCESS(ZydisDisassembleATT(mode(img->is32),
						    vaddr, code, n, &d)))
		snprintf(buf, len, "(no code)");
	else
		snprintf(buf, len, "%s", d.text);
	return buf;
}
