/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu-user source's plugin, loaded into qemu-x86_64 or qemu-i386 by libbts
 * (sources/qemu-user/): it writes the guest's taken branches, as BTS
 * would, into the tracer's pages (../qemu_abi.h).  GPL-2.0-or-later, as
 * it includes QEMU's qemu-plugin.h (Debian's QEMU source package,
 * scripts/qemu-source; never committed).
 *
 * plugin.c     loading: the arguments, the tracer's directory, each
 *              thread's ring
 * translate.c  each block at translation, and what each block's start
 *              says about the one before it: the records
 * produce.c    a record into the thread's ring (RING, STOP, BLOCK)
 * code.c       copies of guest code no file holds (a JIT's)
 */
#ifndef PTBTS_QEMU_PLUGIN_H
#define PTBTS_QEMU_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <qemu-plugin.h>
#include <linux/ptrace_bts.h>

#include "sources/qemu-user/qemu_abi.h"

struct pq_block;

/* One guest thread (a host thread of QEMU's), thread-local. */
struct pq_thread {
	bool looked;		/* its ring was looked for */
	struct ptbts_qu_ring *ring;	/* NULL: nothing recorded */
	struct ptbts_record *recs;
	uint64_t nslots, count, wakeup;
	uint64_t slot;			/* count % nslots, kept: no division */

	const struct pq_block *cur;	/* the block entered last */
	uint64_t cur_base;		/* its counter then */
	bool sigret;			/* in rt_sigreturn from @sigret_from */
	uint64_t sigret_from;
};

/* plugin.c */
extern struct ptbts_qu_dir *pq_dir;
extern int pq_memfd, pq_evfd;
extern uint32_t pq_mode;
extern uint64_t pq_budget;	/* the directory's @budget, read once */
extern bool pq_i386;		/* in qemu-i386: the guest runs i386 code */
/*
 * The calling thread's state.  Read per block: initial-exec, not a call
 * of __tls_get_addr each time (glibc keeps room in the static TLS for a
 * small dlopen'ed object's).
 */
extern __thread struct pq_thread pq_me __attribute__((tls_model("initial-exec")));
void pq_find_ring(struct pq_thread *me);

/* The calling thread's state, its ring looked up on first use. */
static inline struct pq_thread *pq_self(void)
{
	struct pq_thread *me = &pq_me;

	if (__builtin_expect(!me->looked, 0)) {
		me->looked = true;
		pq_find_ring(me);
	}
	return me;
}
/* A guest address as QEMU's own memory (qemu-user: guest_base added). */
const void *pq_g2h(uint64_t addr);
/* @addr is the entry of a handler the guest installed (rt_sigaction). */
bool pq_is_handler(uint64_t addr);
void pq_add_handler(uint64_t addr);

/* translate.c */
void pq_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void pq_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
		uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);
void pq_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
		    int64_t ret);
/* The blocks' data, at QEMU's exit. */
void pq_free_blocks(void);

/* produce.c: one record into @me's ring, by its mode. */
void pq_put_flags(struct pq_thread *me, uint64_t from, uint64_t to,
		  uint64_t flags);

static inline void pq_put(struct pq_thread *me, uint64_t from, uint64_t to,
			  int kind)
{
	pq_put_flags(me, from, to, PTBTS_MKKIND(kind));
}

/*
 * code.c: guest code that no file holds (a JIT's), copied for the
 * tracer.  The copy of block @b's bytes when its code lies in memory
 * without a file, else NULL; *@changed when they differ from bytes
 * copied before at the same addresses.  Called at translation only
 * (QEMU translates under its lock).
 */
uint8_t *pq_code_copy(struct qemu_plugin_tb *tb, uint64_t pc, size_t len,
		      bool *changed);
/* A guest mmap, munmap, mprotect or mremap: the memory's files changed. */
void pq_code_maps_changed(void);
void pq_code_free(void);
/* The copy into @me's ring (PTBTS_QU_KIND_CODE, BYTES). */
void pq_put_code(struct pq_thread *me, uint64_t pc, const uint8_t *code,
		 size_t len);

#endif /* PTBTS_QEMU_PLUGIN_H */
