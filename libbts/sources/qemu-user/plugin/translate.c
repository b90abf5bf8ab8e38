// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The records, as BTS writes them, from what QEMU lets a plugin see.
 *
 * Each translated block gets, at translation, what its last instruction
 * is (the project's classifier, arch/x86/branch/): a block that ends with
 * no branch (a page end, QEMU's size limit, a rep string instruction,
 * which QEMU re-enters per iteration, a syscall) falls through.  Every
 * instruction adds one to the block's counter (an inline add, no
 * callback), and the block's start calls tb_enter(): the block that runs
 * next says what the last one did.
 *
 *  - The last block ran to its end: a taken branch when the next block is
 *    not the fall-through (a jump to the next instruction is taken all
 *    the same; a conditional one to its own fall-through cannot be told
 *    apart and gives no record).
 *  - It stopped inside (fewer instructions counted than it holds): the
 *    instruction counted last faulted, and the next block is its
 *    signal's handler: SIGNAL {that instruction -> handler}.
 *  - rt_sigreturn: SIGRETURN {its syscall instruction -> resumed pc}.
 *  - A signal delivered between two blocks (QEMU delivers them there):
 *    after a syscall, from the instruction after it; after a block that
 *    ended with no branch, or whose fault the counter cannot show (its
 *    last instruction), from that instruction; after a direct jump or
 *    call, from its target.  After a conditional or indirect branch the
 *    interrupted pc is not known here: a GAP marker, never a guess.
 *
 * A block whose code no file holds (a JIT's) carries a copy of its bytes
 * (code.c), which the thread that runs it first puts into its ring.
 *
 * The counter is one per block, shared by the threads that run it: a
 * fault in a block that another thread runs at the same moment may be
 * missed (the SIGNAL record then names the block's last instruction).
 * QEMU's inline add is not atomic: two threads in one block at once can
 * lose counts.  So a block counted short is taken as stopped inside only
 * when a signal's handler runs next (no other block follows a fault that
 * the program survives); otherwise it ran to its end.
 */
#include <stdlib.h>

#include "branch/branch.h"
#include "plugin.h"

struct pq_block {
	struct pq_block *older;	/* the block translated before it */
	uint64_t pc;
	uint64_t count;		/* instructions started, all threads */
	uint64_t last;		/* its last instruction */
	uint64_t next;		/* the instruction after it */
	uint64_t target;	/* a relative branch's target */
	uint32_t n;
	uint8_t kind;		/* enum ptbts_br_kind of @last */
	bool changed;		/* @code differs from bytes copied before */
	uint8_t *code;		/* its bytes, when no file holds them, until
				 * the thread that runs it first takes them */
	uint64_t insn[];	/* each instruction's address */
};

/* The guest's code as QEMU maps it, once: the tracer reads maps there. */
static void note_base(struct qemu_plugin_insn *insn)
{
	static bool done;
	uintptr_t h = (uintptr_t)qemu_plugin_insn_haddr(insn);

	if (done || !h)
		return;
	done = true;
	__atomic_store_n(&pq_dir->guest_base,
			 (uint64_t)h - qemu_plugin_insn_vaddr(insn), __ATOMIC_RELEASE);
}

static void classify(struct pq_block *b, struct qemu_plugin_insn *insn)
{
	struct ptbts_insn ci;
	size_t len = qemu_plugin_insn_size(insn);

	b->last = qemu_plugin_insn_vaddr(insn);
	b->next = b->last + len;
	b->kind = PTBTS_BR_NONE;
	if (ptbts_branch_classify(qemu_plugin_insn_data(insn), (unsigned int)len,
				  !pq_i386, &ci))
		return;
	b->kind = ci.kind;
	if (ci.kind == PTBTS_BR_JCC || ci.kind == PTBTS_BR_LOOP ||
	    ci.kind == PTBTS_BR_JMP || ci.kind == PTBTS_BR_CALL)
		b->target = b->next + (uint64_t)(int64_t)ci.rel;
	/* i386 code's pc wraps at 4 GiB. */
	if (pq_i386)
		b->target = (uint32_t)b->target;
}

static void tb_enter(unsigned int vcpu, void *udata);

/*
 * Every block ever translated, newest first.  A thread may still point at
 * a block QEMU dropped, so blocks live as long as QEMU runs guest code:
 * until pq_free_blocks() at its exit.
 */
static struct pq_block *blocks;

static void keep_block(struct pq_block *b)
{
	b->older = __atomic_load_n(&blocks, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&blocks, &b->older, b, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/*
 * QEMU calls it after it stopped every vCPU and flushed the translated
 * code: no block runs again, and no thread enters one.
 */
void pq_free_blocks(void)
{
	struct pq_block *b = __atomic_exchange_n(&blocks, NULL, __ATOMIC_ACQUIRE);

	while (b) {
		struct pq_block *older = b->older;

		free(b->code);
		free(b);
		b = older;
	}
}

void pq_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct pq_block *b;

	(void)id;
	if (!n)
		return;
	b = calloc(1, sizeof(*b) + n * sizeof(b->insn[0]));
	if (!b)
		abort();
	keep_block(b);
	b->pc = qemu_plugin_tb_vaddr(tb);
	b->n = (uint32_t)n;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		b->insn[i] = qemu_plugin_insn_vaddr(insn);
		qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &b->count, 1);
		if (i == 0)
			note_base(insn);
		if (i == n - 1)
			classify(b, insn);
	}
	b->code = pq_code_copy(tb, b->pc, b->next - b->pc, &b->changed);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_enter, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void gap(struct pq_thread *me)
{
	pq_put(me, 0, PTBTS_GAP_UNKNOWN, PTBTS_KIND_GAP);
}

/* @p ran to its end (as far as its counter shows); @pc runs next. */
static void after_whole(struct pq_thread *me, const struct pq_block *p,
			uint64_t pc)
{
	switch (p->kind) {
	case PTBTS_BR_JMP:
	case PTBTS_BR_CALL:
		pq_put(me, p->last, p->target, PTBTS_KIND_BRANCH);
		if (pc != p->target)	/* a signal at the target */
			pq_put(me, p->target, pc, PTBTS_KIND_SIGNAL);
		return;
	case PTBTS_BR_JCC:
	case PTBTS_BR_LOOP:
		if (pc == p->target && pc != p->next)
			pq_put(me, p->last, pc, PTBTS_KIND_BRANCH);
		else if (pc != p->next)
			gap(me);
		return;
	case PTBTS_BR_RET:
	case PTBTS_BR_JMP_IND:
	case PTBTS_BR_CALL_IND:
	case PTBTS_BR_FAR:
		if (pq_is_handler(pc))
			gap(me);	/* a signal after it, or its fault */
		else
			pq_put(me, p->last, pc, PTBTS_KIND_BRANCH);
		return;
	case PTBTS_BR_SYSCALL:
		/* Restarted (the same pc) or returned: no branch. */
		if (pc != p->next && pc != p->last)
			pq_put(me, p->next, pc, PTBTS_KIND_SIGNAL);
		return;
	default:
		/* Falls through; a rep string instruction runs again. */
		if (pc != p->next && pc != p->last)
			pq_put(me, p->last, pc, PTBTS_KIND_SIGNAL);
		return;
	}
}

/*
 * @b's first run: the copy of its code, which no file holds, right after
 * the record into it; one thread takes it.
 */
static void put_copy(struct pq_thread *me, struct pq_block *b)
{
	uint8_t *code = __atomic_exchange_n(&b->code, NULL, __ATOMIC_ACQ_REL);

	if (!code)
		return;
	if (b->changed)
		pq_put(me, 0, PTBTS_GAP_CODE_CHANGED, PTBTS_KIND_GAP);
	pq_put_code(me, b->pc, code, b->next - b->pc);
	free(code);
}

static void tb_enter(unsigned int vcpu, void *udata)
{
	const struct pq_block *b = udata, *p;
	struct pq_thread *me = pq_self();
	uint64_t ran, at;

	(void)vcpu;
	if (!me->ring)
		return;
	p = me->cur;
	if (!p && !me->ring->start_pc)
		__atomic_store_n(&me->ring->start_pc, b->pc, __ATOMIC_RELEASE);
	if (me->sigret) {
		me->sigret = false;
		pq_put(me, me->sigret_from, b->pc, PTBTS_KIND_SIGRETURN);
	} else if (p) {
		ran = p->count - me->cur_base;
		/* Only a signal's handler follows a block left early. */
		if (ran >= p->n || !pq_is_handler(b->pc)) {
			after_whole(me, p, b->pc);
		} else if (ran) {
			/* Stopped at instruction ran - 1: it faulted. */
			at = p->insn[ran - 1];
			if (b->pc != at && (ran == p->n || b->pc != p->insn[ran]))
				pq_put(me, at, b->pc, PTBTS_KIND_SIGNAL);
		} else if (b->pc != p->pc) {
			/* Left before its first instruction: a signal there. */
			pq_put(me, p->pc, b->pc, PTBTS_KIND_SIGNAL);
		}
	}
	if (__atomic_load_n(&b->code, __ATOMIC_RELAXED))
		put_copy(me, (struct pq_block *)b);
	me->cur = b;
	me->cur_base = __atomic_load_n(&((struct pq_block *)b)->count,
				       __ATOMIC_RELAXED);
}

/* The syscalls the records depend on, by their numbers in each ABI. */
#define NR_MMAP			9
#define NR_MPROTECT		10
#define NR_MUNMAP		11
#define NR_RT_SIGACTION		13
#define NR_RT_SIGRETURN		15
#define NR_MREMAP		25
#define NR32_MMAP		90
#define NR32_MUNMAP		91
#define NR32_MPROTECT		125
#define NR32_MREMAP		163
#define NR32_MMAP2		192
#define NR32_SIGACTION		67
#define NR32_SIGRETURN		119
#define NR32_RT_SIGRETURN	173
#define NR32_RT_SIGACTION	174

/* The handler a sigaction call installs: the first field of its struct. */
static void note_sigaction(int64_t num, uint64_t act)
{
	if (!act)
		return;
	if (!pq_i386 && num == NR_RT_SIGACTION)
		pq_add_handler(*(const uint64_t *)pq_g2h(act));
	else if (pq_i386 && (num == NR32_SIGACTION || num == NR32_RT_SIGACTION))
		pq_add_handler(*(const uint32_t *)pq_g2h(act));
}

static bool is_sigreturn(int64_t num)
{
	if (pq_i386)
		return num == NR32_SIGRETURN || num == NR32_RT_SIGRETURN;
	return num == NR_RT_SIGRETURN;
}

void pq_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
		uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	struct pq_thread *me;

	(void)id, (void)vcpu, (void)a1, (void)a3, (void)a4;
	(void)a5, (void)a6, (void)a7, (void)a8;
	note_sigaction(num, a2);
	if (!is_sigreturn(num))
		return;
	me = pq_self();
	if (me->ring && me->cur) {
		me->sigret = true;
		me->sigret_from = me->cur->last;
		me->cur = NULL;
	}
}

static bool maps_memory(int64_t num)
{
	if (pq_i386)
		return num == NR32_MMAP || num == NR32_MUNMAP || num == NR32_MPROTECT ||
		       num == NR32_MREMAP || num == NR32_MMAP2;
	return num == NR_MMAP || num == NR_MPROTECT || num == NR_MUNMAP ||
	       num == NR_MREMAP;
}

/* After the call: which of QEMU's mappings have files may have changed. */
void pq_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
		    int64_t ret)
{
	(void)id, (void)vcpu, (void)ret;
	if (maps_memory(num))
		pq_code_maps_changed();
}
