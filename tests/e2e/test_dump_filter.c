// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dump's filters, output for output: --function (a glob on the name as
 * shown or as the symbol), --grep (a regular expression), --object (a glob
 * on the file) and --addr, in every view, on cxx-names and insn-forms.
 * Addresses, numbers and ids change from run to run: the output from its
 * first thread on is compared with each 0xHEX as '@' and each number as '#'.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"

#define TIMEOUT 120

static char *record(const char *name, int status)
{
	char *prog = PROG_PATH(name), file[64];
	char *btr;
	struct harness_cmd c;

	snprintf(file, sizeof(file), "%s.btr", name);
	btr = harness_path(harness_tmpdir(), file);
	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", btr, "--", prog,
				 NULL), status);
	harness_cmd_free(&c);
	free(prog);
	return btr;
}

/*
 * @s from its first "thread " line on, with 0xHEX as '@' and every other
 * number that starts a word as '#' (malloc'ed).
 */
static char *normalize(const char *s)
{
	const char *start = strstr(s, "thread ");
	char *out = malloc(strlen(s) + 1), *w = out;

	ASSERT_TRUE(out != NULL);
	s = start ? start : s + strlen(s);
	while (*s) {
		bool word = w > out && (isalnum((unsigned char)w[-1]) || w[-1] == '_');

		if (!strncmp(s, "0x", 2) && isxdigit((unsigned char)s[2])) {
			for (s += 2; isxdigit((unsigned char)*s); s++)
				;
			*w++ = '@';
		} else if (!word && isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)*s))
				s++;
			*w++ = '#';
		} else {
			*w++ = *s++;
		}
	}
	*w = 0;
	return out;
}

/* dump with the NULL-ended @args on @btr prints exactly @want (normalized). */
static void expect_dump(const char *btr, const char *want, ...)
{
	const char *args[32] = { "dump" };
	struct harness_cmd c;
	size_t n = 1;
	va_list ap;
	char *got;

	va_start(ap, want);
	while ((args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n++] = btr;
	args[n] = NULL;
	ASSERT_EQ(harness_btrace_argv(&c, TIMEOUT, args), 0);
	got = normalize(c.out);
	if (strcmp(got, want))
		FAIL("dump %s %s:\ngot:\n%s\nexpected:\n%s", args[1], args[2], got, want);
	free(got);
	harness_cmd_free(&c);
}

TEST(dump_filter, function_globs_the_shown_and_the_raw_names)
{
	char *btr = record("cxx-names", 5);

	expect_dump(btr, "thread # (process #)\n#\tshapes::Circle::area() const\n",
		    "--calls", "--function", "shapes::*", NULL);
	expect_dump(btr, "thread # (process #)\n#\tshapes::Circle::area() const\n"
		    "#\tlong shapes::twice<long>(long)\n",
		    "--calls", "--function", "_ZN*", NULL);
	expect_dump(btr, "thread # (process #)\n"
		    "   #  @ <main+#>  ->  @ <mycrate::foo>\n"
		    "   #  @ <mycrate::foo+#>  ->  @ <main+#>\n"
		    "# thread # exited with status #\n",
		    "--branches", "--function", "mycrate::foo", NULL);
	free(btr);
}

TEST(dump_filter, grep_matches_names_by_regular_expression)
{
	char *btr = record("cxx-names", 5);

	expect_dump(btr, "thread # (process #)\n#\tlong shapes::twice<long>(long)\n"
		    "#\tmycrate::foo\n", "--calls", "--grep", "twice|^mycrate", NULL);
	free(btr);
}

TEST(dump_filter, object_and_function_together)
{
	char *btr = record("insn-forms", 0);

	expect_dump(btr, "thread # (process #)\n#\tforms\n#\tforms_helper\n"
		    "#\tforms\n#\tforms_helper\n#\tforms\n",
		    "--calls", "--object", "insn-forms", "--function", "forms*", NULL);
	expect_dump(btr, "thread # (process #)\n",
		    "--calls", "--object", "libc.so*", "--function", "forms*", NULL);
	expect_dump(btr, "thread # (process #)\n"
		    "#\t   @ <forms_helper+#>:\tret\n#\t   @ <forms_helper+#>:\tret\n",
		    "--insns", "--function", "forms_helper", NULL);
	free(btr);
}

/* The address of forms_helper, read from its instructions. */
static unsigned long long helper_address(const char *btr)
{
	struct harness_cmd c;
	const char *p;

	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "dump", "--insns", "--function",
				 "forms_helper", btr, NULL), 0);
	p = strstr(c.out, "0x");
	ASSERT_TRUE(p != NULL);
	unsigned long long a = strtoull(p, NULL, 16);

	harness_cmd_free(&c);
	return a;
}

TEST(dump_filter, addr_picks_a_range_in_every_view)
{
	char *btr = record("insn-forms", 0), range[64];
	unsigned long long a = helper_address(btr);

	snprintf(range, sizeof(range), "%llx-%llx", a, a);
	expect_dump(btr, "thread # (process #)\n"
		    "#\t   @ <forms_helper+#>:\tret\n#\t   @ <forms_helper+#>:\tret\n",
		    "--insns", "--addr", range, NULL);
	expect_dump(btr, "thread # (process #)\n#\tforms_helper\n#\tforms_helper\n",
		    "--calls", "--addr", range, NULL);
	/* The two calls into it and its two returns. */
	expect_dump(btr, "thread # (process #)\n"
		    "   #  @ <forms+#>  ->  @ <forms_helper>\n"
		    "   #  @ <forms_helper>  ->  @ <forms+#>\n"
		    "   #  @ <forms+#>  ->  @ <forms_helper>\n"
		    "   #  @ <forms_helper>  ->  @ <forms+#>\n"
		    "# thread # exited with status #\n", "--addr", range, NULL);
	free(btr);
}

TEST(dump_filter, bad_filters_are_refused)
{
	static const struct {
		const char *opt, *arg, *err;
	} bad[] = {
		{ "--addr", "20-10", "btrace: dump: --addr '20-10': the range ends before it starts\n" },
		{ "--addr", "xyz", "btrace: dump: --addr 'xyz': not an address range LO-HI (hexadecimal)\n" },
		{ "--grep", "(", "btrace: dump: --grep '(': not a regular expression\n" },
	};
	struct harness_cmd c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(harness_btrace(&c, TIMEOUT, "dump", bad[i].opt, bad[i].arg,
					 "x.btr", NULL), 2);
		EXPECT_STREQ(c.err, bad[i].err);
		harness_cmd_free(&c);
	}
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "dump", "--raw", "--function", "f",
				 "x.btr", NULL), 2);
	EXPECT_STREQ(c.err, "btrace: dump: --raw takes no --function, --object, "
			    "--grep or --addr\n");
	harness_cmd_free(&c);
}
