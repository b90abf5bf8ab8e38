// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers of the btrace replay and report tests (test_replay.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"
#include "test_replay.h"

#define RP_TIMEOUT 120	/* a bound against hangs, never a timing assertion */

void rp_btrace(const char *const args[], int want, struct harness_cmd *cmd)
{
	int code = harness_btrace_argv(cmd, RP_TIMEOUT, args);

	if (code != want)
		FAIL("btrace %s exited with %d, expected %d; stderr:\n%s",
		     args[0], code, want, cmd->err);
}

char *rp_record(const char *prog, int crash, struct harness_cmd *cmd)
{
	char *btr = harness_path(harness_tmpdir(), prog), *path = PROG_PATH(prog);
	const char *args[] = { "record", "-o", NULL, "--", path, NULL, NULL };

	btr = realloc(btr, strlen(btr) + 5);
	ASSERT_TRUE(btr != NULL);
	strcat(btr, ".btr");
	args[2] = btr;
	if (crash) {
		/* btrace record --on-crash -o PATTERN -- PROG; it dies of SIGSEGV */
		args[3] = "--on-crash";
		args[4] = "--";
		args[5] = path;
	}
	rp_btrace(args, crash ? 128 + 11 : 0, cmd);
	free(path);
	return btr;
}

void rp_replay(const char *btr, const char *script, int want,
	       struct harness_cmd *cmd)
{
	char *sp = harness_path(harness_tmpdir(), "script");
	const char *args[] = { "replay", "-x", sp, btr, NULL };
	FILE *f = fopen(sp, "w");

	ASSERT_TRUE(f != NULL);
	fputs(script, f);
	fclose(f);
	rp_btrace(args, want, cmd);
	free(sp);
}

size_t rp_positions(const char *out, uint64_t *v, size_t max)
{
	size_t n = 0;

	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;
		unsigned long long x = strtoull(l, &end, 10);

		if (end != l && !strncmp(end, "\t=> ", 4) && n < max)
			v[n++] = x;
	}
	return n;
}

char *rp_grep(const char *out, const char *prefix)
{
	size_t cap = strlen(out) + 1, len = 0;
	char *res = malloc(cap);

	ASSERT_TRUE(res != NULL);
	res[0] = 0;
	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t ll = strcspn(l, "\n");

		if (strncmp(l, prefix, strlen(prefix)))
			continue;
		memcpy(res + len, l, ll);
		len += ll;
		res[len++] = '\n';
		res[len] = 0;
	}
	return res;
}

const char *rp_line(const char *out, const char *prefix, size_t i, char *buf,
		    size_t len)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t ll = strcspn(l, "\n");

		if (strncmp(l, prefix, strlen(prefix)) || i--)
			continue;
		if (ll >= len)
			ll = len - 1;
		memcpy(buf, l, ll);
		buf[ll] = 0;
		return buf;
	}
	FAIL("no line %zu starting with '%s' in:\n%s", i, prefix, out);
}

uint64_t rp_segment_first(const char *btr, const char *func, const char *entry)
{
	const char *args[] = { "dump", "--calls", "--json", btr, NULL };
	struct harness_cmd cmd;
	char want[160];
	const char *p;
	uint64_t first;

	snprintf(want, sizeof(want), "\"entry\":\"%s\",\"func\":\"%s\",\"first\":",
		 entry, func);
	rp_btrace(args, 0, &cmd);
	p = strstr(cmd.out, want);
	if (!p)
		FAIL("no %s segment of %s in the call history", entry, func);
	first = strtoull(p + strlen(want), NULL, 10);
	harness_cmd_free(&cmd);
	return first;
}

int rp_source_line(const char *file, const char *text)
{
	char *path = harness_path(BTS_SRC_DIR "/tests/progs", file);
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	ASSERT_TRUE(f != NULL);
	free(path);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, text)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	FAIL("no '%s' in %s", text, file);
}

const char *rp_frame_func(const char *line, char *buf, size_t len)
{
	const char *p = strstr(line, " in "), *end;

	buf[0] = 0;
	if (!p)
		return buf;
	p += 4;
	end = strstr(p, " (");
	if (!end || (size_t)(end - p) >= len)
		return buf;
	memcpy(buf, p, end - p);
	buf[end - p] = 0;
	return buf;
}
