// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Carrying out a branch in the tracer: the thread stopped on the int3 at a
 * branch site gets the registers (and, for a call, the stack) the branch
 * would have left, without running it.  Whatever cannot be done exactly
 * (a read or write that would fault, a non-canonical target, the trap flag
 * set by the program) is refused: the caller then steps the real
 * instruction, which faults or traps as it would untraced.
 */
#include <sys/uio.h>

#include "session.h"

#define X86_CF	0x0001
#define X86_PF	0x0004
#define X86_ZF	0x0040
#define X86_SF	0x0080
#define X86_TF	0x0100
#define X86_OF	0x0800

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

/* Whether the conditional branch is taken; loop counts %rcx down. */
static bool cond_taken(const struct bts_branch *br, struct user_regs_struct *r)
{
	bool zf = r->eflags & X86_ZF;

	switch (br->cond) {
	case BTS_COND_RCXZ:
		return (br->addr32 ? (uint32_t)r->rcx : r->rcx) == 0;
	case BTS_COND_LOOP:
		return --r->rcx != 0;
	case BTS_COND_LOOPE:
		return --r->rcx != 0 && zf;
	case BTS_COND_LOOPNE:
		return --r->rcx != 0 && !zf;
	default:
		return jcc_true(br->cond, r->eflags);
	}
}

static bool canonical(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

static int read_u64(pid_t tid, uint64_t addr, uint64_t *v)
{
	struct iovec local = { v, sizeof(*v) };
	struct iovec remote = { (void *)(uintptr_t)addr, sizeof(*v) };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) ==
	       (ssize_t)sizeof(*v) ? 0 : -1;
}

static int write_u64(pid_t tid, uint64_t addr, uint64_t v)
{
	struct iovec local = { &v, sizeof(v) };
	struct iovec remote = { (void *)(uintptr_t)addr, sizeof(v) };

	return process_vm_writev(tid, &local, 1, &remote, 1, 0) ==
	       (ssize_t)sizeof(v) ? 0 : -1;
}

/* The target of an indirect branch at @pc, from a register or memory. */
static int indirect_target(pid_t tid, uint64_t pc, const struct bts_branch *br,
			   struct user_regs_struct *r, uint64_t *to)
{
	uint64_t a = (uint64_t)br->disp;

	if (br->opnd == BTS_OPND_REG) {
		*to = *gpr(r, br->base);
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
	if (br->seg == 1)
		a += r->fs_base;
	else if (br->seg == 2)
		a += r->gs_base;
	return read_u64(tid, a, to);
}

int bts_branch_emulate(pid_t tid, uint64_t pc, const struct bts_branch *br,
		       struct user_regs_struct *r, bool *taken)
{
	uint64_t next = pc + br->len, to = br->target;

	if (!br->emulable || (r->eflags & X86_TF))
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
		if (!canonical(to) || write_u64(tid, r->rsp - 8, next))
			return -1;
		r->rsp -= 8;
		r->rip = to;
		return 0;
	case BTS_INSN_RET:
		if (read_u64(tid, r->rsp, &to) || !canonical(to))
			return -1;
		r->rsp += 8 + br->imm;
		r->rip = to;
		return 0;
	default:
		return -1;
	}
	if (!canonical(to))
		return -1;
	r->rip = to;
	return 0;
}
