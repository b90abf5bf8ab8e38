// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Registers for gdb: g, G, p, P and the registers a stop reply expedites,
 * in the program's layout (server_tdesc.c: amd64, or i386 for a 32-bit
 * program).  Values come from PTRACE_GETREGS (the 64-bit form, also for a
 * 32-bit program) and the FXSAVE area; a write puts each register back in
 * its 64-bit field.
 */
#include <stddef.h>
#include <string.h>

#include "server.h"
#include "server_tdesc.h"

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

static void error_reply(struct strbuf *reply)
{
	sb_puts(reply, "E01");
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

/* x87 control register @i: fctrl fstat ftag fiseg fioff foseg fooff fop. */
static uint32_t fpu_control(const struct fxsave *fx, unsigned int i)
{
	const uint32_t v[8] = {
		fx->fcw, fx->fsw, full_tag(fx),
		(uint32_t)(fx->fip >> 32), (uint32_t)fx->fip,	/* fiseg, fioff */
		(uint32_t)(fx->fdp >> 32), (uint32_t)fx->fdp,	/* foseg, fooff */
		fx->fop,
	};

	return v[i & 7];
}

static uint64_t *field(struct bts_regs *r, size_t off)
{
	return (uint64_t *)((char *)r + off);
}

static void reg_get(const struct gdb_reg *d, struct bts_regs *r,
		    const struct fxsave *fx, uint8_t *slot)
{
	uint32_t v;

	switch (d->src) {
	case GDB_SRC_GPR:
	case GDB_SRC_SEG:
	case GDB_SRC_ORIG:	/* the low half for a 32-bit register */
		memcpy(slot, field(r, d->arg), d->size);
		break;
	case GDB_SRC_ST:
		memcpy(slot, fx->st[d->arg], 10);
		break;
	case GDB_SRC_FPC:
		v = fpu_control(fx, d->arg);
		memcpy(slot, &v, 4);
		break;
	case GDB_SRC_XMM:
		memcpy(slot, fx->xmm[d->arg], 16);
		break;
	default:
		memcpy(slot, &fx->mxcsr, 4);
		break;
	}
}

/*
 * A 32-bit register into its 64-bit field: unchanged, the field keeps its
 * upper half (a syscall's sign-extended result in rax stays as the kernel
 * left it); changed, it is zero-extended, or sign-extended for orig_eax as
 * the kernel's own 32-bit ptrace does (-1 there stops a syscall restart).
 */
static void gpr_put(const struct gdb_reg *d, uint64_t *f, const uint8_t *slot)
{
	uint64_t v = 0;

	memcpy(&v, slot, d->size);
	if (d->size == 8)
		*f = v;
	else if ((uint32_t)*f == v)
		return;
	else if (d->src == GDB_SRC_ORIG)
		*f = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	else
		*f = v;
}

static void reg_put(const struct gdb_reg *d, const uint8_t *slot,
		    struct bts_regs *r, struct fxsave *fx)
{
	uint32_t v;

	memcpy(&v, slot, 4);
	switch (d->src) {
	case GDB_SRC_GPR:
	case GDB_SRC_ORIG:
		gpr_put(d, field(r, d->arg), slot);
		break;
	case GDB_SRC_SEG:
		break;		/* gdb has no business moving segments */
	case GDB_SRC_ST:
		memcpy(fx->st[d->arg], slot, 10);
		break;
	case GDB_SRC_FPC:
		/* The last operand's addresses are the CPU's to say. */
		if (d->arg == 0)
			fx->fcw = (uint16_t)v;
		else if (d->arg == 1)
			fx->fsw = (uint16_t)v;
		else if (d->arg == 2)
			fx->ftw = abridged_tag((uint16_t)v);
		else if (d->arg == 7)
			fx->fop = (uint16_t)v;
		break;
	case GDB_SRC_XMM:
		memcpy(fx->xmm[d->arg], slot, 16);
		break;
	default:
		fx->mxcsr = v;
		break;
	}
}

static int load(struct gdb_server *sv, pid_t tid, struct bts_regs *r,
		struct fxsave *fx)
{
	_Static_assert(sizeof(*fx) == BTS_FXSAVE_SIZE, "fxsave layout");
	if (!sv->c || bts_control_getregs(sv->c, tid, r) ||
	    bts_control_getfpregs(sv->c, tid, fx))
		return -1;
	return 0;
}

/*
 * Whether a saved trace knows register @d: with the registers of a crash,
 * the general ones (no FXSAVE area is saved); else the pc alone, if that.
 */
static bool trace_knows(const struct gdb_reg *d, int known)
{
	if (known == GDB_TRACE_REGS_NONE)
		return false;
	if (known == GDB_TRACE_REGS_ALL)
		return d->src == GDB_SRC_GPR || d->src == GDB_SRC_SEG ||
		       d->src == GDB_SRC_ORIG;
	return d->src == GDB_SRC_GPR && d->arg == offsetof(struct bts_regs, rip);
}

/*
 * The whole block of @l for @tid into @out, and per byte in @known
 * whether its register's value is known (gdb: "unavailable" when not).
 */
static int regs_read(struct gdb_server *sv, pid_t tid,
		     const struct gdb_layout *l, uint8_t out[GDB_REGS_MAX],
		     bool known[GDB_REGS_MAX])
{
	struct fxsave fx;
	struct bts_regs r;
	size_t off = 0;
	unsigned int i;
	int trace_known = GDB_TRACE_REGS_NONE;

	if (gdb_layout_size(l) > GDB_REGS_MAX)
		return -1;
	if (sv->tr) {
		trace_known = gdb_trace_regs(sv->tr, tid, &r);
		memset(&fx, 0, sizeof(fx));
	} else if (load(sv, tid, &r, &fx)) {
		return -1;
	}
	memset(out, 0, GDB_REGS_MAX);
	for (i = 0; i < l->nregs; off += l->regs[i].size, i++) {
		reg_get(&l->regs[i], &r, &fx, out + off);
		memset(known + off,
		       !sv->tr || trace_knows(&l->regs[i], trace_known),
		       l->regs[i].size);
	}
	return 0;
}

/* The whole block of @l back into @tid's registers, where they changed. */
static int regs_write(struct gdb_server *sv, pid_t tid,
		      const struct gdb_layout *l, const uint8_t *in)
{
	struct fxsave fx, oldfx;
	struct bts_regs r, old;
	size_t off = 0;
	unsigned int i;

	if (sv->tr || load(sv, tid, &r, &fx))
		return -1;
	old = r;
	oldfx = fx;
	for (i = 0; i < l->nregs; off += l->regs[i].size, i++)
		reg_put(&l->regs[i], in + off, &r, &fx);
	if (memcmp(&r, &old, sizeof(r)) &&
	    bts_control_setregs(sv->c, tid, &r))
		return -1;
	if (memcmp(&fx, &oldfx, sizeof(fx)) &&
	    bts_control_setfpregs(sv->c, tid, &fx))
		return -1;
	return 0;
}

/* Bytes [@off, @off + @len) of the g block of gdb's thread, as hex. */
static void read_part(struct gdb_server *sv, const struct gdb_layout *l,
		      size_t off, size_t len, struct strbuf *reply)
{
	uint8_t regs[GDB_REGS_MAX];
	bool known[GDB_REGS_MAX];
	pid_t tid = gdb_general_thread(sv);
	size_t i;

	if (!tid || regs_read(sv, tid, l, regs, known))
		return error_reply(reply);
	for (i = off; i < off + len; i++) {
		if (known[i])
			sb_hex(reply, regs + i, 1);
		else
			sb_puts(reply, "xx");
	}
}

/* @digits hex digits over the g block from byte @off; the rest stays. */
static void write_part(struct gdb_server *sv, const struct gdb_layout *l,
		       size_t off, const char *hex, size_t digits,
		       struct strbuf *reply)
{
	uint8_t regs[GDB_REGS_MAX];
	bool known[GDB_REGS_MAX];
	pid_t tid = gdb_general_thread(sv);

	if (sv->tr)
		return gdb_read_only(reply);
	if (!tid || regs_read(sv, tid, l, regs, known) ||
	    !rsp_unhex(hex, digits, regs + off) ||
	    regs_write(sv, tid, l, regs))
		return error_reply(reply);
	sb_puts(reply, "OK");
}

void gdb_get_regs(struct gdb_server *sv, struct strbuf *reply)
{
	const struct gdb_layout *l = gdb_layout(sv);

	read_part(sv, l, 0, gdb_layout_size(l), reply);
}

void gdb_set_regs(struct gdb_server *sv, const struct rsp_req *rq,
		  struct strbuf *reply)
{
	const struct gdb_layout *l = gdb_layout(sv);

	/* A shorter block leaves the registers after it as they are. */
	if (rq->data_len / 2 > gdb_layout_size(l))
		return error_reply(reply);
	write_part(sv, l, 0, rq->data, rq->data_len, reply);
}

void gdb_get_reg(struct gdb_server *sv, const struct rsp_req *rq,
		 struct strbuf *reply)
{
	const struct gdb_layout *l = gdb_layout(sv);
	size_t off, size;

	if (!gdb_layout_slot(l, rq->regno, &off, &size))
		return error_reply(reply);
	read_part(sv, l, off, size, reply);
}

void gdb_set_reg(struct gdb_server *sv, const struct rsp_req *rq,
		 struct strbuf *reply)
{
	const struct gdb_layout *l = gdb_layout(sv);
	size_t off, size;

	if (!gdb_layout_slot(l, rq->regno, &off, &size) ||
	    rq->data_len != 2 * size)
		return error_reply(reply);
	write_part(sv, l, off, rq->data, rq->data_len, reply);
}

void gdb_regs_expedite(struct gdb_server *sv, pid_t tid, struct strbuf *reply)
{
	const struct gdb_layout *l = gdb_layout(sv);
	uint8_t block[GDB_REGS_MAX];
	bool known[GDB_REGS_MAX];
	size_t off, size, i;

	if (regs_read(sv, tid, l, block, known))
		return;
	for (i = 0; i < sizeof(l->expedite) / sizeof(l->expedite[0]); i++) {
		gdb_layout_slot(l, l->expedite[i], &off, &size);
		if (!known[off])
			continue;
		sb_printf(reply, "%02x:", l->expedite[i]);
		sb_hex(reply, block + off, size);
		sb_puts(reply, ";");
	}
}
