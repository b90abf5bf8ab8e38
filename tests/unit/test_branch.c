// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control-transfer classifier of arch/x86/branch on hand-written
 * encodings: each kind, each length rule, truncation and invalid bytes.
 * test_branch_binaries.c compares it with Zydis on real code.
 */
#include <errno.h>
#include <stdio.h>

#include "branch/branch.h"
#include "harness.h"

#define NB	PTBTS_BR_NONE
#define JCC	PTBTS_BR_JCC
#define LOOP	PTBTS_BR_LOOP
#define JMP	PTBTS_BR_JMP
#define CALL	PTBTS_BR_CALL
#define RET	PTBTS_BR_RET
#define JMPI	PTBTS_BR_JMP_IND
#define CALLI	PTBTS_BR_CALL_IND
#define FAR	PTBTS_BR_FAR
#define SYS	PTBTS_BR_SYSCALL
#define OTHER	PTBTS_BR_OTHER

/* One instruction, exactly its bytes. */
struct good {
	const char *what;
	bool m64;
	unsigned char n;
	unsigned char b[15];
	unsigned char kind;
	int rel;
	unsigned char rep;
};

#define NBYTES(...)	sizeof((unsigned char[]){ __VA_ARGS__ })
#define G64(w, k, r, ...) { w, true, NBYTES(__VA_ARGS__), { __VA_ARGS__ }, k, r, 0 }
#define G32(w, k, r, ...) { w, false, NBYTES(__VA_ARGS__), { __VA_ARGS__ }, k, r, 0 }
#define REP64(w, ...)	{ w, true, NBYTES(__VA_ARGS__), { __VA_ARGS__ }, NB, 0, 1 }

static const struct good goods[] = {
	/* conditional jumps */
	G64("je rel8", JCC, 5, 0x74, 0x05),
	G64("jg rel8 backwards", JCC, -2, 0x7f, 0xfe),
	G64("jne rel32", JCC, 16, 0x0f, 0x85, 0x10, 0, 0, 0),
	G64("jl rel32 backwards", JCC, -6, 0x0f, 0x8c, 0xfa, 0xff, 0xff, 0xff),
	G64("cs: je (hint)", JCC, 5, 0x2e, 0x74, 0x05),
	G64("ds: jne rel32 (hint)", JCC, 0x100, 0x3e, 0x0f, 0x85, 0, 1, 0, 0),
	G64("66 jne: still rel32 in 64-bit mode", JCC, 0x01020304,
	    0x66, 0x0f, 0x85, 0x04, 0x03, 0x02, 0x01),
	G32("je rel8 (32)", JCC, 5, 0x74, 0x05),
	G32("jne rel32 (32)", JCC, 0x10, 0x0f, 0x85, 0x10, 0, 0, 0),
	G32("66 jne: rel16 in 32-bit mode", JCC, -3, 0x66, 0x0f, 0x85, 0xfd, 0xff),
	/* loops */
	G64("loop", LOOP, -2, 0xe2, 0xfe),
	G64("loopne", LOOP, 16, 0xe0, 0x10),
	G64("loope", LOOP, -128, 0xe1, 0x80),
	G64("jrcxz", LOOP, 5, 0xe3, 0x05),
	G64("jecxz", LOOP, 5, 0x67, 0xe3, 0x05),
	G32("jcxz", LOOP, 127, 0x67, 0xe3, 0x7f),
	/* direct jumps and calls */
	G64("jmp rel8", JMP, -2, 0xeb, 0xfe),
	G64("jmp rel32", JMP, 0x100, 0xe9, 0x00, 0x01, 0, 0),
	G64("66 jmp: still rel32 in 64-bit mode", JMP, -16,
	    0x66, 0xe9, 0xf0, 0xff, 0xff, 0xff),
	G32("jmp rel32 (32)", JMP, 0x100, 0xe9, 0x00, 0x01, 0, 0),
	G32("66 jmp rel16", JMP, 0x1234, 0x66, 0xe9, 0x34, 0x12),
	G32("66 jmp rel16 backwards", JMP, -2, 0x66, 0xe9, 0xfe, 0xff),
	G64("call rel32", CALL, -0x100, 0xe8, 0x00, 0xff, 0xff, 0xff),
	G64("rex.w call rel32", CALL, 4, 0x48, 0xe8, 0x04, 0, 0, 0),
	G64("66 call: still rel32 in 64-bit mode", CALL, 0x01020304,
	    0x66, 0xe8, 0x04, 0x03, 0x02, 0x01),
	G32("call rel32 (32)", CALL, 0, 0xe8, 0, 0, 0, 0),
	G32("66 call rel16", CALL, -0x8000, 0x66, 0xe8, 0x00, 0x80),
	/* returns */
	G64("ret", RET, 0, 0xc3),
	G64("ret imm16", RET, 0, 0xc2, 0x08, 0x00),
	G64("66 ret imm16: the immediate stays 16 bits", RET, 0, 0x66, 0xc2, 8, 0),
	G64("rep ret", RET, 0, 0xf3, 0xc3),
	G32("ret (32)", RET, 0, 0xc3),
	/* indirect */
	G64("jmp rax", JMPI, 0, 0xff, 0xe0),
	G64("jmp r11", JMPI, 0, 0x41, 0xff, 0xe3),
	G64("jmp [rip+x]", JMPI, 0, 0xff, 0x25, 0xe2, 0x2f, 0, 0),
	G64("bnd jmp [rip+x]", JMPI, 0, 0xf2, 0xff, 0x25, 0xe2, 0x2f, 0, 0),
	G64("notrack jmp rax", JMPI, 0, 0x3e, 0xff, 0xe0),
	G64("jmp [rax*8+disp32]", JMPI, 0, 0xff, 0x24, 0xc5, 0x00, 0x10, 0x40, 0x00),
	G64("jmp [rbx+rax*8]", JMPI, 0, 0xff, 0x24, 0xc3),
	G64("jmp [rsp+8]", JMPI, 0, 0xff, 0x64, 0x24, 0x08),
	G64("jmp [rbp+disp32]", JMPI, 0, 0xff, 0xa5, 0x00, 0x01, 0, 0),
	G32("jmp [eax*4+disp32]", JMPI, 0, 0xff, 0x24, 0x85, 0, 0x10, 0, 0),
	G32("jmp [disp32] (no rip in 32-bit)", JMPI, 0, 0xff, 0x25, 0, 0x10, 0, 0),
	G32("jmp [bx] (16-bit addressing)", JMPI, 0, 0x67, 0xff, 0x27),
	G32("jmp [0x1234] (16-bit disp16)", JMPI, 0, 0x67, 0xff, 0x26, 0x34, 0x12),
	G32("jmp [bx+8] (16-bit disp8)", JMPI, 0, 0x67, 0xff, 0x67, 0x08),
	G32("jmp [bx+0x1234] (16-bit disp16)", JMPI, 0, 0x67, 0xff, 0xa7, 0x34, 0x12),
	G32("jmp [bx+si] (16-bit, rm 4 is no SIB)", JMPI, 0, 0x67, 0xff, 0x20),
	G64("call rax", CALLI, 0, 0xff, 0xd0),
	G64("call [rip+x]", CALLI, 0, 0xff, 0x15, 0x10, 0, 0, 0),
	G64("call [r12+8]", CALLI, 0, 0x41, 0xff, 0x54, 0x24, 0x08),
	G64("66 call rax (still a near call)", CALLI, 0, 0x66, 0xff, 0xd0),
	G32("call [esi+disp32]", CALLI, 0, 0xff, 0x96, 1, 2, 3, 4),
	/* far */
	G64("call far [rsp]", FAR, 0, 0xff, 0x1c, 0x24),
	G64("jmp far [rax]", FAR, 0, 0xff, 0x28),
	G64("rex.w jmp far m16:64", FAR, 0, 0x48, 0xff, 0x28),
	G64("retf", FAR, 0, 0xcb),
	G64("retf imm16", FAR, 0, 0xca, 0x08, 0x00),
	G64("rex.w retf", FAR, 0, 0x48, 0xcb),
	G64("iret", FAR, 0, 0xcf),
	G64("iretq", FAR, 0, 0x48, 0xcf),
	G64("sysret", FAR, 0, 0x0f, 0x07),
	G64("sysexit", FAR, 0, 0x0f, 0x35),
	G64("rsm", FAR, 0, 0x0f, 0xaa),
	G64("uiret", FAR, 0, 0xf3, 0x0f, 0x01, 0xec),
	G32("jmp far ptr16:32", FAR, 0, 0xea, 1, 2, 3, 4, 5, 6),
	G32("66 jmp far ptr16:16", FAR, 0, 0x66, 0xea, 1, 2, 3, 4),
	G32("call far ptr16:32", FAR, 0, 0x9a, 1, 2, 3, 4, 5, 6),
	G32("iretd", FAR, 0, 0xcf),
	/* syscalls and interrupts */
	G64("syscall", SYS, 0, 0x0f, 0x05),
	G64("sysenter", SYS, 0, 0x0f, 0x34),
	G64("int 0x80", SYS, 0, 0xcd, 0x80),
	G64("int3", SYS, 0, 0xcc),
	G64("int1", SYS, 0, 0xf1),
	G32("int 0x80 (32)", SYS, 0, 0xcd, 0x80),
	G32("into", SYS, 0, 0xce),
	G32("sysenter (32)", SYS, 0, 0x0f, 0x34),
	/* the rest that needs care */
	G64("xbegin rel32", OTHER, 0, 0xc7, 0xf8, 0x10, 0, 0, 0),
	G64("66 xbegin rel16 (not forced to 32 bits)", OTHER, 0, 0x66, 0xc7, 0xf8, 0x10, 0),
	G32("xbegin rel32 (32)", OTHER, 0, 0xc7, 0xf8, 0x10, 0, 0, 0),
	G64("xabort", OTHER, 0, 0xc6, 0xf8, 0x01),
	G64("xend", OTHER, 0, 0x0f, 0x01, 0xd5),
	G64("enclu", OTHER, 0, 0x0f, 0x01, 0xd7),
	G64("ud2", OTHER, 0, 0x0f, 0x0b),
	G64("ud1 eax, [rax]", OTHER, 0, 0x0f, 0xb9, 0x00),
	G64("ud0 eax, eax", OTHER, 0, 0x0f, 0xff, 0xc0),
	/* rep strings: the pc repeats, no branch */
	REP64("rep movsb", 0xf3, 0xa4),
	REP64("rep movsq", 0xf3, 0x48, 0xa5),
	REP64("repne scasb", 0xf2, 0xae),
	REP64("repe cmpsb", 0xf3, 0xa6),
	REP64("rep stosb", 0xf3, 0xaa),
	REP64("rep lodsd", 0xf3, 0xad),
	REP64("rep insb", 0xf3, 0x6c),
	REP64("rep outsw", 0x66, 0xf3, 0x6f),
	REP64("repne movsb (F2 repeats it too)", 0xf2, 0xa4),
	G64("movsb without rep", NB, 0, 0xa4),
	G64("pause (F3 90) is no rep", NB, 0, 0xf3, 0x90),
	G64("popcnt (F3 0F B8) is no rep", NB, 0, 0xf3, 0x0f, 0xb8, 0xc0),
	/* lengths: immediates */
	G64("nop", NB, 0, 0x90),
	G64("mov eax, imm32", NB, 0, 0xb8, 1, 2, 3, 4),
	G64("mov ax, imm16", NB, 0, 0x66, 0xb8, 1, 2),
	G64("mov rax, imm64", NB, 0, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8),
	G64("66 rex.w mov rax, imm64 (W wins)", NB, 0, 0x66, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8),
	G64("rex.w 66 mov ax, imm16 (REX not last: ignored)", NB, 0, 0x48, 0x66, 0xb8, 1, 2),
	G64("mov al, imm8", NB, 0, 0xb0, 1),
	G64("add eax, imm32", NB, 0, 0x05, 1, 2, 3, 4),
	G64("add ax, imm16", NB, 0, 0x66, 0x05, 1, 2),
	G64("rex.w add rax, imm32", NB, 0, 0x48, 0x05, 1, 2, 3, 4),
	G64("push imm32", NB, 0, 0x68, 1, 2, 3, 4),
	G64("push imm8", NB, 0, 0x6a, 1),
	G64("imul eax, eax, imm32", NB, 0, 0x69, 0xc0, 1, 2, 3, 4),
	G64("imul eax, eax, imm8", NB, 0, 0x6b, 0xc0, 5),
	G64("cmp byte [rax], 5", NB, 0, 0x80, 0x38, 0x05),
	G64("cmp qword [rsp+8], 0", NB, 0, 0x48, 0x83, 0x7c, 0x24, 0x08, 0x00),
	G64("cmp dword [rsp+disp32], imm32", NB, 0, 0x81, 0xbc, 0x24, 1, 2, 3, 4, 5, 6, 7, 8),
	G64("mov dword [rip+x], imm32", NB, 0, 0xc7, 0x05, 1, 2, 3, 4, 5, 6, 7, 8),
	G64("66 mov word [rax], imm16", NB, 0, 0x66, 0xc7, 0x00, 1, 2),
	G64("mov byte [rax], imm8", NB, 0, 0xc6, 0x00, 1),
	G64("test al, 1 (F6 /0)", NB, 0, 0xf6, 0xc0, 0x01),
	G64("test al, 1 (F6 /1 alias)", NB, 0, 0xf6, 0xc8, 0x01),
	G64("not al (F6 /2: no immediate)", NB, 0, 0xf6, 0xd0),
	G64("test dword [rax+5], imm32 (F7 /1)", NB, 0, 0xf7, 0x48, 0x05, 1, 2, 3, 4),
	G64("test ax, imm16", NB, 0, 0x66, 0xf7, 0xc0, 1, 2),
	G64("neg eax (F7 /3)", NB, 0, 0xf7, 0xd8),
	G64("enter 16, 1", NB, 0, 0xc8, 0x10, 0x00, 0x01),
	G64("rol eax, 3", NB, 0, 0xc1, 0xc0, 0x03),
	G64("in al, 0x60", NB, 0, 0xe4, 0x60),
	G64("mov al, [moffs64]", NB, 0, 0xa0, 1, 2, 3, 4, 5, 6, 7, 8),
	G64("mov eax, [moffs32] (67)", NB, 0, 0x67, 0xa1, 1, 2, 3, 4),
	G64("66 mov [moffs64], ax (66 does not change moffs)", NB, 0,
	    0x66, 0xa3, 1, 2, 3, 4, 5, 6, 7, 8),
	G32("mov eax, [moffs32] (32)", NB, 0, 0xa1, 1, 2, 3, 4),
	G32("mov eax, [moffs16] (32, 67)", NB, 0, 0x67, 0xa1, 1, 2),
	G32("inc eax (40 is no REX in 32-bit)", NB, 0, 0x40),
	G32("dec eax; 48 is no REX", NB, 0, 0x48),
	/* lengths: ModRM, SIB, displacement */
	G64("mov eax, [rip+disp32]", NB, 0, 0x8b, 0x05, 1, 2, 3, 4),
	G64("mov eax, [disp32] via SIB", NB, 0, 0x8b, 0x04, 0x25, 1, 2, 3, 4),
	G64("mov eax, [rsp]", NB, 0, 0x8b, 0x04, 0x24),
	G64("mov eax, [rsp+8]", NB, 0, 0x8b, 0x44, 0x24, 0x08),
	G64("mov eax, [rsp+disp32]", NB, 0, 0x8b, 0x84, 0x24, 1, 2, 3, 4),
	G64("mov eax, [rax+disp32]", NB, 0, 0x8b, 0x80, 1, 2, 3, 4),
	G64("mov eax, [rbp+0] (disp8)", NB, 0, 0x8b, 0x45, 0x00),
	G64("mov eax, [r13+rax*1] (base 5, mod 1)", NB, 0, 0x42, 0x8b, 0x44, 0x05, 0x00),
	G64("mov eax, [eax] (67 in 64-bit: still 32-bit ModRM)", NB, 0, 0x67, 0x8b, 0x00),
	G64("67 mov eax, [rip]", NB, 0, 0x67, 0x8b, 0x05, 1, 2, 3, 4),
	G32("mov eax, [esp+8]", NB, 0, 0x8b, 0x44, 0x24, 0x08),
	G32("mov eax, [bp+8] (16-bit)", NB, 0, 0x67, 0x8b, 0x46, 0x08),
	G32("mov eax, [0x1234] (16-bit)", NB, 0, 0x67, 0x8b, 0x06, 0x34, 0x12),
	G32("mov eax, [bx+si+0x1234] (16-bit)", NB, 0, 0x67, 0x8b, 0x80, 0x34, 0x12),
	G64("nopl [rax+rax+0]", NB, 0, 0x0f, 0x1f, 0x44, 0x00, 0x00),
	G64("nopw [rax+rax+disp32]", NB, 0, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0),
	G64("cs nopw (11 bytes)", NB, 0, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0),
	G64("endbr64", NB, 0, 0xf3, 0x0f, 0x1e, 0xfa),
	G64("mov rax, cr0 (mod ignored)", NB, 0, 0x0f, 0x20, 0x00),
	G64("fldz", NB, 0, 0xd9, 0xee),
	G64("fld qword [rip+x]", NB, 0, 0xdd, 0x05, 1, 2, 3, 4),
	G64("cmovne eax, ecx", NB, 0, 0x0f, 0x45, 0xc1),
	G64("shld eax, ecx, 3", NB, 0, 0x0f, 0xa4, 0xc8, 0x03),
	G64("bt eax, 3", NB, 0, 0x0f, 0xba, 0xe0, 0x03),
	G64("pshufd xmm0, xmm1, 5", NB, 0, 0x66, 0x0f, 0x70, 0xc1, 0x05),
	G64("pinsrw xmm0, eax, 1", NB, 0, 0x66, 0x0f, 0xc4, 0xc0, 0x01),
	G64("movsxd rax, ecx", NB, 0, 0x48, 0x63, 0xc1),
	G64("pop rax", NB, 0, 0x58),
	G64("pop qword [rax] (8F /0)", NB, 0, 0x8f, 0x00),
	G64("pop rax (8F C0: mmmmm 0 is no XOP)", NB, 0, 0x8f, 0xc0),
	G32("pop dword [eax] (32)", NB, 0, 0x8f, 0x00),
	/* three-byte maps */
	G64("pshufb xmm0, xmm1", NB, 0, 0x66, 0x0f, 0x38, 0x00, 0xc1),
	G64("crc32 eax, byte [rax+8]", NB, 0, 0xf2, 0x0f, 0x38, 0xf0, 0x40, 0x08),
	G64("palignr xmm0, xmm1, 8", NB, 0, 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08),
	G64("pextrd [rsp+disp32], xmm0, 1", NB, 0,
	    0x66, 0x0f, 0x3a, 0x16, 0x84, 0x24, 1, 2, 3, 4, 0x01),
	/* AMD: SSE4a, 3DNow! */
	G64("extrq xmm0, 5, 6", NB, 0, 0x66, 0x0f, 0x78, 0xc0, 0x05, 0x06),
	G64("insertq xmm0, xmm1, 5, 6", NB, 0, 0xf2, 0x0f, 0x78, 0xc1, 0x05, 0x06),
	G64("extrq xmm0, xmm1 (0F 79)", NB, 0, 0x66, 0x0f, 0x79, 0xc1),
	G64("vmread rax, rcx (0F 78 without prefix)", NB, 0, 0x0f, 0x78, 0xc8),
	G64("pfmul mm0, mm1 (3DNow! suffix byte)", NB, 0, 0x0f, 0x0f, 0xc1, 0xb4),
	G64("pfadd mm0, [rax+8]", NB, 0, 0x0f, 0x0f, 0x40, 0x08, 0x9e),
	/* VEX, EVEX, XOP */
	G64("vzeroupper (no ModRM)", NB, 0, 0xc5, 0xf8, 0x77),
	G64("vmovdqa ymm0, [rax]", NB, 0, 0xc5, 0xfd, 0x6f, 0x00),
	G64("vpshufd xmm0, xmm0, 5", NB, 0, 0xc5, 0xf9, 0x70, 0xc0, 0x05),
	G64("vbroadcastss ymm0, [rax]", NB, 0, 0xc4, 0xe2, 0x7d, 0x18, 0x00),
	G64("vinsertf128 ymm0, ymm0, xmm1, 1", NB, 0, 0xc4, 0xe3, 0x7d, 0x18, 0xc1, 0x01),
	G64("vmovdqu ymm0, [rip+x]", NB, 0, 0xc5, 0xfe, 0x6f, 0x05, 1, 2, 3, 4),
	G64("andn eax, ecx, edx (VEX map 2)", NB, 0, 0xc4, 0xe2, 0x70, 0xf2, 0xc2),
	G64("vmovups zmm0, [rax+0x40] (disp8*N)", NB, 0, 0x62, 0xf1, 0x7c, 0x48, 0x10, 0x40, 0x01),
	G64("valignd zmm0, zmm0, zmm1, 5", NB, 0, 0x62, 0xf3, 0x7d, 0x48, 0x03, 0xc1, 0x05),
	G64("vpternlogd zmm0, zmm1, [rax+disp32], 0xff", NB, 0,
	    0x62, 0xf3, 0x75, 0x48, 0x25, 0x80, 1, 2, 3, 4, 0xff),
	G64("vaddph zmm0, zmm1, zmm2 (EVEX map 5)", NB, 0, 0x62, 0xf5, 0x74, 0x48, 0x58, 0xc2),
	G64("vprotb xmm0, xmm1, 5 (XOP map 8)", NB, 0, 0x8f, 0xe8, 0x78, 0xc0, 0xc1, 0x05),
	G64("vfrczps xmm0, xmm1 (XOP map 9)", NB, 0, 0x8f, 0xe9, 0x78, 0x80, 0xc1),
	G64("bextr eax, eax, imm32 (XOP map 0Ah)", NB, 0, 0x8f, 0xea, 0x78, 0x10, 0xc0, 1, 2, 3, 4),
	G32("vbroadcastss ymm0, [eax] (VEX in 32-bit)", NB, 0, 0xc4, 0xe2, 0x7d, 0x18, 0x00),
	G32("vzeroupper (32)", NB, 0, 0xc5, 0xf8, 0x77),
	G32("vmovups zmm0, [eax+0x40] (EVEX in 32-bit)", NB, 0,
	    0x62, 0xf1, 0x7c, 0x48, 0x10, 0x40, 0x01),
	/* 32-bit only */
	G32("les eax, [eax] (C4, mod != 3)", NB, 0, 0xc4, 0x00),
	G32("lds eax, [eax+8]", NB, 0, 0xc5, 0x40, 0x08),
	G32("bound eax, [eax] (62, mod != 3)", NB, 0, 0x62, 0x00),
	G32("push es", NB, 0, 0x06),
	G32("pop ds", NB, 0, 0x1f),
	G32("daa", NB, 0, 0x27),
	G32("pusha", NB, 0, 0x60),
	G32("aam", NB, 0, 0xd4, 0x0a),
	G32("salc", NB, 0, 0xd6),
	G32("add al, 1 (82)", NB, 0, 0x82, 0xc0, 0x01),
	G32("arpl [eax], ax", NB, 0, 0x63, 0x00),
	/* prefixes: the longest allowed instruction */
	G64("14 prefixes + nop: 15 bytes", NB, 0, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x66, 0x90),
	G64("lock add [rax+disp32], imm32 with rex: 15 bytes", NB, 0,
	    0xf0, 0x2e, 0x3e, 0x67, 0x48, 0x81, 0x80, 1, 2, 3, 4, 5, 6, 7, 8),
};

static void check_good(const struct good *g)
{
	unsigned char buf[32];
	struct ptbts_insn in;
	unsigned int cut;
	int ret;

	/* Bytes after the instruction change nothing. */
	memset(buf, 0x0f, sizeof(buf));
	memcpy(buf, g->b, g->n);
	memset(&in, 0xa5, sizeof(in));
	ret = ptbts_branch_classify(buf, sizeof(buf), g->m64, &in);
	if (ret || in.len != g->n || in.kind != g->kind || in.rel != g->rel ||
	    in.rep != g->rep) {
		harness_fail(__FILE__, __LINE__,
			     "%s: ret %d len %u kind %u rel %d rep %u, "
			     "expected len %u kind %u rel %d rep %u",
			     g->what, ret, in.len, in.kind, in.rel, in.rep,
			     g->n, g->kind, g->rel, g->rep);
		return;
	}
	/* Exactly its own bytes are enough... */
	memset(&in, 0, sizeof(in));
	EXPECT_EQ(ptbts_branch_classify(g->b, g->n, g->m64, &in), 0);
	EXPECT_EQ(in.len, g->n);
	/* ...and every shorter read asks for more. */
	for (cut = 0; cut < g->n; cut++) {
		ret = ptbts_branch_classify(g->b, cut, g->m64, &in);
		if (ret != -ENODATA)
			harness_fail(__FILE__, __LINE__, "%s: cut at %u: %d, not -ENODATA",
				     g->what, cut, ret);
	}
}

TEST(branch, classifies_each_kind)
{
	size_t i;

	for (i = 0; i < sizeof(goods) / sizeof(goods[0]); i++)
		check_good(&goods[i]);
}

struct bad {
	const char *what;
	bool m64;
	unsigned char n;
	unsigned char b[17];
};

#define B64(w, ...) { w, true, NBYTES(__VA_ARGS__), { __VA_ARGS__ } }
#define B32(w, ...) { w, false, NBYTES(__VA_ARGS__), { __VA_ARGS__ } }

static const struct bad bads[] = {
	/* one-byte opcodes gone from 64-bit mode */
	B64("push es", 0x06), B64("pop es", 0x07), B64("push cs", 0x0e),
	B64("push ss", 0x16), B64("pop ss", 0x17), B64("push ds", 0x1e),
	B64("pop ds", 0x1f), B64("daa", 0x27), B64("das", 0x2f),
	B64("aaa", 0x37), B64("aas", 0x3f), B64("pusha", 0x60),
	B64("popa", 0x61), B64("82 /0", 0x82, 0xc0, 0x01),
	B64("call far ptr", 0x9a, 1, 2, 3, 4, 5, 6), B64("into", 0xce),
	B64("aam", 0xd4, 0x0a), B64("aad", 0xd5, 0x0a), B64("salc", 0xd6),
	B64("jmp far ptr", 0xea, 1, 2, 3, 4, 5, 6),
	/* undefined opcodes and group members */
	B64("0F 04", 0x0f, 0x04), B64("0F 0A", 0x0f, 0x0a), B64("0F 0C", 0x0f, 0x0c),
	B64("0F 24 (mov tr)", 0x0f, 0x24, 0xc0), B64("0F 36", 0x0f, 0x36),
	B64("0F 39", 0x0f, 0x39), B64("0F 3B", 0x0f, 0x3b), B64("0F 3F", 0x0f, 0x3f),
	B64("0F 7A", 0x0f, 0x7a, 0xc0), B64("0F 7B", 0x0f, 0x7b, 0xc0),
	B64("F3 0F 78", 0xf3, 0x0f, 0x78, 0xc0, 1, 2),
	B64("FF /7", 0xff, 0xf8), B64("FF /7 mem", 0xff, 0x38),
	B64("call far with a register", 0xff, 0xd8),
	B64("jmp far with a register", 0xff, 0xe8),
	B64("FE /2", 0xfe, 0x10), B64("FE /7", 0xfe, 0xf8),
	B64("8F /4 (no XOP: mmmmm < 8)", 0x8f, 0x20), B64("8F /4 reg", 0x8f, 0xe0),
	B64("C6 /1", 0xc6, 0x08, 0x01), B64("C6 F9", 0xc6, 0xf9, 0x01),
	B64("C7 /2", 0xc7, 0x10, 1, 2, 3, 4), B64("C7 F9", 0xc7, 0xf9, 1, 2, 3, 4),
	/* VEX, EVEX, XOP misuse */
	B64("rex before VEX", 0x48, 0xc5, 0xf8, 0x77),
	B64("66 before VEX", 0x66, 0xc5, 0xf8, 0x77),
	B64("F3 before VEX", 0xf3, 0xc4, 0xe2, 0x7d, 0x18, 0x00),
	B64("lock before EVEX", 0xf0, 0x62, 0xf1, 0x7c, 0x48, 0x10, 0x40, 0x01),
	B64("F2 before XOP", 0xf2, 0x8f, 0xe9, 0x78, 0x80, 0xc1),
	B64("VEX map 0", 0xc4, 0xe0, 0x7d, 0x18, 0x00),
	B64("VEX map 4", 0xc4, 0xe4, 0x7d, 0x18, 0x00),
	B64("VEX map 5 (EVEX only)", 0xc4, 0xe5, 0x7d, 0x18, 0x00),
	B64("EVEX P1 bit 2 clear (MVEX)", 0x62, 0xf1, 0x78, 0x48, 0x10, 0x40, 0x01),
	B64("EVEX P0 bit 3 set", 0x62, 0xf9, 0x7c, 0x48, 0x10, 0x40, 0x01),
	B64("EVEX map 0", 0x62, 0xf0, 0x7c, 0x48, 0x10, 0xc0),
	B64("EVEX map 4", 0x62, 0xf4, 0x7c, 0x48, 0x10, 0xc0),
	B64("EVEX map 7", 0x62, 0xf7, 0x7c, 0x48, 0x10, 0xc0),
	B64("XOP map 0Bh", 0x8f, 0xeb, 0x78, 0x10, 0xc0),
	B64("XOP map 1Fh", 0x8f, 0xff, 0x78, 0x10, 0xc0),
	/* 32-bit mode */
	B32("FF /7 (32)", 0xff, 0xf8),
	B32("0F 04 (32)", 0x0f, 0x04),
	B32("66 before VEX (32)", 0x66, 0xc5, 0xf8, 0x77),
	/* 16 bytes: one too many, whatever the bytes */
	B64("15 prefixes + nop", 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x66, 0x90),
	B64("14 prefixes + syscall", 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x0f, 0x05),
	B64("lock add [rax+disp32], imm32 with rex and 3 segments: 16 bytes",
	    0xf0, 0x2e, 0x3e, 0x26, 0x67, 0x48, 0x81, 0x80, 1, 2, 3, 4, 5, 6, 7, 8),
	B32("16 bytes (32)", 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	    0x66, 0x66, 0x66, 0x81, 0x80, 1, 2, 3, 4),
};

TEST(branch, rejects_invalid)
{
	struct ptbts_insn in;
	size_t i;

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		int ret = ptbts_branch_classify(b->b, b->n, b->m64, &in);

		if (ret != -EINVAL)
			harness_fail(__FILE__, __LINE__, "%s: %d (len %u), not -EINVAL",
				     b->what, ret, ret ? 0 : in.len);
	}
}

/* A 16th byte is never read: 15 bytes of a too-long instruction are enough
 * to say so, and a longer buffer changes nothing. */
TEST(branch, reads_at_most_15_bytes)
{
	unsigned char buf[64];
	struct ptbts_insn in;

	memset(buf, 0x2e, sizeof(buf));
	EXPECT_EQ(ptbts_branch_classify(buf, 15, true, &in), -EINVAL);
	EXPECT_EQ(ptbts_branch_classify(buf, sizeof(buf), true, &in), -EINVAL);
	EXPECT_EQ(ptbts_branch_classify(buf, 14, true, &in), -ENODATA);
	EXPECT_EQ(ptbts_branch_classify(buf, 15, false, &in), -EINVAL);
}

TEST(branch, nothing_to_read)
{
	struct ptbts_insn in;

	EXPECT_EQ(ptbts_branch_classify((const u8 *)"", 0, true, &in), -ENODATA);
	EXPECT_EQ(ptbts_branch_classify((const u8 *)"", 0, false, &in), -ENODATA);
}

/* The escapes that depend on the next byte ask for it. */
TEST(branch, escapes_ask_for_more)
{
	static const unsigned char esc[] = { 0x0f, 0x62, 0x8f, 0xc4, 0xc5, 0x66, 0x48 };
	struct ptbts_insn in;
	size_t i;

	for (i = 0; i < sizeof(esc); i++) {
		EXPECT_EQ(ptbts_branch_classify(&esc[i], 1, true, &in), -ENODATA);
		if (esc[i] != 0x48)	/* dec eax in 32-bit mode */
			EXPECT_EQ(ptbts_branch_classify(&esc[i], 1, false, &in), -ENODATA);
	}
}
