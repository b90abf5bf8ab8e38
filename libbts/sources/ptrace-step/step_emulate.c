// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Carrying out a branch in the tracer: the thread stopped on the int3 at a
 * branch site gets the registers (and, for a call, the stack) the branch
 * would have left, without running it.  Whatever cannot be done exactly
 * (a read or write that would fault, a non-canonical target, the trap flag
 * set by the program) is refused: the caller then steps the real
 * instruction, which faults or traps as it would untraced.
 *
 * i386 code (@br->mode32) runs the same way on 4-byte words: the return
 * address pushed and popped is 4 bytes, %esp and the pc wrap at 4 GiB, a
 * loop counts %ecx.  ptrace shows such a thread's registers zero-extended
 * in the 64-bit layout, and they are written back so.
 */
#include <sys/uio.h>

#include "sources/ptrace-step/step.h"

#define X86_CF	0x0001
#define X86_PF	0x0004
#define X86_ZF	0x0040
#define X86_SF	0x0080
#define X86_TF	0x0100
#define X86_OF	0x0800

/* The flat 32-bit user code segment (__USER32_CS): i386 code runs there. */
#define USER32_CS 0x23

static unsigned long long *gpr(struct user_regs_struct *r, int n)
{
	unsigned long long *const map[16] = {
		&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp,
		&r->rsi, &r->rdi, &r->r8, &r->r9, &r->r10, &r->r11,
		&r->r12, &r->r13, &r->r14, &r->r15,
	};

	return map[n & 15];
}

static bool jcc_true(unsigned int cc, uint64_t f)
{
	bool cf = f & X86_CF, zf = f & X86_ZF, sf = f & X86_SF,
	     of = f & X86_OF, pf = f & X86_PF, v;

	switch (cc >> 1) {
	case 0: v = of; break;
	case 1: v = cf; break;
	case 2: v = zf; break;
	case 3: v = cf || zf; break;
	case 4: v = sf; break;
	case 5: v = pf; break;
	case 6: v = sf != of; break;
	default: v = zf || sf != of; break;
	}
	return (cc & 1) ? !v : v;
}

/* The count a loop leaves: %rcx, or %ecx in i386 code (zero-extended). */
static bool count_down(const struct bts_branch *br, struct user_regs_struct *r)
{
	r->rcx = br->mode32 ? (uint32_t)(r->rcx - 1) : r->rcx - 1;
	return r->rcx != 0;
}

/* Whether the conditional branch is taken; loop counts %rcx down. */
static bool cond_taken(const struct bts_branch *br, struct user_regs_struct *r)
{
	bool zf = r->eflags & X86_ZF;

	switch (br->cond) {
	case BTS_COND_RCXZ:
		return (br->addr32 ? (uint32_t)r->rcx : r->rcx) == 0;
	case BTS_COND_LOOP:
		return count_down(br, r);
	case BTS_COND_LOOPE:
		return count_down(br, r) && zf;
	case BTS_COND_LOOPNE:
		return count_down(br, r) && !zf;
	default:
		return jcc_true(br->cond, r->eflags);
	}
}

/* i386 addresses are 32 bits; a long-mode one must be canonical. */
static bool canonical(const struct bts_branch *br, uint64_t a)
{
	if (br->mode32)
		return a <= UINT32_MAX;
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

/* The width of a pushed return address (and of a pc in memory). */
static size_t word(const struct bts_branch *br)
{
	return br->mode32 ? 4 : 8;
}

/* Little-endian: the low @n bytes of *@v are the word (zero-extended). */
static int read_word(pid_t tid, uint64_t addr, size_t n, uint64_t *v)
{
	struct iovec local = { v, n };
	struct iovec remote = { (void *)(uintptr_t)addr, n };

	*v = 0;
	return process_vm_readv(tid, &local, 1, &remote, 1, 0) ==
	       (ssize_t)n ? 0 : -1;
}

static int write_word(pid_t tid, uint64_t addr, size_t n, uint64_t v)
{
	struct iovec local = { &v, n };
	struct iovec remote = { (void *)(uintptr_t)addr, n };

	return process_vm_writev(tid, &local, 1, &remote, 1, 0) ==
	       (ssize_t)n ? 0 : -1;
}

/* @a wrapped as the machine mode wraps addresses. */
static uint64_t wrap(const struct bts_branch *br, uint64_t a)
{
	return br->mode32 ? (uint32_t)a : a;
}

/*
 * The base of %fs or %gs.  In i386 code a null selector faults on use,
 * whatever base ptrace shows: left to the real instruction.
 */
static int seg_base(const struct bts_branch *br, const struct user_regs_struct *r,
		    uint64_t *base)
{
	bool fs = br->seg == 1;

	if (br->mode32 && !(fs ? r->fs : r->gs))
		return -1;
	*base = fs ? r->fs_base : r->gs_base;
	return 0;
}

/* The target of an indirect branch at @pc, from a register or memory. */
static int indirect_target(pid_t tid, uint64_t pc, const struct bts_branch *br,
			   struct user_regs_struct *r, uint64_t *to)
{
	uint64_t a = (uint64_t)br->disp, base = 0;

	if (br->opnd == BTS_OPND_REG) {
		*to = wrap(br, *gpr(r, br->base));
		return 0;
	}
	if (br->base == BTS_REG_RIP)
		a += pc + br->len;
	else if (br->base != BTS_REG_NONE)
		a += *gpr(r, br->base);
	if (br->index != BTS_REG_NONE)
		a += *gpr(r, br->index) * br->scale;
	if (br->addr32)
		a = (uint32_t)a;
	if (br->seg && seg_base(br, r, &base))
		return -1;
	return read_word(tid, wrap(br, a + base), word(br), to);
}

int bts_branch_emulate(pid_t tid, uint64_t pc, const struct bts_branch *br,
		       struct user_regs_struct *r, bool *taken)
{
	uint64_t next = wrap(br, pc + br->len), to = br->target, sp;

	if (!br->emulable || (r->eflags & X86_TF))
		return -1;
	/* Code decoded as i386 code runs in the flat 32-bit segment only. */
	if (br->mode32 && r->cs != USER32_CS)
		return -1;
	*taken = true;
	switch (br->kind) {
	case BTS_INSN_COND:
		*taken = cond_taken(br, r);
		r->rip = *taken ? to : next;
		return 0;
	case BTS_INSN_JUMP:
		break;
	case BTS_INSN_JUMP_IND:
		if (indirect_target(tid, pc, br, r, &to))
			return -1;
		break;
	case BTS_INSN_CALL_IND:
		if (indirect_target(tid, pc, br, r, &to))
			return -1;
		/* fall through */
	case BTS_INSN_CALL:
		sp = wrap(br, r->rsp - word(br));
		if (!canonical(br, to) || write_word(tid, sp, word(br), next))
			return -1;
		r->rsp = sp;
		r->rip = to;
		return 0;
	case BTS_INSN_RET:
		if (read_word(tid, r->rsp, word(br), &to) || !canonical(br, to))
			return -1;
		r->rsp = wrap(br, r->rsp + word(br) + br->imm);
		r->rip = to;
		return 0;
	default:
		return -1;
	}
	if (!canonical(br, to))
		return -1;
	r->rip = to;
	return 0;
}
