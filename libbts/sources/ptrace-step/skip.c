// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * --skip: objects (libc.so.6, ld-linux*, ...) whose code runs at full
 * speed under ptrace-step.  Nothing is planted in them and nothing stops
 * there; the tracer only has to get the thread back once control leaves
 * the object, and it does so with nothing but ordinary branch-site int3s
 * (no page protection, no change to the program's stack):
 *
 *  - the transfer into the object is a branch the tracer carries out (the
 *    PLT's jmp *GOT, a call through a pointer): it is recorded, then a
 *    PTBTS_KIND_FILTERED marker (count 0: not known) stands for what runs
 *    inside, and the thread is let go with PTRACE_SYSCALL (syscalls that
 *    unmap code still reach before_unmap);
 *  - the return: the word at the top of the stack at entry is the return
 *    address into the caller (a call pushed it; a PLT jmp keeps the
 *    caller's; ld.so's lazy binding pushed two words above it): the first
 *    of the top words that follows a call instruction in code not skipped;
 *    the block starting there gets its site int3, so the thread stops at
 *    the first branch after the return;
 *  - callbacks (qsort's comparator, atexit handlers, a thread's start
 *    routine, main, _start itself when ld.so is skipped): the first block
 *    of every function of every object not skipped gets its site int3,
 *    once per object, the first time a thread enters a skipped one.  The
 *    functions: the symbol table's, every start in the unwind table
 *    (.eh_frame_hdr: stripped files have it too) and the entry point;
 *  - signals stop the thread as always (their records are exact, even
 *    from inside the object);
 *  - i386 programs alike: their PLT's jmp *GOT(%ebx) and calls through
 *    pointers are branches like any other, and the return address is the
 *    4-byte word at esp (and the words above it).
 * A thread that comes back stops at a site that is not the end of a block
 * it was running: the usual "resync" (step_fast.c) carries that branch out
 * and records it exactly, without a gap marker since the FILTERED one
 * already stands for the hole.  What the trace cannot say: the branch that
 * left the object (its source ran untraced), and the instructions between
 * the return address (or a callback's entry) and the first branch there;
 * code with neither symbol nor unwind entry reached from the object is
 * found only at a site planted before.  BTS_STEP_MODE=single and a
 * session whose int3s are off trace everything: they skip nothing.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sources/ptrace-step/step.h"
#include "sources/ptrace-step/skip.h"
#include "util/array.h"

struct bts_skip {
	char **globs;
	size_t nglobs;
	/* The last map asked about, and its answer: most lookups repeat it. */
	uint64_t lo, hi;
	bool last_skip;
	/* Starts of the objects whose function entries are planted. */
	uint64_t *planted;
	size_t nplanted, cap;
};

void bts_skip_list_free(struct bts_skip *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; k->globs && i < k->nglobs; i++)
		free(k->globs[i]);
	free(k->globs);
	free(k->planted);
	free(k);
}

int bts_skip_list_new(const char *const *globs, struct bts_skip **out)
{
	struct bts_skip *k;
	size_t n = 0;

	*out = NULL;
	if (!globs || !globs[0])
		return 0;
	while (globs[n])
		if (!*globs[n++])
			return bts_fail(BTS_E_INVAL, "skip: empty object name");
	k = calloc(1, sizeof(*k));
	if (!k || !(k->globs = calloc(n, sizeof(*k->globs))))
		goto nomem;
	for (k->nglobs = 0; k->nglobs < n; k->nglobs++) {
		k->globs[k->nglobs] = strdup(globs[k->nglobs]);
		if (!k->globs[k->nglobs])
			goto nomem;
	}
	*out = k;
	return 0;
nomem:
	bts_skip_list_free(k);
	return bts_fail(BTS_E_NOMEM, "skip list");
}

void bts_skip_forget(struct bts_session *s)
{
	struct bts_skip *k = bts_step_of(s)->skip;

	if (!k)
		return;
	k->lo = k->hi = 0;
	k->nplanted = 0;
}

bool bts_skip_list_matches(const struct bts_skip *k, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < k->nglobs; i++)
		if (fnmatch(k->globs[i], base, 0) == 0)
			return true;
	return false;
}

bool bts_skip_list_at(struct bts_skip *k, const struct bts_mapset *maps,
		      uint64_t addr)
{
	const struct bts_map *m;

	if (addr >= k->lo && addr < k->hi)
		return k->last_skip;
	m = bts_mapset_find(maps, addr);
	if (!m)
		return false;	/* not known yet: traced, which is never wrong */
	k->lo = m->start;
	k->hi = m->end;
	k->last_skip = bts_skip_list_matches(k, m->path);
	return k->last_skip;
}

bool bts_skip_addr(struct bts_session *s, uint64_t addr)
{
	const struct bts_step_session *ss = bts_step_of(s);

	if (!ss->skip || ss->single || s->bp_off)
		return false;
	return bts_skip_list_at(ss->skip, &s->maps, addr);
}

/* Where the ELF file's vaddr 0 is in the map @m: the PT_LOAD holding it. */
static bool load_bias(Elf *elf, const struct bts_map *m, uint64_t *bias)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (m->offset >= (ph.p_offset & ~0xfffULL) &&
		    m->offset < ph.p_offset + ph.p_filesz) {
			*bias = m->start - m->offset + (ph.p_offset & ~0xfffULL) -
				(ph.p_vaddr & ~0xfffULL);
			return true;
		}
	}
	return false;
}

/* The full symbol table, else the dynamic one (a stripped file). */
static Elf_Scn *symbols(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB)
			return scn;
		if (sh->sh_type == SHT_DYNSYM) {
			dyn = scn;
			dsh = *sh;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

/*
 * Every function with unwind information, stripped or not: the sorted
 * table of .eh_frame_hdr holds each FDE's start, as 4-byte offsets from
 * the header itself (the encoding every toolchain uses, DW_EH_PE_datarel |
 * sdata4; others are not read).
 */
static void plant_unwind_starts(struct bts_session *s, pid_t tid, Elf *elf,
				int fd, const struct bts_map *m, uint64_t bias)
{
	uint8_t *hdr = NULL;
	GElf_Phdr ph;
	size_t i, n, count;
	int32_t loc;
	uint64_t a;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			break;
	if (i == n || ph.p_filesz < 12 || ph.p_filesz > (64u << 20) ||
	    !(hdr = malloc(ph.p_filesz)) ||
	    pread(fd, hdr, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
		goto out;
	/* version 1, eh_frame_ptr sdata4, fde_count udata4, table datarel sdata4 */
	if (hdr[0] != 1 || (hdr[1] & 0x0f) != 0x0b || hdr[2] != 0x03 ||
	    hdr[3] != 0x3b)
		goto out;
	memcpy(&loc, hdr + 8, 4);
	count = (uint32_t)loc;
	if (count > (ph.p_filesz - 12) / 8)
		goto out;
	for (i = 0; i < count; i++) {
		memcpy(&loc, hdr + 12 + 8 * i, 4);
		a = bias + ph.p_vaddr + (int64_t)loc;
		if (a >= m->start && a < m->end)
			bts_fast_plant_block(s, tid, a);
	}
out:
	free(hdr);
}

static void plant_functions(struct bts_session *s, pid_t tid,
			    const struct bts_map *m)
{
	Elf_Data *data;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Scn *scn;
	uint64_t bias, a;
	size_t i, n;
	Elf *elf;
	int fd;

	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !load_bias(elf, m, &bias))
		goto out;
	if (gelf_getehdr(elf, &eh) && eh.e_entry &&
	    bias + eh.e_entry >= m->start && bias + eh.e_entry < m->end)
		bts_fast_plant_block(s, tid, bias + eh.e_entry);
	plant_unwind_starts(s, tid, elf, fd, m, bias);
	if ((scn = symbols(elf, &sh)) && (data = elf_getdata(scn, NULL)) &&
	    sh.sh_entsize) {
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			a = bias + sym.st_value;
			if (a >= m->start && a < m->end)
				bts_fast_plant_block(s, tid, a);
		}
	}
out:
	elf_end(elf);
	close(fd);
}

static bool planted(struct bts_skip *k, uint64_t start)
{
	size_t i;

	for (i = 0; i < k->nplanted; i++)
		if (k->planted[i] == start)
			return true;
	return false;
}

/* Every object not skipped: the first block of each function has its int3. */
static void plant_entries(struct bts_session *s, pid_t tid)
{
	struct bts_skip *k = bts_step_of(s)->skip;
	const struct bts_map *m;
	size_t i;

	elf_version(EV_CURRENT);
	for (i = 0; i < s->maps.n; i++) {
		m = &s->maps.maps[i];
		if (m->path[0] != '/' || !(m->prot & PROT_EXEC) ||
		    bts_skip_list_matches(k, m->path) || planted(k, m->start))
			continue;
		if (BTS_ARRAY_RESERVE(k->planted, k->cap, k->nplanted + 1))
			return;
		k->planted[k->nplanted++] = m->start;
		plant_functions(s, tid, m);
	}
}

/* The @size-byte word at @addr (a 4-byte one for an i386 program). */
static int read_word(pid_t tid, uint64_t addr, size_t size, uint64_t *v)
{
	uint64_t w = 0;
	struct iovec local = { &w, size };
	struct iovec remote = { (void *)(uintptr_t)addr, size };

	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)size)
		return -1;
	*v = w;		/* little-endian: the low bytes are the word */
	return 0;
}

/* Whether a call instruction ends right before @a in the code of @tid. */
static bool after_call(struct bts_session *s, pid_t tid, bool is32, uint64_t a)
{
	uint8_t code[7];
	struct bts_insn insn;
	size_t len;

	if (bts_read_code(s, tid, a - sizeof(code), code, sizeof(code)) !=
	    (ssize_t)sizeof(code))
		return false;
	for (len = 2; len <= sizeof(code); len++)
		if (bts_insn_classify_mode(is32, code + sizeof(code) - len, len,
					   &insn) == 0 &&
		    insn.len == len &&
		    (insn.kind == BTS_INSN_CALL || insn.kind == BTS_INSN_CALL_IND))
			return true;
	return false;
}

/*
 * The caller's return address: the top of the stack after a call or a
 * PLT jmp; a few words down when ld.so's lazy binding pushed its two.
 * Words are 4 bytes in an i386 program, whose esp is in regs' rsp.
 */
#define RET_SCAN 4

static void plant_return(struct bts_session *s, pid_t tid, bool is32,
			 uint64_t sp)
{
	size_t size = is32 ? 4 : 8;
	const struct bts_map *m;
	uint64_t ret;
	int i;

	for (i = 0; i < RET_SCAN; i++, sp += size) {
		if (read_word(tid, sp, size, &ret))
			return;
		m = bts_mapset_find(&s->maps, ret);
		if (!m || !(m->prot & PROT_EXEC) ||
		    bts_skip_list_matches(bts_step_of(s)->skip, m->path) ||
		    !after_call(s, tid, is32, ret))
			continue;
		bts_fast_plant_block(s, tid, ret);
		return;
	}
}

void bts_skip_enter(struct bts_session *s, struct bts_thread *t,
		    const struct user_regs_struct *regs)
{
	struct bts_step_thread *st = bts_step_thr(t);

	/* A thread not yet in the table is of the current process. */
	const struct bts_proc *p = t->proc ? t->proc : s->cur;

	if (!st->in_gap)
		bts_thread_emit(s, t, 0, 0, PTBTS_KIND_FILTERED);
	plant_entries(s, t->tid);
	plant_return(s, t->tid, p && p->abi32, regs->rsp);
	/* No block: any site of ours is where it comes back. */
	st->fast = true;
	memset(&st->blk, 0, sizeof(st->blk));
	st->hops_done = 0;
	st->in_gap = true;
	st->has_pending = false;
	st->resume_op = PTRACE_SYSCALL;
}
