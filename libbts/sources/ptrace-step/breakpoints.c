// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The table of planted breakpoints (open addressing, linear probing with
 * backward-shift deletion), and the writes that plant and remove them.
 *
 * Code is written through /proc/PID/mem: it writes read-only text (as
 * ptrace does, copying the page), works while the threads run, and one
 * byte is one pwrite.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/ptrace-step/breakpoints.h"

#define TABLE_MIN 1024

void bts_bp_init(struct bts_bptab *t)
{
	memset(t, 0, sizeof(*t));
	t->memfd = -1;
}

void bts_bp_free(struct bts_bptab *t)
{
	if (t->memfd >= 0)
		close(t->memfd);
	free(t->slots);
	bts_bp_init(t);
}

static int open_mem(pid_t pid, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	return open(path, flags | O_CLOEXEC);
}

void bts_bp_set_pid(struct bts_bptab *t, pid_t pid)
{
	if (t->memfd >= 0)
		close(t->memfd);
	t->memfd = -1;
	t->pid = pid;
}

static int mem(struct bts_bptab *t)
{
	if (t->memfd < 0 && t->pid > 0)
		t->memfd = open_mem(t->pid, O_RDWR);
	return t->memfd;
}

static size_t hash(uint64_t addr, size_t mask)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & mask;
}

static struct bts_bp *find(const struct bts_bptab *t, uint64_t addr)
{
	size_t i = hash(addr, t->mask);

	while (t->slots[i].addr && t->slots[i].addr != addr)
		i = (i + 1) & t->mask;
	return &t->slots[i];
}

bool bts_bp_lookup(const struct bts_bptab *t, uint64_t addr, uint8_t *orig)
{
	const struct bts_bp *b;

	if (!t->used || !addr)
		return false;
	b = find(t, addr);
	if (!b->addr)
		return false;
	if (orig)
		*orig = b->orig;
	return true;
}

static int grow(struct bts_bptab *t)
{
	size_t n = t->mask ? (t->mask + 1) * 2 : TABLE_MIN, i;
	struct bts_bptab nt = *t;

	nt.slots = calloc(n, sizeof(*nt.slots));
	if (!nt.slots)
		return -1;
	nt.mask = n - 1;
	for (i = 0; t->mask && i <= t->mask; i++)
		if (t->slots[i].addr)
			*find(&nt, t->slots[i].addr) = t->slots[i];
	free(t->slots);
	t->slots = nt.slots;
	t->mask = nt.mask;
	return 0;
}

static int write_byte(int fd, uint64_t addr, uint8_t v)
{
	return pwrite(fd, &v, 1, (off_t)addr) == 1 ? 0 : -1;
}

/* Backward-shift deletion keeps every probe chain unbroken. */
static void delete_slot(struct bts_bptab *t, struct bts_bp *slot)
{
	size_t i = (size_t)(slot - t->slots), j = i, k;

	t->slots[i].addr = 0;
	t->used--;
	for (;;) {
		j = (j + 1) & t->mask;
		if (!t->slots[j].addr)
			return;
		k = hash(t->slots[j].addr, t->mask);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			t->slots[i] = t->slots[j];
			t->slots[j].addr = 0;
			i = j;
		}
	}
}

int bts_bp_plant(struct bts_bptab *t, uint64_t addr)
{
	int fd = mem(t);
	struct bts_bp *b;
	uint8_t cur;

	if (fd < 0 || !addr || pread(fd, &cur, 1, (off_t)addr) != 1)
		return -1;
	if (t->mask && (b = find(t, addr))->addr) {
		if (cur == BTS_INT3)
			return 0;
		/* The code under it was rewritten or remapped: decode it anew. */
		delete_slot(t, b);
		return -2;
	}
	if (cur == BTS_INT3)
		return -1;	/* the program's own int3: nothing to plant */
	if (2 * (t->used + 1) > t->mask + 1 && grow(t))
		return -1;
	if (write_byte(fd, addr, BTS_INT3))
		return -1;
	b = find(t, addr);
	b->addr = addr;
	b->orig = cur;
	t->used++;
	return 0;
}

static void restore(struct bts_bptab *t, const struct bts_bp *b)
{
	int fd = mem(t);
	uint8_t cur;

	/* Only where our int3 still is: the code may have been replaced. */
	if (fd >= 0 && pread(fd, &cur, 1, (off_t)b->addr) == 1 &&
	    cur == BTS_INT3)
		write_byte(fd, b->addr, b->orig);
}

void bts_bp_remove(struct bts_bptab *t, uint64_t addr)
{
	struct bts_bp *b;

	if (!t->used)
		return;
	b = find(t, addr);
	if (!b->addr)
		return;
	restore(t, b);
	delete_slot(t, b);
}

void bts_bp_remove_range(struct bts_bptab *t, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; t->used && i <= t->mask; i++) {
		/* A shifted entry may land on i again: look at it once more. */
		while (t->slots[i].addr && t->slots[i].addr >= lo &&
		       t->slots[i].addr < hi) {
			restore(t, &t->slots[i]);
			delete_slot(t, &t->slots[i]);
		}
	}
}

void bts_bp_remove_all(struct bts_bptab *t)
{
	size_t i;

	for (i = 0; t->used && i <= t->mask; i++)
		if (t->slots[i].addr)
			restore(t, &t->slots[i]);
	bts_bp_forget_all(t);
}

void bts_bp_forget_all(struct bts_bptab *t)
{
	if (t->mask)
		memset(t->slots, 0, (t->mask + 1) * sizeof(*t->slots));
	t->used = 0;
}

int bts_bp_clean_copy(const struct bts_bptab *t, pid_t pid)
{
	int fd, err = 0;
	size_t i;

	if (!t->used)
		return 0;
	fd = open_mem(pid, O_RDWR);
	if (fd < 0)
		return -1;
	for (i = 0; i <= t->mask; i++)
		if (t->slots[i].addr &&
		    write_byte(fd, t->slots[i].addr, t->slots[i].orig))
			err = -1;
	close(fd);
	return err;
}

void bts_bp_unplant(const struct bts_bptab *t, uint64_t addr, uint8_t *buf,
		    size_t n)
{
	size_t i;

	if (!t->used)
		return;
	if (n <= 4 * t->used) {
		for (i = 0; i < n; i++)
			if (buf[i] == BTS_INT3)
				bts_bp_lookup(t, addr + i, &buf[i]);
		return;
	}
	for (i = 0; i <= t->mask; i++) {
		uint64_t a = t->slots[i].addr;

		if (a && a >= addr && a - addr < n && buf[a - addr] == BTS_INT3)
			buf[a - addr] = t->slots[i].orig;
	}
}
