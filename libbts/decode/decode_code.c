// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The code bytes of a traced process, read offline: the process is
 * usually gone once its trace is written (when it is not, decode_live.c
 * reads its memory first).  Code comes from the files its maps name,
 * mapped read-only once each, and from the copies of code no file holds
 * (the vDSO) that the trace carries.  A file whose build-id differs from
 * the one recorded is not used: decoding the wrong bytes would invent a
 * history, a gap tells the truth.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "decode/decode.h"
#include "util/warnings.h"

enum file_state { FILE_UNOPENED, FILE_OK, FILE_BAD };

struct code_file {
	int state;
	const uint8_t *base;
	size_t size;
};

struct bts_code_image {
	const struct bts_map *maps;
	size_t nmaps;
	size_t *file_of;	/* per map: index in @files */
	struct code_file *files;
	const struct bts_code *copies;
	size_t ncopies;
	size_t last;		/* the map of the last hit */
	struct bts_live_code *live;	/* NULL: offline */
	struct bts_warnings warnings;
};

static void warn(struct bts_code_image *ci, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct bts_code_image *ci, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bts_warnings_vadd(&ci->warnings, false, fmt, ap);
	va_end(ap);
}

const char *bts_code_image_warning(const struct bts_code_image *ci, size_t i)
{
	return ci ? bts_warnings_get(&ci->warnings, i) : NULL;
}

int bts_code_image_new(const struct bts_trace *t, pid_t pid,
		       struct bts_session *live, struct bts_code_image **out)
{
	struct bts_code_image *ci = calloc(1, sizeof(*ci));

	if (!ci)
		return bts_fail(BTS_E_NOMEM, "code image");
	if (live && !(ci->live = bts_live_code_new(live, pid))) {
		free(ci);
		return bts_fail(BTS_E_NOMEM, "code image");
	}
	ci->nmaps = bts_trace_maps(t, pid, &ci->maps);
	ci->ncopies = bts_trace_code(t, pid, &ci->copies);
	ci->file_of = calloc(ci->nmaps + 1, sizeof(*ci->file_of));
	ci->files = calloc(ci->nmaps + 1, sizeof(*ci->files));
	if (!ci->file_of || !ci->files) {
		bts_code_image_free(ci);
		return bts_fail(BTS_E_NOMEM, "code image");
	}
	/* Maps of one file share one mapping of it. */
	for (size_t i = 0; i < ci->nmaps; i++) {
		ci->file_of[i] = i;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ci->maps[j].path, ci->maps[i].path)) {
				ci->file_of[i] = ci->file_of[j];
				break;
			}
	}
	*out = ci;
	return 0;
}

void bts_code_image_free(struct bts_code_image *ci)
{
	if (!ci)
		return;
	for (size_t i = 0; i < ci->nmaps; i++)
		if (ci->files[i].state == FILE_OK && ci->files[i].size)
			munmap((void *)ci->files[i].base, ci->files[i].size);
	bts_warnings_free(&ci->warnings);
	bts_live_code_free(ci->live);
	free(ci->files);
	free(ci->file_of);
	free(ci);
}

static bool same_build_id(const uint8_t *base, size_t size,
			  const struct bts_map *m)
{
	Elf *elf;
	const void *id;
	ssize_t len;
	bool same;

	if (!m->build_id_len)
		return true;	/* nothing was recorded to compare with */
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)base, size);
	if (!elf)
		return false;
	len = dwelf_elf_gnu_build_id(elf, &id);
	same = len == (ssize_t)m->build_id_len &&
	       !memcmp(id, m->build_id, m->build_id_len);
	elf_end(elf);
	return same;
}

static void open_file(struct bts_code_image *ci, struct code_file *f,
		      const struct bts_map *m)
{
	struct stat st;
	void *base;
	int fd;

	f->state = FILE_BAD;
	fd = bts_open_regular(m->path);
	if (fd == BTS_NOT_REGULAR) {
		warn(ci, "%s: not a regular file: its code is not decoded", m->path);
		return;
	}
	if (fd < 0) {
		warn(ci, "%s: cannot open (%m): its code is not decoded", m->path);
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		warn(ci, "%s: not a regular file: its code is not decoded", m->path);
		close(fd);
		return;
	}
	base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		warn(ci, "%s: cannot map (%m): its code is not decoded", m->path);
		return;
	}
	if (!same_build_id(base, st.st_size, m)) {
		warn(ci, "%s: not the file that was traced (build-id differs): "
		     "its code is not decoded", m->path);
		munmap(base, st.st_size);
		return;
	}
	f->base = base;
	f->size = st.st_size;
	f->state = FILE_OK;
}

/* The map holding @addr, or -1; maps are sorted and do not overlap. */
static long find_map(struct bts_code_image *ci, uint64_t addr)
{
	size_t lo = 0, hi = ci->nmaps;

	if (ci->last < ci->nmaps && addr >= ci->maps[ci->last].start &&
	    addr < ci->maps[ci->last].end)
		return ci->last;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ci->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= ci->nmaps || addr < ci->maps[lo].start)
		return -1;
	ci->last = lo;
	return lo;
}

static const uint8_t *copy_at(struct bts_code_image *ci, uint64_t addr,
			      size_t *avail)
{
	size_t lo = 0, hi = ci->ncopies;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ci->copies[mid].addr + ci->copies[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= ci->ncopies || addr < ci->copies[lo].addr)
		return NULL;
	*avail = ci->copies[lo].addr + ci->copies[lo].len - addr;
	return ci->copies[lo].bytes + (addr - ci->copies[lo].addr);
}

const uint8_t *bts_code_image_at(struct bts_code_image *ci, uint64_t addr,
				 size_t *avail)
{
	const struct bts_map *m;
	struct code_file *f;
	const uint8_t *p;
	uint64_t off;
	long i;

	/* a few instructions at least, or a read per block */
	if (ci->live && (p = bts_live_code_at(ci->live, addr, 64, avail)))
		return p;
	if (ci->ncopies && (p = copy_at(ci, addr, avail)))
		return p;
	i = find_map(ci, addr);
	if (i < 0)
		return NULL;
	m = &ci->maps[i];
	if (!m->path || m->path[0] != '/')
		return NULL;	/* anonymous memory, or [vdso] without a copy */
	f = &ci->files[ci->file_of[i]];
	if (f->state == FILE_UNOPENED)
		open_file(ci, f, m);
	if (f->state != FILE_OK)
		return NULL;
	off = m->offset + (addr - m->start);
	if (off >= f->size)
		return NULL;
	*avail = f->size - off;
	if (*avail > m->end - addr)
		*avail = m->end - addr;
	return f->base + off;
}

const uint8_t *bts_code_image_more(struct bts_code_image *ci, uint64_t addr,
				   size_t have, size_t *avail)
{
	const uint8_t *p;

	if (!ci->live)
		return NULL;
	p = bts_live_code_at(ci->live, addr, 2 * have + 16, avail);
	return p && *avail > have ? p : NULL;
}
