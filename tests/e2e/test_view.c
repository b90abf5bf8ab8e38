// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace view without a browser (tests/e2e/test_view_browser.c opens the
 * pages in one): the page of a crash trace holds the crash report and the
 * history as speedscope's file, that of a plain trace the history alone;
 * it refers to nothing outside itself; it appears whole or not at all,
 * and never without the viewer's assets.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"
#include "view_util.h"

#define TIMEOUT 120

/*
 * Reads a page (argv[1]): the history in #btrace-profile, decoded and
 * parsed as JSON, prints "profiles: N" and its frames' names, one a
 * line, then "report:"
 * and the report's text when the page has one.  Fails on any reference
 * the browser would load from outside the page.
 */
static const char page_checker[] =
"import base64, html, json, re, sys\n"
"p = open(sys.argv[1]).read()\n"
"m = re.search(r'<script type=\"text/plain\" id=\"btrace-profile\" data-name=\"[^\"]*\">([^<]*)</script>', p)\n"
"d = json.loads(base64.b64decode(re.sub(r'\\s', '', m.group(1))))\n"
"assert d['$schema'] == 'https://www.speedscope.app/file-format-schema.json'\n"
"print('profiles: %d' % len(d['profiles']))\n"
"for f in d['shared']['frames']: print(f['name'])\n"
"outside = re.findall(r'<(?:script|link|img|iframe)\\b[^>]*\\b(?:src|href)=[^>]*>', p)\n"
"if outside: sys.exit('refers outside: %s' % outside)\n"
"if re.search(r'@import|url\\((?!data:)', p.split('id=\"btrace-profile\"')[0]): sys.exit('style loads a file')\n"
"r = re.search(r'<aside id=\"btrace-crash\" hidden>\\n<h1>[^<]*</h1>\\n<pre>\\n(.*)</pre>', p, re.S)\n"
"if r: print('report:'); print(html.unescape(r.group(1)))\n";

/* The checker's output for the page at @html. */
static void check_page(const char *html, struct harness_cmd *out)
{
	char *argv[] = { "/usr/bin/python3", "-c", (char *)page_checker,
			 (char *)html, NULL };

	ASSERT_EQ(harness_run(argv, TIMEOUT, out), 0);
	if (harness_exit_code(out))
		FAIL("page %s: %s", html, out->err);
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

TEST(view, crash_page_has_report_and_history)
{
	struct harness_cmd rec, v, page;
	char *btr = view_record_crash(&rec);
	char *html = harness_path(harness_tmpdir(), "crash.html");
	const char *report;

	ASSERT_EQ(harness_btrace(&v, TIMEOUT, "view", "-o", html, btr, NULL), 0);
	EXPECT_STREQ(v.err, "");
	check_page(html, &page);
	report = strstr(page.out, "\nreport:\n");
	ASSERT_TRUE(report != NULL);
	/* The crash chain is in the history... */
	for (const char *const *f = (const char *const[]){ "main", "level1",
		"level2", "level3", NULL }; *f; f++)
		if (!has_line(page.out, *f))
			FAIL("no frame %s in:\n%s", *f, page.out);
	/* ...and the report says what died, where and how. */
	EXPECT_TRUE(strstr(report, "was killed by signal SIGSEGV (Segmentation "
			   "fault), SEGV_MAPERR, fault address 0x10.") != NULL);
	EXPECT_TRUE(harness_matches_lines("^#0  0x[0-9a-f]+ in level3 \\(\\)", report));
	EXPECT_TRUE(harness_matches_lines("^#3  0x[0-9a-f]+ in main \\(\\)", report));
	EXPECT_TRUE(strstr(report, "Last 50 branches:") != NULL);
	EXPECT_TRUE(strstr(report, "<level3>") != NULL);
	EXPECT_TRUE(view_no_temporary(harness_tmpdir()));
	harness_cmd_free(&page);
	harness_cmd_free(&v);
	harness_cmd_free(&rec);
	free(html);
	free(btr);
}

/* A trace without a crash: the history alone; FILE.btr gives FILE.html. */
TEST(view, plain_page_default_name)
{
	struct harness_cmd rec, v, page;
	char *btr = raw_record("seq-calls", NULL, 0, &rec);
	char *html = harness_path(harness_tmpdir(), "seq-calls.html");

	ASSERT_EQ(harness_btrace(&v, TIMEOUT, "view", btr, NULL), 0);
	check_page(html, &page);
	EXPECT_TRUE(strstr(page.out, "\nreport:\n") == NULL);
	EXPECT_TRUE(has_line(page.out, "main"));
	EXPECT_TRUE(has_line(page.out, "calls_run"));
	EXPECT_TRUE(has_line(page.out, "calls_g"));
	harness_cmd_free(&page);
	harness_cmd_free(&v);
	harness_cmd_free(&rec);
	free(html);
	free(btr);
}

/* --thread: that thread's history only; a thread not there: no page. */
TEST(view, one_thread)
{
	struct harness_cmd rec, v, page;
	char *btr = raw_record("threads-count", NULL, 0, &rec);
	char *html = harness_path(harness_tmpdir(), "t.html");
	const char *p = strstr(rec.out, "worker 2 tid ");
	char tid[32];

	ASSERT_TRUE(p != NULL);
	snprintf(tid, sizeof(tid), "%d", atoi(p + strlen("worker 2 tid ")));
	ASSERT_EQ(harness_btrace(&v, TIMEOUT, "view", "--thread", tid, "-o", html,
				 btr, NULL), 0);
	harness_cmd_free(&v);
	check_page(html, &page);
	EXPECT_TRUE(has_line(page.out, "profiles: 1"));
	EXPECT_TRUE(has_line(page.out, "thr_leaf"));
	EXPECT_FALSE(has_line(page.out, "main"));
	harness_cmd_free(&page);
	ASSERT_EQ(unlink(html), 0);
	EXPECT_EQ(harness_btrace(&v, TIMEOUT, "view", "--thread", "1", "-o", html,
				 btr, NULL), 1);
	EXPECT_TRUE(strstr(v.err, "no thread 1 in the trace") != NULL);
	EXPECT_EQ(access(html, F_OK), -1);
	EXPECT_TRUE(view_no_temporary(harness_tmpdir()));
	harness_cmd_free(&v);
	EXPECT_EQ(harness_btrace(&v, TIMEOUT, "view", "--from", "9", "--to", "3",
				 btr, NULL), 2);
	harness_cmd_free(&v);
	/* Not a file named "-" in the current directory. */
	EXPECT_EQ(harness_btrace(&v, TIMEOUT, "view", "-o", "-", btr, NULL), 2);
	EXPECT_TRUE(strstr(v.err, "view: -o -: the page cannot go to standard output") != NULL);
	EXPECT_EQ(access("-", F_OK), -1);
	harness_cmd_free(&v);
	harness_cmd_free(&rec);
	free(html);
	free(btr);
}

/* A btrace without its share/btrace/view says so and writes nothing. */
TEST(view, no_assets_no_page)
{
	char *bin = harness_path(harness_tmpdir(), "bin");
	char *copy = harness_path(bin, "btrace"), *btrace = BTRACE_PATH();
	char *html = harness_path(harness_tmpdir(), "x.html");
	char *cp[] = { "/bin/cp", btrace, copy, NULL };
	struct harness_cmd rec, c;
	char *btr = raw_record("seq-calls", NULL, 0, &rec);
	char *argv[] = { copy, "view", "-o", html, btr, NULL };

	ASSERT_EQ(mkdir(bin, 0755), 0);
	ASSERT_EQ(harness_run(cp, TIMEOUT, &c), 0);
	ASSERT_EQ(harness_exit_code(&c), 0);
	harness_cmd_free(&c);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	EXPECT_EQ(harness_exit_code(&c), 1);
	EXPECT_TRUE(strstr(c.err, "btrace: view: the viewer is not installed") != NULL);
	EXPECT_TRUE(strstr(c.err, "share/btrace/view") != NULL);
	EXPECT_EQ(access(html, F_OK), -1);
	EXPECT_TRUE(view_no_temporary(harness_tmpdir()));
	harness_cmd_free(&c);
	harness_cmd_free(&rec);
	free(btr);
	free(html);
	free(btrace);
	free(copy);
	free(bin);
}

/* Bad input: a message, exit 1 or 2, and the output left as it was. */
TEST(view, bad_input_keeps_output)
{
	char *html = harness_path(harness_tmpdir(), "keep.html");
	char *dir = harness_path(harness_tmpdir(), "adir");
	char *junk = harness_path(harness_tmpdir(), "junk.btr");
	struct harness_cmd rec, c;
	char *btr = raw_record("seq-calls", NULL, 0, &rec);
	FILE *f = fopen(html, "w");
	char buf[64] = "";

	ASSERT_TRUE(f != NULL);
	fputs("mine\n", f);
	ASSERT_EQ(fclose(f), 0);
	f = fopen(junk, "w");
	ASSERT_TRUE(f != NULL);
	fputs("not a trace\n", f);
	ASSERT_EQ(fclose(f), 0);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "view", "-o", html, junk, NULL), 1);
	EXPECT_TRUE(strstr(c.err, "junk.btr") != NULL);
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "view", "-o", html,
				 "/nonexistent.btr", NULL), 1);
	harness_cmd_free(&c);
	f = fopen(html, "r");
	ASSERT_TRUE(f != NULL);
	EXPECT_TRUE(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	EXPECT_STREQ(buf, "mine\n");
	/* Only a regular file is replaced. */
	ASSERT_EQ(mkdir(dir, 0755), 0);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "view", "-o", dir, btr, NULL), 1);
	EXPECT_TRUE(strstr(c.err, "not a regular file: not replaced") != NULL);
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "view", NULL), 2);
	EXPECT_TRUE(strstr(c.err, "no trace file given") != NULL);
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "view", btr, btr, NULL), 2);
	harness_cmd_free(&c);
	EXPECT_TRUE(view_no_temporary(harness_tmpdir()));
	harness_cmd_free(&rec);
	free(btr);
	free(junk);
	free(dir);
	free(html);
}
