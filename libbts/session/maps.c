// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Executable mappings of a traced process, with the build-ids of their
 * files, and the session's set of known ones: a record whose target lies
 * outside every known mapping means the program mapped code since (ld.so
 * loading libraries, dlopen), so the maps are read again.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "session/session.h"
#include "util/array.h"

/* ------------------------------------------------------------- build-ids */

static bool note_build_id(Elf_Data *data, struct bts_map *m)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp(name, "GNU", 4) || !nh.n_descsz ||
		    nh.n_descsz > BTS_BUILD_ID_MAX)
			continue;
		memcpy(m->build_id, (const char *)data->d_buf + desc_off,
		       nh.n_descsz);
		m->build_id_len = nh.n_descsz;
		return true;
	}
	return false;
}

static void elf_build_id(Elf *elf, struct bts_map *m)
{
	size_t i, nph;
	Elf_Scn *scn = NULL;

	if (elf_getphdrnum(elf, &nph) == 0) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
						 ELF_T_NHDR);
			if (d && note_build_id(d, m))
				return;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && note_build_id(d, m))
			return;
	}
}

/*
 * Through /proc/PID/map_files the very file that is mapped, even when its
 * path names another file by now (rebuilt, or " (deleted)").
 */
static void file_build_id(pid_t pid, struct bts_map *m)
{
	char mapped[96];
	Elf *elf;
	int fd;

	snprintf(mapped, sizeof(mapped), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(mapped, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		elf_build_id(elf, m);
		elf_end(elf);
	}
	close(fd);
}

/* A vDSO is a page or two: anything far larger is not one. */
#define VDSO_MAX	(1u << 20)

/* The image of a mapping without a file, read from the process. */
static void *read_image(struct bts_session *s, pid_t pid,
			const struct bts_map *m, size_t *len)
{
	size_t want = m->end - m->start;
	void *img;
	ssize_t n;

	if (want > VDSO_MAX)
		return NULL;
	img = malloc(want);
	if (!img)
		return NULL;
	n = bts_read_code(s, pid, m->start, img, want);
	if (n <= 0) {
		free(img);
		return NULL;
	}
	*len = (size_t)n;
	return img;
}

/* The vDSO has no file: its image is read from the process. */
static void vdso_build_id(pid_t pid, struct bts_map *m)
{
	size_t len;
	void *img = read_image(NULL, pid, m, &len);
	Elf *elf;

	if (!img)
		return;
	elf = elf_memory(img, len);
	if (elf) {
		elf_build_id(elf, m);
		elf_end(elf);
	}
	free(img);
}

int bts_map_write_code(struct bts_session *s, const struct bts_map *m)
{
	size_t len;
	void *img;
	int err;

	if (!s->w || strcmp(m->path, "[vdso]"))
		return 0;
	/* Unreadable (the process is gone): the trace just has no copy. */
	img = read_image(s, s->pid, m, &len);
	if (!img)
		return 0;
	err = bts_writer_code(s->w, s->pid, m->start, img, len);
	free(img);
	return err;
}

/* ----------------------------------------------------------------- maps */

/* 1 and @m for a mapping of code (@code's, or executable), 0, or < 0. */
static int parse_line(char *line, pid_t pid, bts_map_code_fn code,
		      struct bts_map *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int pos = 0;
	char *path, *nl;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*u %n", &start, &end, perms,
		   &off, &pos) < 4 || !pos)
		return -1;
	path = line + pos;
	nl = strchr(path, '\n');
	if (nl)
		*nl = '\0';
	if (code ? !code(pid, perms, path, start, end, off) : perms[2] != 'x')
		return 0;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->offset = off;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	m->path = strdup(path);
	return m->path ? 1 : -2;
}

/* A build-id already known for the same file mapping, or none. */
static bool reuse_build_id(const struct bts_mapset *old, struct bts_map *m,
			   uint64_t shift)
{
	size_t i;

	for (i = 0; old && i < old->n; i++) {
		const struct bts_map *o = &old->maps[i];

		if (o->start + shift == m->start && o->end + shift == m->end &&
		    o->offset == m->offset && !strcmp(o->path, m->path)) {
			m->build_id_len = o->build_id_len;
			memcpy(m->build_id, o->build_id, sizeof(m->build_id));
			return true;
		}
	}
	return false;
}

static void add_build_id(pid_t pid, const struct bts_mapset *old,
			 struct bts_map *m, uint64_t shift)
{
	if (reuse_build_id(old, m, shift))
		return;
	if (!strcmp(m->path, "[vdso]"))
		vdso_build_id(pid, m);
	else if (m->path[0] == '/')
		file_build_id(pid, m);
}

static int push(struct bts_map **maps, size_t *n, size_t *cap,
		const struct bts_map *m)
{
	if (BTS_ARRAY_RESERVE(*maps, *cap, *n + 1))
		return bts_fail(BTS_E_NOMEM, "maps: %zu entries", *n + 1);
	(*maps)[(*n)++] = *m;
	return 0;
}

/*
 * An emulator's guest lives at @shift in its host process: each map of
 * the guest's is written at its address in the guest, the host's less
 * @shift (its file and build-id are found at the host's).
 */
static int maps_read(pid_t pid, const struct bts_mapset *old,
		     bts_map_code_fn code, uint64_t shift, struct bts_map **out)
{
	struct bts_map *maps = NULL, m;
	size_t n = 0, cap = 0, lsz = 0;
	char path[64], *line = NULL;
	int err = 0, r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? bts_fail(BTS_E_SRCH, "no process %d", (int)pid)
				       : bts_fail_errno(BTS_E_IO, "%s", path);
	elf_version(EV_CURRENT);
	while (!err && getline(&line, &lsz, f) > 0) {
		r = parse_line(line, pid, code, &m);
		if (r < 0) {
			err = r == -2 ? bts_fail(BTS_E_NOMEM, "maps: path")
				      : bts_fail(BTS_E_IO, "%s: unexpected line", path);
			break;
		}
		if (!r)
			continue;
		add_build_id(pid, old, &m, shift);
		m.start -= shift;
		m.end -= shift;
		err = push(&maps, &n, &cap, &m);
		if (err)
			free(m.path);
	}
	free(line);
	fclose(f);
	if (err) {
		bts_maps_free(maps, n);
		return err;
	}
	*out = maps;
	return (int)n;
}

int bts_maps_new(pid_t pid, struct bts_map **out)
{
	if (pid <= 0 || !out)
		return bts_fail(BTS_E_INVAL, "maps: bad argument");
	return maps_read(pid, NULL, NULL, 0, out);
}

int bts_maps_session(struct bts_session *s, pid_t pid, struct bts_map **out)
{
	return maps_read(pid, NULL, s->ops->map_code, s->guest_base, out);
}

void bts_maps_free(struct bts_map *maps, size_t n)
{
	size_t i;

	for (i = 0; maps && i < n; i++)
		free(maps[i].path);
	free(maps);
}

/* ------------------------------------------------------- the known set */

void bts_mapset_clear(struct bts_mapset *set)
{
	bts_maps_free(set->maps, set->n);
	memset(set, 0, sizeof(*set));
}

struct bts_map *bts_mapset_find(const struct bts_mapset *set, uint64_t addr)
{
	size_t lo = 0, hi = set->n;

	/* /proc/PID/maps lists mappings sorted and disjoint. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < set->maps[mid].start)
			hi = mid;
		else if (addr >= set->maps[mid].end)
			lo = mid + 1;
		else
			return &set->maps[mid];
	}
	return NULL;
}

bool bts_mapset_contains(struct bts_mapset *set, uint64_t addr)
{
	size_t i;

	if (set->last && addr >= set->last->start && addr < set->last->end)
		return true;
	set->last = bts_mapset_find(set, addr);
	if (set->last)
		return true;
	for (i = 0; i < ARRAY_SIZE(set->miss); i++)
		if (set->miss[i] && set->miss[i] == (addr & ~0xfffULL))
			return true;
	return false;
}

static bool same_map(const struct bts_map *a, const struct bts_map *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->offset == b->offset && !strcmp(a->path, b->path);
}

static bool known(const struct bts_mapset *set, const struct bts_map *m)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (same_map(&set->maps[i], m))
			return true;
	return false;
}

int bts_mapset_refresh(struct bts_mapset *set, pid_t pid, uint64_t addr,
		       bts_map_code_fn code, uint64_t shift,
		       int (*emit)(void *arg, const struct bts_map *m),
		       void *arg)
{
	struct bts_map *maps;
	int n, i, err = 0;

	n = maps_read(pid, set, code, shift, &maps);
	if (n < 0)
		return n;
	for (i = 0; i < n && !err; i++)
		if (!known(set, &maps[i]))
			err = emit(arg, &maps[i]);
	bts_maps_free(set->maps, set->n);
	set->maps = maps;
	set->n = (size_t)n;
	set->last = NULL;
	/* Never read the maps again for a page they do not explain. */
	if (addr && !bts_mapset_find(set, addr))
		set->miss[set->nmiss++ % ARRAY_SIZE(set->miss)] = addr & ~0xfffULL;
	return err;
}
