// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdb 13 against `btrace gdbserver` serving 32-bit programs
 * (tests/progs/i386-gdb-seq.S, i386-gdb-sig.S, i386-libc) on the 64-bit
 * kernel: the stub's target.xml makes gdb take the i386 layout by itself,
 * registers read and write, and record btrace bts gives the exact 32-bit
 * history (across a signal too), reverse stepping and record goto.  Also
 * the amd64 target.xml of a 64-bit program (tests/progs/gdb-seq), with
 * which the 64-bit tests run.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"

/* The entry point of program @prog, read from its ELF header. */
static unsigned long elf32_entry(const char *prog)
{
	char *path = PROG_PATH(prog);
	FILE *f = fopen(path, "rb");
	Elf32_Ehdr eh;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1)
		FAIL("cannot read %s", path);
	fclose(f);
	free(path);
	ASSERT_EQ(eh.e_ident[EI_CLASS], ELFCLASS32);
	return eh.e_entry;
}

/*
 * gdb's register table from `maint print remote-registers` (between
 * @@begin/@@end NAME) as "name:remote number:g offset ...", in remote
 * number order: the layout gdb took from the stub's target.xml.
 */
static char *remote_layout(const struct harness_cmd *cmd, const char *name)
{
	char *text = gdb_section(cmd, name), *line, *save, *rows[128] = { 0 };
	char reg[32], type[64], *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int nr, rel, off, size, rmt, goff, i;
	bool first = true;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, " %31s %d %d %d %d %63s %d %d", reg, &nr, &rel,
			   &off, &size, type, &rmt, &goff) == 8 &&
		    rmt >= 0 && rmt < 128 &&
		    asprintf(&rows[rmt], "%s:%d:%d", reg, rmt, goff) < 0)
			FAIL("out of memory");
	for (i = 0; i < 128; i++) {
		if (rows[i])
			fprintf(f, "%s%s", first ? "" : " ", rows[i]);
		first = first && !rows[i];
		free(rows[i]);
	}
	fclose(f);
	free(text);
	return out;
}

/* The same from a list of "name:size" (sizes in bytes), numbered from 0. */
static char *want_layout(const char *const *regs)
{
	char *out = NULL, name[32];
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int i, size, off = 0;

	for (i = 0; regs[i]; i++) {
		if (sscanf(regs[i], "%31[^:]:%d", name, &size) != 2)
			FAIL("bad register spec %s", regs[i]);
		fprintf(f, "%s%s:%d:%d", i ? " " : "", name, i, off);
		off += size;
	}
	fclose(f);
	return out;
}

#define X87 "st0:10", "st1:10", "st2:10", "st3:10", "st4:10", "st5:10",	\
	"st6:10", "st7:10", "fctrl:4", "fstat:4", "ftag:4", "fiseg:4",	\
	"fioff:4", "foseg:4", "fooff:4", "fop:4"
#define SEGS "cs:4", "ss:4", "ds:4", "es:4", "fs:4", "gs:4"
#define XMM0_7 "xmm0:16", "xmm1:16", "xmm2:16", "xmm3:16", "xmm4:16",	\
	"xmm5:16", "xmm6:16", "xmm7:16"

/* gdb's i386 and amd64 GNU/Linux register numbering (gdb/features/i386). */
static const char *const i386_regs[] = {
	"eax:4", "ecx:4", "edx:4", "ebx:4", "esp:4", "ebp:4", "esi:4", "edi:4",
	"eip:4", "eflags:4", SEGS, X87, XMM0_7, "mxcsr:4", "orig_eax:4", NULL,
};

static const char *const amd64_regs[] = {
	"rax:8", "rbx:8", "rcx:8", "rdx:8", "rsi:8", "rdi:8", "rbp:8", "rsp:8",
	"r8:8", "r9:8", "r10:8", "r11:8", "r12:8", "r13:8", "r14:8", "r15:8",
	"rip:8", "eflags:4", SEGS, X87, XMM0_7,
	"xmm8:16", "xmm9:16", "xmm10:16", "xmm11:16", "xmm12:16", "xmm13:16",
	"xmm14:16", "xmm15:16", "mxcsr:4", "orig_rax:8", "fs_base:8",
	"gs_base:8", NULL,
};

#define SECTION(name, ...) "echo @@begin " name "\\n", __VA_ARGS__,	\
	"echo @@end " name "\\n"

/* `info record` (in section "info") after a recording of @insns, no gap. */
static void expect_info_record(const struct harness_cmd *cmd,
			       unsigned int insns, unsigned int funcs)
{
	char *info = gdb_section(cmd, "info"), *want;

	if (asprintf(&want, "Active record target: record-btrace\n"
		     "Recording format: Branch Trace Store.\n"
		     "Buffer size: 64kB.\n"
		     "Recorded %u instructions in %u functions (0 gaps) "
		     "for thread 1 (Thread ", insns, funcs) < 0)
		FAIL("out of memory");
	if (strncmp(info, want, strlen(want)))
		FAIL("info record:\n%s", info);
	free(want);
	free(info);
}

/*
 * gdb took architecture @arch and the register layout @regs from the
 * stub (sections "arch" and "rmt"), and the target.xml gdb's `maint
 * packet` read begins as it must.
 */
static void expect_tdesc(const struct harness_cmd *cmd, const char *arch,
			 const char *const *regs)
{
	char *got = gdb_section(cmd, "arch"), *want;

	if (asprintf(&want, "The target architecture is set to \"auto\" "
		     "(currently \"%s\").\n", arch) < 0)
		FAIL("out of memory");
	EXPECT_STREQ(got, want);
	free(got);
	free(want);
	got = remote_layout(cmd, "rmt");
	want = want_layout(regs);
	EXPECT_STREQ(got, want);
	free(got);
	free(want);
	if (asprintf(&want, "received: \"l<?xml version=\"1.0\"?>\\x0a"
		     "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\\x0a"
		     "<target version=\"1.0\">\\x0a"
		     "<architecture>%s</architecture>\\x0a"
		     "<osabi>GNU/Linux</osabi>\\x0a"
		     "<feature name=\"org.gnu.gdb.i386.core\">\\x0a", arch) < 0)
		FAIL("out of memory");
	gdb_expect_out(cmd, want);
	free(want);
}

/*
 * No `set architecture`: gdb takes i386 and the stub's layout from
 * target.xml; eip is the entry point; written registers read back (the
 * 32-bit values into their 64-bit fields), and the program still runs.
 */
TEST(gdb_i386, target_xml_and_registers)
{
	REQUIRE_I386();
	static const char *const cmds[] = {
		SECTION("arch", "show architecture"),
		SECTION("eip", "info registers eip"),
		SECTION("rmt", "maint print remote-registers"),
		"maint packet qXfer:features:read:target.xml:0,3fff",
		"maint packet qXfer:features:read:other.xml:0,3fff",
		"maint packet ?", "maint packet p8", "maint packet p2a",
		"stepi", "set $ecx = 0x12345678", "set $eax = -2", "stepi",
		SECTION("regs", "p/x $ecx", "p $eax", "p $eip == &seq_run + 1",
			"p $orig_eax"),
		"continue",
		NULL,
	};
	struct harness_cmd cmd;
	char *eip, *regs, line[160], hex[32];
	unsigned long entry = elf32_entry("i386-gdb-seq");

	gdb_run(&cmd, "i386-gdb-seq", NULL, cmds);
	expect_tdesc(&cmd, "i386", i386_regs);
	eip = gdb_section(&cmd, "eip");
	snprintf(hex, sizeof(hex), "%#lx", entry);
	snprintf(line, sizeof(line), "%-15s%-20s%s <_start>\n", "eip", hex, hex);
	EXPECT_STREQ(eip, line);
	gdb_expect_out(&cmd, "<feature name=\"org.gnu.gdb.i386.linux\">\\x0a"
		"<reg name=\"orig_eax\" bitsize=\"32\" type=\"int\" regnum=\"41\"/>"
		"\\x0a</feature>\\x0a</target>\\x0a\"\n");
	gdb_expect_out(&cmd, "sending: qXfer:features:read:other.xml:0,3fff\n"
			     "received: \"E00\"\n");
	/* The stop reply expedites ebp, esp and eip; p takes i386 numbers. */
	gdb_expect_out(&cmd, "sending: ?\nreceived: \"T0505:00000000;04:");
	snprintf(hex, sizeof(hex), "%02lx%02lx%02lx%02lx", entry & 0xff,
		 (entry >> 8) & 0xff, (entry >> 16) & 0xff, entry >> 24);
	snprintf(line, sizeof(line), ";08:%s;thread:", hex);
	gdb_expect_out(&cmd, line);
	snprintf(line, sizeof(line), "sending: p8\nreceived: \"%s\"\n", hex);
	gdb_expect_out(&cmd, line);
	gdb_expect_out(&cmd, "sending: p2a\nreceived: \"E01\"\n");
	regs = gdb_section(&cmd, "regs");
	/*
	 * Written in seq_run (not at the exec stop, where execve's return
	 * still overwrites eax), read back after push %ebp; orig_eax -1: no
	 * syscall.
	 */
	EXPECT_STREQ(regs, "$1 = 0x12345678\n$2 = -2\n$3 = 1\n$4 = -1\n");
	gdb_expect_exit(&cmd, "exited with code 03");
	free(eip);
	free(regs);
	harness_cmd_free(&cmd);
}

/* Offsets from seq_run of the 21 instructions, and their sizes. */
static const char seq_insns[] =
	"1:0:1 2:1:2 3:3:5 4:8:2 "
	"5:10:5 6:25:3 7:28:1 8:15:1 9:16:2 "
	"10:10:5 11:25:3 12:28:1 13:15:1 14:16:2 "
	"15:10:5 16:25:3 17:28:1 18:15:1 19:16:2 "
	"20:18:1 21:19:5\n";

#define PY_SEQ_RUN "int(gdb.parse_and_eval('(long)&seq_run'))"

TEST(gdb_i386, seq_history)
{
	REQUIRE_I386();
	static const char *const cmds[] = {
		"break seq_run", "continue", "record btrace bts",
		"break seq_done", "continue",
		SECTION("info", "info record"),
		"python r = gdb.current_recording(); b = " PY_SEQ_RUN "; "
		"print('@@begin py'); print(r.method, r.format); "
		"print(' '.join('%d:%d:%d' % (i.number, i.pc - b, i.size) "
		"for i in r.instruction_history)); "
		"print(' '.join('%d:%d:%d-%d' % (f.number, f.level, "
		"f.instructions[0].number, f.instructions[-1].number) "
		"for f in r.function_call_history)); print('@@end py')",
		"python print('@@seq_run %#010x' % " PY_SEQ_RUN ")",
		SECTION("text", "record instruction-history 8,9"),
		NULL,
	};
	struct harness_cmd cmd;
	char *py, *text, *want;
	const char *p;
	unsigned long base;

	gdb_run(&cmd, "i386-gdb-seq", NULL, cmds);
	expect_info_record(&cmd, 21, 7);
	py = gdb_section(&cmd, "py");
	if (asprintf(&want, "btrace bts\n%s%s", seq_insns,
		     "1:0:1-5 2:1:6-7 3:0:8-10 4:1:11-12 5:0:13-15 6:1:16-17 "
		     "7:0:18-21\n") < 0)
		FAIL("out of memory");
	EXPECT_STREQ(py, want);
	free(want);
	/* dec %ecx is one 32-bit instruction (in 64-bit code a REX prefix). */
	p = strstr(cmd.out, "@@seq_run ");
	ASSERT_TRUE(p && sscanf(p, "@@seq_run %lx", &base) == 1);
	text = gdb_section(&cmd, "text");
	if (asprintf(&want, "8\t   0x%08lx <seq_run+15>:\tdec    %%ecx\n"
		     "9\t   0x%08lx <seq_run+16>:\tjne    0x%lx <seq_run+10>\n",
		     base + 15, base + 16, base + 10) < 0)
		FAIL("out of memory");
	EXPECT_STREQ(text, want);
	free(want);
	free(py);
	free(text);
	harness_cmd_free(&cmd);
}

TEST(gdb_i386, reverse_goto_exit)
{
	REQUIRE_I386();
	static const char *const cmds[] = {
		"break seq_run", "continue", "record btrace bts",
		"break seq_done", "continue",
		GDB_GOTO_WALK,
		"record stop", "delete", "continue",
		NULL,
	};
	static const char *const want[] = {
		"end 29",	/* live, at seq_done */
		"21 19",	/* call seq_done */
		"17 28",	/* seq_leaf's ret */
		"1 0", "3 3", "8 15", "end 29",
	};
	struct harness_cmd cmd;
	const char *p = NULL;
	char got[32];
	size_t i;

	gdb_run(&cmd, "i386-gdb-seq", NULL, cmds);
	p = cmd.out;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		p = strstr(p, "@@pos ");
		if (!p)
			FAIL("%zu positions of 7 in gdb's output:\n%s", i, cmd.out);
		p += 6;
		snprintf(got, sizeof(got), "%.*s", (int)strcspn(p, "\n"), p);
		EXPECT_STREQ(got, want[i]);
	}
	gdb_expect_exit(&cmd, "exited with code 03");
	harness_cmd_free(&cmd);
}

/*
 * A signal in 32-bit code: the handler and its restorer in the history,
 * no gap (the block before the signal is found by a 32-bit walk), and
 * reverse-stepi back across the sigreturn.
 */
TEST(gdb_i386, signal_history)
{
	REQUIRE_I386();
	static const char *const cmds[] = {
		"handle SIGUSR1 nostop noprint pass",
		"break sig_send", "continue", "record btrace bts",
		"break sig_done", "continue",
		SECTION("info", "info record"),
		"python r = gdb.current_recording(); print('@@begin py'); "
		"print(' '.join('%d:%s:%d' % (i.number, gdb.execute("
		"'info symbol %d' % i.pc, to_string=True).split(' in ')[0]"
		".replace(' ', ''), i.size) for i in r.instruction_history)); "
		"print('@@end py')",
		"reverse-stepi 3",
		SECTION("pos", "info symbol $pc"),
		"record stop", "delete", "continue",
		NULL,
	};
	struct harness_cmd cmd;
	char *py, *pos, *prog, want[512];

	gdb_run(&cmd, "i386-gdb-sig", NULL, cmds);
	expect_info_record(&cmd, 12, 4);
	py = gdb_section(&cmd, "py");
	EXPECT_STREQ(py, "1:sig_send:5 2:sig_send+5:2 3:sig_send+7:5 "
		"4:sig_send+12:1 5:sig_send+13:5 6:sig_send+18:2 "
		"7:handler:6 8:handler+6:1 9:restorer:5 10:restorer+5:2 "
		"11:sig_send+20:5 12:sig_send+25:5\n");
	pos = gdb_section(&cmd, "pos");
	/* gdb reads the maps through the stub and loads the vDSO too: with
	 * two objfiles, info symbol names the program's. */
	prog = PROG_PATH("i386-gdb-sig");
	snprintf(want, sizeof(want), "restorer + 5 in section .text of %s\n", prog);
	EXPECT_STREQ(pos, want);
	free(prog);
	gdb_expect_exit(&cmd, "exited with code 01");
	free(py);
	free(pos);
	harness_cmd_free(&cmd);
}

/*
 * A dynamic 32-bit program (oracle-libc.c built -m32): gdb finds the i386
 * libc through the stub (auxv, memory), and the history of
 * sort_numbers() (its newest 64 KiB of branches) runs through qsort, the
 * program's comparator and back without a gap.
 */
TEST(gdb_i386, libc_program_through_qsort)
{
	REQUIRE_I386();
	static const char *const cmds[] = {
		"break sort_numbers", "continue", "record btrace bts", "finish",
		SECTION("info", "info record"),
		"set record function-call-history-size unlimited",
		SECTION("calls", "record function-call-history 1"),
		NULL,
	};
	struct harness_cmd cmd;
	char *info, *calls;
	size_t n;

	gdb_run(&cmd, "i386-libc", NULL, cmds);
	gdb_expect_out(&cmd, "Value returned is $1 = 10414\n");
	info = gdb_section(&cmd, "info");
	if (!strstr(info, " functions (0 gaps) for thread 1 (Thread "))
		FAIL("info record:\n%s", info);
	calls = gdb_section(&cmd, "calls");
	/* The newest 64 KiB of branches: from within qsort, back to the end. */
	n = strlen(calls);
	if (n < 14 || strcmp(calls + n - 14, "\tsort_numbers\n") ||
	    !strstr(calls, "\tqsort\n") || !strstr(calls, "\tcmp_int\n") ||
	    !strstr(calls, "\tcheck_sorted\n"))
		FAIL("function-call-history:\n%s", calls);
	free(info);
	free(calls);
	harness_cmd_free(&cmd);
}

/*
 * A 64-bit program gets the amd64 target.xml, in the numbering the
 * 64-bit tests have always used, and recording and running work with it.
 */
TEST(gdb_tdesc, amd64_target_xml)
{
	REQUIRE_I386();
	static const char *const cmds[] = {
		SECTION("arch", "show architecture"),
		SECTION("rmt", "maint print remote-registers"),
		"maint packet qXfer:features:read:target.xml:0,3fff",
		"break seq_run", "continue", "record btrace bts",
		"break seq_done", "continue",
		SECTION("info", "info record"),
		"record stop", "delete", "continue",
		NULL,
	};
	struct harness_cmd cmd;

	gdb_run(&cmd, "gdb-seq", NULL, cmds);
	expect_tdesc(&cmd, "i386:x86-64", amd64_regs);
	gdb_expect_out(&cmd, "<feature name=\"org.gnu.gdb.i386.segments\">\\x0a"
		"<reg name=\"fs_base\" bitsize=\"64\" type=\"int\" regnum=\"58\"/>\\x0a"
		"<reg name=\"gs_base\" bitsize=\"64\" type=\"int\" regnum=\"59\"/>\\x0a"
		"</feature>\\x0a</target>\\x0a\"\n");
	expect_info_record(&cmd, 21, 7);
	gdb_expect_exit(&cmd, "exited with code 03");
	harness_cmd_free(&cmd);
}
