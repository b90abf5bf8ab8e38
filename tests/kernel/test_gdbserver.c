// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace gdbserver in the guest, over kmod-step and ptrace-step: the
 * packets gdb 13.1 sends for `record btrace bts`, breakpoints, stepi and
 * continue (doc/gdb-remote.md), byte for byte, by a raw-protocol client
 * (no gdb in the guest), over static-gdbseq, whose every branch is known.
 * Both sources must give the exact same replies: the blocks of the
 * records since gdb's enable, with the branch into a breakpoint and every
 * stepped branch once, the module's trap flag never in eflags, the buffer
 * of gdb's size, E.Overflow. once a delta was overwritten, a pc written by
 * gdb as a gap; and no page stays pinned once gdb stops recording, the
 * thread exits, or gdb kills, detaches or goes.
 */
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "rsp_client.h"

#define PROG		"static-gdbseq"
#define PROG_THREADS	"static-gdbthreads"
#define REPLY_MS	60000	/* a TCG guest under load is slow */
#define KMOD		"kmod-step"
#define PTRACE		"ptrace-step"

/* ------------------------------------------------------------ labels */

struct label {
	char name[32];
	uint64_t addr;
};

static struct label labels[64];
static size_t nlabels;
static const char *labels_of;	/* the program they are of */

static void add_symtab(const char *img, size_t size, const Elf64_Shdr *sh,
		       const Elf64_Shdr *str)
{
	const Elf64_Sym *sym = (const void *)(img + sh->sh_offset);
	size_t i, n = sh->sh_size / sizeof(*sym);

	if (sh->sh_offset + sh->sh_size > size || str->sh_offset >= size)
		FAIL("a symbol table beyond the file");
	for (i = 0; i < n && nlabels < sizeof(labels) / sizeof(labels[0]); i++) {
		const char *name = img + str->sh_offset + sym[i].st_name;

		if (str->sh_offset + sym[i].st_name >= size ||
		    (strncmp(name, "gs_", 3) && strncmp(name, "gt_", 3) &&
		     strcmp(name, "_start")) ||
		    strlen(name) >= sizeof(labels[0].name))
			continue;
		snprintf(labels[nlabels].name, sizeof(labels[0].name), "%s", name);
		labels[nlabels++].addr = sym[i].st_value;
	}
}

/* The labels of @prog (no PIE: where they run). */
static void load_labels(const char *prog)
{
	char *path = PROG_PATH(prog), *img;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	FILE *f;
	long size;
	int i;

	if (labels_of && !strcmp(labels_of, prog)) {
		free(path);
		return;
	}
	labels_of = prog;
	nlabels = 0;
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET))
		FAIL("cannot read %s", path);
	img = malloc((size_t)size);
	if (!img || fread(img, 1, (size_t)size, f) != (size_t)size)
		FAIL("cannot read %s", path);
	fclose(f);
	eh = (const void *)img;
	if ((size_t)size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_type != ET_EXEC ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > (uint64_t)size)
		FAIL("%s: not a non-PIE ELF executable", path);
	sh = (const void *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_link < eh->e_shnum)
			add_symtab(img, (size_t)size, &sh[i], &sh[sh[i].sh_link]);
	free(img);
	free(path);
}

static uint64_t L(const char *name)
{
	size_t i;

	for (i = 0; i < nlabels; i++)
		if (!strcmp(labels[i].name, name))
			return labels[i].addr;
	FAIL("%s has no label %s", labels_of, name);
	return 0;
}

/* ------------------------------------------------------------ the stub */

struct stub {
	struct rsp_client rsp;	/* btrace gdbserver */
	pid_t tid;		/* the program's main thread */
	char doc[65536];	/* a qXfer document, all chunks */
};

/*
 * A stub a failed test left behind (FAIL ends the test where it is): its
 * session fd would keep the module loaded and its pages pinned.  The next
 * test here, or the end of the test binary, ends it.
 */
static pid_t left;

static void end_left(void)
{
	int status;

	if (left > 0) {
		kill(left, SIGKILL);
		waitpid(left, &status, 0);
	}
	left = 0;
}

__attribute__((destructor)) static void end_left_at_exit(void)
{
	end_left();
}

/* btrace gdbserver --source SOURCE -- PROG, or --attach PID when @pid. */
static void start_as(struct stub *s, const char *source, const char *prog,
		     pid_t pid)
{
	char *btrace = BTRACE_PATH(), *path = PROG_PATH(prog), spid[16];
	char *argv[] = { btrace, "gdbserver", "--source", (char *)source,
			 "--", path, NULL };

	end_left();
	if (pid) {
		snprintf(spid, sizeof(spid), "%d", (int)pid);
		argv[4] = "--attach";
		argv[5] = spid;
	} else {
		load_labels(prog);
	}
	memset(s, 0, sizeof(*s));
	rsp_start(&s->rsp, argv, REPLY_MS);
	left = s->rsp.pid;
	free(btrace);
	free(path);
}

static void start(struct stub *s, const char *source, const char *prog)
{
	start_as(s, source, prog, 0);
}

/* The packet printf(@fmt, ...) to the stub: its reply's payload. */
#define ask(s, ...)	rsp_ask(&(s)->rsp, __VA_ARGS__)

/* The stub's exit code once its input is closed. */
static int hang_up(struct stub *s)
{
	int code = rsp_hang_up(&s->rsp);

	left = 0;
	return code;
}

/* 8 bytes little-endian in hex, as a register in a stop reply. */
static const char *le64(uint64_t v, char out[17])
{
	int i;

	for (i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", (unsigned int)(v >> (8 * i)) & 0xff);
	return out;
}

/*
 * A stop reply for thread @tid at label @at: T05, swbreak: for a
 * breakpoint hit, the pc (register 0x10) and the thread.
 */
static void expect_stop_of(pid_t tid, const char *r, bool swbreak,
			   const char *at)
{
	char want[64], hex[17];

	if (strncmp(r, "T05", 3))
		FAIL("no SIGTRAP stop but \"%s\" (to %s)", r, at);
	EXPECT_EQ(!strncmp(r + 3, "swbreak:;", 9), swbreak);
	snprintf(want, sizeof(want), ";10:%s;", le64(L(at), hex));
	if (!strstr(r, want))
		FAIL("not stopped at %s: \"%s\"", at, r);
	snprintf(want, sizeof(want), "thread:%x;", (unsigned int)tid);
	EXPECT_TRUE(strstr(r, want) != NULL);
}

/* The same for the main thread. */
static void expect_stop(struct stub *s, const char *r, bool swbreak,
			const char *at)
{
	expect_stop_of(s->tid, r, swbreak, at);
}

/* qXfer:OBJECT:read:ANNEX, every chunk: the document, or the error reply. */
static const char *xfer(struct stub *s, const char *object, const char *annex)
{
	size_t n = 0;
	const char *r;

	for (;;) {
		r = ask(s, "qXfer:%s:read:%s:%zx,1000", object, annex, n);
		if (r[0] != 'm' && r[0] != 'l')
			return r;
		if (n + s->rsp.len >= sizeof(s->doc))
			FAIL("a document over %zu bytes", sizeof(s->doc));
		memcpy(s->doc + n, r + 1, s->rsp.len - 1);
		n += s->rsp.len - 1;
		s->doc[n] = '\0';
		if (r[0] == 'l')
			return s->doc;
	}
}

/* ------------------------------------------------------- the documents */

#define DOC_HEAD "<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n<btrace version=\"1.0\">\n"
#define DOC_TAIL "</btrace>\n"

struct doc {
	char s[32768];
	size_t n;
};

static void doc_start(struct doc *d)
{
	d->n = (size_t)snprintf(d->s, sizeof(d->s), "%s", DOC_HEAD);
}

/* A block from label @b (NULL: 0, a delta's oldest) to label @e. */
static void blk(struct doc *d, const char *b, const char *e)
{
	d->n += (size_t)snprintf(d->s + d->n, sizeof(d->s) - d->n,
				 "<block begin=\"0x%llx\" end=\"0x%llx\"/>\n",
				 (unsigned long long)(b ? L(b) : 0),
				 (unsigned long long)L(e));
	if (d->n >= sizeof(d->s))
		FAIL("expected document too long");
}

static const char *doc_end(struct doc *d)
{
	d->n += (size_t)snprintf(d->s + d->n, sizeof(d->s) - d->n, "%s", DOC_TAIL);
	return d->s;
}

static const char *conf_doc(unsigned int size)
{
	static char s[256];

	snprintf(s, sizeof(s), "<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
		 "<btrace-conf version=\"1.0\">\n<bts size=\"0x%x\" />\n"
		 "</btrace-conf>\n", size);
	return s;
}

/* ---------------------------------------------------------- gdb's steps */

/* Connects as gdb 13.1 does; the program stands at label @at (NULL: any). */
static void connect_at(struct stub *s, const char *at)
{
	const char *r;

	/* Without multiprocess+: the steps below use bare thread ids. */
	r = ask(s, "qSupported:swbreak+;hwbreak+;qRelocInsn+;"
		"fork-events+;vfork-events+;exec-events+;vContSupported+;"
		"QThreadEvents+;no-resumed+;memory-tagging+;xmlRegisters=i386");
	EXPECT_TRUE(strstr(r, "swbreak+;") != NULL);
	EXPECT_TRUE(strstr(r, "Qbtrace:bts+;Qbtrace-conf:bts:size+;Qbtrace:off+;"
			   "qXfer:btrace:read+;qXfer:btrace-conf:read+") != NULL);
	EXPECT_STREQ(ask(s, "vMustReplyEmpty"), "");
	EXPECT_STREQ(ask(s, "QStartNoAckMode"), "OK");
	s->rsp.noack = true;
	EXPECT_STREQ(ask(s, "Hg0"), "OK");
	r = ask(s, "?");
	if (strncmp(r, "T05", 3) || !strstr(r, "thread:") ||
	    sscanf(strstr(r, "thread:"), "thread:%x;", (unsigned int *)&s->tid) != 1)
		FAIL("first stop: \"%s\"", r);
	if (at)
		expect_stop(s, r, false, at);
	EXPECT_STREQ(xfer(s, "btrace-conf", ""), "E.Btrace not enabled.");
}

/* The program stands at _start. */
static void connect_gdb(struct stub *s)
{
	connect_at(s, "_start");
}

/* `break LABEL` + `continue`: gdb's int3 in, run, int3 out. */
static void run_to(struct stub *s, const char *label)
{
	EXPECT_STREQ(ask(s, "Z0,%llx,1", (unsigned long long)L(label)), "OK");
	expect_stop(s, ask(s, "vCont;c"), true, label);
	EXPECT_STREQ(ask(s, "z0,%llx,1", (unsigned long long)L(label)), "OK");
}

/* `stepi`: to @label. */
static void stepi(struct stub *s, const char *label)
{
	expect_stop(s, ask(s, "vCont;s:%x", (unsigned int)s->tid), false, label);
}

/* `record btrace bts` with `set record btrace bts buffer-size SIZE`. */
static void record(struct stub *s, unsigned int size)
{
	EXPECT_STREQ(ask(s, "Qbtrace-conf:bts:size=0x%x", size), "OK");
	EXPECT_STREQ(ask(s, "Qbtrace:bts"), "OK");
	EXPECT_STREQ(xfer(s, "btrace-conf", ""), conf_doc(size));
}

/* Pages the module holds for the program: kmod-step's buffer only. */
static long pages(const char *source, long kmod_pages)
{
	return strcmp(source, KMOD) ? 0 : kmod_pages;
}

/* eflags (at byte 136 of the 'g' block, 4 bytes) without the trap flag. */
static void expect_no_tf(struct stub *s)
{
	const char *r = ask(s, "g");
	unsigned int b1;

	if (strlen(r) < 2 * 140 || sscanf(r + 2 * 137, "%2x", &b1) != 1)
		FAIL("'g': \"%.80s\"", r);
	EXPECT_EQ(b1 & 1, 0u);	/* TF is bit 8: bit 0 of the second byte */
}

/*
 * The script: gdb's packets for breakpoints, stepi, continue and the
 * history reads, from the enable at gs_run to the exit.
 */
static void seq_script(const char *source)
{
	struct doc d;
	struct stub s;
	int i;

	start(&s, source, PROG);
	connect_gdb(&s);
	run_to(&s, "gs_run");
	record(&s, 0x10000);
	EXPECT_EQ(kt_pinned(), pages(source, 16));
	/* Nothing ran: one block that joins the enable pc. */
	doc_start(&d);
	blk(&d, NULL, "gs_run");
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), doc_end(&d));

	/* A breakpoint right behind a call: the call is there at the stop. */
	run_to(&s, "gs_leaf");
	expect_no_tf(&s);
	/* gdb writes a register (rdi: unused here): the module's flag stays. */
	EXPECT_STREQ(ask(&s, "P5=3412000000000000"), "OK");
	expect_no_tf(&s);
	doc_start(&d);
	blk(&d, "gs_leaf", "gs_leaf");
	blk(&d, NULL, "gs_call");
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), doc_end(&d));

	/* stepi over add, ret, dec, jnz: the ret and the jnz once each. */
	stepi(&s, "gs_leaf_ret");
	stepi(&s, "gs_after");
	expect_no_tf(&s);
	stepi(&s, "gs_jnz");
	stepi(&s, "gs_call");
	run_to(&s, "gs_leaf");
	doc_start(&d);
	blk(&d, "gs_leaf", "gs_leaf");
	blk(&d, "gs_call", "gs_call");
	blk(&d, "gs_after", "gs_jnz");
	blk(&d, NULL, "gs_leaf_ret");
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), doc_end(&d));
	doc_start(&d);
	blk(&d, "gs_leaf", "gs_leaf");
	blk(&d, "gs_call", "gs_call");
	blk(&d, "gs_after", "gs_jnz");
	blk(&d, "gs_leaf", "gs_leaf_ret");
	blk(&d, "gs_run", "gs_call");
	EXPECT_STREQ(xfer(&s, "btrace", "all"), doc_end(&d));
	EXPECT_STREQ(xfer(&s, "btrace", "new"), DOC_HEAD DOC_TAIL);

	/* `record stop` after a stepi: the module lets go of the thread. */
	stepi(&s, "gs_leaf_ret");
	EXPECT_STREQ(ask(&s, "Qbtrace:off"), "OK");
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), "E.Btrace not enabled.");
	/*
	 * ptrace took the module's trap flag for the program's own: a stepi
	 * now must not leave it set (the program would trap at once).
	 */
	stepi(&s, "gs_after");
	expect_no_tf(&s);

	/* Again with one page (170 records): the flood overwrites a delta. */
	record(&s, 0x1000);
	EXPECT_EQ(kt_pinned(), pages(source, 1));
	run_to(&s, "gs_end");
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), "E.Overflow.");
	/* What gdb reads then: the newest 170 records, all of the flood. */
	doc_start(&d);
	blk(&d, "gs_flood", "gs_end");
	for (i = 1; i < 170; i++)
		blk(&d, "gs_flood", "gs_flood_jnz");
	doc_end(&d);
	EXPECT_STREQ(xfer(&s, "btrace", "new"), d.s);
	EXPECT_STREQ(xfer(&s, "btrace", "all"), d.s);

	/* Recording to the exit: the thread's pages go with it. */
	EXPECT_STREQ(ask(&s, "vCont;c"), "W03");
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(hang_up(&s), 0);
}

TEST(gdbserver, kmod_step_gives_the_exact_blocks)
{
	seq_script(KMOD);
}

/* The same script over ptrace-step, in the same guest: the same replies. */
TEST(gdbserver, ptrace_step_gives_the_same_blocks)
{
	seq_script(PTRACE);
}

/*
 * gdb moves the pc (`jump`, `set $pc`): a jump the program did not make.
 * The history ends there (a gap: delta fails) and goes on from the new pc.
 */
static void pc_write(const char *source)
{
	struct doc d;
	struct stub s;
	char hex[17];

	start(&s, source, PROG);
	connect_gdb(&s);
	run_to(&s, "gs_leaf");
	record(&s, 0x10000);
	EXPECT_STREQ(ask(&s, "P10=%s", le64(L("gs_leaf_ret"), hex)), "OK");
	expect_no_tf(&s);
	stepi(&s, "gs_after");
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), "E.Overflow.");
	doc_start(&d);
	blk(&d, "gs_after", "gs_after");
	EXPECT_STREQ(xfer(&s, "btrace", "new"), doc_end(&d));
	EXPECT_EQ(kt_pinned(), pages(source, 16));
	/* The add skipped once: 2 instead of 3. */
	EXPECT_STREQ(ask(&s, "vCont;c"), "W02");
	EXPECT_EQ(hang_up(&s), 0);
}

TEST(gdbserver, kmod_step_pc_write_is_a_gap)
{
	pc_write(KMOD);
}

TEST(gdbserver, ptrace_step_pc_write_is_a_gap)
{
	pc_write(PTRACE);
}

/* Recording, then gdb kills, detaches or just goes: nothing stays pinned. */
TEST(gdbserver, kmod_step_kill_detach_disconnect_release)
{
	static const char *const ends[] = { "k", "D", NULL };
	struct stub s;
	size_t i;

	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		start(&s, KMOD, PROG);
		connect_gdb(&s);
		record(&s, 0x4000);
		stepi(&s, "gs_run");
		EXPECT_EQ(kt_pinned(), 4);
		if (ends[i] && !strcmp(ends[i], "k"))
			rsp_send(&s.rsp, "k");	/* no reply */
		else if (ends[i])
			EXPECT_STREQ(ask(&s, "%s", ends[i]), "OK");
		EXPECT_EQ(hang_up(&s), 0);
		EXPECT_EQ(kt_pinned(), 0);
	}
}

/*
 * Per thread: Qbtrace:bts records the thread gdb selected, in a buffer of
 * its own size; the other records nothing until enabled, and Qbtrace:off
 * lets go of one thread only.
 */
TEST(gdbserver, kmod_step_records_per_thread)
{
	struct doc d;
	struct stub s;
	pid_t child;
	const char *r;

	start(&s, KMOD, PROG_THREADS);
	connect_gdb(&s);
	EXPECT_STREQ(ask(&s, "Z0,%llx,1", (unsigned long long)L("gt_child_start")),
		     "OK");
	r = ask(&s, "vCont;c");
	if (!strstr(r, "thread:") ||
	    sscanf(strstr(r, "thread:"), "thread:%x;", (unsigned int *)&child) != 1)
		FAIL("no thread in \"%s\"", r);
	EXPECT_NE(child, s.tid);
	expect_stop_of(child, r, true, "gt_child_start");
	EXPECT_STREQ(ask(&s, "z0,%llx,1", (unsigned long long)L("gt_child_start")),
		     "OK");
	/* The stop's thread is gdb's: the new thread records, 2 pages. */
	record(&s, 0x2000);
	EXPECT_EQ(kt_pinned(), 2);
	EXPECT_STREQ(ask(&s, "Hg%x", (unsigned int)s.tid), "OK");
	EXPECT_STREQ(xfer(&s, "btrace-conf", ""), "E.Btrace not enabled.");
	record(&s, 0x1000);
	EXPECT_EQ(kt_pinned(), 3);

	EXPECT_STREQ(ask(&s, "Hg%x", (unsigned int)child), "OK");
	EXPECT_STREQ(ask(&s, "Z0,%llx,1", (unsigned long long)L("gt_child_bp")),
		     "OK");
	expect_stop_of(child, ask(&s, "vCont;c"), true, "gt_child_bp");
	EXPECT_STREQ(ask(&s, "Hg%x", (unsigned int)child), "OK");
	doc_start(&d);
	blk(&d, "gt_child_bp", "gt_child_bp");
	blk(&d, "gt_leaf", "gt_leaf_ret");
	blk(&d, NULL, "gt_child_start");
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), doc_end(&d));
	EXPECT_STREQ(xfer(&s, "btrace-conf", ""), conf_doc(0x2000));

	/* The main thread spun meanwhile: its own records, its own buffer. */
	EXPECT_STREQ(ask(&s, "Hg%x", (unsigned int)s.tid), "OK");
	r = xfer(&s, "btrace", "all");	/* a delta may have been overwritten */
	if (strncmp(r, DOC_HEAD "<block begin=\"0x", strlen(DOC_HEAD) + 16))
		FAIL("the main thread's trace: \"%.200s\"", r);
	EXPECT_STREQ(xfer(&s, "btrace-conf", ""), conf_doc(0x1000));
	EXPECT_STREQ(ask(&s, "Qbtrace:off"), "OK");
	EXPECT_EQ(kt_pinned(), 2);
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), "E.Btrace not enabled.");
	EXPECT_STREQ(ask(&s, "Hg%x", (unsigned int)child), "OK");
	doc_start(&d);
	blk(&d, NULL, "gt_child_bp");
	EXPECT_STREQ(xfer(&s, "btrace", "delta"), doc_end(&d));

	/* The thread exits (its pages go), then the process. */
	EXPECT_STREQ(ask(&s, "z0,%llx,1", (unsigned long long)L("gt_child_bp")),
		     "OK");
	EXPECT_STREQ(ask(&s, "vCont;c"), "W05");
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(hang_up(&s), 0);
}

/* The value of @field in /proc/@pid/status, or -1. */
static long proc_field(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * A running program: attached, recorded, interrupted by Ctrl-C (a
 * SIGINT stop of gdb's, the flag masked), stepped, detached: it runs on
 * untraced, with no trap flag left, and ends as it would have.
 */
TEST(gdbserver, kmod_step_attach_interrupt_detach)
{
	char *pidfile = harness_path(harness_tmpdir(), "loop.pid");
	char *prog = PROG_PATH("cli-loop");
	struct stub s;
	const char *r;
	int i, status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		execl(prog, prog, pidfile, (char *)NULL);
		_exit(127);
	}
	ASSERT_GT(pid, 0);
	for (i = 0; i < 1000 && access(pidfile, F_OK); i++)
		usleep(10000);
	ASSERT_EQ(access(pidfile, F_OK), 0);
	start_as(&s, KMOD, "cli-loop", pid);
	connect_at(&s, NULL);
	EXPECT_EQ(s.tid, pid);
	record(&s, 0x10000);
	EXPECT_EQ(kt_pinned(), 16);
	rsp_send(&s.rsp, "vCont;c");
	usleep(100000);
	rsp_put(&s.rsp, "\003", 1);
	r = rsp_reply(&s.rsp);
	EXPECT_TRUE(!strncmp(r, "T02", 3));
	expect_no_tf(&s);
	r = xfer(&s, "btrace", "delta");
	EXPECT_TRUE(!strncmp(r, DOC_HEAD, strlen(DOC_HEAD)));
	r = ask(&s, "vCont;s:%x", (unsigned int)s.tid);
	EXPECT_TRUE(!strncmp(r, "T05", 3));
	expect_no_tf(&s);
	EXPECT_STREQ(ask(&s, "D"), "OK");
	EXPECT_EQ(hang_up(&s), 0);
	EXPECT_EQ(kt_pinned(), 0);
	EXPECT_EQ(proc_field(pid, "TracerPid"), 0);
	/* Untraced, it still ends its own way at a SIGINT. */
	usleep(50000);
	kill(pid, SIGINT);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 42);
	free(pidfile);
	free(prog);
}
