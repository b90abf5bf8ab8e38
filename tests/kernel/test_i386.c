// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A 32-bit (i386) program in the guest: kmod-step gives the same
 * records as ptrace-step for it (compared as `btrace dump --raw`, line for
 * line), through int $0x80 syscalls and signal handlers that return by
 * rt_sigreturn and sigreturn (tests/progs/i386-ksig.S), and through calls
 * of the vDSO's __kernel_vsyscall (sysenter) in i386-sys, whose vDSO is
 * where ADDR_NO_RANDOMIZE puts it in both runs.  i386-dyn is a dynamic
 * i386 program: ld.so.2 and the i386 libc (libc6-i386 of gcc-multilib,
 * put into the guest by mkinitramfs through ldd) run too, and with
 * randomisation off the whole run is recorded the same way by both, from
 * ld.so's first instruction on; dump names the libc's functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/personality.h>

#include "harness.h"
#include "kt.h"

#define RUN_TIMEOUT 120

/* `btrace dump VIEW FILE`'s output, past its first line. */
static char *dump_view(char *bt, const char *view, char *file)
{
	char *dump[] = { bt, "dump", (char *)view, file, NULL };
	struct harness_cmd d;
	char *body;

	if (harness_run(dump, RUN_TIMEOUT, &d))
		FAIL("cannot run %s", bt);
	if (harness_exit_code(&d) != 0)
		FAIL("btrace dump %s: exit %d: %s", view, harness_exit_code(&d), d.err);
	body = strdup(strchrnul(d.out, '\n'));
	ASSERT_TRUE(body != NULL);
	harness_cmd_free(&d);
	return body;
}

/*
 * PROG recorded by @source: its raw dump past the "# thread" line; its
 * output in *@out; with @calls, its dump --calls in *@calls.
 */
static char *record_prog(const char *name, const char *source, char **out,
			 char **calls)
{
	char *bt = BTRACE_PATH(), *prog = PROG_PATH(name);
	char *file = harness_path(harness_tmpdir(), "i386.btr");
	char *rec[] = { bt, "record", "--source", (char *)source, "-o", file,
			"--", prog, NULL };
	struct harness_cmd c;
	char want[64], *body;

	if (harness_run(rec, RUN_TIMEOUT, &c))
		FAIL("cannot run %s", bt);
	if (harness_exit_code(&c) != 0)
		FAIL("btrace record --source %s: exit %d: %s", source,
		     harness_exit_code(&c), c.err);
	snprintf(want, sizeof(want), "(%s)", source);
	if (!strstr(c.err, want))
		FAIL("btrace did not record with %s: %s", source, c.err);
	*out = c.out;
	c.out = NULL;
	body = dump_view(bt, "--raw", file);
	if (calls)
		*calls = dump_view(bt, "--calls", file);
	unlink(file);
	harness_cmd_free(&c);
	free(file);
	free(prog);
	free(bt);
	return body;
}

static size_t count_records(const char *s)
{
	size_t n = 0;

	for (; (s = strstr(s, "\n0x")); s++)
		n++;
	return n;
}

/*
 * @name by kmod-step: the same records and output as by ptrace-step;
 * kmod-step's dump --calls in *@calls when asked for.
 */
static void compare(const char *name, const char *want_out, char **calls)
{
	char *oa, *ob;
	char *want = record_prog(name, "ptrace-step", &oa, NULL);
	char *got = record_prog(name, "kmod-step", &ob, calls);
	const char *a = got, *b = want;
	size_t line = 1;

	EXPECT_EQ(kt_pinned(), 0);
	if (want_out)
		EXPECT_STREQ(oa, want_out);
	EXPECT_STREQ(ob, oa);
	/* calls, a loop, handlers and their returns */
	EXPECT_GT(count_records(want), (size_t)20);
	while (*a || *b) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		if (la != lb || memcmp(a, b, la))
			FAIL("%s: line %zu: '%.*s' where ptrace-step has '%.*s'",
			     name, line, (int)la, a, (int)lb, b);
		a += la + !!a[la];
		b += lb + !!b[lb];
		line++;
	}
	free(want);
	free(got);
	free(oa);
	free(ob);
}

TEST(i386, kmod_step_same_records_as_ptrace_step)
{
	compare("i386-ksig", "i386-ksig ok\n", NULL);
}

TEST(i386, kmod_step_same_records_through_the_vdso)
{
	int old = personality(0xffffffff);

	ASSERT_GE(old, 0);
	ASSERT_GE(personality((unsigned long)old | ADDR_NO_RANDOMIZE), 0);
	compare("i386-sys", NULL, NULL);
	personality((unsigned long)old);
}

/*
 * Whether the function column of dump --calls (NAME after the tab) holds
 * @names in this order, others between them allowed.
 */
static bool calls_in_order(const char *calls, const char *const names[])
{
	const char *p = calls;
	size_t i = 0, len;

	while (names[i] && (p = strchr(p, '\t'))) {
		len = strcspn(++p, "\n");
		if (len == strlen(names[i]) && !memcmp(p, names[i], len))
			i++;
	}
	return !names[i];
}

TEST(i386, kmod_step_same_records_dynamic_libc_program)
{
	static const char *const names[] = {
		"main", "qsort", "by_value", "main", "__kernel_vsyscall",
		"main", "printf", "main", "exit", NULL,
	};
	int old = personality(0xffffffff);
	char *calls = NULL;

	ASSERT_GE(old, 0);
	ASSERT_GE(personality((unsigned long)old | ADDR_NO_RANDOMIZE), 0);
	compare("i386-dyn", "i386-dyn 123456\n", &calls);
	personality((unsigned long)old);
	ASSERT_TRUE(calls != NULL);
	/* libc's functions by their names (its dynamic symbols), not "??" */
	if (!calls_in_order(calls, names))
		FAIL("dump --calls of i386-dyn lacks main qsort by_value main "
		     "__kernel_vsyscall main printf main exit, in order:\n%.4000s",
		     strstr(calls, "\tmain\n") ? strstr(calls, "\tmain\n") : calls);
	free(calls);
}
