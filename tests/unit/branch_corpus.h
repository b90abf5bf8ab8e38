/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The instruction streams the classifier of arch/x86/branch is checked
 * on, shared by its comparisons with Zydis (test_branch_binaries.c) and
 * with the kernel's decoder (test_branch_kernel_decoder.c): the executable
 * sections of an ELF file, pseudo-random instructions, and the Zydis
 * decoder both use to tell instructions from bytes.
 */
#ifndef PTBTS_TESTS_BRANCH_CORPUS_H
#define PTBTS_TESTS_BRANCH_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

/* Zydis for 64-bit or 32-bit (compatibility mode) code; false on failure. */
bool branch_zydis_init(ZydisDecoder *zd, bool m64);

/* Xeon Phi's (KNC) encodings, which no CPU that runs this kernel has. */
bool branch_zydis_knc(const ZydisDecodedInstruction *z);

/*
 * Compares one instruction at @p (@n bytes left, at offset @off of its
 * section) and returns its length, or 0 where there is none.
 */
typedef unsigned int branch_insn_fn(const ZydisDecoder *zd,
				    const unsigned char *p, size_t n, bool m64,
				    unsigned long off, void *ctx);

/*
 * A linear sweep of each executable section of the x86 ELF file @path
 * (.text, .plt, .init, ...: all that executes), with Zydis set for its
 * mode: @fn on each instruction; where it finds none (data in code,
 * padding), one byte on.  Returns NULL, or what went wrong (valid until
 * the next call).
 */
const char *branch_elf_sweep(const char *path, bool *m64, branch_insn_fn *fn,
			     void *ctx);

/*
 * Fills @b with one pseudo-random instruction, deterministic in @seed: a
 * few prefixes, then sometimes an escape with a well-formed map field, so
 * that 0F38, 0F3A, VEX, EVEX, XOP and the 15-byte limit all get their
 * share.
 */
void branch_random_insn(unsigned char b[16], uint32_t *seed);

/* " 0f 05 ..." for the first @n (up to 16) bytes of @p. */
void branch_hex(char out[3 * 16 + 1], const unsigned char *p, unsigned int n);

#endif
