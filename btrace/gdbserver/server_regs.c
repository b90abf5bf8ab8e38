// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The register block of 'g' as gdb 13 lays it out for x86-64 GNU/Linux
 * when the stub sends no target.xml: 60 registers, 560 bytes, little-endian
 * (gdb-remote-btrace.md, section 3).  General registers come from
 * PTRACE_GETREGS, the x87 and SSE ones from the FXSAVE area.
 */
#include <stddef.h>
#include <string.h>

#include "server.h"

/* Sizes of registers 0..59 in order; offsets are their running sums. */
static const uint8_t reg_size[GDB_NREGS] = {
	8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,	/* rax .. r15 */
	8, 4,						/* rip, eflags */
	4, 4, 4, 4, 4, 4,				/* cs ss ds es fs gs */
	10, 10, 10, 10, 10, 10, 10, 10,			/* st0 .. st7 */
	4, 4, 4, 4, 4, 4, 4, 4,				/* fctrl .. fop */
	16, 16, 16, 16, 16, 16, 16, 16,
	16, 16, 16, 16, 16, 16, 16, 16,			/* xmm0 .. xmm15 */
	4,						/* mxcsr */
	8, 8, 8,					/* orig_rax, fs_base, gs_base */
};

enum { R_RIP = 16, R_EFLAGS, R_CS, R_ST0 = 24, R_FCTRL = 32, R_XMM0 = 40,
       R_MXCSR = 56, R_ORIG_RAX, R_FS_BASE, R_GS_BASE };

/* The FXSAVE area (Intel SDM vol. 1, table 10-2), 64-bit form. */
struct fxsave {
	uint16_t fcw, fsw;
	uint8_t ftw, pad1;
	uint16_t fop;
	uint64_t fip, fdp;
	uint32_t mxcsr, mxcsr_mask;
	uint8_t st[8][16];
	uint8_t xmm[16][16];
	uint8_t pad[96];
};

bool gdb_reg_slot(unsigned int regno, size_t *off, size_t *size)
{
	size_t o = 0;
	unsigned int i;

	if (regno >= GDB_NREGS)
		return false;
	for (i = 0; i < regno; i++)
		o += reg_size[i];
	*off = o;
	*size = reg_size[regno];
	return true;
}

static uint8_t *slot(uint8_t *block, unsigned int regno)
{
	size_t off, size;

	gdb_reg_slot(regno, &off, &size);
	return block + off;
}

static void put(uint8_t *block, unsigned int regno, uint64_t v)
{
	size_t off, size;

	gdb_reg_slot(regno, &off, &size);
	memcpy(block + off, &v, size < 8 ? size : 8);	/* little-endian host */
}

static uint64_t get(const uint8_t *block, unsigned int regno)
{
	uint64_t v = 0;
	size_t off, size;

	gdb_reg_slot(regno, &off, &size);
	memcpy(&v, block + off, size < 8 ? size : 8);
	return v;
}

/* The general registers in gdb's order, as fields of struct bts_regs. */
static const size_t gpr_field[16] = {
	offsetof(struct bts_regs, rax), offsetof(struct bts_regs, rbx),
	offsetof(struct bts_regs, rcx), offsetof(struct bts_regs, rdx),
	offsetof(struct bts_regs, rsi), offsetof(struct bts_regs, rdi),
	offsetof(struct bts_regs, rbp), offsetof(struct bts_regs, rsp),
	offsetof(struct bts_regs, r8), offsetof(struct bts_regs, r9),
	offsetof(struct bts_regs, r10), offsetof(struct bts_regs, r11),
	offsetof(struct bts_regs, r12), offsetof(struct bts_regs, r13),
	offsetof(struct bts_regs, r14), offsetof(struct bts_regs, r15),
};

static uint64_t *field(struct bts_regs *r, size_t off)
{
	return (uint64_t *)((char *)r + off);
}

/*
 * The full tag word gdb shows, from FXSAVE's abridged one (a bit per
 * register: empty or not) and each register's value.
 */
static uint16_t full_tag(const struct fxsave *fx)
{
	uint16_t tag = 0, top = (fx->fsw >> 11) & 7;
	int phys;

	for (phys = 0; phys < 8; phys++) {
		const uint8_t *st = fx->st[(phys - top) & 7];
		uint16_t exp = (uint16_t)(st[8] | (st[9] << 8)) & 0x7fff;
		uint64_t frac;
		int t;

		memcpy(&frac, st, 8);
		if (!(fx->ftw & (1 << phys)))
			t = 3;				/* empty */
		else if (exp == 0x7fff)
			t = 2;				/* special */
		else if (exp == 0)
			t = frac ? 2 : 1;		/* denormal, zero */
		else
			t = (frac >> 63) ? 0 : 2;	/* valid, unnormal */
		tag |= (uint16_t)(t << (2 * phys));
	}
	return tag;
}

static uint8_t abridged_tag(uint16_t tag)
{
	uint8_t t = 0;
	int i;

	for (i = 0; i < 8; i++)
		if (((tag >> (2 * i)) & 3) != 3)
			t |= (uint8_t)(1 << i);
	return t;
}

int gdb_regs_read(struct gdb_server *sv, pid_t tid, uint8_t out[GDB_REGS_SIZE])
{
	struct fxsave fx;
	struct bts_regs r;
	unsigned int i;

	_Static_assert(sizeof(fx) == BTS_FXSAVE_SIZE, "fxsave layout");
	if (!sv->c || bts_control_getregs(sv->c, tid, &r) ||
	    bts_control_getfpregs(sv->c, tid, &fx))
		return -1;
	memset(out, 0, GDB_REGS_SIZE);
	for (i = 0; i < 16; i++)
		put(out, i, *field(&r, gpr_field[i]));
	put(out, R_RIP, r.rip);
	put(out, R_EFLAGS, r.eflags);
	put(out, R_CS, r.cs);
	put(out, R_CS + 1, r.ss);
	put(out, R_CS + 2, r.ds);
	put(out, R_CS + 3, r.es);
	put(out, R_CS + 4, r.fs);
	put(out, R_CS + 5, r.gs);
	for (i = 0; i < 8; i++)
		memcpy(slot(out, R_ST0 + i), fx.st[i], 10);
	put(out, R_FCTRL, fx.fcw);
	put(out, R_FCTRL + 1, fx.fsw);
	put(out, R_FCTRL + 2, full_tag(&fx));
	put(out, R_FCTRL + 3, fx.fip >> 32);		/* fiseg */
	put(out, R_FCTRL + 4, fx.fip & 0xffffffff);	/* fioff */
	put(out, R_FCTRL + 5, fx.fdp >> 32);		/* foseg */
	put(out, R_FCTRL + 6, fx.fdp & 0xffffffff);	/* fooff */
	put(out, R_FCTRL + 7, fx.fop);
	for (i = 0; i < 16; i++)
		memcpy(slot(out, R_XMM0 + i), fx.xmm[i], 16);
	put(out, R_MXCSR, fx.mxcsr);
	put(out, R_ORIG_RAX, r.orig_rax);
	put(out, R_FS_BASE, r.fs_base);
	put(out, R_GS_BASE, r.gs_base);
	return 0;
}

int gdb_regs_write(struct gdb_server *sv, pid_t tid,
		   const uint8_t in[GDB_REGS_SIZE])
{
	struct fxsave fx, oldfx;
	struct bts_regs r, old;
	unsigned int i;

	if (!sv->c || bts_control_getregs(sv->c, tid, &r) ||
	    bts_control_getfpregs(sv->c, tid, &fx))
		return -1;
	old = r;
	oldfx = fx;
	for (i = 0; i < 16; i++)
		*field(&r, gpr_field[i]) = get(in, i);
	r.rip = get(in, R_RIP);
	r.eflags = get(in, R_EFLAGS);
	/* Segment selectors and bases stay: gdb has no business moving them. */
	r.orig_rax = get(in, R_ORIG_RAX);
	for (i = 0; i < 8; i++)
		memcpy(fx.st[i], slot((uint8_t *)in, R_ST0 + i), 10);
	fx.fcw = (uint16_t)get(in, R_FCTRL);
	fx.fsw = (uint16_t)get(in, R_FCTRL + 1);
	fx.ftw = abridged_tag((uint16_t)get(in, R_FCTRL + 2));
	fx.fop = (uint16_t)get(in, R_FCTRL + 7);
	for (i = 0; i < 16; i++)
		memcpy(fx.xmm[i], slot((uint8_t *)in, R_XMM0 + i), 16);
	fx.mxcsr = (uint32_t)get(in, R_MXCSR);
	if (memcmp(&r, &old, sizeof(r)) &&
	    bts_control_setregs(sv->c, tid, &r))
		return -1;
	if (memcmp(&fx, &oldfx, sizeof(fx)) &&
	    bts_control_setfpregs(sv->c, tid, &fx))
		return -1;
	return 0;
}
