// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace's command line: help, every bad input with its exact exit code and
 * one-line message, exit status passthrough, and the dump formats.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bts.h>

#include "btrace_run.h"

#define TIMEOUT 120

/* Runs btrace with the NULL-ended arguments; returns its exit code. */
#define btrace(cmd, ...) harness_btrace(cmd, TIMEOUT, __VA_ARGS__)

/* stderr is exactly one line "btrace: ..." that contains @want. */
static void expect_one_line(const struct harness_cmd *cmd, const char *want)
{
	const char *nl = strchr(cmd->err, '\n');

	if (strncmp(cmd->err, "btrace: ", 8) || !nl || nl[1] ||
	    !strstr(cmd->err, want))
		FAIL("expected one line \"btrace: ...%s...\" on stderr, got:\n%s",
		     want, cmd->err);
}

static char *tmp(const char *name)
{
	return harness_path(harness_tmpdir(), name);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Nothing in the test's directory: no file, no temporary left behind. */
static void expect_empty_tmpdir(void)
{
	DIR *d = opendir(harness_tmpdir());
	struct dirent *e;

	ASSERT_TRUE(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			FAIL("left behind: %s", e->d_name);
	closedir(d);
}

static void write_file(const char *path, const void *buf, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ASSERT_TRUE(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	ASSERT_EQ(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

/* Records tests/progs/@prog @arg into DIR/@name; asserts the exit code. */
static char *record(const char *prog, const char *arg, const char *name,
		    int want, struct harness_cmd *cmd)
{
	char *btr = tmp(name), *path = PROG_PATH(prog);
	int code = btrace(cmd, "record", "-o", btr, "--", path, arg, NULL);

	if (code != want)
		FAIL("record %s %s exited %d, expected %d:\n%s", prog, arg, code,
		     want, cmd->err);
	free(path);
	return btr;
}

/* ------------------------------------------------------------------ help */

static void expect_help(const char *const *words, const char *cmdname,
			const char *const *options)
{
	struct harness_cmd c;
	char usage[64];

	snprintf(usage, sizeof(usage), "usage: btrace %s", cmdname);
	EXPECT_EQ(btrace(&c, words[0], words[1], NULL), 0);
	EXPECT_EQ(c.err_len, 0u);
	if (!strstr(c.out, usage))
		FAIL("no \"%s\" in:\n%s", usage, c.out);
	for (size_t i = 0; options[i]; i++)
		if (!strstr(c.out, options[i]))
			FAIL("%s %s: no %s in:\n%s", words[0], words[1],
			     options[i], c.out);
	harness_cmd_free(&c);
}

TEST(cli, help_of_every_command_lists_every_option)
{
	static const char *const rec[] = { "-o, --output FILE", "-p, --pid PID",
		"--source NAME", "--mode MODE", "--buffer SIZE", "-h, --help",
		"Exit status", "125", "126", "127", NULL };
	static const char *const dump[] = { "--raw", "-h, --help",
		"# thread TID", "0xFROM 0xTO", "# lost N", "Exit status", NULL };
	static const char *const info[] = { "-h, --help", "Exit status", NULL };
	static const char *const forms[][2] = {
		{ "record", "--help" }, { "help", "record" }, { "record", "-h" },
		{ "dump", "--help" }, { "help", "dump" },
		{ "info", "--help" }, { "help", "info" },
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *name = strcmp(forms[i][0], "help") ? forms[i][0] : forms[i][1];
		const char *const *opts = !strcmp(name, "record") ? rec :
					  !strcmp(name, "dump") ? dump : info;

		expect_help(forms[i], name, opts);
	}
}

/* record --help names every source libbts knows, for --source. */
TEST(cli, record_help_names_every_source)
{
	struct bts_source_info info[16];
	int n = bts_probe_sources(info, 16, sizeof(*info));
	struct harness_cmd c;

	ASSERT_GT(n, 0);
	EXPECT_EQ(btrace(&c, "record", "--help", NULL), 0);
	for (int i = 0; i < n; i++) {
		char want[64];

		snprintf(want, sizeof(want), " %s[,; ]", bts_source_name(info[i].source));
		if (!harness_matches(want, c.out))
			FAIL("record --help does not name the source %s",
			     bts_source_name(info[i].source));
	}
	harness_cmd_free(&c);
}

TEST(cli, top_level_help_and_version)
{
	struct harness_cmd c;

	EXPECT_EQ(btrace(&c, "--help", NULL), 0);
	EXPECT_TRUE(strstr(c.out, "usage: btrace"));
	EXPECT_TRUE(strstr(c.out, "record"));
	EXPECT_TRUE(strstr(c.out, "dump"));
	EXPECT_TRUE(strstr(c.out, "info"));
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "help", NULL), 0);
	EXPECT_TRUE(strstr(c.out, "usage: btrace"));
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "--version", NULL), 0);
	EXPECT_TRUE(harness_matches("^btrace \\(ptrace-bts\\) [0-9]+\\.[0-9]+\\.[0-9]+\n$", c.out));
	harness_cmd_free(&c);
}

TEST(cli, top_level_bad_input)
{
	struct harness_cmd c;

	EXPECT_EQ(btrace(&c, NULL), 2);
	expect_one_line(&c, "no command given");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "frob", NULL), 2);
	expect_one_line(&c, "'frob' is not a btrace command");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "--frob", NULL), 2);
	expect_one_line(&c, "unknown option '--frob'");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "help", "frob", NULL), 2);
	expect_one_line(&c, "'frob' is not a btrace command");
	harness_cmd_free(&c);
}

/* ---------------------------------------------------------- record: bad */

/* "P" in an argument list stands for the path of tests/progs/cli-exit. */
struct bad_record {
	int code;
	const char *msg;
	const char *args[5];
};

static const struct bad_record bad_records[] = {
	{ 125, "record: unknown option '--frob' (see 'btrace record --help')",
	  { "--frob", "--", "P" } },
	{ 125, "record: unknown option '-x'", { "-x", "P" } },
	{ 125, "record: option '--buffer' needs an argument", { "--buffer" } },
	{ 125, "record: option '-p' needs an argument", { "-p" } },
	{ 125, "record: --buffer '12Q': not a size", { "--buffer", "12Q", "P" } },
	{ 125, "record: --buffer '0': not a size", { "--buffer", "0", "P" } },
	{ 125, "record: --buffer '-4K': not a size", { "--buffer=-4K", "P" } },
	{ 125, "record: --buffer '4KK': not a size", { "--buffer", "4KK", "P" } },
	{ 125, "record: --buffer '99999999999G': not a size",
	  { "--buffer", "99999999999G", "P" } },
	{ 125, "record: --mode 'fast': unknown mode", { "--mode", "fast", "P" } },
	{ 125, "record: --output -: a trace file cannot go to standard output",
	  { "-o", "-", "P" } },
	{ 125, "record: --source 'magic': unknown source",
	  { "--source", "magic", "P" } },
	{ 125, "record: --pid 'abc': not a process id", { "-p", "abc" } },
	{ 125, "record: --pid '0': not a process id", { "--pid=0" } },
	{ 125, "record: no program given", { "--" } },
	{ 125, "record: give a program or -p PID, not both", { "-p", "1", "P" } },
	{ 125, "record: option '--help' takes no argument", { "--help=x" } },
	{ 127, "/nonexistent/prog: program not found", { "--", "/nonexistent/prog" } },
	{ 127, "no-such-program-here: program not found", { "no-such-program-here" } },
};

static void expect_bad_record(const struct bad_record *b, const char *prog)
{
	char *argv[16], *btr = tmp("out.btr");
	struct harness_cmd c;
	int n = 0;

	argv[n++] = BTRACE_PATH();
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = btr;
	for (size_t i = 0; i < 5 && b->args[i]; i++)
		argv[n++] = strcmp(b->args[i], "P") ? (char *)b->args[i] : (char *)prog;
	argv[n] = NULL;
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), b->code);
	expect_one_line(&c, b->msg);
	EXPECT_EQ(c.out_len, 0u);
	expect_empty_tmpdir();
	harness_cmd_free(&c);
	free(argv[0]);
	free(btr);
}

TEST(cli, record_bad_input_exits_125_or_127)
{
	char *prog = PROG_PATH("cli-exit");

	for (size_t i = 0; i < sizeof(bad_records) / sizeof(bad_records[0]); i++)
		expect_bad_record(&bad_records[i], prog);
	free(prog);
}

TEST(cli, record_non_executable_exits_126)
{
	char *path = tmp("not-executable");
	char *btr = tmp("out.btr");
	struct harness_cmd c;

	write_file(path, "#!/bin/sh\nexit 0\n", 17, 0644);
	EXPECT_EQ(btrace(&c, "record", "-o", btr, "--", path, NULL), 126);
	expect_one_line(&c, "not-executable: program cannot be run");
	EXPECT_FALSE(exists(btr));
	harness_cmd_free(&c);
	/* A directory cannot run either. */
	EXPECT_EQ(btrace(&c, "record", "-o", btr, "--", harness_tmpdir(), NULL), 126);
	expect_one_line(&c, "program cannot be run");
	EXPECT_FALSE(exists(btr));
	harness_cmd_free(&c);
	unlink(path);
	expect_empty_tmpdir();
	free(path);
	free(btr);
}

TEST(cli, record_unavailable_source_exits_125)
{
	struct bts_source_info info[16];
	int n = bts_probe_sources(info, 16, sizeof(*info)), i;
	struct bad_record bad = { 125, NULL, { "--source", NULL, "--", "P" } };
	char msg[512], *prog = PROG_PATH("cli-exit");

	for (i = 0; i < n && info[i].available; i++)
		;
	if (i == n)
		FAIL("every source is available: no unavailable one to try");
	snprintf(msg, sizeof(msg), "record: source %s is not available: %s",
		 bts_source_name(info[i].source), info[i].why);
	bad.msg = msg;
	bad.args[1] = bts_source_name(info[i].source);
	expect_bad_record(&bad, prog);
	free(prog);
}

TEST(cli, record_unwritable_output_exits_125)
{
	char *prog = PROG_PATH("cli-exit");
	struct harness_cmd c;

	EXPECT_EQ(btrace(&c, "record", "-o", "/nonexistent-dir/x.btr", "--",
			 prog, NULL), 125);
	expect_one_line(&c, "/nonexistent-dir/x.btr: ");
	harness_cmd_free(&c);
	free(prog);
}

/* ------------------------------------------------------- record: status */

TEST(cli, record_passes_the_exit_code_through)
{
	struct harness_cmd c, d;
	char *btr = record("cli-exit", "3", "exit3.btr", 3, &c);
	char want[512];

	/* Exactly the summary line. */
	snprintf(want, sizeof(want), "^btrace: recorded 1 thread, [0-9]+ records, "
		 "0 lost \\(ptrace-step\\) to %s\n$", btr);
	if (!harness_matches(want, c.err))
		FAIL("summary: %s", c.err);
	EXPECT_EQ(btrace(&d, "dump", "--raw", btr, NULL), 0);
	EXPECT_EQ(d.err_len, 0u);
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	free(btr);
}

TEST(cli, record_of_a_killed_program_exits_128_plus_signal)
{
	struct harness_cmd c, d;
	char *btr = record("cli-exit", "segv", "segv.btr", 139, &c);

	EXPECT_TRUE(harness_matches("^btrace: recorded 1 thread, [0-9]+ records, 0 lost", c.err));
	EXPECT_EQ(btrace(&d, "dump", "--raw", btr, NULL), 0);
	EXPECT_TRUE(harness_matches("^# thread [0-9]+\n0x", d.out));
	harness_cmd_free(&d);
	EXPECT_EQ(btrace(&d, "dump", btr, NULL), 0);
	EXPECT_TRUE(harness_matches("# thread [0-9]+ killed by signal 11 \\(SIGSEGV\\)\n", d.out));
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	free(btr);
}

TEST(cli, record_writes_btrace_btr_by_default)
{
	char cwd[4096], *prog = PROG_PATH("cli-exit"), *btr = tmp("btrace.btr");
	struct harness_cmd c;
	int code;

	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)));
	ASSERT_EQ(chdir(harness_tmpdir()), 0);
	code = btrace(&c, "record", prog, "0", NULL);
	ASSERT_EQ(chdir(cwd), 0);
	EXPECT_EQ(code, 0);
	EXPECT_TRUE(strstr(c.err, " to btrace.btr\n"));
	EXPECT_TRUE(exists(btr));
	harness_cmd_free(&c);
	free(prog);
	free(btr);
}

TEST(cli, record_options_are_accepted)
{
	struct harness_cmd c, d;
	char *btr = tmp("ring.btr"), *prog = PROG_PATH("cli-exit");

	EXPECT_EQ(btrace(&c, "record", "--mode=ring", "--buffer", "4K",
			 "--source", "ptrace-step", "-o", btr, prog, "5", NULL), 5);
	EXPECT_TRUE(harness_matches("^btrace: recorded 1 thread, [0-9]+ records, [1-9][0-9]* lost \\(ptrace-step\\)", c.err));
	EXPECT_EQ(btrace(&d, "dump", btr, NULL), 0);
	EXPECT_TRUE(strstr(d.out, "# trace: version 1, source ptrace-step, mode ring, buffer 4096 bytes\n"));
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	free(btr);
	free(prog);
}

/* ------------------------------------------------------------ dump: bad */

TEST(cli, dump_bad_input)
{
	char *missing = tmp("missing.btr"), *text = tmp("text.btr");
	char *empty = tmp("empty.btr");
	struct harness_cmd c;

	EXPECT_EQ(btrace(&c, "dump", missing, NULL), 1);
	expect_one_line(&c, missing);
	EXPECT_EQ(c.out_len, 0u);
	harness_cmd_free(&c);

	write_file(text, "hello, this is not a trace file at all\n", 39, 0644);
	EXPECT_EQ(btrace(&c, "dump", "--raw", text, NULL), 1);
	expect_one_line(&c, "text.btr: not a valid trace file");
	EXPECT_EQ(c.out_len, 0u);
	harness_cmd_free(&c);

	write_file(empty, "", 0, 0644);
	EXPECT_EQ(btrace(&c, "dump", empty, NULL), 1);
	expect_one_line(&c, "empty.btr: ");
	harness_cmd_free(&c);

	EXPECT_EQ(btrace(&c, "dump", NULL), 2);
	expect_one_line(&c, "dump: no trace file given");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "dump", text, empty, NULL), 2);
	expect_one_line(&c, "dump: one trace file at a time");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "dump", "--frob", text, NULL), 2);
	expect_one_line(&c, "dump: unknown option '--frob'");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "dump", "--raw=yes", text, NULL), 2);
	expect_one_line(&c, "dump: option '--raw' takes no argument");
	harness_cmd_free(&c);
	free(missing);
	free(text);
	free(empty);
}

TEST(cli, dump_of_a_truncated_trace_says_truncated)
{
	struct harness_cmd c;
	char *btr = record("cli-exit", "0", "whole.btr", 0, &c);
	char *cut = tmp("cut.btr");
	size_t len, lens[3];
	char *buf = read_file(btr, &len);

	harness_cmd_free(&c);
	lens[0] = len - 1;
	lens[1] = len / 2;
	lens[2] = 64;
	for (size_t i = 0; i < 3; i++) {
		write_file(cut, buf, lens[i], 0644);
		EXPECT_EQ(btrace(&c, "dump", "--raw", cut, NULL), 1);
		expect_one_line(&c, "cut.btr: trace file is truncated");
		EXPECT_EQ(c.out_len, 0u);
		harness_cmd_free(&c);
	}
	/* The whole file still reads. */
	EXPECT_EQ(btrace(&c, "dump", "--raw", btr, NULL), 0);
	harness_cmd_free(&c);
	free(buf);
	free(btr);
	free(cut);
}

/* ---------------------------------------------------------- dump: format */

TEST(cli, dump_raw_format_is_exact)
{
	struct harness_cmd c, d;
	char *btr = record("cli-exit", "7", "raw.btr", 7, &c);
	unsigned long long threads, records, lost, lines = 0, headers = 0;
	const char *p;

	ASSERT_EQ(sscanf(c.err, "btrace: recorded %llu thread, %llu records, %llu lost",
			 &threads, &records, &lost), 3);
	EXPECT_EQ(btrace(&d, "dump", "--raw", btr, NULL), 0);
	EXPECT_EQ(d.err_len, 0u);
	EXPECT_TRUE(harness_matches("^# thread [1-9][0-9]*\n", d.out));
	for (p = d.out; *p; lines++) {
		const char *nl = strchr(p, '\n');
		char line[256];

		ASSERT_TRUE(nl);
		ASSERT_LT((size_t)(nl - p), sizeof(line));
		memcpy(line, p, nl - p);
		line[nl - p] = 0;
		if (harness_matches("^# thread [1-9][0-9]*$", line))
			headers++;
		else if (!harness_matches("^(0x[1-9a-f][0-9a-f]* 0x[1-9a-f][0-9a-f]*|"
				  "# (lost [0-9]+|exec 0x[0-9a-f]+|"
				  "gap (unknown|unreadable|disabled|undecodable)|"
				  "filtered( [0-9]+)?))$", line))
			FAIL("bad raw line: \"%s\"", line);
		p = nl + 1;
	}
	EXPECT_EQ(headers, 1ull);
	EXPECT_EQ(lines - headers, records);
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	free(btr);
}

TEST(cli, dump_shows_symbols)
{
	struct harness_cmd c, d;
	char *btr = record("cli-exit", "0", "sym.btr", 0, &c);

	EXPECT_EQ(btrace(&d, "dump", btr, NULL), 0);
	EXPECT_EQ(d.err_len, 0u);
	EXPECT_TRUE(harness_matches("\nthread [0-9]+ \\(process [0-9]+\\)\n", d.out));
	EXPECT_TRUE(harness_matches("# process [0-9]+ \\(parent [0-9]+\\): [^\n]*cli-exit\n", d.out));
	/* main is entered from a named libc function. */
	EXPECT_TRUE(harness_matches("\n +[0-9]+  0x[0-9a-f]{16} <[_a-z]+\\+[0-9]+>  ->  "
			    "0x[0-9a-f]{16} <main>\n", d.out));
	/* atoi() is strtol(), called through the PLT stub. */
	EXPECT_TRUE(harness_matches("\n +[0-9]+  0x[0-9a-f]{16} <main\\+[0-9]+>  ->  "
			    "0x[0-9a-f]{16} <strtol@plt>\n", d.out));
	EXPECT_TRUE(harness_matches("\n +[0-9]+  0x[0-9a-f]{16} <strtol@plt(\\+[0-9]+)?>  ->  ", d.out));
	/* Its last branch is in libc's _exit. */
	EXPECT_TRUE(harness_matches("<_exit(\\+[0-9]+)?>\n# thread [0-9]+ exited", d.out));
	EXPECT_TRUE(harness_matches("\n# thread [0-9]+ exited with status 0\n$", d.out));
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	free(btr);
}

TEST(cli, dump_shows_symbols_of_a_non_pie_program)
{
	struct harness_cmd c, d;
	char *prog = PROG_PATH("static-oracle"), *btr = tmp("static.btr");

	/* An ET_EXEC file: its addresses are its own, the load bias is 0. */
	EXPECT_EQ(btrace(&c, "record", "-o", btr, prog, NULL), 0);
	EXPECT_EQ(btrace(&d, "dump", btr, NULL), 0);
	EXPECT_EQ(d.err_len, 0u);
	EXPECT_TRUE(harness_matches("\n +0  0x00000000004[0-9a-f]{5} <_start(\\+[0-9]+)?>  ->  "
			    "0x00000000004[0-9a-f]{5} <[_a-z]", d.out));
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	free(prog);
	free(btr);
}

TEST(cli, dump_warns_once_about_a_changed_file)
{
	struct harness_cmd c, d;
	char *orig = PROG_PATH("cli-exit"), *other = PROG_PATH("cli-loop");
	char *copy = tmp("prog"), *btr = tmp("changed.btr");
	size_t len;
	char *buf = read_file(orig, &len);
	const char *w;

	write_file(copy, buf, len, 0755);
	free(buf);
	EXPECT_EQ(btrace(&c, "record", "-o", btr, copy, "0", NULL), 0);
	harness_cmd_free(&c);
	/* Same path, another program: its names would be wrong. */
	unlink(copy);
	buf = read_file(other, &len);
	write_file(copy, buf, len, 0755);
	free(buf);
	EXPECT_EQ(btrace(&d, "dump", btr, NULL), 0);
	expect_one_line(&d, "prog: not the file that was traced (build-id differs)");
	w = strstr(d.err, "btrace: warning: ");
	EXPECT_TRUE(w == d.err);
	EXPECT_FALSE(strstr(d.out, "<main"));
	EXPECT_TRUE(strstr(d.out, "<_exit"));	/* libc is still the same */
	harness_cmd_free(&d);
	free(orig);
	free(other);
	free(copy);
	free(btr);
}

/* ------------------------------------------------------------------ info */

TEST(cli, info_lists_every_source)
{
	struct harness_cmd c;
	struct bts_source_info info[16];
	int n = bts_probe_sources(info, 16, sizeof(*info));
	const char *p;
	int lines = 0;

	EXPECT_EQ(btrace(&c, "info", NULL), 0);
	EXPECT_EQ(c.err_len, 0u);
	/* The sources and auto; the refusal checks after them: test_info.c. */
	for (p = c.out; *p && lines <= n; lines++) {
		const char *nl = strchr(p, '\n');
		char line[512];

		ASSERT_TRUE(nl);
		memcpy(line, p, nl - p);
		line[nl - p] = 0;
		if (lines < n) {
			char want[256];

			snprintf(want, sizeof(want), "^%s +%s", bts_source_name(info[lines].source),
				 info[lines].available ? "available$" : "unavailable: .+$");
			if (!harness_matches(want, line))
				FAIL("line %d: \"%s\" does not match \"%s\"", lines, line, want);
		} else {
			char want[64];
			int i;

			for (i = 0; i < n && !info[i].available; i++)
				;
			snprintf(want, sizeof(want), "^auto +-> %s$",
				 i < n ? bts_source_name(info[i].source) : "none");
			if (!harness_matches(want, line))
				FAIL("\"%s\" does not match \"%s\"", line, want);
		}
		p = nl + 1;
	}
	EXPECT_EQ(lines, n + 1);
	harness_cmd_free(&c);
	/* One argument is a trace file to describe (test_info_trace.c). */
	EXPECT_EQ(btrace(&c, "info", "extra", NULL), 1);
	expect_one_line(&c, "extra: ");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "info", "extra", "more", NULL), 2);
	expect_one_line(&c, "info: unexpected argument 'more'");
	harness_cmd_free(&c);
}
