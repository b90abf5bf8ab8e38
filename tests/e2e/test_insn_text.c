// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dump --insns in gdb's words: each instruction of insn-forms's forms()
 * exactly as gdb 13.1 prints it with x/i, in AT&T (gdb's default) and in
 * Intel syntax ("set disassembly-flavor intel").  '@' in an expected line
 * stands for one run-time address (0x and hex digits).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btrace_run.h"

#define TIMEOUT 120

static const char *const att[] = {
	"forms+0>:\tpush   %rbp",
	"forms+1>:\tmov    %rsp,%rbp",
	"forms+4>:\tmovzbl (%rdi),%eax",
	"forms+7>:\tmovswq 0x2(%rdi),%rcx",
	"forms+12>:\tmovslq %esi,%rdx",
	"forms+15>:\tcmp    $0x5,%esi",
	"forms+18>:\tsetge  %al",
	"forms+21>:\tcmovae %ecx,%eax",
	"forms+24>:\tcltq",
	"forms+26>:\tnegl   0x4(%rdi)",
	"forms+29>:\tshr    %edx",
	"forms+31>:\tmovabs $0x1122334455667788,%r8",
	"forms+41>:\tlea    0x2e8c(%rip),%r9        # @ <forms_counter>",
	"forms+48>:\tnopw   0x0(%rax,%rax,1)",
	"forms+54>:\txchg   %ax,%ax",
	"forms+56>:\tcmp    $0x1,%esi",
	"forms+59>:\tjne    @ <forms+62>",
	"forms+61>:\tnop",
	"forms+62>:\tcall   @ <forms_helper>",
	"forms_helper+0>:\tret",
	"forms+67>:\tlea    0x5(%rip),%r10        # @ <forms_helper>",
	"forms+74>:\tcall   *%r10",
	"forms_helper+0>:\tret",
	"forms+77>:\tpop    %rbp",
	"forms+78>:\tret",
	NULL,
};

static const char *const intel[] = {
	"forms+0>:\tpush   rbp",
	"forms+1>:\tmov    rbp,rsp",
	"forms+4>:\tmovzx  eax,BYTE PTR [rdi]",
	"forms+7>:\tmovsx  rcx,WORD PTR [rdi+0x2]",
	"forms+12>:\tmovsxd rdx,esi",
	"forms+15>:\tcmp    esi,0x5",
	"forms+18>:\tsetge  al",
	"forms+21>:\tcmovae eax,ecx",
	"forms+24>:\tcdqe",
	"forms+26>:\tneg    DWORD PTR [rdi+0x4]",
	"forms+29>:\tshr    edx,1",
	"forms+31>:\tmovabs r8,0x1122334455667788",
	"forms+41>:\tlea    r9,[rip+0x2e8c]        # @ <forms_counter>",
	"forms+48>:\tnop    WORD PTR [rax+rax*1+0x0]",
	"forms+54>:\txchg   ax,ax",
	"forms+56>:\tcmp    esi,0x1",
	"forms+59>:\tjne    @ <forms+62>",
	"forms+61>:\tnop",
	"forms+62>:\tcall   @ <forms_helper>",
	"forms_helper+0>:\tret",
	"forms+67>:\tlea    r10,[rip+0x5]        # @ <forms_helper>",
	"forms+74>:\tcall   r10",
	"forms_helper+0>:\tret",
	"forms+77>:\tpop    rbp",
	"forms+78>:\tret",
	NULL,
};

/* @line (up to its newline) is @want, '@' matching 0x[0-9a-f]+. */
static bool matches(const char *line, const char *want)
{
	while (*want) {
		if (*want == '@') {
			if (strncmp(line, "0x", 2) || !isxdigit((unsigned char)line[2]))
				return false;
			for (line += 2; isxdigit((unsigned char)*line); line++)
				;
			want++;
			continue;
		}
		if (*line++ != *want++)
			return false;
	}
	return *line == '\n' || !*line;
}

static void expect_forms(const char *syntax, const char *const want[])
{
	char *prog = PROG_PATH("insn-forms");
	char *btr = harness_path(harness_tmpdir(), "forms.btr");
	struct harness_cmd c;
	const char *p;

	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "record", "-o", btr, "--", prog,
				 NULL), 0);
	harness_cmd_free(&c);
	ASSERT_EQ(harness_btrace(&c, TIMEOUT, "dump", "--insns", "--syntax",
				 syntax, btr, NULL), 0);
	p = strstr(c.out, " <forms+0>:");
	ASSERT_TRUE(p != NULL);
	for (size_t i = 0; want[i]; i++) {
		const char *nl = strchr(p, '\n');

		p += 2;		/* " <" */
		if (!matches(p, want[i]))
			FAIL("%s, line %zu: got \"%.*s\", expected \"%s\"", syntax,
			     i, (int)(nl ? nl - p : 80), p, want[i]);
		ASSERT_TRUE(nl != NULL);
		p = strchr(nl, '<');
		ASSERT_TRUE(p != NULL);
		p--;
	}
	harness_cmd_free(&c);
	free(btr);
	free(prog);
}

TEST(insn_text, att_as_gdb_prints_it)
{
	expect_forms("att", att);
}

TEST(insn_text, intel_as_gdb_prints_it)
{
	expect_forms("intel", intel);
}

TEST(insn_text, syntax_needs_insns_and_a_known_name)
{
	struct harness_cmd c;

	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "dump", "--syntax", "intel", "x.btr",
				 NULL), 2);
	EXPECT_STREQ(c.err, "btrace: dump: --raw-bytes, --source and --syntax go "
			    "with --insns\n");
	harness_cmd_free(&c);
	EXPECT_EQ(harness_btrace(&c, TIMEOUT, "dump", "--insns", "--syntax", "masm",
				 "x.btr", NULL), 2);
	EXPECT_STREQ(c.err, "btrace: dump: --syntax 'masm': unknown syntax (att or "
			    "intel)\n");
	harness_cmd_free(&c);
}
