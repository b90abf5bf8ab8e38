// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The two register layouts (amd64, i386) and the target description gdb
 * reads with qXfer:features:read:target.xml.  Without the XML gdb guesses
 * the layout from the executable it loaded and, for an i386 program, takes
 * registers the stub does not send; with it, gdb uses exactly the
 * registers below, numbered in this order, and knows the architecture
 * without `set architecture`.
 *
 * The names, types and features are those of gdb's own x86 GNU/Linux
 * descriptions (the core, sse and linux features; segments on amd64), so
 * that gdb's i386/amd64 code finds every register it looks for by name,
 * among them orig_rax/orig_eax, which its syscall-restart logic writes.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "server.h"
#include "server_tdesc.h"

#define GPR(n, f, sz, t) \
	{ n, sz, GDB_FEAT_CORE, GDB_SRC_GPR, offsetof(struct bts_regs, f), t, NULL }
#define SEG(n, f) \
	{ n, 4, GDB_FEAT_CORE, GDB_SRC_SEG, offsetof(struct bts_regs, f), \
	  "int32", NULL }
#define ST(i) { "st" #i, 10, GDB_FEAT_CORE, GDB_SRC_ST, i, "i387_ext", NULL }
#define FPC(n, i) { n, 4, GDB_FEAT_CORE, GDB_SRC_FPC, i, "int", "float" }
#define XMM(i) { "xmm" #i, 16, GDB_FEAT_SSE, GDB_SRC_XMM, i, "vec128", NULL }
#define MXCSR \
	{ "mxcsr", 4, GDB_FEAT_SSE, GDB_SRC_MXCSR, 0, "i386_mxcsr", "vector" }

#define X87_REGS							\
	ST(0), ST(1), ST(2), ST(3), ST(4), ST(5), ST(6), ST(7),		\
	FPC("fctrl", 0), FPC("fstat", 1), FPC("ftag", 2), FPC("fiseg", 3), \
	FPC("fioff", 4), FPC("foseg", 5), FPC("fooff", 6), FPC("fop", 7)
#define SEG_REGS							\
	SEG("cs", cs), SEG("ss", ss), SEG("ds", ds), SEG("es", es),	\
	SEG("fs", fs), SEG("gs", gs)

/* gdb's amd64 GNU/Linux numbering: 60 registers, 560 bytes. */
static const struct gdb_reg amd64_regs[] = {
	GPR("rax", rax, 8, "int64"), GPR("rbx", rbx, 8, "int64"),
	GPR("rcx", rcx, 8, "int64"), GPR("rdx", rdx, 8, "int64"),
	GPR("rsi", rsi, 8, "int64"), GPR("rdi", rdi, 8, "int64"),
	GPR("rbp", rbp, 8, "data_ptr"), GPR("rsp", rsp, 8, "data_ptr"),
	GPR("r8", r8, 8, "int64"), GPR("r9", r9, 8, "int64"),
	GPR("r10", r10, 8, "int64"), GPR("r11", r11, 8, "int64"),
	GPR("r12", r12, 8, "int64"), GPR("r13", r13, 8, "int64"),
	GPR("r14", r14, 8, "int64"), GPR("r15", r15, 8, "int64"),
	GPR("rip", rip, 8, "code_ptr"), GPR("eflags", eflags, 4, "i386_eflags"),
	SEG_REGS,
	X87_REGS,
	XMM(0), XMM(1), XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7),
	XMM(8), XMM(9), XMM(10), XMM(11), XMM(12), XMM(13), XMM(14), XMM(15),
	MXCSR,
	{ "orig_rax", 8, GDB_FEAT_LINUX, GDB_SRC_ORIG,
	  offsetof(struct bts_regs, orig_rax), "int", NULL },
	{ "fs_base", 8, GDB_FEAT_SEGMENTS, GDB_SRC_SEG,
	  offsetof(struct bts_regs, fs_base), "int", NULL },
	{ "gs_base", 8, GDB_FEAT_SEGMENTS, GDB_SRC_SEG,
	  offsetof(struct bts_regs, gs_base), "int", NULL },
};

/*
 * gdb's i386 GNU/Linux numbering: 42 registers, 312 bytes.  The 32-bit
 * registers are the low halves of the 64-bit ones PTRACE_GETREGS gives for
 * a 32-bit program on the 64-bit kernel (eip in rip, orig_eax in orig_rax).
 */
static const struct gdb_reg i386_regs[] = {
	GPR("eax", rax, 4, "int32"), GPR("ecx", rcx, 4, "int32"),
	GPR("edx", rdx, 4, "int32"), GPR("ebx", rbx, 4, "int32"),
	GPR("esp", rsp, 4, "data_ptr"), GPR("ebp", rbp, 4, "data_ptr"),
	GPR("esi", rsi, 4, "int32"), GPR("edi", rdi, 4, "int32"),
	GPR("eip", rip, 4, "code_ptr"), GPR("eflags", eflags, 4, "i386_eflags"),
	SEG_REGS,
	X87_REGS,
	XMM(0), XMM(1), XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7),
	MXCSR,
	{ "orig_eax", 4, GDB_FEAT_LINUX, GDB_SRC_ORIG,
	  offsetof(struct bts_regs, orig_rax), "int", NULL },
};

#define NREGS(a) (sizeof(a) / sizeof((a)[0]))

static const struct gdb_layout amd64_layout = {
	.arch = "i386:x86-64", .regs = amd64_regs, .nregs = NREGS(amd64_regs),
	.expedite = { 6, 7, 16 },		/* rbp, rsp, rip */
};

static const struct gdb_layout i386_layout = {
	.arch = "i386", .regs = i386_regs, .nregs = NREGS(i386_regs),
	.expedite = { 5, 4, 8 },		/* ebp, esp, eip */
};

int gdb_program_bits(struct gdb_server *sv)
{
	unsigned char id[EI_NIDENT];
	char path[64];
	ssize_t n;
	int fd;

	if (sv->tr)
		return gdb_trace_bits(sv->tr);
	if (!sv->c)
		return 64;
	/* The image running now: after an exec, the new one. */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)bts_control_pid(sv->c));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 64;
	n = read(fd, id, sizeof(id));
	close(fd);
	if (n != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		return 64;
	return id[EI_CLASS] == ELFCLASS32 ? 32 : 64;
}

const struct gdb_layout *gdb_layout(struct gdb_server *sv)
{
	return gdb_program_bits(sv) == 32 ? &i386_layout : &amd64_layout;
}

bool gdb_layout_slot(const struct gdb_layout *l, unsigned int regno,
		     size_t *off, size_t *size)
{
	size_t o = 0;
	unsigned int i;

	if (regno >= l->nregs)
		return false;
	for (i = 0; i < regno; i++)
		o += l->regs[i].size;
	*off = o;
	*size = l->regs[regno].size;
	return true;
}

size_t gdb_layout_size(const struct gdb_layout *l)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < l->nregs; i++)
		n += l->regs[i].size;
	return n;
}

/* ------------------------------------------------------------------ XML */

struct bit {
	const char *name;
	unsigned int bit;
};

/* EFLAGS and MXCSR bits by name (Intel SDM vol. 1, 3.4.3 and 10.2.3). */
static const struct bit eflags_bits[] = {
	{ "CF", 0 }, { "PF", 2 }, { "AF", 4 }, { "ZF", 6 }, { "SF", 7 },
	{ "TF", 8 }, { "IF", 9 }, { "DF", 10 }, { "OF", 11 }, { "NT", 14 },
	{ "RF", 16 }, { "VM", 17 }, { "AC", 18 }, { "VIF", 19 }, { "VIP", 20 },
	{ "ID", 21 },
};

static const struct bit mxcsr_bits[] = {
	{ "IE", 0 }, { "DE", 1 }, { "ZE", 2 }, { "OE", 3 }, { "UE", 4 },
	{ "PE", 5 }, { "DAZ", 6 }, { "IM", 7 }, { "DM", 8 }, { "ZM", 9 },
	{ "OM", 10 }, { "UM", 11 }, { "PM", 12 }, { "FZ", 15 },
};

/* The views of an xmm register gdb offers (p $xmm0.v4_float). */
static const struct {
	const char *id, *field, *elem;
	unsigned int count;
} vec128_views[] = {
	{ "v8bf16", "v8_bfloat16", "bfloat16", 8 },
	{ "v8h", "v8_half", "ieee_half", 8 },
	{ "v4f", "v4_float", "ieee_single", 4 },
	{ "v2d", "v2_double", "ieee_double", 2 },
	{ "v16i8", "v16_int8", "int8", 16 },
	{ "v8i16", "v8_int16", "int16", 8 },
	{ "v4i32", "v4_int32", "int32", 4 },
	{ "v2i64", "v2_int64", "int64", 2 },
};

static const char *const feature_names[GDB_NFEATURES] = {
	"org.gnu.gdb.i386.core", "org.gnu.gdb.i386.sse",
	"org.gnu.gdb.i386.linux", "org.gnu.gdb.i386.segments",
};

static void flags(struct strbuf *doc, const char *id, const struct bit *b,
		  size_t n)
{
	size_t i;

	sb_printf(doc, "<flags id=\"%s\" size=\"4\">\n", id);
	for (i = 0; i < n; i++)
		sb_printf(doc, "<field name=\"%s\" start=\"%u\" end=\"%u\"/>\n",
			  b[i].name, b[i].bit, b[i].bit);
	sb_puts(doc, "</flags>\n");
}

static void vec128(struct strbuf *doc)
{
	size_t i, n = sizeof(vec128_views) / sizeof(vec128_views[0]);

	for (i = 0; i < n; i++)
		sb_printf(doc, "<vector id=\"%s\" type=\"%s\" count=\"%u\"/>\n",
			  vec128_views[i].id, vec128_views[i].elem,
			  vec128_views[i].count);
	sb_puts(doc, "<union id=\"vec128\">\n");
	for (i = 0; i < n; i++)
		sb_printf(doc, "<field name=\"%s\" type=\"%s\"/>\n",
			  vec128_views[i].field, vec128_views[i].id);
	sb_puts(doc, "<field name=\"uint128\" type=\"uint128\"/>\n</union>\n");
}

/* The types a feature's registers use, before its registers (the DTD). */
static void feature_types(struct strbuf *doc, int feature)
{
	if (feature == GDB_FEAT_CORE)
		flags(doc, "i386_eflags", eflags_bits, NREGS(eflags_bits));
	if (feature == GDB_FEAT_SSE) {
		vec128(doc);
		flags(doc, "i386_mxcsr", mxcsr_bits, NREGS(mxcsr_bits));
	}
}

static void feature(struct strbuf *doc, const struct gdb_layout *l, int f)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < l->nregs; i++) {
		const struct gdb_reg *r = &l->regs[i];

		if (r->feature != f)
			continue;
		if (!any) {
			sb_printf(doc, "<feature name=\"%s\">\n", feature_names[f]);
			feature_types(doc, f);
			any = true;
		}
		sb_printf(doc, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" "
			  "regnum=\"%u\"", r->name, 8u * r->size, r->type, i);
		if (r->group)
			sb_printf(doc, " group=\"%s\"", r->group);
		sb_puts(doc, "/>\n");
	}
	if (any)
		sb_puts(doc, "</feature>\n");
}

int gdb_tdesc_doc(struct gdb_server *sv, const char *annex,
		  struct strbuf *doc)
{
	const struct gdb_layout *l = gdb_layout(sv);
	int f;

	if (strcmp(annex, "target.xml")) {
		sb_puts(doc, "E00");
		return -1;
	}
	sb_printf(doc, "<?xml version=\"1.0\"?>\n"
		  "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
		  "<target version=\"1.0\">\n"
		  "<architecture>%s</architecture>\n"
		  "<osabi>GNU/Linux</osabi>\n", l->arch);
	for (f = 0; f < GDB_NFEATURES; f++)
		feature(doc, l, f);
	sb_puts(doc, "</target>\n");
	return 0;
}
