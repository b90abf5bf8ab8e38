// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace view's page and btrace export's speedscope file in a real
 * browser: Debian's chromium, headless, driven over the DevTools protocol
 * by tests/browser/cdp_visit.py.  The crash trace of crash-deep shows its
 * report beside speedscope, and speedscope's function table holds main and
 * the crash chain (level1, level2, level3); the export, loaded into the
 * speedscope that btrace installs the way speedscope's command line loads
 * a file, holds main and seq-calls' calls.  No page may log an error,
 * throw, or load anything from outside the machine.  The screenshots stay
 * in BUILD/tests/screenshots (README's pictures: make pictures).  One
 * browser start per test: they take seconds each.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"
#include "view_util.h"

#define TIMEOUT 300

#define SHOTS BTS_BUILD_DIR "/tests/screenshots"

struct visit {
	const char *url, *png;
	const char *frame_has, *frame_cells, *page_has;	/* JSON lists */
};

/* Runs the driver on @visits; fails with what it said. */
static void browse(const struct visit *visits, size_t n)
{
	char *json = harness_path(harness_tmpdir(), "visits.json");
	char *driver = harness_path(BTS_SRC_DIR, "tests/browser/cdp_visit.py");
	char *argv[] = { "/usr/bin/python3", driver, json, NULL };
	struct harness_cmd c;
	FILE *f = fopen(json, "w");

	ASSERT_TRUE(f != NULL);
	mkdir(BTS_BUILD_DIR "/tests", 0755);
	mkdir(SHOTS, 0755);
	fputs("[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n{\"url\": \"%s\", \"png\": \"%s/%s\", \"frame_has\": %s,"
			" \"frame_cells\": %s, \"page_has\": %s}", i ? "," : "",
			visits[i].url, SHOTS, visits[i].png,
			visits[i].frame_has ? visits[i].frame_has : "[]",
			visits[i].frame_cells ? visits[i].frame_cells : "[]",
			visits[i].page_has ? visits[i].page_has : "[]");
	fputs("]\n", f);
	ASSERT_EQ(fclose(f), 0);
	for (size_t i = 0; i < n; i++) {
		char png[4096];

		snprintf(png, sizeof(png), "%s/%s", SHOTS, visits[i].png);
		unlink(png);
	}
	ASSERT_EQ(harness_run(argv, TIMEOUT, &c), 0);
	if (harness_exit_code(&c))
		FAIL("in chromium:\n%s%s", c.out, c.err);
	for (size_t i = 0; i < n; i++) {
		char png[4096], sig[8] = "";

		snprintf(png, sizeof(png), "%s/%s", SHOTS, visits[i].png);
		f = fopen(png, "rb");
		if (!f)
			FAIL("no screenshot %s", png);
		EXPECT_EQ(fread(sig, 1, 8, f), (size_t)8);
		EXPECT_EQ(memcmp(sig, "\x89PNG\r\n\x1a\n", 8), 0);
		fclose(f);
	}
	harness_cmd_free(&c);
	free(driver);
	free(json);
}

TEST(view_browser, crash_page_in_chromium)
{
	char *html = harness_path(harness_tmpdir(), "crash-deep.html");
	struct harness_cmd rec, v;
	char *btr = view_record_crash(&rec);
	char url[3][4200];
	static const char *const hashes[] = { "", "#view=sandwich", "#view=left-heavy" };

	ASSERT_EQ(harness_btrace(&v, TIMEOUT, "view", "-o", html, btr, NULL), 0);
	for (size_t i = 0; i < 3; i++)
		snprintf(url[i], sizeof(url[i]), "file://%s%s", html, hashes[i]);
	{
		const struct visit visits[] = {
			/* The timeline, the report beside it. */
			{ url[0], "view-timeline.png", "[\"Left Heavy\", \"thread \"]", NULL,
			  "[\"Crash report: crash-deep.btr\", \"killed by signal SIGSEGV\","
			  " \"fault address 0x10\", \"in level3 ()\", \"in main ()\","
			  " \"Last 50 branches:\", \"<level3>\"]" },
			/* The viewer's model, as its table of functions shows it. */
			{ url[1], "view-sandwich.png", NULL,
			  "[\"main\", \"level1\", \"level2\", \"level3\"]", NULL },
			/* The flame graph. */
			{ url[2], "view-flame.png", "[\"thread \"]", NULL,
			  "[\"Crash report\"]" },
		};

		browse(visits, 3);
	}
	harness_cmd_free(&v);
	harness_cmd_free(&rec);
	free(html);
	free(btr);
}

/* calls_run's first segment number in dump --calls, or FAIL. */
static uint64_t calls_run_segment(const char *btr)
{
	struct harness_cmd d;
	const char *p;
	uint64_t n;

	ASSERT_EQ(harness_btrace(&d, TIMEOUT, "dump", "--calls", "--json", btr, NULL), 0);
	p = strstr(d.out, "\"func\":\"calls_run\"");
	ASSERT_TRUE(p != NULL);
	while (p > d.out && p[-1] != '\n')
		p--;
	p = strstr(p, "\"n\":");
	ASSERT_TRUE(p != NULL);
	n = strtoull(p + 4, NULL, 10);
	harness_cmd_free(&d);
	return n;
}

TEST(view_browser, speedscope_export_in_speedscope)
{
	struct harness_cmd rec, e, sh;
	char *btr = raw_record("seq-calls", NULL, 0, &rec);
	char *json = harness_path(harness_tmpdir(), "calls.speedscope.json");
	char *js = harness_path(harness_tmpdir(), "profile.js");
	char from[32], to[32], url[2][8192], cmd[8192];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	uint64_t n0 = calls_run_segment(btr);
	FILE *f;

	/* calls_run's calls: a few frames, all in view in the table. */
	snprintf(from, sizeof(from), "%" PRIu64, n0);
	snprintf(to, sizeof(to), "%" PRIu64, n0 + 15);
	ASSERT_EQ(harness_btrace(&e, TIMEOUT, "export", "--format", "speedscope",
				 "--from", from, "--to", to, btr, NULL), 0);
	f = fopen(json, "w");
	ASSERT_TRUE(f != NULL);
	fwrite(e.out, 1, e.out_len, f);
	ASSERT_EQ(fclose(f), 0);
	/* What speedscope's command line writes for a file it opens. */
	snprintf(cmd, sizeof(cmd), "printf 'speedscope.loadFileFromBase64(\"calls.speedscope.json\", "
		 "\"%%s\")' \"$(base64 -w0 '%s')\" > '%s'", json, js);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &sh), 0);
	ASSERT_EQ(harness_exit_code(&sh), 0);
	for (int i = 0; i < 2; i++)
		snprintf(url[i], sizeof(url[i]), "file://%s/share/btrace/speedscope/"
			 "release/index.html#localProfilePath=%s&view=%s", BTS_BUILD_DIR,
			 js, i ? "time-ordered" : "sandwich");
	{
		const struct visit visits[] = {
			/* The viewer's model, as its table of functions shows it. */
			{ url[0], "export-sandwich.png", "[\"Sandwich\", \"thread \"]",
			  "[\"main\", \"calls_run\", \"calls_f\", \"calls_g\", "
			  "\"calls_rec\", \"calls_tail\", \"calls_leaf\"]", NULL },
			/* The timeline. */
			{ url[1], "export-timeline.png", "[\"thread \"]", NULL, NULL },
		};

		browse(visits, 2);
	}
	harness_cmd_free(&sh);
	harness_cmd_free(&e);
	harness_cmd_free(&rec);
	free(js);
	free(json);
	free(btr);
}
