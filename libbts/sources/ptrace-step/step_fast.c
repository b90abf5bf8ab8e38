// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * ptrace-step, branch stops: a thread runs a whole basic block at full
 * speed and stops only at the int3 planted on the branch that ends it,
 * where the tracer carries the branch out itself (step_emulate.c), writes
 * its record and lets the thread run the next block.  One stop per block
 * instead of one per instruction, and the records are the single-step
 * ones: the instructions of a block run in sequence, so all that can
 * happen between two stops is a syscall or a signal, and both stop:
 *
 *  - the thread is resumed with PTRACE_SYSCALL while its block still has a
 *    syscall ahead: rt_sigreturn's exit stop gives {syscall -> resumed pc};
 *    an munmap or a MAP_FIXED mmap takes our int3s out of the range first;
 *  - a signal-delivery-stop inside the block: every record before it is
 *    written (the block's branch has not run), so a caught signal is
 *    recorded as in single-step mode, at the trap the kernel gives at the
 *    handler's first instruction (the thread is resumed with a step);
 *  - a fatal signal: every int3 is taken out first, so the core is clean.
 *
 * Blocks whose branch cannot be carried out here (far transfers, xbegin,
 * code that cannot be read or decoded) are single-stepped by
 * step_source.c, and an emulation that would fault steps the real
 * instruction with its int3 lifted.  A stop that is not where the thread
 * was going, or a block whose bytes changed since it was decoded
 * (self-modifying code, code mapped anew), gives a gap marker and the
 * thread goes on from where it is: never a wrong record.
 *
 * i386 programs run the same way: their blocks are decoded as
 * 32-bit code (each block knows its mode, so that a 64-bit process of the
 * same session never uses a 32-bit block), their branches are carried out
 * on 4-byte words, and int $0x80 (and sysenter, which comes back past the
 * int $0x80 after it in the vDSO) is the syscall: i386 numbers at the
 * syscall stops.  --skip applies to them too (skip.c reads their stacks
 * in 4-byte words).
 */
#include <errno.h>
#include <linux/audit.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "sources/ptrace-step/abi32.h"
#include "sources/ptrace-step/skip.h"
#include "sources/ptrace-step/step.h"

/*
 * struct syscall_info of <linux/ptrace.h>, which cannot be included
 * with <sys/ptrace.h>; its layout is the kernel ABI.
 */
struct syscall_info {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t stack_pointer;
	struct {
		uint64_t nr;
		uint64_t args[6];
		uint32_t ret_data;	/* seccomp stops only */
	} entry;
};
#define SC_INFO_ENTRY	1
#define SC_INFO_EXIT	2

/* Branches carried out back to back before the thread runs again. */
#define MAX_CHAIN 16

struct reader {
	struct bts_session *s;
	pid_t tid;
};

static ssize_t read_orig(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct reader *r = arg;

	/* Only executable bytes: a block never runs on into data. */
	return bts_read_code(r->s, r->tid, addr, buf,
			     bts_code_span(r->s, addr, len));
}

/* i386 syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define NR32_OLD_MMAP	90
#define NR32_MUNMAP	91
#define NR32_MREMAP	163
#define NR32_MMAP2	192
#define NR32_MADVISE	219

/*
 * Whether @t runs i386 code; a thread not yet in the table (@t->proc
 * NULL) is of the current process.
 */
static bool is32(const struct bts_session *s, const struct bts_thread *t)
{
	const struct bts_proc *p = t->proc ? t->proc : s->cur;

	return p && p->abi32;
}

/* A block never runs on into a skipped object: the thread stops first. */
static bool follow(void *arg, uint64_t to)
{
	struct reader *r = arg;

	return !bts_skip_addr(r->s, to);
}

/* The block at @pc, from the cache or decoded now. */
static void block_at(struct bts_session *s, struct bts_thread *t, uint64_t pc,
		     struct bts_block *out)
{
	const struct bts_block *b = bts_block_cache_get(bts_step_of(s)->bcache, pc);
	struct reader r = { s, t->tid };
	bool m32 = is32(s, t);

	if (b && b->br.mode32 == m32) {
		*out = *b;
		return;
	}
	bts_block_decode_mode(m32, read_orig, &r, pc,
			      bts_step_of(s)->skip ? follow : NULL, out);
	bts_block_cache_put(bts_step_of(s)->bcache, out);
}

void bts_fast_plant_block(struct bts_session *s, pid_t tid, uint64_t pc)
{
	struct bts_thread t = { .tid = tid };
	struct bts_block b;

	block_at(s, &t, pc, &b);
	if (b.site && !bts_skip_addr(s, b.site))
		bts_bp_plant(&s->bps, b.site);
}

/* Whether the code of the thread's block is still what was decoded. */
static bool intact(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);
	uint8_t buf[4096];
	uint64_t a, end, h = BTS_HASH_INIT;
	ssize_t n;
	int i;

	for (i = 0; i <= st->blk.nhops; i++) {
		a = bts_block_seg_start(&st->blk, i);
		end = bts_block_seg_end(&st->blk, i);
		while (a < end) {
			size_t want = end - a < sizeof(buf) ? end - a : sizeof(buf);

			n = bts_read_code(s, t->tid, a, buf, want);
			if (n != (ssize_t)want)
				return false;
			h = bts_code_hash(h, buf, want);
			a += want;
		}
	}
	return h == st->blk.hash;
}

/* Records of the direct jumps and calls the thread ran, up to hop @upto. */
static inline void flush_hops(struct bts_session *s, struct bts_thread *t,
			      int upto)
{
	struct bts_step_thread *st = bts_step_thr(t);
	const struct bts_block *b = &st->blk;
	int i;

	if (!st->fast)
		return;
	if (upto > b->nhops)
		upto = b->nhops;
	for (i = st->hops_done; i < upto; i++)
		bts_thread_emit(s, t, b->hops[i].from, b->hops[i].to,
				PTBTS_KIND_BRANCH);
	if (i > st->hops_done)
		st->hops_done = (uint8_t)i;
}

void bts_step_forget_code(struct bts_session *s)
{
	bts_block_cache_flush(bts_step_of(s)->bcache);
	bts_insn_cache_flush(bts_step_of(s)->icache);
}

/* What ran since the last record is not known: one marker for it. */
static void gap(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);

	if (!st->in_gap)
		bts_thread_emit(s, t, 0, PTBTS_GAP_UNKNOWN, PTBTS_KIND_GAP);
	st->in_gap = true;
	st->fast = false;
}

/*
 * Whether @pc is on the thread's way to its site; if so, the hops before
 * it ran and are recorded now, ahead of whatever this stop records.
 */
static bool in_block(struct bts_session *s, struct bts_thread *t, uint64_t pc)
{
	struct bts_step_thread *st = bts_step_thr(t);
	int seg = st->fast ? bts_block_segment(&st->blk, pc) : -1;

	if (seg < 0 || (seg == st->blk.nhops && pc > st->blk.site))
		return false;
	flush_hops(s, t, seg);
	return true;
}

void bts_fast_sync(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;

	if (st->fast && st->blk.nhops &&
	    ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0)
		in_block(s, t, regs.rip);
}

/* A thread in a skipped object (no block) stops at every syscall. */
static int resume_op(const struct bts_block *b, uint64_t pc)
{
	return !b->site || bts_block_sys_ahead(b, pc) ? PTRACE_SYSCALL
						       : PTRACE_CONT;
}

static void set_regs(struct bts_thread *t, const struct user_regs_struct *regs)
{
	ptrace(PTRACE_SETREGS, t->tid, 0, regs);
}

/* Single-steps the instruction at regs' pc for real, its int3 out meanwhile. */
static void step_real(struct bts_session *s, struct bts_thread *t,
		      const struct user_regs_struct *regs, bool fresh)
{
	struct bts_step_thread *st = bts_step_thr(t);

	if (bts_bp_lookup(&s->bps, regs->rip, NULL)) {
		bts_lift_hold_others(s, t);
		bts_bp_remove(&s->bps, regs->rip);
		st->lifted = regs->rip;
	}
	st->fast = false;
	st->resume_op = PTRACE_SINGLESTEP;
	bts_step_set_pending(s, t, regs, fresh);
}

void bts_fast_relift(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);

	if (!st->lifted)
		return;
	if (!s->bp_off)
		bts_bp_plant(&s->bps, st->lifted);
	st->lifted = 0;
}

/* Carries out the branch @br at regs' pc and records it. */
static int run_branch(struct bts_session *s, struct bts_thread *t,
		      const struct bts_branch *br, struct user_regs_struct *regs)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct r = *regs;
	uint64_t pc = regs->rip;
	bool taken;

	if (bts_branch_emulate(t->tid, pc, br, &r, &taken))
		return -1;
	*regs = r;
	if (taken) {
		bts_thread_emit(s, t, pc, r.rip, PTBTS_KIND_BRANCH);
		st->in_gap = false;
	}
	return 0;
}

/*
 * Every record up to regs' pc is written and the thread is stopped there:
 * sets it up to run to its next branch, or to single-step.  @may_run: the
 * thread is not inside a syscall, so a branch right at the pc may be
 * carried out now.  @dirty: regs differ from the thread's.
 */
void bts_fast_enter(struct bts_session *s, struct bts_thread *t,
		    struct user_regs_struct *regs, bool fresh, bool may_run,
		    bool dirty)
{
	struct bts_step_thread *st = bts_step_thr(t);
	bool retried = false;
	struct bts_block b;
	int chain = 0, r;

	/*
	 * The loaded table is the current memory's (session_fork.c) and
	 * keeps its /proc/PID/mem open: a followed child's blocks cost no
	 * more than the main process's.
	 */
	if (s->bps.pid != bts_mem_pid(s))
		bts_bp_set_pid(&s->bps, bts_mem_pid(s));
	for (;;) {
		if (bts_step_of(s)->skip && !bts_thread_nobp(t) &&
		    bts_skip_addr(s, regs->rip)) {
			bts_skip_enter(s, t, regs);
			break;
		}
		/* Lazy: only a vfork child steps, and plants nothing. */
		if (bts_step_of(s)->single || s->bp_off || bts_step_of(s)->lazy ||
		    bts_thread_nobp(t)) {
			b.site = 0;
		} else {
			block_at(s, t, regs->rip, &b);
		}
		if (b.site && b.site == regs->rip && may_run && chain < MAX_CHAIN &&
		    !bts_session_stop_at(s, t, regs->rip)) {
			/* A branch right here: no need to run to it. */
			if (run_branch(s, t, &b.br, regs)) {
				step_real(s, t, regs, fresh);
				break;
			}
			st->in_gap = false;
			dirty = true;
			chain++;
			continue;
		}
		r = b.site ? bts_bp_plant(&s->bps, b.site) : -1;
		if (r == -2 && !retried) {
			/*
			 * The code changed since it was decoded: say so, for a
			 * decoder holding only a later copy of it (a crash
			 * trace's) must not decode the runs before with it.
			 */
			bts_thread_emit(s, t, 0, PTBTS_GAP_CODE_CHANGED, PTBTS_KIND_GAP);
			bts_step_forget_code(s);
			retried = true;
			continue;
		}
		if (r) {
			st->fast = false;
			st->resume_op = PTRACE_SINGLESTEP;
			bts_step_set_pending(s, t, regs, fresh);
			break;
		}
		st->fast = true;
		st->blk = b;
		st->hops_done = 0;
		st->in_gap = false;
		st->has_pending = false;
		st->resume_op = resume_op(&b, regs->rip);
		break;
	}
	if (dirty)
		set_regs(t, regs);
}

/*
 * An int3 at one of the hops of the thread's block (planted as the site of
 * a block that could not run through it): the hops before it ran, and it
 * is carried out as the direct transfer it is.
 */
static bool hop_site(struct bts_session *s, struct bts_thread *t,
		     uint64_t site, struct bts_branch *br)
{
	struct bts_step_thread *st = bts_step_thr(t);
	uint8_t code[16];
	ssize_t n;
	int i;

	for (i = st->hops_done; st->fast && i < st->blk.nhops; i++) {
		if (st->blk.hops[i].from != site)
			continue;
		n = bts_read_code(s, t->tid, site, code, sizeof(code));
		if (n <= 0 || !intact(s, t) ||
		    bts_branch_decode_mode(is32(s, t), code, (size_t)n, site, br) ||
		    br->target != st->blk.hops[i].to)
			return false;
		flush_hops(s, t, i);
		st->hops_done = st->blk.nhops;	/* this one is recorded by run_branch */
		return true;
	}
	return false;
}

/*
 * Whether an int3 of ours was at @site when the thread trapped: planted
 * there now, or taken out after the trap (a fatal signal of another
 * thread takes them all out: bts_step_signal()).
 */
static bool our_int3(struct bts_session *s, struct bts_thread *t,
		     uint64_t site)
{
	uint8_t b;

	if (bts_bp_lookup(&s->bps, site, NULL))
		return true;
	return bts_bp_gone(&s->bps, site) &&
	       bts_read_code(NULL, t->tid, site, &b, 1) == 1 && b != BTS_INT3;
}

/* A SIGTRAP: is it the int3 of one of our sites?  Then it is dealt with. */
bool bts_fast_site(struct bts_session *s, struct bts_thread *t,
		   const siginfo_t *si)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct user_regs_struct regs;
	const struct bts_branch *br;
	struct bts_branch hop;
	struct bts_block b;
	uint64_t site;

	if (si->si_signo != SIGTRAP || si->si_code != SI_KERNEL)
		return false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs))
		return false;
	site = regs.rip - 1;
	if (!our_int3(s, t, site))
		return false;
	regs.rip = site;
	br = &st->blk.br;
	if (hop_site(s, t, site, &hop)) {
		/* A direct transfer another block stops at: carry it out here. */
		br = &hop;
	} else if (!st->fast || site != st->blk.site || !intact(s, t)) {
		if (st->fast && site == st->blk.site)
			bts_step_forget_code(s);	/* the bytes changed under us */
		gap(s, t);
		block_at(s, t, site, &b);
		if (b.site != site) {
			/* No branch here any more: run what is there now. */
			set_regs(t, &regs);
			step_real(s, t, &regs, false);
			return true;
		}
		br = &b.br;
	}
	flush_hops(s, t, st->blk.nhops);
	if (run_branch(s, t, br, &regs)) {
		set_regs(t, &regs);
		step_real(s, t, &regs, false);
		return true;
	}
	bts_fast_enter(s, t, &regs, false, true, true);
	return true;
}

/*
 * A signal-delivery-stop of a thread in branch-stop mode, at @regs: inside
 * its block nothing needs doing; anywhere else the way there is unknown.
 */
void bts_fast_signal(struct bts_session *s, struct bts_thread *t,
		     struct user_regs_struct *regs)
{
	if (in_block(s, t, regs->rip))
		return;
	gap(s, t);
	bts_fast_enter(s, t, regs, false, false, false);
}

static bool overlaps_code(struct bts_session *s, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < s->maps.n; i++)
		if (s->maps.maps[i].start < hi && lo < s->maps.maps[i].end)
			return true;
	return false;
}

/*
 * i386's old mmap takes its six arguments from memory: into @in, as
 * mmap's.  False when they cannot be read (the kernel fails it too).
 */
static bool old_mmap_args(pid_t tid, struct syscall_info *in)
{
	uint32_t a[6];
	struct iovec local = { a, sizeof(a) };
	struct iovec remote = { (void *)(uintptr_t)in->entry.args[0], sizeof(a) };

	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(a))
		return false;
	for (int i = 0; i < 6; i++)
		in->entry.args[i] = a[i];
	return true;
}

/*
 * The syscall as its 64-bit number: munmap, mremap, mmap (mmap2 and the
 * old mmap of i386, with their arguments where mmap's are), madvise; -1
 * for the others.
 */
static long unmap_nr(pid_t tid, struct syscall_info *in)
{
	if (in->arch == AUDIT_ARCH_X86_64)
		return (long)in->entry.nr;
	if (in->arch != AUDIT_ARCH_I386)
		return -1;
	switch (in->entry.nr) {
	case NR32_MUNMAP: return SYS_munmap;
	case NR32_MREMAP: return SYS_mremap;
	case NR32_MMAP2: return SYS_mmap;
	case NR32_OLD_MMAP: return old_mmap_args(tid, in) ? SYS_mmap : -1;
	case NR32_MADVISE: return SYS_madvise;
	default: return -1;
	}
}

/* Syscalls that may replace code: our int3s in the range go first. */
static void before_unmap(struct bts_session *s, pid_t tid,
			 struct syscall_info *in)
{
	long nr = unmap_nr(tid, in);
	uint64_t lo = in->entry.args[0], hi = lo + in->entry.args[1];

	switch (nr) {
	case SYS_munmap:
	case SYS_mremap:
		break;
	case SYS_mmap:
		if (!(in->entry.args[3] & MAP_FIXED))
			return;
		break;
	case SYS_madvise:
		if (in->entry.args[2] != MADV_DONTNEED &&
		    in->entry.args[2] != MADV_REMOVE &&
		    in->entry.args[2] != MADV_FREE)
			return;
		break;
	default:
		return;
	}
	if (hi <= lo)
		return;
	bts_bp_remove_range(&s->bps, lo, hi);
	if (overlaps_code(s, lo, hi))
		bts_step_forget_code(s);
}

/*
 * rt_sigreturn, or an i386 program's sigreturn or rt_sigreturn: each is
 * entered by a 2-byte instruction (syscall; int $0x80, which is what the
 * restorers use).
 */
static bool sigreturn_entry(const struct syscall_info *in)
{
	if (in->arch == AUDIT_ARCH_I386)
		return bts_abi32_sigreturn(in->entry.nr);
	return in->arch == AUDIT_ARCH_X86_64 && in->entry.nr == SYS_rt_sigreturn;
}

static void resync(struct bts_session *s, struct bts_thread *t)
{
	struct user_regs_struct regs;

	gap(s, t);
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0)
		bts_fast_enter(s, t, &regs, false, false, false);
}

/* A syscall-entry or -exit stop (PTRACE_O_TRACESYSGOOD). */
void bts_fast_syscall(struct bts_session *s, struct bts_thread *t)
{
	struct bts_step_thread *st = bts_step_thr(t);
	struct syscall_info in;
	struct user_regs_struct regs;
	uint64_t pc;

	bts_fast_relift(s, t);
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(in), &in) <= 0 ||
	    !st->fast)
		return;
	pc = in.instruction_pointer;
	if (in.op == SC_INFO_ENTRY) {
		if (sigreturn_entry(&in)) {
			in_block(s, t, pc);
			st->sigret_from = pc - 2;
			st->resume_op = PTRACE_SYSCALL;
			return;
		}
		before_unmap(s, t->tid, &in);
		if (!st->blk.site) {
			st->resume_op = PTRACE_SYSCALL;	/* in a skipped object */
			return;
		}
		if (!in_block(s, t, pc)) {
			resync(s, t);
			return;
		}
	} else if (in.op == SC_INFO_EXIT && st->sigret_from) {
		if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs))
			return;
		if (regs.rip != st->sigret_from + 2) {
			bts_thread_emit(s, t, st->sigret_from, regs.rip,
					PTBTS_KIND_SIGRETURN);
			st->in_gap = false;
		}
		st->sigret_from = 0;
		bts_fast_enter(s, t, &regs, false, false, false);
		return;
	}
	st->resume_op = resume_op(&st->blk, pc);
}
