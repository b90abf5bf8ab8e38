// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Guest code that no file holds (a JIT's, written into anonymous memory):
 * the trace needs a copy of its bytes to decode it, and QEMU is the one
 * that sees them as they ran.  At translation, a block whose code lies in
 * a mapping of QEMU's without a file (its /proc/self/maps, read again
 * after the guest maps, unmaps or protects memory) is copied; the thread
 * that runs it first puts the copy into its ring (qemu_abi.h) right after
 * the record into it.
 *
 * The bytes copied so far are kept, a page at a time: a block whose bytes
 * differ from them was rewritten since, and its first run is preceded by
 * a code-changed marker (decode_changes.c), so that runs of the older
 * bytes are not decoded with the newer copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* ------------------------------------------------------ QEMU's mappings */

struct mapping {
	uintptr_t lo, hi;
	bool file;
};

static struct mapping *maps;
static size_t nmaps;
static unsigned int maps_gen, maps_read_gen = ~0u;

void pq_code_maps_changed(void)
{
	__atomic_add_fetch(&maps_gen, 1, __ATOMIC_RELEASE);
}

static void read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	struct mapping *v = NULL, *nv;
	size_t n = 0, cap = 0, len = 0;
	unsigned long lo, hi, inode;
	char *line = NULL;

	maps_read_gen = __atomic_load_n(&maps_gen, __ATOMIC_ACQUIRE);
	while (f && getline(&line, &len, f) > 0) {
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi, &inode) != 3)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = (struct mapping){ lo, hi, inode != 0 };
	}
	free(line);
	if (f)
		fclose(f);
	free(maps);
	maps = v;
	nmaps = n;
}

static const struct mapping *find_mapping(uintptr_t h)
{
	for (size_t i = 0; i < nmaps; i++)
		if (h >= maps[i].lo && h < maps[i].hi)
			return &maps[i];
	return NULL;
}

/* Whether QEMU's memory at @h, the guest's code, has no file. */
static bool fileless(uintptr_t h)
{
	const struct mapping *m = NULL;

	if (maps_read_gen == __atomic_load_n(&maps_gen, __ATOMIC_ACQUIRE))
		m = find_mapping(h);
	if (!m) {
		read_maps();
		m = find_mapping(h);
	}
	return m && !m->file;
}

/* --------------------------------------------------- the bytes copied */

#define PAGE		4096u
#define NBUCKETS	256u

struct shadow {
	struct shadow *next;
	uint64_t page;
	uint8_t known[PAGE / 8];
	uint8_t bytes[PAGE];
};

static struct shadow *buckets[NBUCKETS];

static struct shadow *shadow_of(uint64_t addr)
{
	uint64_t page = addr / PAGE;
	struct shadow **b = &buckets[page % NBUCKETS], *s;

	for (s = *b; s; s = s->next)
		if (s->page == page)
			return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->page = page;
	s->next = *b;
	*b = s;
	return s;
}

/* Keeps @len bytes at @addr: true when any differs from the one kept. */
static bool keep_bytes(uint64_t addr, const uint8_t *p, size_t len)
{
	bool changed = false;

	for (size_t i = 0; i < len; i++) {
		struct shadow *s = shadow_of(addr + i);
		unsigned int o = (unsigned int)((addr + i) % PAGE);

		if (!s)
			return changed;
		if (s->known[o / 8] & (1u << (o % 8)))
			changed |= s->bytes[o] != p[i];
		s->known[o / 8] |= (uint8_t)(1u << (o % 8));
		s->bytes[o] = p[i];
	}
	return changed;
}

/* -------------------------------------------------------------- copies */

uint8_t *pq_code_copy(struct qemu_plugin_tb *tb, uint64_t pc, size_t len,
		      bool *changed)
{
	struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn(tb, 0);
	size_t i, n = qemu_plugin_tb_n_insns(tb), at = 0;
	uint8_t *code;

	*changed = false;
	if (!len || len > PTBTS_QU_CODE_MAX ||
	    !fileless((uintptr_t)qemu_plugin_insn_haddr(first)))
		return NULL;
	code = malloc(len);
	if (!code)
		return NULL;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t sz = qemu_plugin_insn_size(insn);

		if (at + sz > len)
			break;
		memcpy(code + at, qemu_plugin_insn_data(insn), sz);
		at += sz;
	}
	if (at != len) {
		free(code);
		return NULL;
	}
	*changed = keep_bytes(pc, code, len);
	return code;
}

void pq_put_code(struct pq_thread *me, uint64_t pc, const uint8_t *code,
		 size_t len)
{
	uint64_t half[2];

	pq_put(me, pc, len, PTBTS_QU_KIND_CODE);
	for (size_t i = 0; i * 16 < len; i++) {
		size_t n = len - i * 16 < 16 ? len - i * 16 : 16;

		memset(half, 0, sizeof(half));
		memcpy(half, code + i * 16, n);
		pq_put_flags(me, half[0], half[1],
			     PTBTS_MKKIND(PTBTS_QU_KIND_BYTES) | i);
	}
}

/* At QEMU's exit. */
void pq_code_free(void)
{
	for (size_t i = 0; i < NBUCKETS; i++) {
		while (buckets[i]) {
			struct shadow *next = buckets[i]->next;

			free(buckets[i]);
			buckets[i] = next;
		}
	}
	free(maps);
	maps = NULL;
	nmaps = 0;
}
