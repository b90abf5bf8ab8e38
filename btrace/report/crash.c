// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What died and why: the signal, what siginfo says of it, and the
 * instruction the crashing thread stood at, with its source line.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "../btrace.h"
#include "report.h"

struct code_name {
	int signo;		/* 0: any signal */
	int code;
	const char *name;
};

static const struct code_name code_names[] = {
	{ SIGSEGV, SEGV_MAPERR, "SEGV_MAPERR" }, { SIGSEGV, SEGV_ACCERR, "SEGV_ACCERR" },
	{ SIGBUS, BUS_ADRALN, "BUS_ADRALN" }, { SIGBUS, BUS_ADRERR, "BUS_ADRERR" },
	{ SIGBUS, BUS_OBJERR, "BUS_OBJERR" },
	{ SIGILL, ILL_ILLOPC, "ILL_ILLOPC" }, { SIGILL, ILL_ILLOPN, "ILL_ILLOPN" },
	{ SIGILL, ILL_PRVOPC, "ILL_PRVOPC" },
	{ SIGFPE, FPE_INTDIV, "FPE_INTDIV" }, { SIGFPE, FPE_INTOVF, "FPE_INTOVF" },
	{ SIGFPE, FPE_FLTDIV, "FPE_FLTDIV" },
	{ SIGTRAP, TRAP_BRKPT, "TRAP_BRKPT" }, { SIGTRAP, TRAP_TRACE, "TRAP_TRACE" },
	{ 0, SI_USER, "SI_USER" }, { 0, SI_TKILL, "SI_TKILL" },
	{ 0, SI_QUEUE, "SI_QUEUE" }, { 0, SI_KERNEL, "SI_KERNEL" },
};

static const char *code_name(int signo, int code)
{
	for (size_t i = 0; i < sizeof(code_names) / sizeof(code_names[0]); i++)
		if ((!code_names[i].signo || code_names[i].signo == signo) &&
		    code_names[i].code == code)
			return code_names[i].name;
	return NULL;
}

/* Signals whose si_addr is a faulting address. */
static bool has_addr(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGILL ||
	       signo == SIGFPE || signo == SIGTRAP;
}

static bool sent(int code)
{
	return code == SI_USER || code == SI_TKILL || code == SI_QUEUE;
}

static const char *exe_of(const struct replay *r, pid_t pid)
{
	for (size_t i = 0; i < bts_trace_nprocesses(r->trace); i++)
		if (bts_trace_process(r->trace, i)->pid == pid)
			return bts_trace_process(r->trace, i)->exe;
	return NULL;
}

/* The crashing thread's instruction at the crash, as dump --insns --source. */
static void fault_insn(struct replay *r, bool json)
{
	struct replay_thread *th = replay_current(r);
	struct bts_insn_entry e;

	replay_history_entry(&th->h, th->stop.pos ? th->stop.pos : th->h.n, &e);
	r->o.source = true;
	r->o.json = json;
	dump_insn_line(&r->dump, th->tid, replay_sym(r), &e, false);
	r->o.source = false;
	r->o.json = false;
}

static void crash_text(struct replay *r, const struct bts_crash_info *c)
{
	const char *exe = exe_of(r, c->pid), *code = code_name(c->signo, c->code);

	printf("Process %d (%s) was killed by signal SIG%s (%s)", (int)c->pid,
	       exe ? shown(exe) : "?", sigabbrev_np(c->signo) ?: "?",
	       sigdescr_np(c->signo) ?: "unknown signal");
	if (code)
		printf(", %s", code);
	else
		printf(", code %d", c->code);
	if (has_addr(c->signo) && !sent(c->code))
		printf(", fault address 0x%" PRIx64, c->addr);
	if (sent(c->code))
		printf(", sent by process %d (uid %u)", (int)c->sender_pid,
		       c->sender_uid);
	printf(".\nThread %d crashed here:\n", (int)c->tid);
	if (replay_select(r, r->cur) == 0)
		fault_insn(r, false);
}

static void crash_json(struct replay *r, const struct bts_crash_info *c)
{
	const char *code = code_name(c->signo, c->code);

	printf("\"crash\":{\"pid\":%d,\"tid\":%d,\"exe\":", (int)c->pid, (int)c->tid);
	json_str(exe_of(r, c->pid));
	printf(",\"signo\":%d,\"signal\":\"SIG%s\",\"code\":%d,\"code_name\":",
	       c->signo, sigabbrev_np(c->signo) ?: "?", c->code);
	json_str(code);
	if (has_addr(c->signo) && !sent(c->code))
		printf(",\"addr\":\"0x%" PRIx64 "\"", c->addr);
	if (sent(c->code))
		printf(",\"sender_pid\":%d,\"sender_uid\":%u", (int)c->sender_pid,
		       c->sender_uid);
	fputs(",\"insn\":", stdout);
	if (replay_select(r, r->cur) == 0)
		fault_insn(r, true);
	else
		fputs("null", stdout);
	putchar('}');
}

static void no_crash(struct replay *r, bool json)
{
	const struct bts_process_info *p = bts_trace_process(r->trace, 0);

	if (json) {
		fputs("\"crash\":null", stdout);
		return;
	}
	printf("No crash in this trace");
	if (p && p->exited && WIFEXITED(p->status))
		printf(": process %d exited with status %d", (int)p->pid,
		       WEXITSTATUS(p->status));
	else if (p && p->exited && WIFSIGNALED(p->status))
		printf(": process %d was killed by signal SIG%s", (int)p->pid,
		       sigabbrev_np(WTERMSIG(p->status)) ?: "?");
	printf(".\n");
}

void report_crash(struct replay *r, const struct report_opts *o)
{
	if (!r->crash)
		no_crash(r, o->json);
	else if (o->json)
		crash_json(r, r->crash);
	else
		crash_text(r, r->crash);
}
