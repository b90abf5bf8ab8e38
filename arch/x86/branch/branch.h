/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The control-transfer classifier: is this x86 instruction a branch, of
 * which kind, how long is it, and where does a direct one go.  Shared by
 * the kernel's kmod-step source (which cannot use a full decoder in trap
 * context, and to which 6.1 does not export its own, insn_decode()) and
 * libbts; tests/unit checks it against Zydis and against the kernel's
 * insn_decode() on every instruction of real binaries.
 *
 * It decodes only as much as it must: prefixes, opcode, ModRM/SIB,
 * displacement and immediate sizes.  No allocation, no globals, no
 * floating point: safe in any context.
 */
#ifndef PTBTS_BRANCH_H
#define PTBTS_BRANCH_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __s32 s32;
#endif

/**
 * enum ptbts_br_kind - what an instruction does to the flow of control
 * @PTBTS_BR_NONE:     not a control transfer: the next instruction runs
 *                     next; rep string instructions included
 * @PTBTS_BR_JCC:      conditional jump, relative (Jcc)
 * @PTBTS_BR_LOOP:     LOOP/LOOPE/LOOPNE/JCXZ/JECXZ/JRCXZ, relative
 * @PTBTS_BR_JMP:      unconditional jump, relative
 * @PTBTS_BR_CALL:     call, relative
 * @PTBTS_BR_RET:      near return (with or without imm16)
 * @PTBTS_BR_JMP_IND:  indirect jump (register or memory)
 * @PTBTS_BR_CALL_IND: indirect call (register or memory)
 * @PTBTS_BR_FAR:      far jmp/call/ret, iret, uiret, and the privileged
 *                     returns sysret/sysexit/rsm: taken, target not decoded
 * @PTBTS_BR_SYSCALL:  syscall/sysenter/int imm8/int3/into/int1: control
 *                     normally returns to the next instruction
 * @PTBTS_BR_OTHER:    anything else that may go elsewhere than the next
 *                     instruction and that a source must treat with care: xbegin, xabort, xend
 *                     (an abort jumps to xbegin's fallback), enclu,
 *                     ud0/ud1/ud2
 */
enum ptbts_br_kind {
	PTBTS_BR_NONE = 0,
	PTBTS_BR_JCC,
	PTBTS_BR_LOOP,
	PTBTS_BR_JMP,
	PTBTS_BR_CALL,
	PTBTS_BR_RET,
	PTBTS_BR_JMP_IND,
	PTBTS_BR_CALL_IND,
	PTBTS_BR_FAR,
	PTBTS_BR_SYSCALL,
	PTBTS_BR_OTHER,
};

/**
 * struct ptbts_insn - what the classifier found
 * @len:  instruction length in bytes (1..15)
 * @kind: &enum ptbts_br_kind
 * @rep:  a REP/REPNE prefix on a string instruction (movs, cmps, scas,
 *        lods, stos, ins, outs): the pc repeats; @kind is then NONE
 * @rel:  for relative kinds (JCC, LOOP, JMP, CALL): the displacement from
 *        the end of the instruction, sign-extended (in 32-bit code with a
 *        66 prefix the CPU also truncates the target to 16 bits); 0
 *        otherwise, xbegin's fallback included
 */
struct ptbts_insn {
	u8 len;
	u8 kind;
	u8 rep;
	s32 rel;
};

/**
 * ptbts_branch_classify() - classify one instruction
 * @code:   its bytes
 * @avail:  how many bytes of @code may be read (up to 15 are used)
 * @mode64: 64-bit code segment (false: 32-bit protected mode)
 * @out:    filled on success
 *
 * Return: 0; -ENODATA when @avail ends inside the instruction (read more
 * bytes and retry; never returned once 15 bytes are there); -EINVAL when
 * the bytes are not a valid instruction (a few invalid encodings pass:
 * see branch.c).  User space gets the same negative errno values.
 */
int ptbts_branch_classify(const u8 *code, unsigned int avail, bool mode64,
			  struct ptbts_insn *out);

#endif /* PTBTS_BRANCH_H */
