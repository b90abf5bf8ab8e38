/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Labels for the assembly parts of the traced programs (x86-64 and i386,
 * static or PIE): the tests find these places by name in the symbol table,
 * so every one is global.
 */
#ifndef TESTS_PROGS_LABEL_ASM_H
#define TESTS_PROGS_LABEL_ASM_H

	.macro LABEL name
	.globl \name
\name:
	.endm

	.macro FUNC name
	.globl \name
	.type \name, @function
\name:
	.endm

#endif /* TESTS_PROGS_LABEL_ASM_H */
