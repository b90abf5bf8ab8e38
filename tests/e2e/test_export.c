// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace export on seq-calls: the calls of calls_run (main -> calls_run ->
 * calls_f -> calls_g, a recursion, a tail call) as folded stacks with
 * exact instruction weights, and as the Trace Event Format and
 * speedscope's format, read back by Python's json parser, and as
 * Perfetto's protobuf, read back by a decoder of the protobuf wire format
 * with the published field numbers; each checked (balanced frames, clock
 * never going back) event for event.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"
#include "harness.h"
#include "raw_dump.h"

#define TIMEOUT 120

/*
 * Reads an export (argv[1], format argv[2]) with Python's json, checks
 * that every thread's frames nest and its clock never goes back, and
 * prints the events as "O name at" and "C name at", threads as "thread".
 */
static const char checker[] =
"import json, sys\n"
"def fail(m):\n"
"    sys.exit('bad export: ' + m)\n"
"def varint(b, i):\n"
"    v = s = 0\n"
"    while True:\n"
"        v |= (b[i] & 0x7f) << s\n"
"        s += 7\n"
"        i += 1\n"
"        if not b[i - 1] & 0x80: return v, i\n"
"def fields(b):\n"
"    i, out = 0, {}\n"
"    while i < len(b):\n"
"        tag, i = varint(b, i)\n"
"        if tag & 7 == 0: v, i = varint(b, i)\n"
"        elif tag & 7 == 2:\n"
"            n, i = varint(b, i)\n"
"            v, i = b[i:i + n], i + n\n"
"        else: fail('wire type %d' % (tag & 7))\n"
"        out.setdefault(tag >> 3, []).append(v)\n"
"    return out\n"
"threads = []\n"
"if sys.argv[2] == 'perfetto':\n"
"    for pk in fields(open(sys.argv[1], 'rb').read())[1]:\n"
"        f = fields(pk)\n"
"        if 60 in f:\n"
"            td = fields(f[60][0])\n"
"            threads.append((td[1][0], []))\n"
"            continue\n"
"        te = fields(f[11][0])\n"
"        if te[11][0] != threads[-1][0]: fail('track')\n"
"        name = te[23][0].decode() if 23 in te else None\n"
"        threads[-1][1].append(('O' if te[9][0] == 1 else 'C', name, f[8][0]))\n"
"elif sys.argv[2] == 'chrome':\n"
"    d = json.load(open(sys.argv[1]))\n"
"    assert d['otherData']['clock'] == 'instructions'\n"
"    cur = {}\n"
"    for e in d['traceEvents']:\n"
"        t = e['tid']\n"
"        if e['ph'] == 'M':\n"
"            cur[t] = []\n"
"            threads.append((t, cur[t]))\n"
"        else:\n"
"            cur[t].append((e['ph'].replace('B', 'O').replace('E', 'C'), e.get('name'), e['ts']))\n"
"else:\n"
"    d = json.load(open(sys.argv[1]))\n"
"    assert d['$schema'] == 'https://www.speedscope.app/file-format-schema.json'\n"
"    frames = d['shared']['frames']\n"
"    for p in d['profiles']:\n"
"        if p['type'] != 'evented' or p['unit'] != 'none': fail('profile')\n"
"        ev = [(e['type'], frames[e['frame']]['name'], e['at']) for e in p['events']]\n"
"        if ev and (ev[0][2] < p['startValue'] or ev[-1][2] > p['endValue']): fail('range')\n"
"        threads.append((p['name'], ev))\n"
"for t, ev in threads:\n"
"    print('thread')\n"
"    stack, at = [], 0\n"
"    for k, name, x in ev:\n"
"        if x < at: fail('clock goes back at %d' % x)\n"
"        at = x\n"
"        if k == 'O': stack.append(name)\n"
"        elif not stack or (name is not None and stack[-1] != name): fail('close of ' + str(name))\n"
"        else: name = stack.pop()\n"
"        print(k, name, x)\n"
"    if stack: fail('frames left open')\n";

/* The first line of @text that contains @s (its start), or NULL. */
static const char *line_with(const char *text, const char *s)
{
	const char *p = strstr(text, s);

	if (!p)
		return NULL;
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

/* JSON line field as a number (the lines of dump --calls --json). */
static uint64_t num(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		FAIL("no %s in %.200s", key, line);
	return strtoull(p + strlen(pat), NULL, 10);
}

struct recorded {
	char *btr;
	struct harness_cmd rec, dump;
	uint64_t n0, first;	/* calls_run's first call: segment, insn */
	uint64_t tid;
};

static void record_calls(struct recorded *r)
{
	const char *l;

	r->btr = raw_record("seq-calls", NULL, 0, &r->rec);
	ASSERT_EQ(harness_btrace(&r->dump, TIMEOUT, "dump", "--calls", "--json",
				 r->btr, NULL), 0);
	l = line_with(r->dump.out, "\"func\":\"calls_run\",\"first\"");
	ASSERT_TRUE(l != NULL);
	r->n0 = num(l, "n");
	r->first = num(l, "first");
	r->tid = num(l, "tid");
}

static void recorded_free(struct recorded *r)
{
	harness_cmd_free(&r->rec);
	harness_cmd_free(&r->dump);
	free(r->btr);
}

static void export(struct recorded *r, const char *format, uint64_t from,
		   uint64_t to, struct harness_cmd *out)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%" PRIu64, from);
	snprintf(b, sizeof(b), "%" PRIu64, to);
	if (harness_btrace(out, TIMEOUT, "export", "--format", format, "--from",
			   a, "--to", b, r->btr, NULL))
		FAIL("export --format %s: %s", format, out->err);
}

/* Every stack of calls_run's calls, weighed exactly. */
TEST(export, folded_exact)
{
	static const char *const want[] = {
		"calls_run 2", "calls_run;calls_f 1", "calls_run;calls_f;calls_g 2",
		"calls_run;calls_f 1", "calls_run 2", "calls_run;calls_rec 4",
		"calls_run;calls_rec;calls_rec 4",
		"calls_run;calls_rec;calls_rec;calls_rec 4",
		"calls_run;calls_rec;calls_rec;calls_rec;calls_rec 3",
		"calls_run;calls_rec;calls_rec;calls_rec 1",
		"calls_run;calls_rec;calls_rec 1", "calls_run;calls_rec 1",
		"calls_run 1", "calls_run;calls_tail 2",
		"calls_run;calls_tail;calls_leaf 2", "calls_run 2",
	};
	size_t n = sizeof(want) / sizeof(want[0]);
	struct harness_cmd out;
	struct recorded r;
	char *expect, *p;
	size_t plen;
	FILE *m;

	record_calls(&r);
	export(&r, "folded", r.n0, r.n0 + n - 1, &out);
	/* The frames below calls_run: the C library's, then main. */
	p = strstr(out.out, ";calls_run 2\n");
	ASSERT_TRUE(p != NULL);
	plen = p - out.out + 1;
	ASSERT_TRUE(plen >= 5 && !memcmp(p - 5, ";main", 5));
	m = open_memstream(&expect, &plen);
	for (size_t i = 0; i < n; i++)
		fprintf(m, "%.*s%s\n", (int)(p + 1 - out.out), out.out, want[i]);
	fclose(m);
	EXPECT_STREQ(out.out, expect);
	free(expect);
	harness_cmd_free(&out);
	recorded_free(&r);
}

/* Every viewer format parses and says the same: calls_run -> f -> g. */
static void viewer_format(const char *format)
{
	char *path = harness_path(harness_tmpdir(), format), want[512];
	char *argv[] = { "/usr/bin/python3", "-c", (char *)checker, path,
			 (char *)format, NULL };
	struct harness_cmd out, py;
	struct recorded r;
	const char *tail;
	FILE *f;

	record_calls(&r);
	export(&r, format, r.n0, r.n0 + 2, &out);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fwrite(out.out, 1, out.out_len, f);
	ASSERT_EQ(fclose(f), 0);
	if (harness_run(argv, TIMEOUT, &py))
		FAIL("%s: %s", format, py.err);
	tail = strstr(py.out, "O calls_run");
	if (!tail)
		FAIL("%s: no calls_run in:\n%s%s", format, py.out, py.err);
	ASSERT_TRUE(line_with(py.out, "O main ") != NULL);
	snprintf(want, sizeof(want),
		 "O calls_run %" PRIu64 "\nO calls_f %" PRIu64 "\n"
		 "O calls_g %" PRIu64 "\nC calls_g %" PRIu64 "\n"
		 "C calls_f %" PRIu64 "\nC calls_run %" PRIu64 "\n",
		 r.first - 1, r.first + 1, r.first + 2, r.first + 4,
		 r.first + 4, r.first + 4);
	ASSERT_EQ(strncmp(tail, want, strlen(want)), 0);
	/* Then only the frames below calls_run close, at the same place. */
	for (tail += strlen(want); *tail; tail = strchr(tail, '\n') + 1) {
		char at[32];

		snprintf(at, sizeof(at), " %" PRIu64 "\n", r.first + 4);
		ASSERT_EQ(tail[0], 'C');
		ASSERT_EQ(strncmp(strchr(tail, '\n') - strlen(at) + 1, at,
				  strlen(at)), 0);
	}
	harness_cmd_free(&py);
	harness_cmd_free(&out);
	recorded_free(&r);
	free(path);
}

TEST(export, chrome_parses)
{
	viewer_format("chrome");
}

TEST(export, speedscope_parses)
{
	viewer_format("speedscope");
}

/* Perfetto's protobuf, read with the wire format's own rules. */
TEST(export, perfetto_parses)
{
	viewer_format("perfetto");
}

/* protoc reads it with Perfetto's definitions (the subset we write). */
TEST(export, perfetto_decodes_with_protoc)
{
	char *path = harness_path(harness_tmpdir(), "t.pftrace"), *sh, want[512];
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	struct harness_cmd out, pc;
	struct recorded r;
	FILE *f;

	record_calls(&r);
	export(&r, "perfetto", r.n0, r.n0 + 2, &out);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fwrite(out.out, 1, out.out_len, f);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_TRUE(asprintf(&sh, "/usr/bin/protoc --decode=perfetto.protos.Trace "
			     "-I %s/tests/e2e perfetto_min.proto < %s",
			     BTS_SRC_DIR, path) > 0);
	argv[2] = sh;
	if (harness_run(argv, TIMEOUT, &pc))
		FAIL("protoc: %s", pc.err);
	snprintf(want, sizeof(want),
		 "packet {\n  timestamp: %" PRIu64 "\n"
		 "  trusted_packet_sequence_id: 1\n  track_event {\n"
		 "    type: TYPE_SLICE_BEGIN\n    track_uuid: %" PRIu64 "\n"
		 "    name: \"calls_g\"\n  }\n}\n", r.first + 2, r.tid);
	if (!strstr(pc.out, want))
		FAIL("no\n%sin\n%s", want, pc.out);
	snprintf(want, sizeof(want), "  track_descriptor {\n    uuid: %" PRIu64
		 "\n    name: \"thread %" PRIu64 " ", r.tid, r.tid);
	EXPECT_TRUE(strstr(pc.out, want) != NULL);
	harness_cmd_free(&pc);
	harness_cmd_free(&out);
	recorded_free(&r);
	free(sh);
	free(path);
}

/* speedscope's file, valid by the schema that speedscope's release ships. */
TEST(export, speedscope_matches_schema)
{
	static const char validate[] =
		"import json, sys, jsonschema\n"
		"jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))\n"
		"print(len(json.load(open(sys.argv[1]))['profiles']))\n";
	char *path = harness_path(harness_tmpdir(), "s.json");
	char *schema = harness_path(BTS_BUILD_DIR,
				    "share/btrace/speedscope/release/file-format-schema.json");
	char *argv[] = { "/usr/bin/python3", "-c", (char *)validate, path, schema, NULL };
	struct harness_cmd rec, out, py;
	char *btr = raw_record("threads-count", NULL, 0, &rec);
	FILE *f;

	ASSERT_EQ(harness_btrace(&out, TIMEOUT, "export", "--format", "speedscope",
				 btr, NULL), 0);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fwrite(out.out, 1, out.out_len, f);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(harness_run(argv, TIMEOUT, &py), 0);
	if (harness_exit_code(&py))
		FAIL("not speedscope's format: %s", py.err);
	/* One evented profile per thread: main and four workers. */
	EXPECT_STREQ(py.out, "5\n");
	harness_cmd_free(&py);
	harness_cmd_free(&out);
	harness_cmd_free(&rec);
	free(btr);
	free(schema);
	free(path);
}

/* Bad command lines and files: a message and the usual codes. */
TEST(export, bad_input)
{
	struct harness_cmd c;

	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "export", "--format", "svg",
				 "x.btr", NULL), 2);
	EXPECT_TRUE(strstr(c.err, "svg") != NULL);
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "export", "x.btr", NULL), 2);
	EXPECT_TRUE(strstr(c.err, "--format") != NULL);
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "export", "--format", "folded",
				 "/nonexistent.btr", NULL), 1);
	EXPECT_STREQ(c.out, "");
	harness_cmd_free(&c);
}
