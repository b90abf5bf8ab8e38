// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Branch tracing the way gdb's `record btrace bts` reads it from a remote
 * stub (doc/gdb-remote.md).  The program is recorded
 * all along by its source; enabling tracing for a thread only marks where
 * gdb's history of it begins, and a read turns the records since then
 * into BTS blocks:
 *
 *   records r1..rn (oldest first), current pc P:
 *   [rn.to, P], [r(n-1).to, rn.from], ..., [r1.to, r2.from], [B, r1.from]
 *
 * newest first; `end` is the address of a block's last instruction (the
 * branch itself).  B is the pc at the enable for all/new (while nothing
 * was lost), or 0 in a delta, which gdb stitches to its last instruction.
 * A record that is no branch (a gap or loss marker, an exec) ends what can
 * be told: all/new start after it, and a delta across it is E.Overflow.
 *
 * A saved trace (server_trace.c) hands out the window of records before
 * its end at the enable, numbered as a live thread's; the documents are
 * built from them here in the same way.
 */
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "server.h"
#include "server_tdesc.h"

#define REC_SIZE sizeof(struct ptbts_record)

static struct bt_state *find(struct gdb_server *sv, pid_t tid)
{
	size_t i;

	for (i = 0; i < sv->nbt; i++)
		if (sv->bt[i].tid == tid)
			return &sv->bt[i];
	return NULL;
}

void gdb_btrace_forget(struct gdb_server *sv, pid_t tid)
{
	struct bt_state *b = find(sv, tid);

	if (b)
		*b = sv->bt[--sv->nbt];
}

static bool current_pc(struct gdb_server *sv, pid_t tid, uint64_t *pc)
{
	struct bts_regs r;

	if (sv->tr) {
		if (gdb_trace_regs(sv->tr, tid, &r) == GDB_TRACE_REGS_NONE)
			return false;
	} else if (!sv->c || bts_control_getregs(sv->c, tid, &r)) {
		return false;
	}
	*pc = r.rip;
	return true;
}

/* Branch kinds end and begin blocks; markers cut the history. */
static bool is_branch(const struct ptbts_record *rec)
{
	int kind = bts_record_kind(rec);

	return rec->from && (kind == PTBTS_KIND_BRANCH ||
			     kind == PTBTS_KIND_SIGNAL ||
			     kind == PTBTS_KIND_SIGRETURN);
}

/* The records of @tid: [@oldest, @written); 0 or -1. */
static int trace_span(struct gdb_server *sv, pid_t tid, uint64_t *oldest,
		      uint64_t *written)
{
	if (sv->tr) {
		struct bt_state *b = find(sv, tid);

		*oldest = 1;
		*written = b ? b->enable_no : 1;
		return b ? 0 : -1;
	}
	return sv->c ? bts_control_trace(sv->c, tid, oldest, written) : -1;
}

static int get_record(struct gdb_server *sv, pid_t tid, uint64_t k,
		      struct ptbts_record *rec)
{
	if (sv->tr)
		return gdb_trace_record(sv->tr, tid, k, rec);
	return bts_control_record(sv->c, tid, k, rec);
}

static struct bt_state *add_state(struct gdb_server *sv)
{
	struct bt_state *b;

	if (sv->nbt == sv->capbt) {
		size_t cap = sv->capbt ? 2 * sv->capbt : 8;

		b = realloc(sv->bt, cap * sizeof(*b));
		if (!b)
			return NULL;
		sv->bt = b;
		sv->capbt = cap;
	}
	return &sv->bt[sv->nbt++];
}

/*
 * A saved trace: the history before its end is there already, in a
 * window of gdb's size.  Its end is "written" (the newest record).
 */
static bool enable_trace(struct gdb_server *sv, pid_t tid, struct strbuf *reply)
{
	struct gdb_trace_window w;
	struct bt_state *b;
	int r = gdb_trace_enable(sv->tr, tid, sv->bts_size, &w);

	if (r) {
		sb_printf(reply, "E.%s", bts_errstr(r));
		return false;
	}
	b = add_state(sv);
	if (!b) {
		sb_puts(reply, "E.Could not enable btrace.");
		return false;
	}
	/*
	 * The records from the window's start are gdb's, as if enabled
	 * there.  gdb's first read after an enable is a delta onto the pc it
	 * stands at, which would put the window after it: nothing was read
	 * yet (a last read before the oldest record) makes that delta
	 * E.Overflow, and gdb reads "new", the whole window, instead.
	 */
	*b = (struct bt_state){
		.tid = tid, .size = w.size,
		.enable_no = w.written, .enable_pc = w.begin,
		.first_no = w.oldest, .first_known = w.from_start,
		.last_no = w.oldest - 1, .last_pc = 0,
	};
	return true;
}

static bool enable(struct gdb_server *sv, pid_t tid, struct strbuf *reply)
{
	uint64_t oldest, written, pc, size;
	struct bt_state *b;

	if (find(sv, tid)) {
		sb_puts(reply, "E.Btrace already enabled.");
		return false;
	}
	if (sv->tr)
		return enable_trace(sv, tid, reply);
	if (!current_pc(sv, tid, &pc)) {
		sb_puts(reply, "E.No such thread.");
		return false;
	}
	/* kmod-step records from here, in a buffer of gdb's size (or more). */
	if (bts_control_btrace_enable(sv->c, tid, sv->bts_size, &size)) {
		sb_printf(reply, "E.%s", bts_errdetail());
		return false;
	}
	if (bts_control_trace(sv->c, tid, &oldest, &written)) {
		bts_control_btrace_disable(sv->c, tid);
		sb_puts(reply, "E.No such thread.");
		return false;
	}
	b = add_state(sv);
	if (!b) {
		bts_control_btrace_disable(sv->c, tid);
		sb_puts(reply, "E.Could not enable btrace.");
		return false;
	}
	*b = (struct bt_state){
		.tid = tid, .size = size,
		.enable_no = written, .enable_pc = pc,
		.first_no = written, .first_known = true,
		.last_no = written, .last_pc = pc,
	};
	return true;
}

void gdb_btrace(struct gdb_server *sv, const struct rsp_req *rq,
		struct strbuf *reply)
{
	pid_t tid = gdb_general_thread(sv);
	struct bt_state *b;

	if (strcmp(rq->arg, "bts") && strcmp(rq->arg, "off") &&
	    strcmp(rq->arg, "pt")) {
		sb_puts(reply, "E.Bad Qbtrace operation.  Use bts, pt, or off.");
		return;
	}
	if (!tid) {
		sb_puts(reply, "E.Must select a single thread.");
		return;
	}
	if (!strcmp(rq->arg, "pt")) {
		sb_puts(reply, "E.Intel Processor Trace is not supported by this stub.");
		return;
	}
	if (!strcmp(rq->arg, "bts")) {
		if (enable(sv, tid, reply))
			sb_puts(reply, "OK");
		return;
	}
	b = find(sv, tid);
	if (!b) {
		sb_puts(reply, "E.Branch tracing not enabled.");
		return;
	}
	if (sv->c)	/* kmod-step: the module lets the thread go */
		bts_control_btrace_disable(sv->c, tid);
	if (sv->tr)	/* its window goes */
		gdb_trace_disable(sv->tr, tid);
	gdb_btrace_forget(sv, tid);
	sb_puts(reply, "OK");
}

void gdb_btrace_conf(struct gdb_server *sv, const struct rsp_req *rq,
		     struct strbuf *reply)
{
	if (strcmp(rq->arg, "bts:size")) {
		sb_puts(reply, "E.Bad Qbtrace configuration option.");
		return;
	}
	if (!rq->value_ok || rq->value > 0xffffffffULL) {
		sb_puts(reply, "E.Bad size value.");
		return;
	}
	sv->bts_size = rq->value;
	sb_puts(reply, "OK");
}

static void block(struct strbuf *doc, uint64_t begin, uint64_t end)
{
	sb_printf(doc, "<block begin=\"0x%llx\" end=\"0x%llx\"/>\n",
		  (unsigned long long)begin, (unsigned long long)end);
}

/* Error replies go into @doc, as the caller sends them. */
static int fail(struct strbuf *doc, const char *text)
{
	sb_reset(doc);
	sb_puts(doc, text);
	return -1;
}

/*
 * The instruction before @from on the straight line from @begin: where a
 * block ends whose next instruction (@from) was interrupted by a signal
 * and did not run.  False when there is none (@from is the first) or the
 * code cannot be walked; the block is then left out.
 */
static bool insn_before(struct gdb_server *sv, uint64_t begin, uint64_t from,
			uint64_t *prev)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction insn;
	uint8_t code[16];
	uint64_t pc = begin;
	ssize_t n;
	int i;

	if (gdb_program_bits(sv) == 32)		/* i386: inc/dec are no REX */
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LEGACY_32,
				 ZYDIS_STACK_WIDTH_32);
	else
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
	/* A block of straight-line code: bounded, as the source walked it. */
	for (i = 0; i < 65536 && pc < from; i++) {
		n = gdb_read_memory(sv, pc, code, sizeof(code));
		if (n <= 0 || ZYAN_FAILED(ZydisDecoderDecodeInstruction(
				&dec, NULL, code, (ZyanUSize)n, &insn)))
			return false;
		if (pc + insn.length == from) {
			*prev = pc;
			return true;
		}
		pc += insn.length;
	}
	return false;
}

/* Where the block before signal record @k ends (0: it is empty). */
static bool signal_end(struct gdb_server *sv, pid_t tid, uint64_t k,
		       uint64_t first, uint64_t begin, uint64_t *end)
{
	struct ptbts_record prev;
	uint64_t from = *end;

	if (k > first) {
		if (get_record(sv, tid, k - 1, &prev))
			return false;
		begin = prev.to;
	}
	/*
	 * A delta's oldest block, [0, from], must stay: gdb stitches it to
	 * its last instruction (which ran; at worst from is counted too).
	 */
	if (!begin)
		return true;
	return insn_before(sv, begin, from, end);
}

/*
 * Blocks of records [@first, @written), newest first, ending at @pc; the
 * oldest block begins at @begin (dropped when @drop_oldest).
 */
static int blocks(struct gdb_server *sv, pid_t tid, uint64_t first,
		  uint64_t written, uint64_t pc, uint64_t begin,
		  bool drop_oldest, struct strbuf *doc)
{
	struct ptbts_record rec;
	uint64_t end = pc, k;

	for (k = written; k > first; k--) {
		if (get_record(sv, tid, k - 1, &rec))
			return fail(doc, "E.Generic Error.");
		if (end)
			block(doc, rec.to, end);
		end = rec.from;
		/* A signal's from did not run: the block before ends earlier. */
		if (bts_record_kind(&rec) == PTBTS_KIND_SIGNAL &&
		    !signal_end(sv, tid, k - 1, first, begin, &end))
			end = 0;
	}
	if (!end)
		return 0;	/* the oldest block is empty */
	if (!drop_oldest)
		block(doc, begin, end);
	return 0;
}

/* The newest record number from which the history is unbroken. */
static uint64_t unbroken_from(struct gdb_server *sv, pid_t tid, uint64_t first,
			      uint64_t written)
{
	struct ptbts_record rec;
	uint64_t k;

	for (k = written; k > first; k--)
		if (get_record(sv, tid, k - 1, &rec) || !is_branch(&rec))
			return k;
	return first;
}

static int trace_doc(struct gdb_server *sv, pid_t tid, const char *annex,
		     struct strbuf *doc)
{
	struct bt_state *b = find(sv, tid);
	uint64_t oldest, written, pc, keep, first;
	bool delta = !strcmp(annex, "delta");
	int err;

	if (!b)
		return fail(doc, "E.Btrace not enabled.");
	if (!delta && strcmp(annex, "all") && strcmp(annex, "new"))
		return fail(doc, "E.Bad annex.");
	if (!current_pc(sv, tid, &pc) ||
	    trace_span(sv, tid, &oldest, &written))
		return fail(doc, "E.No such thread.");
	keep = b->size / REC_SIZE ? b->size / REC_SIZE : 1;
	sb_puts(doc, "<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
		     "<btrace version=\"1.0\">\n");
	if (delta) {
		if (b->last_no < oldest || written - b->last_no > keep ||
		    unbroken_from(sv, tid, b->last_no, written) != b->last_no)
			return fail(doc, "E.Overflow.");
		err = blocks(sv, tid, b->last_no, written, pc, 0, false, doc);
	} else if (!strcmp(annex, "new") && written == b->last_no &&
		   pc == b->last_pc) {
		err = 0;	/* nothing new: no blocks */
	} else {
		first = b->first_no;
		if (first < oldest)
			first = oldest;
		if (written - first > keep)
			first = written - keep;
		first = unbroken_from(sv, tid, first, written);
		/* Where the oldest kept block began is known only from the enable. */
		err = blocks(sv, tid, first, written, pc, b->enable_pc,
			     first != b->first_no || !b->first_known, doc);
	}
	if (err)
		return err;
	sb_puts(doc, "</btrace>\n");
	b->last_no = written;
	b->last_pc = pc;
	return 0;
}

static int conf_doc(struct gdb_server *sv, pid_t tid, const char *annex,
		    struct strbuf *doc)
{
	struct bt_state *b = find(sv, tid);

	if (annex[0])
		return fail(doc, "E.Bad annex.");
	if (!b)
		return fail(doc, "E.Btrace not enabled.");
	sb_printf(doc, "<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
		  "<btrace-conf version=\"1.0\">\n"
		  "<bts size=\"0x%llx\" />\n"
		  "</btrace-conf>\n", (unsigned long long)b->size);
	return 0;
}

int gdb_btrace_doc(struct gdb_server *sv, bool conf, const char *annex,
		   struct strbuf *doc)
{
	pid_t tid = gdb_general_thread(sv);

	if (!tid)
		return fail(doc, "E.Must select a single thread.");
	if (!gdb_thread_alive(sv, tid))
		return fail(doc, "E.No such thread.");
	return conf ? conf_doc(sv, tid, annex, doc)
		    : trace_doc(sv, tid, annex, doc);
}
