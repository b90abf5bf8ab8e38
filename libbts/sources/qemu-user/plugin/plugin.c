// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loading into qemu-x86_64 or qemu-i386: the plugin arguments name the tracer's memfd
 * (fd=) and eventfd (evfd=), inherited across QEMU's exec.  The
 * directory is mapped before the guest runs; a plugin that cannot map it
 * refuses to load, and QEMU then ends before the program's first
 * instruction: a program never runs untraced.  Both descriptors move to
 * close-on-exec numbers out of the guest's usual way, so that the
 * program's own descriptors start where they would without us.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct ptbts_qu_dir *pq_dir;
int pq_memfd = -1, pq_evfd = -1;
uint32_t pq_mode;
uint64_t pq_budget;
bool pq_i386;

__thread struct pq_thread pq_me __attribute__((tls_model("initial-exec")));

static void forked_child(void);

/* Where QEMU's descriptors of ours go: above what programs use. */
#define PQ_FD_BASE 900

/* On stderr: qemu_plugin_outs() writes only with -d plugin. */
static int refuse(const char *why)
{
	fprintf(stderr, "ptbts-qemu: %s\n", why);
	if (pq_dir) {
		snprintf(pq_dir->why, sizeof(pq_dir->why), "%s", why);
		__atomic_store_n(&pq_dir->state, PTBTS_QU_FAILED, __ATOMIC_RELEASE);
	}
	return -1;
}

static int arg_fd(const char *arg, const char *name, int *out)
{
	size_t n = strlen(name);
	char *end;
	long v;

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	errno = 0;
	v = strtol(arg + n + 1, &end, 10);
	if (errno || *end || v < 0 || v > 65535)
		return -1;
	*out = (int)v;
	return 1;
}

static int parse(int argc, char **argv, int *memfd, int *evfd)
{
	int i, r;

	for (i = 0; i < argc; i++) {
		r = arg_fd(argv[i], "fd", memfd);
		if (!r)
			r = arg_fd(argv[i], "evfd", evfd);
		if (r <= 0)
			return -1;
	}
	return *memfd >= 0 && *evfd >= 0 ? 0 : -1;
}

static int move_fd(int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, PQ_FD_BASE);

	if (nfd < 0)
		return -1;
	close(fd);
	return nfd;
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	pq_free_blocks();
	pq_code_free();
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int memfd = -1, evfd = -1;
	void *p;

	if (parse(argc, argv, &memfd, &evfd))
		return refuse("usage: fd=MEMFD,evfd=EVENTFD (given by libbts)");
	p = mmap(NULL, PTBTS_QU_DIR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 memfd, 0);
	if (p == MAP_FAILED)
		return refuse("cannot map the tracer's pages");
	pq_dir = p;
	if (pq_dir->magic != PTBTS_QU_MAGIC || pq_dir->version != PTBTS_QU_VERSION)
		return refuse("the tracer's pages are of another version");
	pq_i386 = !strcmp(info->target_name, "i386");
	if ((!pq_i386 && strcmp(info->target_name, "x86_64")) ||
	    info->system_emulation)
		return refuse("records x86_64 and i386 user-mode guests only");
	pq_memfd = move_fd(memfd);
	pq_evfd = move_fd(evfd);
	if (pq_memfd < 0 || pq_evfd < 0)
		return refuse("cannot keep the tracer's descriptors");
	pq_mode = pq_dir->mode;
	pq_budget = pq_dir->budget;
	if (pthread_atfork(NULL, NULL, forked_child))
		return refuse("cannot watch forks");
	qemu_plugin_register_vcpu_tb_trans_cb(id, pq_tb_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, pq_syscall);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, pq_syscall_ret);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	__atomic_store_n(&pq_dir->state, PTBTS_QU_READY, __ATOMIC_RELEASE);
	return 0;
}

/* ------------------------------------------------------------ threads */

void pq_find_ring(struct pq_thread *me)
{
	uint32_t i, n = __atomic_load_n(&pq_dir->nentries, __ATOMIC_ACQUIRE);
	pid_t tid = (pid_t)syscall(SYS_gettid);
	const struct ptbts_qu_entry *e;
	void *p;

	me->ring = NULL;
	if (n > PTBTS_QU_MAX_ENTRIES)
		return;
	for (i = 0; i < n; i++) {
		e = &pq_dir->entries[i];
		if (e->tid == (uint32_t)tid && e->live)
			break;
	}
	if (i == n)
		return;		/* a thread the tracer does not follow */
	p = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_SHARED, pq_memfd,
		 (off_t)e->offset);
	if (p == MAP_FAILED)
		return;
	me->ring = p;
	me->recs = (struct ptbts_record *)((char *)p + PTBTS_QU_RING_HDR);
	me->nslots = me->ring->nslots;
	me->wakeup = me->ring->wakeup;
	me->count = 0;
	me->slot = 0;
}

/*
 * A forked child's copy of its parent's thread (the only thread of the
 * child) has a ring of its own, or none: looked up again, never the
 * parent's written to.
 */
static void forked_child(void)
{
	pq_me.looked = false;
	pq_me.ring = NULL;
	pq_me.cur = NULL;
}

const void *pq_g2h(uint64_t addr)
{
	return (const void *)(uintptr_t)(addr + pq_dir->guest_base);
}

/* ----------------------------------------------------------- handlers */

/* Signal handlers' entries: few, and rarely changed. */
#define PQ_MAX_HANDLERS 64
static uint64_t handlers[PQ_MAX_HANDLERS];
static unsigned int nhandlers;

bool pq_is_handler(uint64_t addr)
{
	unsigned int i, n = __atomic_load_n(&nhandlers, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < PQ_MAX_HANDLERS; i++)
		if (__atomic_load_n(&handlers[i], __ATOMIC_ACQUIRE) == addr)
			return true;
	return false;
}

void pq_add_handler(uint64_t addr)
{
	unsigned int n;

	/* SIG_DFL (0), SIG_IGN (1), and addresses seen already. */
	if (addr <= 1 || pq_is_handler(addr))
		return;
	n = __atomic_fetch_add(&nhandlers, 1, __ATOMIC_ACQ_REL);
	if (n < PQ_MAX_HANDLERS)
		__atomic_store_n(&handlers[n], addr, __ATOMIC_RELEASE);
}
