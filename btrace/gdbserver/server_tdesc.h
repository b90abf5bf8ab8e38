/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The register layouts the stub serves, amd64 or i386 by the program's ELF
 * class, and the target description (qXfer:features:read:target.xml) that
 * tells gdb about them.  One table per layout feeds both the g/p/G/P
 * blocks (server_regs.c) and the XML (server_tdesc.c), so the register
 * numbers gdb reads in the XML are the ones the packets use.
 */
#ifndef BTRACE_GDB_SERVER_TDESC_H
#define BTRACE_GDB_SERVER_TDESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gdb_server;
struct strbuf;

/* Where a register's value lives, and how a write goes back. */
enum gdb_reg_src {
	GDB_SRC_GPR,		/* struct bts_regs field at byte @arg */
	GDB_SRC_SEG,		/* the same, read-only (selectors, bases) */
	GDB_SRC_ORIG,		/* orig_rax: a 32-bit write is sign-extended */
	GDB_SRC_ST,		/* x87 st(@arg), FXSAVE */
	GDB_SRC_FPC,		/* x87 control @arg: fctrl fstat ftag fiseg
				 * fioff foseg fooff fop */
	GDB_SRC_XMM,		/* xmm@arg */
	GDB_SRC_MXCSR,
};

/* The features of gdb's x86 descriptions (gdb/features/i386). */
enum gdb_feature {
	GDB_FEAT_CORE,		/* org.gnu.gdb.i386.core */
	GDB_FEAT_SSE,		/* org.gnu.gdb.i386.sse */
	GDB_FEAT_LINUX,		/* org.gnu.gdb.i386.linux */
	GDB_FEAT_SEGMENTS,	/* org.gnu.gdb.i386.segments (amd64 only) */
	GDB_NFEATURES,
};

struct gdb_reg {
	const char *name;
	uint8_t size;		/* bytes in the g block */
	uint8_t feature;	/* &enum gdb_feature */
	uint8_t src;		/* &enum gdb_reg_src */
	uint16_t arg;
	const char *type;	/* gdb's type name in the XML */
	const char *group;	/* NULL: gdb's default group */
};

struct gdb_layout {
	const char *arch;		/* <architecture> */
	const struct gdb_reg *regs;	/* in register number order */
	unsigned int nregs;
	unsigned int expedite[3];	/* frame, stack and pc registers */
};

/* The largest g block of all layouts (amd64: 560 bytes). */
#define GDB_REGS_MAX 560

/* The layout of @sv's program: i386 for a 32-bit ELF, else amd64. */
const struct gdb_layout *gdb_layout(struct gdb_server *sv);
/* 32 when the program's executable is a 32-bit ELF file, else 64. */
int gdb_program_bits(struct gdb_server *sv);
/* Offset and size of register @regno in @l's block; false: it has none. */
bool gdb_layout_slot(const struct gdb_layout *l, unsigned int regno,
		    size_t *off, size_t *size);
/* Bytes of @l's whole g block. */
size_t gdb_layout_size(const struct gdb_layout *l);

/*
 * qXfer:features:read:@annex: target.xml of the program's layout into
 * @doc; -1 (an error reply, "E00", in @doc's place) for any other annex.
 */
int gdb_tdesc_doc(struct gdb_server *sv, const char *annex,
		  struct strbuf *doc);

#endif /* BTRACE_GDB_SERVER_TDESC_H */
