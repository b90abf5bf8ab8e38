// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The man page btrace(1) against the program: every command that
 * 'btrace --help' lists has a section, and every option its --help lists
 * is in that section.  A command or option added without its man entry
 * fails here.  Also: --version and 'help COMMAND' as git has them.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define TIMEOUT 60

static int btrace(struct harness_cmd *c, ...)
{
	char *argv[8];
	int n = 0;
	va_list ap;

	argv[n++] = BTRACE_PATH();
	va_start(ap, c);
	while (n < 7 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (harness_run(argv, TIMEOUT, c))
		FAIL("cannot run %s", argv[0]);
	free(argv[0]);
	return harness_exit_code(c);
}

/* The man page's source with roff's \- as plain '-' (static). */
static char *man_text(void)
{
	static char buf[1 << 17];
	FILE *f = fopen(BTS_SRC_DIR "/man/btrace.1", "r");
	char *r, *w;
	size_t len;

	if (!f)
		FAIL("no man/btrace.1");
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	for (r = w = buf; *r; r++) {
		if (r[0] == '\\' && r[1] == '-')
			r++;
		*w++ = *r;
	}
	*w = '\0';
	return buf;
}

/*
 * The text of every section of command @cmd: from each '.SS "btrace CMD'
 * line to the next .SS or .SH (static).  Empty when there is none.
 */
static char *sections_of(const char *man, const char *cmd)
{
	static char out[1 << 17];
	char head[64];
	const char *p = man;
	size_t len;

	out[0] = '\0';
	snprintf(head, sizeof(head), ".SS \"btrace %s", cmd);
	len = strlen(head);
	while ((p = strstr(p, head))) {
		const char *end;

		if (p[len] != ' ' && p[len] != '"') {
			p += len;
			continue;
		}
		for (end = strchr(p, '\n'); end && strncmp(end, "\n.SH", 4); end = strchr(end + 1, '\n'))
			if (!strncmp(end, "\n.SS", 4) && strncmp(end + 1, head, len))
				break;
		if (!end)
			end = p + strlen(p);
		strncat(out, p, end - p);
		p = end;
	}
	return out;
}

/* @opt ("--output", "-o") as a whole word in @text. */
static bool has_option(const char *text, const char *opt)
{
	size_t len = strlen(opt);
	const char *p;

	for (p = strstr(text, opt); p; p = strstr(p + 1, opt)) {
		char before = p == text ? ' ' : p[-1], after = p[len];

		if (before != '-' && !isalnum((unsigned char)before) &&
		    after != '-' && after != '_' && !isalnum((unsigned char)after))
			return true;
	}
	return false;
}

/* The commands 'btrace --help' lists (the lines under "Commands:"). */
static int commands(char names[][16], int max)
{
	struct harness_cmd c;
	const char *p;
	int n = 0;

	if (btrace(&c, "--help", NULL))
		FAIL("btrace --help failed");
	p = strstr(c.out, "\nCommands:\n");
	if (!p)
		FAIL("no Commands: in btrace --help");
	for (p = strchr(p + 1, '\n') + 1; !strncmp(p, "  ", 2) && n < max; p = strchr(p, '\n') + 1)
		sscanf(p, "%15s", names[n++]);
	harness_cmd_free(&c);
	return n;
}

/* Checks each option of 'btrace CMD --help' against @section. */
static void check_options(const char *cmd, const char *section)
{
	struct harness_cmd c;
	const char *p;

	if (btrace(&c, cmd, "--help", NULL))
		FAIL("btrace %s --help failed", cmd);
	p = strstr(c.out, "\nOptions:\n");
	if (!p)
		FAIL("btrace %s --help has no Options:", cmd);
	for (p = strchr(p + 1, '\n') + 1; *p && *p != '\n'; p = strchr(p, '\n') + 1) {
		char column[128], opt[64];
		const char *start = p + strspn(p, " "), *end = strstr(start, "  ");
		const char *q;

		snprintf(column, sizeof(column), "%.*s", (int)(end - start), start);
		/* "-o, --output FILE": each word that starts with a dash. */
		for (q = column; *q; q += strcspn(q, " ,"), q += strspn(q, " ,")) {
			if (*q != '-')
				continue;
			snprintf(opt, sizeof(opt), "%.*s", (int)strcspn(q, " ,"), q);
			if (!strcmp(opt, "-h") || !strcmp(opt, "--help"))
				continue;	/* documented once, under OPTIONS */
			if (!has_option(section, opt))
				FAIL("man/btrace.1 has no %s in the section of 'btrace %s'",
				     opt, cmd);
		}
	}
	harness_cmd_free(&c);
}

TEST(man, btrace_1_has_every_command_and_option)
{
	char names[32][16], *man = man_text();
	int n = commands(names, 32), i;

	ASSERT_GE(n, 5);
	for (i = 0; i < n; i++) {
		char *sec = sections_of(man, names[i]);

		if (!*sec)
			FAIL("man/btrace.1 has no section .SS \"btrace %s ...\"", names[i]);
		if (strcmp(names[i], "help"))
			check_options(names[i], sec);
	}
	EXPECT_TRUE(has_option(man, "--version"));
	EXPECT_TRUE(has_option(man, "--help"));
}

/* The checker itself: an option missing from a section is seen. */
TEST(man, checker_sees_a_missing_option)
{
	const char *man = ".SH COMMANDS\n.SS \"btrace record [OPTIONS]\"\n.BR -o \", \" --output\n"
			  ".SS \"btrace record -p PID\"\n.B --mode\n"
			  ".SS \"btrace dump FILE\"\n.B --raw\n.SH SEE ALSO\n--json\n";
	char *sec = sections_of(man, "record");

	EXPECT_TRUE(has_option(sec, "-o"));
	EXPECT_TRUE(has_option(sec, "--output"));
	EXPECT_TRUE(has_option(sec, "--mode"));
	EXPECT_FALSE(has_option(sec, "--raw"));
	EXPECT_FALSE(has_option(sec, "--out"));
	sec = sections_of(man, "dump");
	EXPECT_TRUE(has_option(sec, "--raw"));
	EXPECT_FALSE(has_option(sec, "--json"));
	EXPECT_STREQ(sections_of(man, "stats"), "");
}

/* ------------------------------------------- --version and help, as git */

TEST(man, version_and_help_as_git)
{
	struct harness_cmd c, d;

	/* git --version: one line, exit 0; the version is libbts's. */
	EXPECT_EQ(btrace(&c, "--version", NULL), 0);
	EXPECT_STREQ(c.out, "btrace (ptrace-bts) 2.0.0\n");
	EXPECT_EQ(c.err_len, 0u);
	harness_cmd_free(&c);
	/* git help CMD is git CMD --help. */
	EXPECT_EQ(btrace(&c, "help", "info", NULL), 0);
	EXPECT_EQ(btrace(&d, "info", "--help", NULL), 0);
	EXPECT_STREQ(c.out, d.out);
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	/* git help, git help help, git --help: the command list. */
	EXPECT_EQ(btrace(&c, "help", NULL), 0);
	EXPECT_EQ(btrace(&d, "help", "help", NULL), 0);
	EXPECT_STREQ(c.out, d.out);
	harness_cmd_free(&d);
	EXPECT_EQ(btrace(&d, "--help", NULL), 0);
	EXPECT_STREQ(c.out, d.out);
	EXPECT_TRUE(!strncmp(c.out, "usage: btrace ", 14));
	harness_cmd_free(&c);
	harness_cmd_free(&d);
	/* git's "did you mean" for a typo, in one line. */
	EXPECT_EQ(btrace(&c, "recrod", NULL), 2);
	EXPECT_STREQ(c.err, "btrace: 'recrod' is not a btrace command; did you mean "
		     "'record'? (see 'btrace --help')\n");
	harness_cmd_free(&c);
	EXPECT_EQ(btrace(&c, "help", "dupm", NULL), 2);
	EXPECT_STREQ(c.err, "btrace: 'dupm' is not a btrace command; did you mean "
		     "'dump'? (see 'btrace --help')\n");
	EXPECT_EQ(c.out_len, 0u);
	harness_cmd_free(&c);
}

/* ------------------------------------------------------ bash completion */

TEST(man, bash_completion)
{
	char script[4096], *bt = BTRACE_PATH();
	char *argv[] = { "/bin/bash", "--norc", "-c", script, NULL };
	struct harness_cmd c;

	snprintf(script, sizeof(script),
		 "source '%s/completion/btrace.bash' || exit 1\n"
		 "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _btrace;"
		 " echo \"[${COMPREPLY[*]}]\"; }\n"
		 "b='%s'\n"
		 "t \"$b\" rec\n"
		 "t \"$b\" --ver\n"
		 "t \"$b\" record --so\n"
		 "t \"$b\" record --source p\n"
		 "t \"$b\" record --mode ''\n"
		 "t \"$b\" dump --i\n"
		 "t \"$b\" info -\n"
		 "t \"$b\" help st\n"
		 "complete -p btrace\n", BTS_SRC_DIR, bt);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 0);
	EXPECT_STREQ(c.out,
		     "[record]\n"
		     "[--version]\n"
		     "[--source]\n"
		     "[perf-bts ptrace-step]\n"
		     "[block ring stop]\n"
		     "[--insns --insn-range --indent --incomplete]\n"
		     "[--json -h --help]\n"
		     "[stats]\n"
		     "complete -F _btrace btrace\n");
	EXPECT_STREQ(c.err, "");
	harness_cmd_free(&c);
	free(bt);
}
