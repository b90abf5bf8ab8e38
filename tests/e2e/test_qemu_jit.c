// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The qemu-user source on code made at run time (a JIT's): static-qjit
 * writes a function into anonymous memory, calls it, rewrites it in place
 * and calls it again.  The records into and inside that code are exact,
 * the trace carries the copy of its bytes QEMU ran (the last version:
 * the rewritten one), and a code-changed marker comes right after the
 * record into the rewritten code, so that the first version's run is
 * shown as rewritten code, never decoded with the later bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bts.h>

#include "harness.h"
#include "raw_dump.h"

static const char *const QEMU[] = { "--source", "qemu-user", NULL };

/* The code copy at @addr of @t's process: @len bytes of it, or NULL. */
static const uint8_t *copy_at(const struct bts_trace *t, uint64_t addr,
			      size_t len)
{
	const struct bts_code *code;
	size_t n = bts_trace_code(t, bts_trace_process(t, 0)->pid, &code);

	for (size_t i = 0; i < n; i++)
		if (addr >= code[i].addr && addr + len <= code[i].addr + code[i].len)
			return code[i].bytes + (addr - code[i].addr);
	return NULL;
}

/* @insns has the line of the instruction at @addr, @text. */
static void expect_insn(const char *insns, uint64_t addr, const char *text)
{
	char line[128];

	snprintf(line, sizeof(line), "   0x%016" PRIx64 ":\t%s\n", addr, text);
	if (!strstr(insns, line))
		FAIL("dump --insns has no \"%s\":\n%s", line, insns);
}

TEST(qemu_jit, records_copies_and_the_rewrite)
{
	static const uint8_t v2[] = { 0xb8, 2, 0, 0, 0, 0xc3 };
	static const struct raw_pair want[] = {
		{ "qj_call1", "jit" },		/* call *%rbx */
		{ "jit_jmp", "jit_ret" },	/* jmp +1 over the nop */
		{ "jit_ret", "after1" },
		{ "qj_call2", "jit" },		/* the rewritten code */
		{ "jit_ret2", "after2" },
	};
	char *prog = PROG_PATH("static-qjit"), *btr, *insns, line[128];
	const struct raw_thread *t;
	struct harness_cmd cmd;
	struct bts_trace *tr = NULL;
	const uint8_t *bytes;
	struct raw_labels l;
	struct raw_dump d;
	size_t ti = 0;
	uint64_t jit;

	btr = raw_record("static-qjit", QEMU, 3, &cmd);
	raw_dump_load(btr, &d);
	t = raw_only_thread(&d, &ti);
	ASSERT_EQ(t->n, 5u);
	jit = t->recs[0].to;
	raw_labels_from_elf(prog, &l);
	raw_labels_add(&l, "jit", jit);
	raw_labels_add(&l, "jit_jmp", jit + 5);
	raw_labels_add(&l, "jit_ret", jit + 8);
	raw_labels_add(&l, "jit_ret2", jit + 5);
	raw_labels_add(&l, "after1", raw_label(&l, "qj_call1") + 2);
	raw_labels_add(&l, "after2", raw_label(&l, "qj_call2") + 2);
	raw_expect_seq("static-qjit", &l, t->recs, t->n, want, 5);
	/* One marker: after the call into the rewritten code. */
	ASSERT_EQ(t->nmarkers, 1u);
	EXPECT_STREQ(t->markers[0], "gap code-changed");
	EXPECT_EQ(t->marker_pos[0], 4u);
	/* The copy is of the last version; the first one's ret stays. */
	ASSERT_EQ(bts_trace_new(btr, &tr), 0);
	bytes = copy_at(tr, jit, sizeof(v2));
	ASSERT_TRUE(bytes != NULL);
	EXPECT_EQ(memcmp(bytes, v2, sizeof(v2)), 0);
	bytes = copy_at(tr, jit + 8, 1);
	ASSERT_TRUE(bytes != NULL);
	EXPECT_EQ(bytes[0], 0xc3);
	bts_trace_free(tr);
	/* dump --insns: the first run is rewritten code, the second decoded. */
	insns = raw_dump_view(btr, "--insns");
	snprintf(line, sizeof(line), "[decode error (9): code at 0x%" PRIx64
		 " rewritten later: the trace holds only its last version]\n", jit);
	EXPECT_TRUE(strstr(insns, line) != NULL);
	expect_insn(insns, jit + 8, "ret");
	expect_insn(insns, jit, "mov    $0x2,%eax");
	expect_insn(insns, jit + 5, "ret");
	EXPECT_TRUE(strstr(insns, "$0x1,%eax") == NULL);
	free(insns);
	raw_dump_free(&d);
	raw_labels_free(&l);
	harness_cmd_free(&cmd);
	free(btr);
	free(prog);
}
