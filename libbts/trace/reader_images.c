// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The images of the processes of a trace: an EXEC chunk ends one image and
 * starts the next, and the MAP and CODE chunks that follow belong to it.
 * trace_index.c keeps the union of all maps (what the decoder reads); here
 * each image keeps its own, with the same rule: a later map or code copy
 * replaces what it overlaps of earlier ones.
 */
#include <endian.h>
#include <stdlib.h>

#include "trace/reader_images.h"

static int bad(size_t off, const char *what)
{
	return bts_fail(BTS_E_FORMAT, "offset %zu: %s", off, what);
}


static int new_image(struct bts_tproc_ext *pe, const char *exe, pid_t tid,
		     uint64_t entry)
{
	struct bts_timage *im;

	if (bts_tindex_grow(&pe->images, &pe->capimages, pe->nimages, sizeof(*im)))
		return -BTS_E_NOMEM;
	im = &pe->images[pe->nimages++];
	*im = (struct bts_timage){
		.info = { .exe = exe, .tid = tid, .entry = entry },
	};
	return 0;
}

struct bts_tproc_ext *bts_tprocs_get(struct bts_trace *t, size_t proc)
{
	struct bts_trace_ext *x = t->ext;
	struct bts_tproc_ext *pe;

	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return NULL;
		t->ext = x;
	}
	if (proc >= x->nprocs) {
		size_t n = t->nprocs > proc ? t->nprocs : proc + 1;
		struct bts_tproc_ext *p = reallocarray(x->procs, n, sizeof(*p));

		if (!p)
			return NULL;
		memset(p + x->nprocs, 0, (n - x->nprocs) * sizeof(*p));
		x->procs = p;
		x->nprocs = n;
	}
	pe = &x->procs[proc];
	if (!pe->nimages && new_image(pe, t->procs[proc].info.exe, 0, 0))
		return NULL;
	return pe;
}

const struct bts_tproc_ext *bts_tprocs_find(const struct bts_trace *t,
					    pid_t pid)
{
	long i = bts_tindex_process(t, pid);

	if (i < 0 || !t->ext || (size_t)i >= t->ext->nprocs ||
	    !t->ext->procs[i].nimages)
		return NULL;
	return &t->ext->procs[i];
}

int bts_rd_exec(struct bts_trace *t, const uint8_t *p, size_t plen, size_t off)
{
	struct bts_chunk_exec c;
	struct bts_tproc_ext *pe;
	const char *exe;
	long proc;

	if (plen < sizeof(c) + 1)
		return bad(off, "exec chunk is too short");
	memcpy(&c, p, sizeof(c));
	c.exe_len = le32toh(c.exe_len);
	if (c.exe_len != plen - sizeof(c) - 1 || c.reserved)
		return bad(off, "exec chunk: the path length does not match the chunk");
	exe = (const char *)p + sizeof(c);
	if (exe[c.exe_len] || memchr(exe, 0, c.exe_len))
		return bad(off, "exec chunk: malformed path");
	proc = bts_tindex_process(t, (int32_t)le32toh(c.pid));
	if (proc < 0 || (int32_t)le32toh(c.tid) <= 0)
		return bad(off, "exec of a process that has not appeared");
	pe = bts_tprocs_get(t, proc);
	exe = bts_trace_keep(t, exe, c.exe_len + 1);
	if (!pe || !exe)
		return bts_fail(BTS_E_NOMEM, "trace index");
	return new_image(pe, exe, (int32_t)le32toh(c.tid), le64toh(c.entry));
}

static int map_cmp(const void *a, const void *b)
{
	const struct bts_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Inserts @m into @im's maps: the parts of older maps outside it stay (a
 * right part's file offset moves along), then the set is sorted again.
 */
static int image_add_map(struct bts_timage *im, const struct bts_map *m)
{
	size_t n = im->info.nmaps, i;

	for (i = 0; i < n; i++) {
		struct bts_map *o = &im->maps[i];

		if (o->end <= m->start || o->start >= m->end)
			continue;
		if (o->start < m->start && o->end > m->end) {
			struct bts_map right = *o;

			right.offset += m->end - o->start;
			right.start = m->end;
			o->end = m->start;
			if (bts_tindex_grow(&im->maps, &im->capmaps, n, sizeof(*o)))
				return -BTS_E_NOMEM;
			im->maps[n++] = right;
		} else if (o->start < m->start) {
			o->end = m->start;
		} else if (o->end > m->end) {
			o->offset += m->end - o->start;
			o->start = m->end;
		} else {
			im->maps[i--] = im->maps[--n];
		}
	}
	if (bts_tindex_grow(&im->maps, &im->capmaps, n, sizeof(*m)))
		return -BTS_E_NOMEM;
	im->maps[n++] = *m;
	qsort(im->maps, n, sizeof(*m), map_cmp);
	im->info.nmaps = n;
	im->info.maps = im->maps;
	return 0;
}

static int code_cmp(const void *a, const void *b)
{
	const struct bts_code *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int image_add_code(struct bts_timage *im, const struct bts_code *c)
{
	uint64_t cend = c->addr + c->len;
	size_t n = im->info.ncode, i;

	for (i = 0; i < n; i++) {
		struct bts_code *o = &im->code[i];
		uint64_t oend = o->addr + o->len;

		if (oend <= c->addr || o->addr >= cend)
			continue;
		if (o->addr < c->addr && oend > cend) {
			struct bts_code right = {
				cend, oend - cend, o->bytes + (cend - o->addr),
			};

			o->len = c->addr - o->addr;
			if (bts_tindex_grow(&im->code, &im->capcode, n, sizeof(*o)))
				return -BTS_E_NOMEM;
			im->code[n++] = right;
		} else if (o->addr < c->addr) {
			o->len = c->addr - o->addr;
		} else if (oend > cend) {
			o->bytes += cend - o->addr;
			o->len = oend - cend;
			o->addr = cend;
		} else {
			im->code[i--] = im->code[--n];
		}
	}
	if (bts_tindex_grow(&im->code, &im->capcode, n, sizeof(*c)))
		return -BTS_E_NOMEM;
	im->code[n++] = *c;
	qsort(im->code, n, sizeof(*c), code_cmp);
	im->info.ncode = n;
	im->info.code = im->code;
	return 0;
}

int bts_tprocs_map(struct bts_trace *t, size_t proc, const struct bts_map *m)
{
	struct bts_tproc_ext *pe = bts_tprocs_get(t, proc);

	if (!pe)
		return bts_fail(BTS_E_NOMEM, "trace index");
	return image_add_map(&pe->images[pe->nimages - 1], m);
}

int bts_tprocs_code(struct bts_trace *t, size_t proc, uint64_t addr,
		    const uint8_t *bytes, uint32_t len)
{
	struct bts_tproc_ext *pe = bts_tprocs_get(t, proc);
	struct bts_code c = { addr, len, bytes };

	if (!pe)
		return bts_fail(BTS_E_NOMEM, "trace index");
	return image_add_code(&pe->images[pe->nimages - 1], &c);
}

/* Every process has its first image, also one with no map. */
int bts_tprocs_finish(struct bts_trace *t)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (!bts_tprocs_get(t, i))
			return bts_fail(BTS_E_NOMEM, "trace index");
	return 0;
}

void bts_tprocs_free(struct bts_trace *t)
{
	struct bts_trace_ext *x = t->ext;

	if (!x)
		return;
	for (size_t i = 0; i < x->nprocs; i++) {
		struct bts_tproc_ext *pe = &x->procs[i];

		for (size_t j = 0; j < pe->nimages; j++) {
			free(pe->images[j].maps);
			free(pe->images[j].code);
		}
		free(pe->images);
		bts_tcrash_free(pe->crash);
	}
	free(x->procs);
	free(x);
	t->ext = NULL;
}

size_t bts_trace_nimages(const struct bts_trace *t, pid_t pid)
{
	const struct bts_tproc_ext *pe = t ? bts_tprocs_find(t, pid) : NULL;

	return pe ? pe->nimages : 0;
}

const struct bts_image_info *bts_trace_image(const struct bts_trace *t,
					     pid_t pid, size_t i)
{
	const struct bts_tproc_ext *pe = t ? bts_tprocs_find(t, pid) : NULL;

	return pe && i < pe->nimages ? &pe->images[i].info : NULL;
}

long bts_trace_thread_index(const struct bts_trace *t, pid_t tid)
{
	return t ? bts_tindex_thread(t, tid) : -1;
}

int bts_writer_exec(struct bts_writer *w, pid_t pid, pid_t tid,
		    const char *exe, uint64_t entry)
{
	struct bts_chunk_exec c = {
		.pid = htole32(pid),
		.tid = htole32(tid),
		.entry = htole64(entry),
	};

	if (!exe)
		exe = "";
	if (!w || pid <= 0 || tid <= 0 || strlen(exe) >= UINT32_MAX / 2)
		return bts_fail(BTS_E_INVAL, "exec of thread %d of process %d",
				tid, pid);
	c.exe_len = htole32(strlen(exe));
	return bts_writer_chunk(w, BTS_CHUNK_EXEC | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, exe);
}
