// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A saved trace as the stub's program (btrace gdbserver --trace): the
 * threads of one process, each stopped at the end of its history, but the
 * picked one (--thread, the crashed one, or the first), which stops at
 * the instruction --at names.  A thread's pc is known and, at the end of
 * a crash trace, every register the crash saved.  Memory is what the
 * trace shows of the process (the code of its files, build-id checked,
 * and its code copies), the same for all its threads.
 *
 * Nothing runs: enabling branch tracing for a thread turns its history
 * before its end into a window of records, the way a live thread's source
 * would have recorded them, and server_btrace.c builds gdb's documents
 * from it as it does for a live thread.  The window is decoded from the
 * point of the history's index before it (libbts's bts_index), so it
 * costs what its size costs, wherever the end lies in the history.  A
 * thread gdb does not trace has no index, decoder or window: its pc is
 * decoded once, when gdb first asks, and only the pc is kept.
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

/* One thread's history, decoded up to its end: gdb's window of it. */
struct trace_view {
	struct bts_index *ix;
	struct bts_insn_decoder *d;
	uint64_t at;		/* the end: an entry number, from 1 */
	uint64_t pc;		/* the instruction there */

	/* The window of the last load: records 1..n, oldest first. */
	struct ptbts_record *ring;
	uint64_t cap, head, n;
	bool from_start;	/* its oldest block begins at @begin */
	uint64_t begin;
};

enum pc_state { PC_UNSEEN, PC_KNOWN, PC_NONE };

/* A thread of the process, where it stands. */
struct trace_thread {
	pid_t tid;
	size_t index;		/* its number in the trace */
	uint64_t at;		/* its end; 0: the last instruction */
	/* PC_NONE: no history, or a gap at its end. */
	enum pc_state pc_state;
	uint64_t pc;
	const struct bts_crash_thread *crash;	/* its registers, or NULL */
	struct trace_view *view;	/* while gdb traces it, else NULL */
};

struct gdb_trace {
	struct bts_trace *t;
	struct bts_trace_memory *mem;
	pid_t pid;
	/* The threads of process @pid, in the trace's order. */
	struct trace_thread *threads;
	size_t nthreads;
	size_t picked;		/* the stop reply's thread */
	int signo;		/* what the stop reply says */
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

static void ring_push(struct trace_view *v, uint64_t from, uint64_t to)
{
	uint64_t slot = (v->head + v->n) % v->cap;

	v->ring[slot] = (struct ptbts_record){ .from = from, .to = to };
	if (v->n < v->cap) {
		v->n++;
		return;
	}
	v->head = (v->head + 1) % v->cap;
	v->from_start = false;	/* the oldest block's start fell off */
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
 * Decodes from index point @p to the end, keeping the newest @v->cap
 * block boundaries as records.  0, 1 when the end is a gap (no pc), or a
 * negative &enum bts_error.
 */
static int decode_from(struct trace_view *v, size_t p)
{
	struct bts_index_point pt;
	struct bts_insn_entry e, prev = { 0 };
	bool have = false, gap = false;
	int r;

	if (bts_index_point(v->ix, p, &pt, sizeof(pt)))
		return -BTS_E_INTERNAL;
	r = bts_insn_decoder_seek(v->d, v->ix, pt.entry + 1);
	v->head = v->n = 0;
	v->from_start = false;
	while (r >= 0 && (r = bts_insn_next(v->d, &e, sizeof(e))) > 0 &&
	       e.index <= v->at) {
		if (e.iclass == BTS_ICLASS_GAP) {
			/* What can be told starts again after it. */
			v->head = v->n = 0;
			have = false;
			gap = true;
			continue;
		}
		if (!have) {
			v->from_start = pt.entry == 0 || gap;
			v->begin = e.ip;
		} else if ((prev.flags & BTS_IF_TAKEN) || (e.flags & BTS_IF_SIGNAL) ||
			   e.ip != prev.ip + prev.size) {
			ring_push(v, prev.ip, e.ip);
		}
		prev = e;
		have = true;
		if (e.index == v->at)
			break;
	}
	if (r < 0)
		return r;
	if (!have)
		return 1;
	v->pc = prev.ip;
	return 0;
}

/* The window of the @keep records before the end: as decode_from(). */
static int load_window(struct trace_view *v, uint64_t keep)
{
	struct bts_index_point pt;
	struct ptbts_record *ring;
	size_t p;
	int r;

	if (keep > GDB_TRACE_KEEP_MAX)
		keep = GDB_TRACE_KEEP_MAX;
	if (keep != v->cap) {
		ring = realloc(v->ring, keep * sizeof(*ring));
		if (!ring)
			return -BTS_E_NOMEM;
		v->ring = ring;
		v->cap = keep;
	}
	p = bts_index_find(v->ix, v->at);
	if (bts_index_point(v->ix, p, &pt, sizeof(pt)))
		return -BTS_E_INTERNAL;
	p = point_before(v->ix, pt.record > keep ? pt.record - keep : 0);
	/* Records the index counts are not all blocks (markers): go further. */
	for (;;) {
		r = decode_from(v, p);
		if (r || v->n == keep || v->from_start || !p)
			return r;
		if (bts_index_point(v->ix, p, &pt, sizeof(pt)))
			return -BTS_E_INTERNAL;
		p = point_before(v->ix, pt.record > keep ? pt.record - keep : 0);
	}
}

static void view_free(struct trace_view *v)
{
	if (!v)
		return;
	bts_insn_decoder_free(v->d);
	bts_index_free(v->ix);
	free(v->ring);
	free(v);
}

/*
 * The history of @th indexed, its end at @th->at (0: its last
 * instruction); *@out NULL on errors.  0, 1 when @th->at lies beyond the
 * history (*@entries says how long it is), or a negative &enum bts_error.
 */
static int view_open(struct gdb_trace *tr, const struct trace_thread *th,
		     struct trace_view **out, uint64_t *entries)
{
	BTS_OPTS(bts_index_opts, io);
	struct trace_view *v = calloc(1, sizeof(*v));
	int r;

	*out = NULL;
	*entries = 0;
	if (!v)
		return -BTS_E_NOMEM;
	r = bts_index_new(tr->t, th->index, &io, &v->ix);
	if (r >= 0)
		r = bts_insn_decoder_new(tr->t, th->index, NULL, &v->d);
	if (r < 0) {
		view_free(v);
		return r;
	}
	*entries = bts_index_entries(v->ix);
	if (!*entries || th->at > *entries) {
		view_free(v);
		return 1;
	}
	v->at = th->at ? th->at : *entries;
	*out = v;
	return 0;
}

/*
 * The pc at @th's end, decoded once: without a window of gdb's, with a
 * view of its own that goes again.  0, or a negative &enum bts_error
 * (the pc is then not known).
 */
static int thread_pc(struct gdb_trace *tr, struct trace_thread *th)
{
	struct trace_view *v = th->view;
	uint64_t entries;
	int r = 0;

	if (th->pc_state != PC_UNSEEN)
		return 0;
	th->pc_state = PC_NONE;
	if (!v && (r = view_open(tr, th, &v, &entries)))
		return r < 0 ? r : 0;
	if (v != th->view)
		r = load_window(v, 1);
	if (!r) {
		th->pc = v->pc;
		th->pc_state = PC_KNOWN;
	}
	if (v != th->view)
		view_free(v);
	return r < 0 ? r : 0;
}

static struct trace_thread *find_thread(const struct gdb_trace *tr, pid_t tid)
{
	for (size_t i = 0; i < tr->nthreads; i++)
		if (tr->threads[i].tid == tid)
			return &tr->threads[i];
	return NULL;
}

/* Saved registers of @tid, when the crash of the process saved them. */
static const struct bts_crash_thread *crash_regs(const struct gdb_trace *tr,
						 pid_t tid)
{
	const struct bts_crash_info *ci = bts_trace_crash(tr->t, tr->pid);

	for (size_t k = 0; ci && k < ci->nthreads; k++) {
		const struct bts_crash_thread *ct =
			bts_trace_crash_thread(tr->t, tr->pid, k);

		if (ct && ct->tid == tid && ct->has_regs)
			return ct;
	}
	return NULL;
}

/* The threads of the picked one's process; the picked one stands at @at. */
static int list_threads(struct gdb_trace *tr, pid_t picked, uint64_t at)
{
	size_t i, n = bts_trace_nthreads(tr->t);

	tr->threads = calloc(n, sizeof(*tr->threads));
	if (!tr->threads)
		return -1;
	for (i = 0; i < n; i++) {
		const struct bts_thread_info *ti = bts_trace_thread(tr->t, i);
		struct trace_thread *th = &tr->threads[tr->nthreads];

		/* A tid the trace holds twice: gdb knows its first history. */
		if (ti->pid != tr->pid || find_thread(tr, ti->tid))
			continue;
		th->tid = ti->tid;
		th->index = (size_t)bts_trace_thread_index(tr->t, ti->tid);
		th->crash = crash_regs(tr, ti->tid);
		if (ti->tid == picked) {
			th->at = at;
			tr->picked = tr->nthreads;
		}
		tr->nthreads++;
	}
	return 0;
}

static int pick_thread(struct gdb_trace *tr, pid_t tid, uint64_t at,
		       const char *path, char *why, size_t size)
{
	pid_t crashed = bts_trace_crashed(tr->t);
	const struct bts_crash_info *ci = crashed ? bts_trace_crash(tr->t, crashed) : NULL;
	long i;

	if (!tid)
		tid = ci ? ci->tid : bts_trace_thread(tr->t, 0)->tid;
	i = bts_trace_thread_index(tr->t, tid);
	if (i < 0)
		return say(why, size, "%s: --thread %d: the trace has no such thread",
			   path, (int)tid);
	tr->pid = bts_trace_thread(tr->t, (size_t)i)->pid;
	tr->signo = ci && ci->pid == tr->pid && ci->tid == tid ? ci->signo : SIGTRAP;
	if (list_threads(tr, tid, at))
		return say(why, size, "out of memory");
	return 0;
}

/* The picked thread's end: inside its history, and an instruction. */
static int check_end(struct gdb_trace *tr, const char *path, char *why,
		     size_t size)
{
	struct trace_thread *th = &tr->threads[tr->picked];
	struct trace_view *v;
	uint64_t entries;
	int r = view_open(tr, th, &v, &entries);

	if (r < 0)
		return say(why, size, "%s: %s (%s)", path, bts_errstr(r),
			   bts_errdetail());
	if (r > 0 && !entries)
		return say(why, size, "%s: thread %d has no history", path,
			   (int)th->tid);
	if (r > 0)
		return say(why, size, "--at %llu: the history of thread %d has "
			   "%llu instructions", (unsigned long long)th->at,
			   (int)th->tid, (unsigned long long)entries);
	/* The end of a crash trace is where the saved registers stand. */
	if (th->at && th->at != entries)
		th->crash = NULL;
	th->at = v->at;
	r = load_window(v, 1);
	if (!r) {
		th->pc = v->pc;
		th->pc_state = PC_KNOWN;
	}
	view_free(v);
	if (r < 0)
		return say(why, size, "%s: %s (%s)", path, bts_errstr(r),
			   bts_errdetail());
	if (r > 0)
		return say(why, size, "%s: instruction %llu of thread %d is a gap "
			   "in the history, not an instruction", path,
			   (unsigned long long)th->at, (int)th->tid);
	return 0;
}

int gdb_trace_open(const char *path, pid_t tid, uint64_t at,
		   struct gdb_trace **out, char *why, size_t size)
{
	struct gdb_trace *tr = calloc(1, sizeof(*tr));
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
	if (pick_thread(tr, tid, at, path, why, size))
		return -1;
	r = bts_trace_memory_new(tr->t, tr->pid, &tr->mem);
	if (r < 0)
		return say(why, size, "%s: %s (%s)", path, bts_errstr(r),
			   bts_errdetail());
	return check_end(tr, path, why, size);
}

void gdb_trace_free(struct gdb_trace *tr)
{
	if (!tr)
		return;
	for (size_t i = 0; i < tr->nthreads; i++)
		view_free(tr->threads[i].view);
	free(tr->threads);
	bts_trace_memory_free(tr->mem);
	bts_trace_free(tr->t);
	free(tr);
}

pid_t gdb_trace_pid(const struct gdb_trace *tr)
{
	return tr->pid;
}

pid_t gdb_trace_tid(const struct gdb_trace *tr)
{
	return tr->threads[tr->picked].tid;
}

size_t gdb_trace_threads(const struct gdb_trace *tr, pid_t *tids, size_t max)
{
	for (size_t i = 0; i < tr->nthreads && i < max; i++)
		tids[i] = tr->threads[i].tid;
	return tr->nthreads;
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

int gdb_trace_regs(struct gdb_trace *tr, pid_t tid, struct bts_regs *r)
{
	struct trace_thread *th = find_thread(tr, tid);

	memset(r, 0, sizeof(*r));
	if (!th)
		return GDB_TRACE_REGS_NONE;
	if (th->crash) {
		*r = th->crash->regs;
		return GDB_TRACE_REGS_ALL;
	}
	thread_pc(tr, th);
	if (th->pc_state != PC_KNOWN)
		return GDB_TRACE_REGS_NONE;
	r->rip = th->pc;
	return GDB_TRACE_REGS_PC;
}

int gdb_trace_enable(struct gdb_trace *tr, pid_t tid, uint64_t size,
		     struct gdb_trace_window *w)
{
	uint64_t keep = size / REC_SIZE ? size / REC_SIZE : 1, entries;
	struct trace_thread *th = find_thread(tr, tid);
	struct trace_view *v;
	int r;

	if (!th)
		return -BTS_E_INVAL;
	r = view_open(tr, th, &v, &entries);
	if (!r)
		r = load_window(v, keep);
	if (r) {
		view_free(v);
		return r < 0 ? r : -BTS_E_DECODE;
	}
	view_free(th->view);
	th->view = v;
	/* Numbers 1..n, as a thread's that was recorded from number 1 on. */
	w->oldest = 1;
	w->written = 1 + v->n;
	w->from_start = v->from_start;
	w->begin = v->from_start ? v->begin : 0;
	w->pc = v->pc;
	w->size = v->cap * REC_SIZE;
	return 0;
}

void gdb_trace_disable(struct gdb_trace *tr, pid_t tid)
{
	struct trace_thread *th = find_thread(tr, tid);

	if (th) {
		view_free(th->view);
		th->view = NULL;
	}
}

int gdb_trace_record(const struct gdb_trace *tr, pid_t tid, uint64_t k,
		     struct ptbts_record *rec)
{
	const struct trace_thread *th = find_thread(tr, tid);
	const struct trace_view *v = th ? th->view : NULL;

	if (!v || k < 1 || k > v->n)
		return -1;
	*rec = v->ring[(v->head + k - 1) % v->cap];
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
