// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * naive-step: the baseline that `make bench` compares btrace with.
 *
 * The simplest correct single-step branch tracer: one PTRACE_SINGLESTEP per
 * instruction, the registers after every stop, the code bytes read again
 * with PTRACE_PEEKDATA before every step and decoded again with Zydis (no
 * cache of any kind), and every taken branch appended to a plain array.
 * It follows the main thread only: the workloads have no others.
 *
 * A control transfer is taken when it is unconditional, or when it is a
 * conditional one and the next pc is not the instruction's fall-through.
 * Decoding the instruction that ran (rather than watching rip jump) keeps
 * the repeated stops of a `rep` string instruction out of the count.
 *
 * Usage: naive-step [-o FILE] -- CMD [ARGS...]
 *   Prints "naive-step: N instructions, M taken branches" on stderr and
 *   exits with the program's status.  FILE gets the records in the format
 *   of `btrace dump --raw`, for a diff against btrace.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <Zydis/Zydis.h>
#include <linux/ptrace_bts.h>

struct trace {
	pid_t pid;
	ZydisDecoder dec;
	struct ptbts_record *rec;
	size_t nrec, cap;
	uint64_t ninsn;
};

static void die(const char *what)
{
	fprintf(stderr, "naive-step: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void push(struct trace *t, uint64_t from, uint64_t to, uint64_t flags)
{
	if (t->nrec == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->rec = realloc(t->rec, t->cap * sizeof(*t->rec));
		if (!t->rec)
			die("realloc");
	}
	t->rec[t->nrec++] = (struct ptbts_record){ from, to, flags };
}

/* Two words cover the longest x86 instruction (15 bytes). */
static size_t read_code(pid_t pid, uint64_t pc, uint8_t buf[16])
{
	size_t got = 0;

	for (int i = 0; i < 2; i++) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, pid, (void *)(pc + 8 * i), NULL);
		if (errno)
			break;	/* the rest lies on an unmapped page */
		memcpy(buf + 8 * i, &w, 8);
		got += 8;
	}
	return got;
}

enum insn_class { OTHER, COND, UNCOND, SYSCALL };

/* What the instruction at @pc is, and its length. */
static enum insn_class classify(struct trace *t, uint64_t pc, unsigned *len)
{
	ZydisDecodedInstruction insn;
	uint8_t buf[16];
	size_t n = read_code(t->pid, pc, buf);

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&t->dec, NULL, buf, n,
							&insn)))
		return OTHER;	/* the step below will fault, as natively */
	*len = insn.length;
	switch (insn.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return UNCOND;
	case ZYDIS_CATEGORY_SYSCALL:
		return SYSCALL;
	default:
		return OTHER;
	}
}

static uint64_t get_pc(pid_t pid)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
		die("PTRACE_GETREGS");
	return regs.rip;
}

static pid_t start(char **argv)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "naive-step: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	return pid;
}

/* Appends the record, if any, for the step from @pc (class @c) to @next. */
static void account(struct trace *t, enum insn_class c, unsigned len,
		    uint64_t pc, uint64_t next)
{
	t->ninsn++;
	if (c == UNCOND || (c == COND && next != pc + len))
		push(t, pc, next, 0);
	else if (c == SYSCALL && next != pc + len)	/* rt_sigreturn */
		push(t, pc, next, PTBTS_MKKIND(PTBTS_KIND_SIGRETURN));
}

/* Runs the program to its end; returns its wait status. */
static int trace_run(struct trace *t)
{
	int status, sig = 0;

	/* The first stop is the SIGTRAP of the execve. */
	if (waitpid(t->pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFSTOPPED(status))
		return status;
	ptrace(PTRACE_SETOPTIONS, t->pid, NULL, (void *)PTRACE_O_EXITKILL);
	for (uint64_t pc = get_pc(t->pid);;) {
		enum insn_class c = OTHER;
		unsigned len = 0;
		uint64_t next;

		if (!sig)
			c = classify(t, pc, &len);
		if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, (void *)(long)sig) < 0)
			die("PTRACE_SINGLESTEP");
		if (waitpid(t->pid, &status, 0) < 0)
			die("waitpid");
		if (!WIFSTOPPED(status))
			return status;
		next = get_pc(t->pid);
		if (sig)	/* stepped into a handler: @pc did not run */
			push(t, pc, next, PTBTS_MKKIND(PTBTS_KIND_SIGNAL));
		else
			account(t, c, len, pc, next);
		sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
		pc = next;
	}
}

static void write_raw(const struct trace *t, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die(path);
	fprintf(f, "# thread %d\n", (int)t->pid);
	for (size_t i = 0; i < t->nrec; i++)
		fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 "\n",
			(uint64_t)t->rec[i].from, (uint64_t)t->rec[i].to);
	if (fclose(f))
		die(path);
}

static int usage(void)
{
	fprintf(stderr, "usage: naive-step [-o FILE] -- CMD [ARGS...]\n");
	return 125;
}

int main(int argc, char **argv)
{
	struct trace t = { 0 };
	const char *out = NULL;
	int opt, status;

	while ((opt = getopt(argc, argv, "+o:")) != -1) {
		if (opt != 'o')
			return usage();
		out = optarg;
	}
	if (optind >= argc)
		return usage();
	ZydisDecoderInit(&t.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	t.pid = start(argv + optind);
	status = trace_run(&t);
	if (out)
		write_raw(&t, out);
	fprintf(stderr, "naive-step: %" PRIu64 " instructions, %zu taken branches\n",
		t.ninsn, t.nrec);
	free(t.rec);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
