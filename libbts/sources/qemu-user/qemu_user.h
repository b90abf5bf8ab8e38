/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The qemu-user source: the program runs under Debian's qemu-x86_64 (TCG,
 * user mode) with our plugin (plugin/), which writes the guest's taken
 * branches straight into rings of the tracer's memfd (qemu_abi.h).
 * libbts keeps the ptrace side as for every source: QEMU is the traced
 * process, its host threads the guest's threads.
 *
 * qemu_probe.c   where qemu-x86_64 and the plugin are; is the source here
 * qemu_source.c  the session's side: memfd, eventfd, QEMU's command line,
 *                the source's operations (bts_qemu_user_ops)
 * qemu_ring.c    one thread's ring: given, read, acknowledged, taken back
 * qemu_crash.c   a crash's registers, from the guest core QEMU writes
 * qemu_unwind32.c  an i386 guest's stacks, from that core (libdwfl)
 * qemu_maps.c    which of QEMU's mappings are the guest's code
 */
#ifndef BTS_QEMU_USER_H
#define BTS_QEMU_USER_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include <libelf.h>

#include "internal.h"
#include "sources/qemu-user/qemu_abi.h"
#include "sources/producer/ready_wait.h"

struct bts_session;
struct bts_thread;
struct bts_stop_event;

/*
 * A guest thread's registers, from the guest core (qemu_crash.c); an i386
 * guest's stack too, unwound from that core (qemu_unwind32.c).
 */
struct bts_qemu_regs {
	pid_t tid;
	struct user_regs_struct regs;	/* an i386 guest's zero-extended */
	bool unwound;			/* @frames and @why are the stack */
	struct bts_frame *frames;
	size_t nframes;
	char why[160];			/* why it stopped early, or "" */
};

/* A signal-delivery-stop of a thread of QEMU's. */
struct bts_qemu_sig {
	siginfo_t si;
	pid_t tid, pid;
};

/* The session's side. */
struct bts_qemu {
	int memfd;		/* the directory and every ring */
	int evfd;		/* the plugin's wakeups (BLOCK) */
	struct ptbts_qu_dir *dir;
	uint64_t end;		/* bytes of the memfd given out */
	uint64_t budget;	/* the directory's @budget, as given */
	size_t page;
	size_t share;		/* BLOCK: at most this much ring (0: any) */
	struct bts_ready_wait rw;	/* on @evfd */
	char qemu[PATH_MAX];
	char plugin[PATH_MAX];
	char **argv;		/* QEMU's command line */
	char base[NAME_MAX + 1];	/* the program's file name, in QEMU's core's */
	struct bts_qemu_regs *regs;	/* at a crash: the guest core's */
	size_t nregs;
	struct bts_qemu_sig last, prev;	/* the last two signal stops */
	bool told;		/* the plugin's refusal was reported */
	bool started;		/* the main thread's START chunk is written */
};

/* One thread's ring, mapped and locked. */
struct bts_qemu_thread {
	struct ptbts_qu_ring *ring;
	struct ptbts_record *recs;
	size_t size;		/* bytes mapped, header page included */
	uint64_t offset;	/* where in the memfd */
	uint64_t nslots;
	uint64_t tail;		/* records taken */
	uint64_t lost_told;	/* STOP: lost records written as a marker */
	uint32_t entry;		/* its directory entry */
	bool off;		/* exec'd: runs natively, recorded no more */
	/* A copy of code no file holds, being read (qemu_abi.h's CODE) */
	uint8_t *code;		/* NULL: none */
	uint64_t code_addr;
	uint32_t code_len, code_next;	/* bytes; the next BYTES index */
};

#define bts_qemu_of(s)	((struct bts_qemu *)(s)->src)
#define bts_qemu_thr(t)	((struct bts_qemu_thread *)(t)->src)

/* qemu_probe.c */
/*
 * qemu-i386 when @i386 (BTS_QEMU_I386, else the PATH's), qemu-x86_64
 * otherwise (BTS_QEMU, else the PATH's) into @out: true, or false with @why.
 */
bool bts_qemu_find_emulator(bool i386, char *out, size_t len, char *why,
			    size_t wlen);
/*
 * qemu-x86_64 (bts_qemu_find_emulator()) into @qemu and the plugin
 * (BTS_QEMU_PLUGIN, else beside the running program, else as installed,
 * ../lib/ptrace-bts/ from it) into @plugin: true, or false with @why.
 */
bool bts_qemu_find(char *qemu, char *plugin, size_t len, char *why,
		   size_t wlen);
void bts_qemu_probe(struct bts_source_info *si);

/* qemu_ring.c */
/* At a thread's first stop: its ring (an error is noted, never fatal). */
void bts_qemu_give(struct bts_session *s, struct bts_thread *t);
/*
 * The thread's records to the writer (bts_ready_drain_fn): @final, all it
 * holds; otherwise BLOCK mode only, acknowledged, or all it holds in any
 * mode once the plugin made the record past --max-size.  1 when it read
 * any.
 */
int bts_qemu_drain(struct bts_session *s, struct bts_thread *t, bool final);
/* The thread leaves: its ring unmapped, its entry dead. */
void bts_qemu_forget(struct bts_session *s, struct bts_thread *t);

/* qemu_crash.c: the guest core, for --on-crash. */
/* At the start: QEMU's soft RLIMIT_CORE raised to its hard limit. */
void bts_qemu_allow_core(struct bts_session *s);
/* A signal-delivery-stop: its siginfo kept; the signal, to deliver. */
int bts_qemu_signal(struct bts_session *s, struct bts_thread *t,
		    const struct bts_stop_event *ev);
/*
 * At the crash: the guest core read and deleted, *@si the guest's fault,
 * *@exe the guest's program; the guest thread that crashed.
 */
struct bts_thread *bts_qemu_crash(struct bts_session *s, struct bts_thread *t,
				  int sig, siginfo_t *si, const char **exe);
/* The guest's registers of @t, from its core: 0, or -ENODATA. */
int bts_qemu_getregs(struct bts_session *s, struct bts_thread *t,
		     struct user_regs_struct *r);
/* The guest's stack of @t (bts_source_ops.unwind). */
size_t bts_qemu_unwind(struct bts_session *s, struct bts_thread *t,
		       struct bts_frame *frames, size_t max, char *why,
		       size_t whylen);
/* The registers and stacks of a crash are gone. */
void bts_qemu_drop_regs(struct bts_qemu *q);

/* qemu_unwind32.c: every thread of @q->regs unwound from @core. */
void bts_qemu_unwind_core32(struct bts_qemu *q, Elf *core, const char *exe);

/* qemu_maps.c: whether QEMU's mapping is code of the guest's. */
bool bts_qemu_map_code(pid_t pid, const char *perms, const char *path,
		       uint64_t start, uint64_t end, uint64_t offset);

#endif /* BTS_QEMU_USER_H */
