// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The qemu-user source, the session's side: the memfd of the rings and
 * the eventfd of the plugin's wakeups, both inherited by QEMU; QEMU's
 * command line; the operations.
 *
 * QEMU is the traced process: libbts sees its host threads, which are the
 * guest's threads, and also QEMU's own (its RCU thread, started before the
 * plugin is loaded): those get no ring and show no records.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "session/session.h"
#include "sources/qemu-user/qemu_user.h"
#include "sources/producer/records_out.h"

/* The eventfd said records are ready: read it, so that it polls no more. */
static void evfd_ready(int fd)
{
	uint64_t n;

	while (read(fd, &n, sizeof(n)) > 0)
		;
}

static int open_dir(struct bts_qemu *q, int mode)
{
	void *p;

	/* Inherited by QEMU: close-on-exec only once it has started. */
	q->memfd = memfd_create("ptbts-qemu-user", 0);
	if (q->memfd < 0)
		return bts_fail_errno(BTS_E_NOMEM, "memfd_create");
	if (ftruncate(q->memfd, PTBTS_QU_DIR_SIZE))
		return bts_fail_errno(BTS_E_NOMEM, "memfd of %u bytes",
				      PTBTS_QU_DIR_SIZE);
	p = mmap(NULL, PTBTS_QU_DIR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 q->memfd, 0);
	if (p == MAP_FAILED)
		return bts_fail_errno(BTS_E_NOMEM, "mapping the memfd");
	q->dir = p;
	q->end = PTBTS_QU_DIR_SIZE;
	q->dir->magic = PTBTS_QU_MAGIC;
	q->dir->version = PTBTS_QU_VERSION;
	q->dir->mode = (uint32_t)mode;
	q->evfd = eventfd(0, EFD_NONBLOCK);
	if (q->evfd < 0)
		return bts_fail_errno(BTS_E_NOMEM, "eventfd");
	return 0;
}

static void qemu_close(struct bts_session *s)
{
	struct bts_qemu *q = bts_qemu_of(s);

	if (!q)
		return;
	bts_ready_wait_end(&q->rw);
	if (q->dir)
		munmap(q->dir, PTBTS_QU_DIR_SIZE);
	if (q->memfd >= 0)
		close(q->memfd);
	if (q->evfd >= 0)
		close(q->evfd);
	if (q->argv)
		free(q->argv[4]);
	free(q->argv);
	bts_qemu_drop_regs(q);
	free(q->regs);
	free(q);
	s->src = NULL;
}

static int qemu_open(struct bts_session *s)
{
	struct bts_qemu *q = calloc(1, sizeof(*q));
	char why[320];
	int err;

	if (!q)
		return bts_fail(BTS_E_NOMEM, "qemu-user session");
	q->memfd = q->evfd = -1;
	s->src = q;
	if (!bts_qemu_find(q->qemu, q->plugin, sizeof(q->qemu), why, sizeof(why))) {
		qemu_close(s);
		return bts_fail(BTS_E_NOSOURCE, "qemu-user: %s", why);
	}
	err = open_dir(q, s->mode);
	if (err) {
		qemu_close(s);
		return err;
	}
	q->page = (size_t)sysconf(_SC_PAGESIZE);
	q->share = bts_memlock_share(q->page);
	bts_ready_wait_init(&q->rw, q->evfd, bts_qemu_drain);
	q->rw.ready = evfd_ready;
	/* No int3 is ever planted: vfork children need no running through. */
	s->bp_off = true;
	return 0;
}

/*
 * qemu-x86_64 runs x86-64 programs, qemu-i386 i386 ones: 1 for an i386
 * program, 0 for an x86-64 one; anything else is refused here.
 */
static int check_elf(const char *path)
{
	unsigned char id[EI_NIDENT + 4];
	Elf64_Half machine;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bts_fail_errno(BTS_E_NOEXEC, "%s", path);
	n = read(fd, id, sizeof(id));
	close(fd);
	if (n < (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		return bts_fail(BTS_E_NOEXEC, "%s: not an ELF program (qemu-user "
				"records ELF programs only)", path);
	/* e_machine lies at the same place in both classes. */
	memcpy(&machine, id + EI_NIDENT + 2, sizeof(machine));
	if (id[EI_CLASS] == ELFCLASS64 && machine == EM_X86_64)
		return 0;
	if (id[EI_CLASS] == ELFCLASS32 && machine == EM_386)
		return 1;
	return bts_fail(BTS_E_NOEXEC, "%s: neither an x86-64 nor an i386 program "
			"(qemu-user records those only)", path);
}

/* An i386 program runs under qemu-i386, which the session then names. */
static int pick_emulator(struct bts_session *s, const char *path)
{
	struct bts_qemu *q = bts_qemu_of(s);
	char why[320];
	int i386 = check_elf(path);

	if (i386 <= 0)
		return i386;
	if (!bts_qemu_find_emulator(true, q->qemu, sizeof(q->qemu), why,
				    sizeof(why)))
		return bts_fail(BTS_E_NOSOURCE, "qemu-user: %s", why);
	s->guest32 = true;
	return 0;
}

/*
 * qemu-x86_64 (or qemu-i386) -0 ARGV0 -plugin PLUGIN,fd=N,evfd=M PATH
 * ARGS...: QEMU
 * gives the guest @argv as it was, argv[0] included.
 */
static int qemu_command(struct bts_session *s, const char *path,
			char *const argv[], char *const **out)
{
	struct bts_qemu *q = bts_qemu_of(s);
	size_t n = 0, i;
	const char *base;
	char **a;
	int err = pick_emulator(s, path);

	if (err)
		return err;
	while (argv[n])
		n++;
	a = calloc(n + 7, sizeof(*a));
	s->guest_exe = strdup(path);
	base = strrchr(path, '/');
	snprintf(q->base, sizeof(q->base), "%s", base ? base + 1 : path);
	if (!a || !s->guest_exe ||
	    asprintf(&a[4], "%s,fd=%d,evfd=%d", q->plugin, q->memfd, q->evfd) < 0) {
		free(a);
		return bts_fail(BTS_E_NOMEM, "qemu-user command line");
	}
	a[0] = q->qemu;
	a[1] = "-0";
	a[2] = argv[0];
	a[3] = "-plugin";
	a[5] = (char *)path;
	for (i = 1; i < n; i++)
		a[5 + i] = argv[i];
	q->argv = a;
	*out = a;
	return 0;
}

static int qemu_pick(int want, int mode)
{
	(void)mode;
	/* auto keeps to the native sources: only asked for by name. */
	return want == PTBTS_SOURCE_QEMU_USER ? PTBTS_SOURCE_QEMU_USER : 0;
}

/* QEMU ended before its plugin was installed: it refused it. */
static void check_refused(struct bts_session *s)
{
	struct bts_qemu *q = bts_qemu_of(s);
	uint32_t state = __atomic_load_n(&q->dir->state, __ATOMIC_ACQUIRE);

	/* A cut kills QEMU wherever it is, maybe before it took the plugin. */
	if (state == PTBTS_QU_READY || q->told || s->cut)
		return;
	q->told = true;
	q->dir->why[sizeof(q->dir->why) - 1] = '\0';
	bts_note_err(s, bts_fail(BTS_E_NOSOURCE, "%s did not load the plugin %s%s%s",
				 q->qemu, q->plugin, state == PTBTS_QU_FAILED ? ": " : " (its message above)",
				 state == PTBTS_QU_FAILED ? q->dir->why : ""));
}

static void qemu_attach(struct bts_session *s, struct bts_thread *t)
{
	struct bts_qemu *q = bts_qemu_of(s);

	t->started = true;
	if (t->tid == s->pid) {
		/* QEMU has them: no other child of ours inherits them. */
		fcntl(q->memfd, F_SETFD, FD_CLOEXEC);
		fcntl(q->evfd, F_SETFD, FD_CLOEXEC);
		/*
		 * --max-size, before the plugin reads it: the plugin stops
		 * at the record past the bound, and wakes us in every mode.
		 */
		q->budget = s->max_records ? s->max_records + 1 : 0;
		q->dir->budget = q->budget;
		q->rw.any_mode = q->budget != 0;
		if (s->on_crash)
			bts_qemu_allow_core(s);
	}
	/*
	 * A process's first thread, or a thread started once the plugin
	 * was in: a guest's.  QEMU's own start before the plugin.
	 */
	if (t->tid == bts_thread_pid(s, t) ||
	    __atomic_load_n(&q->dir->state, __ATOMIC_ACQUIRE) == PTBTS_QU_READY)
		bts_qemu_give(s, t);
}

static void qemu_detach(struct bts_session *s, struct bts_thread *t)
{
	if (t->tid == s->pid)
		check_refused(s);
	bts_qemu_forget(s, t);
}

static void drain_final(struct bts_session *s, struct bts_thread *t)
{
	bts_qemu_drain(s, t, true);
}

/*
 * qemu-user runs an exec'd program on the host, natively: the old image's
 * records, an EXEC marker where the new one starts, and a DISABLED gap:
 * nothing of the new image is recorded.
 */
static void qemu_exec(struct bts_session *s, struct bts_thread *t)
{
	struct ptbts_record recs[2] = {
		{ .flags = PTBTS_MKKIND(PTBTS_KIND_EXEC) },
		{ .to = PTBTS_GAP_DISABLED, .flags = PTBTS_MKKIND(PTBTS_KIND_GAP) },
	};
	struct user_regs_struct regs;
	uint64_t entry;

	bts_qemu_drain(s, t, true);
	if (bts_qemu_thr(t) && !ptrace(PTRACE_GETREGS, t->tid, 0, &regs)) {
		recs[0].to = regs.rip;
		bts_src_write(s, t, recs, 2);
	}
	bts_qemu_forget(s, t);
	bts_proc_exec(s, t, &entry);
}

static pid_t qemu_wait(struct bts_session *s, int *status)
{
	return bts_ready_wait(s, &bts_qemu_of(s)->rw, status);
}

const struct bts_source_ops bts_qemu_user_ops = {
	.id = PTBTS_SOURCE_QEMU_USER,
	.caps = BTS_SRC_NOBP | BTS_SRC_GUEST,
	.pick = qemu_pick,
	.command = qemu_command,
	.map_code = bts_qemu_map_code,
	.open = qemu_open,
	.close = qemu_close,
	.attach = qemu_attach,
	.detach = qemu_detach,
	.exec = qemu_exec,
	.drain = drain_final,
	.wait = qemu_wait,
	.signal = bts_qemu_signal,
	.crash = bts_qemu_crash,
	.getregs = bts_qemu_getregs,
	.unwind = bts_qemu_unwind,
};
