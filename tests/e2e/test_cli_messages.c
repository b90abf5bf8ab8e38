// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace's messages name what is wrong: an option, not the program; a
 * damaged file as damaged; a directory as a directory.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrace_run.h"

#define TIMEOUT 120

static char *tmp(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

/* record -o DIR/x.btr OPT VAL /bin/true: exit 125, exactly "btrace: record: OPT 'VAL': @why". */
static void expect_option_refused(const char *opt, const char *val, const char *why)
{
	char *btr = tmp("x.btr");
	struct harness_cmd c;
	char want[512];

	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", btr, opt, val,
				 "--", "/bin/true", NULL), 125);
	snprintf(want, sizeof(want), "btrace: record: %s '%s': %s\n", opt, val, why);
	EXPECT_STREQ(c.err, want);
	EXPECT_EQ(access(btr, F_OK), -1);
	harness_cmd_free(&c);
	free(btr);
}

TEST(cli_messages, record_blames_the_option_not_the_program)
{
	char cpu[16], why[128];
	cpu_set_t set;
	int n = 0;

	expect_option_refused("--buffer", "99999999G", "too large (at most 1T per thread)");
	expect_option_refused("--buffer", "16", "holds no record (a record is 24 bytes)");
	expect_option_refused("--max-size", "1", "holds no record (a record is 24 bytes)");
	expect_option_refused("--duration", "1e10",
			      "too long (at most 1000000000 seconds, about 31 years)");
	/* The first CPU btrace may not run on (2 on a 2-CPU machine). */
	ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
	while (CPU_ISSET(n, &set))
		n++;
	snprintf(cpu, sizeof(cpu), "%d", n);
	snprintf(why, sizeof(why), "CPU %d is not available here (not in btrace's "
		 "CPU affinity)", n);
	expect_option_refused("--cpu", cpu, why);
}

/* btrace dump DIR: the directory is named as such, not as an I/O error. */
TEST(cli_messages, a_directory_is_no_trace)
{
	struct harness_cmd c;
	char want[4200];

	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "dump", harness_tmpdir(), NULL), 1);
	snprintf(want, sizeof(want), "btrace: %s: not a valid trace file (a directory)\n",
		 harness_tmpdir());
	EXPECT_STREQ(c.err, want);
	harness_cmd_free(&c);
}

/* A whole file with a chunk length or type damaged says "damaged". */
TEST(cli_messages, a_damaged_file_says_damaged)
{
	char *btr = tmp("d.btr");
	struct harness_cmd c;
	uint32_t v = 0x7fffffff;
	FILE *f;

	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", btr, "--",
				 "/bin/true", NULL), 0);
	harness_cmd_free(&c);
	/* The first chunk (SESSION, after the 16-byte header): its length. */
	f = fopen(btr, "r+");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fseek(f, 16 + 4, SEEK_SET), 0);
	ASSERT_EQ(fwrite(&v, 4, 1, f), 1u);
	ASSERT_EQ(fclose(f), 0);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "dump", btr, NULL), 1);
	if (!strstr(c.err, "the file is damaged") || strstr(c.err, "interrupted"))
		FAIL("no \"the file is damaged\" in: %s", c.err);
	harness_cmd_free(&c);
	/* Its type, now. */
	f = fopen(btr, "r+");
	ASSERT_TRUE(f != NULL);
	v = 16;	/* its length back */
	ASSERT_EQ(fseek(f, 16 + 4, SEEK_SET), 0);
	ASSERT_EQ(fwrite(&v, 4, 1, f), 1u);
	v = 0x5a5a5a5a;
	ASSERT_EQ(fseek(f, 16, SEEK_SET), 0);
	ASSERT_EQ(fwrite(&v, 4, 1, f), 1u);
	ASSERT_EQ(fclose(f), 0);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "dump", btr, NULL), 1);
	if (!strstr(c.err, "the file is damaged") || strstr(c.err, "newer libbts"))
		FAIL("no \"the file is damaged\" in: %s", c.err);
	harness_cmd_free(&c);
	free(btr);
}

/* Copies @from to @to with @mode. */
static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	ASSERT_TRUE(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0700);
	ASSERT_TRUE(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(write(out, buf, n), n);
	close(in);
	close(out);
	ASSERT_EQ(chmod(to, mode), 0);
}

/*
 * A set-user-ID program started by a btrace that may not trace anything
 * (here: btrace as nobody, the program root's) runs without its
 * privileges, and btrace says so once.  A btrace with CAP_SYS_PTRACE
 * (root) says nothing: the kernel grants them then.
 */
TEST(cli_messages, a_setuid_program_is_said_to_run_unprivileged)
{
	char *dir = tmp("pub"), *prog, *btr, *cli = PROG_PATH("cli-exit");
	char *bt = BTRACE_PATH(), want[8192];
	struct harness_cmd c;

	if (geteuid() != 0)
		FAIL("needs root: a set-user-ID program of root's, and setpriv");
	ASSERT_EQ(chmod(harness_tmpdir(), 0755), 0);
	ASSERT_EQ(mkdir(dir, 0777), 0);
	ASSERT_EQ(chmod(dir, 0777), 0);
	prog = harness_path(dir, "suid-exit");
	btr = harness_path(dir, "x.btr");
	copy_file(cli, prog, 04755);
	{
		const char *argv[] = { "/usr/bin/setpriv", "--reuid=65534",
				       "--regid=65534", "--clear-groups", bt,
				       "record", "-o", btr, "--", prog, "0", NULL };

		ASSERT_EQ(harness_run((char **)argv, TIMEOUT, &c), 0);
	}
	EXPECT_EQ(harness_exit_code(&c), 0);
	snprintf(want, sizeof(want), "btrace: record: note: %s is set-user-ID; "
		 "traced, it runs without those privileges (the kernel drops "
		 "them for a traced program)\nbtrace: recorded 1 thread, ", prog);
	if (strncmp(c.err, want, strlen(want)))
		FAIL("expected \"%s...\", got: %s", want, c.err);
	harness_cmd_free(&c);
	unlink(btr);
	/* Root may trace anything: no note. */
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", btr, "--", prog,
				 "0", NULL), 0);
	EXPECT_TRUE(strstr(c.err, "note:") == NULL);
	harness_cmd_free(&c);
	free(dir);
	free(prog);
	free(btr);
	free(cli);
	free(bt);
}
