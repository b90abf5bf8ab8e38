// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seq-flow: installs the two signal handlers of seq-flow-asm.S, prints the
 * run-time address of every label the test needs ("label NAME 0xADDR"),
 * then runs seq_run once.  tests/e2e/test_seq.c checks the recorded
 * branches of seq_run against those labels, record for record.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#define SEQ_FUNCS(X)							\
	X(seq_run) X(seq_switch) X(seq_leaf) X(seq_tail_caller)		\
	X(seq_tail_callee) X(seq_usr1_handler) X(seq_ill_handler)

#define SEQ_LABELS(X)							\
	X(seq_loop) X(seq_call_switch) X(seq_after_switch) X(seq_loop_jb) \
	X(seq_jz_not_taken) X(seq_je_taken) X(seq_skip)			\
	X(seq_call_reg) X(seq_after_call_reg)				\
	X(seq_call_mem) X(seq_after_call_mem)				\
	X(seq_rep_stosb) X(seq_rep_movsb) X(seq_after_rep)		\
	X(seq_kill_syscall) X(seq_after_kill)				\
	X(seq_ud2) X(seq_after_ud2) X(seq_run_ret) X(seq_fail)		\
	X(seq_switch_jmp) X(seq_case0) X(seq_case0_jmp) X(seq_case1)	\
	X(seq_case1_jmp) X(seq_case2) X(seq_switch_out)			\
	X(seq_leaf_ret) X(seq_tail_jmp) X(seq_tail_callee_ret)		\
	X(seq_usr1_ret) X(seq_ill_ret)

#define DECL_FUNC(n) void n(void);
#define DECL_LABEL(n) extern char n[];
SEQ_FUNCS(DECL_FUNC)
SEQ_LABELS(DECL_LABEL)
extern int seq_usr1_count;

/* seq_ill_handler adds 2 to the saved pc at this offset. */
_Static_assert(offsetof(ucontext_t, uc_mcontext.gregs) + REG_RIP * 8 == 168,
	       "REG_RIP offset in ucontext_t");

#define PRINT(n) printf("label %s %p\n", #n, (void *)n);

/* glibc's __restore_rt: mov $15,%rax; syscall (rt_sigreturn). */
static const unsigned char restorer_code[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
};

static int install(int sig, void (*fn)(void), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = (void (*)(int))fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/* Prints the restorer's syscall instruction, the "from" of sigreturn. */
static int print_restorer(void)
{
	struct sigaction old;
	const unsigned char *r;

	if (sigaction(SIGUSR1, NULL, &old))
		return -1;
	r = (const unsigned char *)old.sa_restorer;
	if (!r || memcmp(r, restorer_code, sizeof(restorer_code)))
		return -1;
	printf("label seq_restorer %p\n", (void *)r);
	printf("label seq_restorer_syscall %p\n", (void *)(r + 7));
	return 0;
}

int main(void)
{
	if (install(SIGUSR1, seq_usr1_handler, 0) ||
	    install(SIGILL, seq_ill_handler, SA_SIGINFO) ||
	    print_restorer())
		return 2;
	printf("label main %p\n", (void *)main);
	SEQ_FUNCS(PRINT)
	SEQ_LABELS(PRINT)
	seq_run();
	return seq_usr1_count == 1 ? 0 : 3;
}
