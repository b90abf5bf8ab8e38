// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The qemu-user source's crash traces (--on-crash).  A guest that dies of
 * a signal dies inside QEMU: QEMU takes the host's fault in a handler of
 * its own, writes the guest's core dump when RLIMIT_CORE allows
 * (qemu_PROG_DATE-TIME_PID.core, in the guest's working directory), then
 * kills itself with the signal, which the session sees as the crash.
 *
 * The guest's registers come from that core (NT_PRSTATUS, one a thread):
 * QEMU 7.2's plugin API has no way to read them, and ptrace shows QEMU's.
 * An x86-64 guest's stack is unwound from them through ptrace (the
 * guest's addresses are QEMU's); an i386 guest's from the core itself
 * (qemu_unwind32.c), as libunwind here unwinds x86-64 stacks only.
 * btrace raises QEMU's soft RLIMIT_CORE to its hard limit at the start,
 * reads the core at the crash and deletes it: no core file is left.  A
 * program that lowered its own limit gets a crash trace without registers
 * and stacks.  The siginfo is the fault's that QEMU took on the host (its
 * address is the guest's, the guest base taken off), not that of QEMU's
 * kill of itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/resource.h>
#include <unistd.h>

#include "crash/crash.h"
#include "session/session.h"
#include "sources/qemu-user/qemu_user.h"

void bts_qemu_allow_core(struct bts_session *s)
{
	struct rlimit rl;

	if (prlimit(s->pid, RLIMIT_CORE, NULL, &rl) || rl.rlim_cur == rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	prlimit(s->pid, RLIMIT_CORE, &rl, NULL);
}

int bts_qemu_signal(struct bts_session *s, struct bts_thread *t,
		    const struct bts_stop_event *ev)
{
	struct bts_qemu *q = bts_qemu_of(s);

	q->prev = q->last;
	q->last.si = ev->si;
	q->last.tid = t->tid;
	q->last.pid = bts_thread_pid(s, t);
	return ev->sig;
}

static struct bts_qemu_regs *new_regs(struct bts_qemu *q, pid_t tid)
{
	struct bts_qemu_regs *r = realloc(q->regs, (q->nregs + 1) * sizeof(*r));

	if (!r)
		return NULL;
	q->regs = r;
	r += q->nregs++;
	memset(r, 0, sizeof(*r));
	r->tid = tid;
	return r;
}

static void keep_regs(struct bts_qemu *q, const void *desc, size_t len)
{
	struct bts_qemu_regs *r;
	struct elf_prstatus st;

	_Static_assert(sizeof(st.pr_reg) == sizeof(r->regs), "gregset size");
	if (len < sizeof(st))
		return;
	/* Notes are 4-byte aligned: copied out, not cast. */
	memcpy(&st, desc, sizeof(st));
	r = new_regs(q, st.pr_pid);
	if (r)
		memcpy(&r->regs, st.pr_reg, sizeof(r->regs));
}

/*
 * i386's struct elf_prstatus: pr_pid at byte 24, then pr_reg (ebx, ecx,
 * edx, esi, edi, ebp, eax, ds, es, fs, gs, orig_eax, eip, cs, eflags,
 * esp, ss) at byte 72; 144 bytes.  The registers go zero-extended into
 * the x86-64 layout, as PTRACE_GETREGS shows a 32-bit process's.
 */
enum { PR32_PID = 24, PR32_REG = 72, PR32_SIZE = 144 };

static void keep_regs32(struct bts_qemu *q, const unsigned char *desc,
			size_t len)
{
	struct bts_qemu_regs *r;
	uint32_t v[17];
	int32_t pid;

	if (len < PR32_SIZE)
		return;
	memcpy(&pid, desc + PR32_PID, sizeof(pid));
	memcpy(v, desc + PR32_REG, sizeof(v));
	r = new_regs(q, pid);
	if (!r)
		return;
	r->regs = (struct user_regs_struct){
		.rbx = v[0], .rcx = v[1], .rdx = v[2], .rsi = v[3], .rdi = v[4],
		.rbp = v[5], .rax = v[6], .ds = v[7], .es = v[8], .fs = v[9],
		.gs = v[10], .orig_rax = (unsigned long long)(int64_t)(int32_t)v[11],
		.rip = v[12], .cs = v[13], .eflags = v[14], .rsp = v[15],
		.ss = v[16],
	};
}

/*
 * Every thread's NT_PRSTATUS of the core (an x86-64 ELF core file, or an
 * i386 one, whose stacks are unwound while it is open).
 */
static void read_core(struct bts_session *s, struct bts_qemu *q, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t i, nph, off, name, desc;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Nhdr nh;
	bool i386;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &nph))
		goto out;
	i386 = eh.e_ident[EI_CLASS] == ELFCLASS32 && eh.e_machine == EM_386;
	if (!i386 && (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64))
		goto out;
	for (i = 0; i < nph; i++) {
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		for (off = 0; d && (off = gelf_getnote(d, off, &nh, &name, &desc)) > 0; ) {
			const unsigned char *p = (const unsigned char *)d->d_buf + desc;

			if (nh.n_type != NT_PRSTATUS)
				continue;
			if (i386)
				keep_regs32(q, p, nh.n_descsz);
			else
				keep_regs(q, p, nh.n_descsz);
		}
	}
	if (i386 && q->nregs)
		bts_qemu_unwind_core32(q, elf, s->guest_exe);
out:
	if (elf)
		elf_end(elf);
}

/* qemu_BASE_DATE-TIME_PID.core */
static bool core_name(const char *name, const char *base, pid_t pid)
{
	char tail[32];
	size_t n = strlen(base), len = strlen(name), tl;

	tl = (size_t)snprintf(tail, sizeof(tail), "_%d.core", (int)pid);
	return !strncmp(name, "qemu_", 5) && !strncmp(name + 5, base, n) &&
	       name[5 + n] == '_' && len > 5 + n + tl &&
	       !strcmp(name + len - tl, tail);
}

/* The guest core of @pid in its working directory: read, then deleted. */
static void take_core(struct bts_session *s, pid_t pid)
{
	struct bts_qemu *q = bts_qemu_of(s);
	char dir[64];
	struct dirent *e;
	int dfd, fd;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/cwd", (int)pid);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	elf_version(EV_CURRENT);
	while ((e = readdir(d))) {
		if (!core_name(e->d_name, q->base, pid))
			continue;
		fd = openat(dfd, e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			read_core(s, q, fd);
			close(fd);
		}
		unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

/*
 * The guest thread whose signal killed QEMU: the one QEMU's core names
 * first, else the one that took the fault (QEMU's kill of itself may go
 * to any of its threads).
 */
static struct bts_thread *crashed(struct bts_session *s, struct bts_thread *t,
				  bool fault)
{
	struct bts_qemu *q = bts_qemu_of(s);
	struct bts_thread *u = NULL;

	if (q->nregs)
		u = bts_thread_find(s, q->regs[0].tid);
	else if (fault)
		u = bts_thread_find(s, q->prev.tid);
	return u && u->proc == t->proc ? u : t;
}

struct bts_thread *bts_qemu_crash(struct bts_session *s, struct bts_thread *t,
				  int sig, siginfo_t *si, const char **exe)
{
	struct bts_qemu *q = bts_qemu_of(s);
	pid_t pid = bts_thread_pid(s, t);
	bool fault = false;
	struct rlimit rl;

	bts_qemu_drop_regs(q);
	take_core(s, pid);
	/* QEMU's own core, should the signal dump one: never. */
	if (!prlimit(pid, RLIMIT_CORE, NULL, &rl)) {
		rl.rlim_cur = 0;
		prlimit(pid, RLIMIT_CORE, &rl, NULL);
	}
	/*
	 * QEMU's kill of itself, right after the host fault it took for the
	 * guest (a guest's own kill is a kill of QEMU's too: then the signal
	 * before is that kill, and the siginfo stays as it is).
	 */
	if (si->si_code == SI_USER && si->si_pid == pid && q->prev.pid == pid &&
	    q->prev.si.si_signo == sig && q->prev.si.si_code > 0) {
		*si = q->prev.si;
		/* The plugin's guest base: none read yet in RING mode. */
		if (sig == SIGSEGV || sig == SIGBUS)
			si->si_addr = (char *)si->si_addr -
				__atomic_load_n(&q->dir->guest_base, __ATOMIC_ACQUIRE);
		fault = true;
	}
	t = crashed(s, t, fault);
	/* Still QEMU's guest (no exec since): the guest's program. */
	if (bts_qemu_thr(t) && !bts_qemu_thr(t)->off && s->guest_exe)
		*exe = s->guest_exe;
	return t;
}

static const struct bts_qemu_regs *regs_of(struct bts_qemu *q, pid_t tid)
{
	for (size_t i = 0; i < q->nregs; i++)
		if (q->regs[i].tid == tid)
			return &q->regs[i];
	return NULL;
}

int bts_qemu_getregs(struct bts_session *s, struct bts_thread *t,
		     struct user_regs_struct *r)
{
	const struct bts_qemu_regs *g = regs_of(bts_qemu_of(s), t->tid);

	if (!g)
		return -ENODATA;
	*r = g->regs;
	return 0;
}

size_t bts_qemu_unwind(struct bts_session *s, struct bts_thread *t,
		       struct bts_frame *frames, size_t max, char *why,
		       size_t whylen)
{
	const struct bts_qemu_regs *r = regs_of(bts_qemu_of(s), t->tid);
	size_t n;

	why[0] = '\0';
	if (!r) {
		/* ptrace shows the emulator's registers, not its guest's */
		snprintf(why, whylen, "the emulator gave no registers of this thread");
		return 0;
	}
	if (!r->unwound)
		return bts_unwind_regs(t->tid, &r->regs, frames, max, why, whylen);
	n = r->nframes < max ? r->nframes : max;
	if (n)
		memcpy(frames, r->frames, n * sizeof(*frames));
	snprintf(why, whylen, "%s", r->why);
	return n;
}

void bts_qemu_drop_regs(struct bts_qemu *q)
{
	for (size_t i = 0; i < q->nregs; i++)
		free(q->regs[i].frames);
	q->nregs = 0;
}
