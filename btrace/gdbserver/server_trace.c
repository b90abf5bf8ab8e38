// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A saved trace as the stub's program (btrace gdbserver --trace): one
 * thread, stopped at an instruction of its history (the last, or the one
 * --at names), whose pc is known and, at the end of a crash trace, every
 * register the crash saved.  Memory is what the trace shows of it (the
 * code of its files, build-id checked, and its code copies).
 *
 * Nothing runs: enabling branch tracing turns the history before the end
 * into a window of records, the way a live thread's source would have
 * recorded them, and server_btrace.c builds gdb's documents from it as it
 * does for a live thread.  The window is decoded from the point of the
 * history's index before it (libbts's bts_index), so it costs what its
 * size costs, wherever the end lies in the history.
 */
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

#define REC_SIZE sizeof(struct ptbts_record)

struct gdb_trace {
	struct bts_trace *t;
	struct bts_trace_memory *mem;
	struct bts_index *ix;
	struct bts_insn_decoder *d;
	size_t thread;
	pid_t pid, tid;
	uint64_t at;		/* the end: an entry number, from 1 */
	uint64_t pc;		/* the instruction there */
	const struct bts_crash_thread *crash;	/* its registers, or NULL */
	int signo;		/* what the stop reply says */

	/* The window of the last enable: records 1..n, oldest first. */
	struct ptbts_record *ring;
	uint64_t cap, head, n;
	bool from_start;	/* its oldest block begins at @begin */
	uint64_t begin;
};

static int say(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int say(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

static void ring_push(struct gdb_trace *tr, uint64_t from, uint64_t to)
{
	uint64_t slot = (tr->head + tr->n) % tr->cap;

	tr->ring[slot] = (struct ptbts_record){ .from = from, .to = to };
	if (tr->n < tr->cap) {
		tr->n++;
		return;
	}
	tr->head = (tr->head + 1) % tr->cap;
	tr->from_start = false;	/* the oldest block's start fell off */
}

/* The last point at or before record @rec. */
static size_t point_before(const struct bts_index *ix, uint64_t rec)
{
	struct bts_index_point pt;
	size_t lo = 0, hi = bts_index_npoints(ix);

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (bts_index_point(ix, mid, &pt, sizeof(pt)) || pt.record > rec)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/*
 * Decodes from index point @p to the end, keeping the newest @tr->cap
 * block boundaries as records.  0, 1 when the end is a gap (no pc), or a
 * negative &enum bts_error.
 */
static int decode_from(struct gdb_trace *tr, size_t p)
{
	struct bts_index_point pt;
	struct bts_insn_entry e, prev = { 0 };
	bool have = false, gap = false;
	int r;

	if (bts_index_point(tr->ix, p, &pt, sizeof(pt)))
		return -BTS_E_INTERNAL;
	r = bts_insn_decoder_seek(tr->d, tr->ix, pt.entry + 1);
	tr->head = tr->n = 0;
	tr->from_start = false;
	while (r >= 0 && (r = bts_insn_next(tr->d, &e, sizeof(e))) > 0 &&
	       e.index <= tr->at) {
		if (e.iclass == BTS_ICLASS_GAP) {
			/* What can be told starts again after it. */
			tr->head = tr->n = 0;
			have = false;
			gap = true;
			continue;
		}
		if (!have) {
			tr->from_start = pt.entry == 0 || gap;
			tr->begin = e.ip;
		} else if ((prev.flags & BTS_IF_TAKEN) || (e.flags & BTS_IF_SIGNAL) ||
			   e.ip != prev.ip + prev.size) {
			ring_push(tr, prev.ip, e.ip);
		}
		prev = e;
		have = true;
		if (e.index == tr->at)
			break;
	}
	if (r < 0)
		return r;
	if (!have)
		return 1;
	tr->pc = prev.ip;
	return 0;
}

/* The window of the @keep records before the end. */
static int load_window(struct gdb_trace *tr, uint64_t keep)
{
	struct bts_index_point pt;
	struct ptbts_record *ring;
	size_t p;
	int r;

	if (keep > GDB_TRACE_KEEP_MAX)
		keep = GDB_TRACE_KEEP_MAX;
	if (keep != tr->cap) {
		ring = realloc(tr->ring, keep * sizeof(*ring));
		if (!ring)
			return -BTS_E_NOMEM;
		tr->ring = ring;
		tr->cap = keep;
	}
	p = bts_index_find(tr->ix, tr->at);
	if (bts_index_point(tr->ix, p, &pt, sizeof(pt)))
		return -BTS_E_INTERNAL;
	p = point_before(tr->ix, pt.record > keep ? pt.record - keep : 0);
	/* Records the index counts are not all blocks (markers): go further. */
	for (;;) {
		r = decode_from(tr, p);
		if (r || tr->n == keep || tr->from_start || !p)
			return r;
		if (bts_index_point(tr->ix, p, &pt, sizeof(pt)))
			return -BTS_E_INTERNAL;
		p = point_before(tr->ix, pt.record > keep ? pt.record - keep : 0);
	}
}

static int pick_thread(struct gdb_trace *tr, pid_t tid, const char *path,
		       char *why, size_t size)
{
	const struct bts_thread_info *ti;
	pid_t crashed = bts_trace_crashed(tr->t);
	const struct bts_crash_info *ci = crashed ? bts_trace_crash(tr->t, crashed) : NULL;
	long i;

	if (!tid)
		tid = ci ? ci->tid : bts_trace_thread(tr->t, 0)->tid;
	i = bts_trace_thread_index(tr->t, tid);
	if (i < 0)
		return say(why, size, "%s: --thread %d: the trace has no such thread",
			   path, (int)tid);
	ti = bts_trace_thread(tr->t, (size_t)i);
	tr->thread = (size_t)i;
	tr->tid = ti->tid;
	tr->pid = ti->pid;
	tr->signo = SIGTRAP;
	if (!ci || ci->pid != tr->pid)
		return 0;
	for (size_t k = 0; k < ci->nthreads; k++) {
		const struct bts_crash_thread *ct =
			bts_trace_crash_thread(tr->t, ci->pid, k);

		if (ct && ct->tid == tr->tid && ct->has_regs)
			tr->crash = ct;
	}
	if (tr->tid == ci->tid)
		tr->signo = ci->signo;
	return 0;
}

int gdb_trace_open(const char *path, pid_t tid, uint64_t at,
		   struct gdb_trace **out, char *why, size_t size)
{
	BTS_OPTS(bts_index_opts, io);
	struct gdb_trace *tr = calloc(1, sizeof(*tr));
	uint64_t entries;
	int r;

	if (!tr)
		return say(why, size, "out of memory");
	*out = tr;
	r = bts_trace_new(path, &tr->t);
	if (r < 0)
		return say(why, size, "%s: %s (%s)", path, bts_errstr(r),
			   bts_errdetail());
	if (!bts_trace_nthreads(tr->t))
		return say(why, size, "%s: the trace holds no thread", path);
	if (pick_thread(tr, tid, path, why, size))
		return -1;
	r = bts_index_new(tr->t, tr->thread, &io, &tr->ix);
	if (r >= 0)
		r = bts_insn_decoder_new(tr->t, tr->thread, NULL, &tr->d);
	if (r >= 0)
		r = bts_trace_memory_new(tr->t, tr->pid, &tr->mem);
	if (r < 0)
		return say(why, size, "%s: %s (%s)", path, bts_errstr(r),
			   bts_errdetail());
	entries = bts_index_entries(tr->ix);
	if (!entries)
		return say(why, size, "%s: thread %d has no history", path,
			   (int)tr->tid);
	if (at > entries)
		return say(why, size, "--at %llu: the history of thread %d has "
			   "%llu instructions", (unsigned long long)at,
			   (int)tr->tid, (unsigned long long)entries);
	/* The end of a crash trace is where the saved registers stand. */
	if (at && at != entries)
		tr->crash = NULL;
	tr->at = at ? at : entries;
	r = load_window(tr, GDB_BTS_SIZE_DEFAULT / REC_SIZE);
	if (r < 0)
		return say(why, size, "%s: %s (%s)", path, bts_errstr(r),
			   bts_errdetail());
	if (r > 0)
		return say(why, size, "%s: instruction %llu of thread %d is a gap "
			   "in the history, not an instruction", path,
			   (unsigned long long)tr->at, (int)tr->tid);
	return 0;
}

void gdb_trace_free(struct gdb_trace *tr)
{
	if (!tr)
		return;
	bts_insn_decoder_free(tr->d);
	bts_index_free(tr->ix);
	bts_trace_memory_free(tr->mem);
	bts_trace_free(tr->t);
	free(tr->ring);
	free(tr);
}

pid_t gdb_trace_pid(const struct gdb_trace *tr)
{
	return tr->pid;
}

pid_t gdb_trace_tid(const struct gdb_trace *tr)
{
	return tr->tid;
}

int gdb_trace_signal(const struct gdb_trace *tr)
{
	return tr->signo;
}

int gdb_trace_bits(const struct gdb_trace *tr)
{
	int bits = bts_trace_process_bits(tr->t, tr->pid);

	return bits == 32 ? 32 : 64;
}

ssize_t gdb_trace_read(struct gdb_trace *tr, uint64_t addr, void *buf,
		       size_t len)
{
	return bts_trace_memory_read(tr->mem, addr, buf, len);
}

bool gdb_trace_regs(const struct gdb_trace *tr, struct bts_regs *r)
{
	if (tr->crash) {
		*r = tr->crash->regs;
		return true;
	}
	memset(r, 0, sizeof(*r));
	r->rip = tr->pc;
	return false;
}

int gdb_trace_enable(struct gdb_trace *tr, uint64_t size,
		     struct gdb_trace_window *w)
{
	uint64_t keep = size / REC_SIZE ? size / REC_SIZE : 1;
	int r = load_window(tr, keep);

	if (r)
		return r < 0 ? r : -BTS_E_DECODE;
	/* Numbers 1..n, as a thread's that was recorded from number 1 on. */
	w->oldest = 1;
	w->written = 1 + tr->n;
	w->from_start = tr->from_start;
	w->begin = tr->from_start ? tr->begin : 0;
	w->pc = tr->pc;
	w->size = tr->cap * REC_SIZE;
	return 0;
}

int gdb_trace_record(const struct gdb_trace *tr, uint64_t k,
		     struct ptbts_record *rec)
{
	if (k < 1 || k > tr->n)
		return -1;
	*rec = tr->ring[(tr->head + k - 1) % tr->cap];
	return 0;
}

const char *gdb_trace_exe(const struct gdb_trace *tr)
{
	size_t n = bts_trace_nimages(tr->t, tr->pid);
	const struct bts_image_info *im = n ? bts_trace_image(tr->t, tr->pid, n - 1) : NULL;

	return im ? im->exe : NULL;
}

/* What gdb's solib code needs of an ELF file, read from the file itself. */
struct elf_facts {
	bool pie;		/* ET_DYN: placed at a load base */
	uint64_t entry;
	uint64_t dynamic;	/* PT_DYNAMIC's address (0: none) */
	char interp[256];	/* PT_INTERP, or "" */
};

static bool elf_facts(const char *path, struct elf_facts *f)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n = 0, i;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = false;

	memset(f, 0, sizeof(*f));
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && gelf_getehdr(elf, &eh) && !elf_getphdrnum(elf, &n)) {
		ok = true;
		f->pie = eh.e_type == ET_DYN;
		f->entry = eh.e_entry;
		for (i = 0; i < n; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph))
				continue;
			if (ph.p_type == PT_DYNAMIC)
				f->dynamic = ph.p_vaddr;
			if (ph.p_type == PT_INTERP && ph.p_filesz &&
			    ph.p_filesz < sizeof(f->interp) &&
			    pread(fd, f->interp, ph.p_filesz, (off_t)ph.p_offset) !=
			    (ssize_t)ph.p_filesz)
				f->interp[0] = 0;
		}
		f->interp[sizeof(f->interp) - 1] = 0;
	}
	elf_end(elf);
	close(fd);
	return ok;
}

/*
 * Where the trace maps file @path: its load base (a shared object's
 * segments sit at their file offsets from it).  False when it is not
 * mapped.
 */
static bool load_base(const struct gdb_trace *tr, const char *path,
		      uint64_t *base)
{
	const struct bts_map *maps;
	size_t n = bts_trace_maps(tr->t, tr->pid, &maps), i;

	for (i = 0; i < n; i++)
		if (maps[i].path && !strcmp(maps[i].path, path)) {
			*base = maps[i].start - maps[i].offset;
			return true;
		}
	return false;
}

/* Whether the trace's map path @path is the file @interp names. */
static bool same_file(const char *path, const char *interp)
{
	char *real = interp[0] ? realpath(interp, NULL) : NULL;
	bool same = real && !strcmp(real, path);

	free(real);
	return same;
}

static void aux(struct strbuf *doc, int bits, uint64_t type, uint64_t val)
{
	uint32_t v32[2] = { (uint32_t)type, (uint32_t)val };
	uint64_t v64[2] = { type, val };

	if (bits == 32)
		sb_add(doc, v32, sizeof(v32));
	else
		sb_add(doc, v64, sizeof(v64));
}

/* The shared objects (not the program, not [vdso]) of the trace's maps. */
static bool is_library(const struct bts_map *maps, size_t i, const char *exe)
{
	size_t j;

	if (!maps[i].path || maps[i].path[0] != '/' || !strcmp(maps[i].path, exe))
		return false;
	for (j = 0; j < i; j++)		/* once per file */
		if (maps[j].path && !strcmp(maps[j].path, maps[i].path))
			return false;
	return true;
}

int gdb_trace_auxv(const struct gdb_trace *tr, struct strbuf *doc)
{
	const char *exe = gdb_trace_exe(tr);
	const struct bts_map *maps;
	size_t n = bts_trace_maps(tr->t, tr->pid, &maps), i;
	struct elf_facts f;
	uint64_t base = 0, ld;
	int bits = gdb_trace_bits(tr);

	/*
	 * AT_ENTRY: how gdb finds where a PIE program was loaded; AT_BASE:
	 * where its dynamic linker was.
	 */
	if (exe && elf_facts(exe, &f) && (!f.pie || load_base(tr, exe, &base))) {
		aux(doc, bits, AT_ENTRY, base + f.entry);
		for (i = 0; i < n; i++)
			if (is_library(maps, i, exe) && same_file(maps[i].path, f.interp) &&
			    load_base(tr, maps[i].path, &ld))
				aux(doc, bits, AT_BASE, ld);
	}
	aux(doc, bits, AT_NULL, 0);
	return 0;
}

/* @s as XML attribute text. */
static void xml_text(struct strbuf *doc, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			sb_puts(doc, "&amp;");
		else if (*s == '<')
			sb_puts(doc, "&lt;");
		else if (*s == '"')
			sb_puts(doc, "&quot;");
		else
			sb_add(doc, s, 1);
	}
}

int gdb_trace_libraries(const struct gdb_trace *tr, struct strbuf *doc)
{
	const char *exe = gdb_trace_exe(tr);
	const struct bts_map *maps;
	size_t n = bts_trace_maps(tr->t, tr->pid, &maps), i;
	struct elf_facts f;
	uint64_t base;

	/*
	 * No link map is in a trace: lm is a made-up key, the dynamic
	 * section's address, which gdb checks against the file (l_ld).
	 */
	sb_puts(doc, "<library-list-svr4 version=\"1.0\">\n");
	for (i = 0; exe && i < n; i++) {
		if (!is_library(maps, i, exe) || !load_base(tr, maps[i].path, &base) ||
		    !elf_facts(maps[i].path, &f) || !f.dynamic)
			continue;
		sb_puts(doc, "<library name=\"");
		xml_text(doc, maps[i].path);
		sb_printf(doc, "\" lm=\"0x%llx\" l_addr=\"0x%llx\" l_ld=\"0x%llx\" lmid=\"0x0\"/>\n",
			  (unsigned long long)(base + f.dynamic),
			  (unsigned long long)base,
			  (unsigned long long)(base + f.dynamic));
	}
	sb_puts(doc, "</library-list-svr4>\n");
	return 0;
}
