// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The table of planted breakpoints (a struct bts_addr_table), and the
 * writes that plant and remove them.
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

#include "session/breakpoints.h"

#define TABLE_MIN 1024

void bts_bp_init(struct bts_bptab *t)
{
	memset(t, 0, sizeof(*t));
	bts_addr_table_init(&t->bps, sizeof(struct bts_bp), TABLE_MIN);
	bts_addr_table_init(&t->gone, sizeof(struct bts_bp), TABLE_MIN);
	t->memfd = -1;
}

void bts_bp_free(struct bts_bptab *t)
{
	if (t->memfd >= 0)
		close(t->memfd);
	bts_addr_table_fini(&t->bps);
	bts_addr_table_fini(&t->gone);
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

bool bts_bp_lookup(const struct bts_bptab *t, uint64_t addr, uint8_t *orig)
{
	const struct bts_bp *b = bts_addr_table_get(&t->bps, addr);

	if (!b)
		return false;
	if (orig)
		*orig = b->orig;
	return true;
}

static int write_byte(int fd, uint64_t addr, uint8_t v)
{
	return pwrite(fd, &v, 1, (off_t)addr) == 1 ? 0 : -1;
}

int bts_bp_plant(struct bts_bptab *t, uint64_t addr)
{
	int fd = mem(t);
	struct bts_bp *b;
	uint8_t cur;

	if (fd < 0 || !addr || pread(fd, &cur, 1, (off_t)addr) != 1)
		return -1;
	b = bts_addr_table_get(&t->bps, addr);
	if (b) {
		if (cur == BTS_INT3)
			return 0;
		/* The code under it was rewritten or remapped: decode it anew. */
		bts_addr_table_del(&t->bps, b);
		return -2;
	}
	if (cur == BTS_INT3)
		return -1;	/* the program's own int3: nothing to plant */
	b = bts_addr_table_put(&t->bps, addr);
	if (!b)
		return -1;
	if (write_byte(fd, addr, BTS_INT3)) {
		bts_addr_table_del(&t->bps, b);
		return -1;
	}
	b->orig = cur;
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
	struct bts_bp *b = bts_addr_table_get(&t->bps, addr);

	if (!b)
		return;
	restore(t, b);
	bts_addr_table_del(&t->bps, b);
}

void bts_bp_remove_range(struct bts_bptab *t, uint64_t lo, uint64_t hi)
{
	struct bts_bp *b;
	size_t i;

	for (i = 0; t->bps.used && i < bts_addr_table_nslots(&t->bps); i++) {
		/* A shifted entry may land on i again: look at it once more. */
		while ((b = bts_addr_table_at(&t->bps, i)) && b->addr >= lo &&
		       b->addr < hi) {
			restore(t, b);
			bts_addr_table_del(&t->bps, b);
		}
	}
}

void bts_bp_remove_all(struct bts_bptab *t)
{
	struct bts_bp *b;
	size_t i;

	for (i = 0; t->bps.used && i < bts_addr_table_nslots(&t->bps); i++)
		if ((b = bts_addr_table_at(&t->bps, i))) {
			restore(t, b);
			bts_addr_table_put(&t->gone, b->addr);
		}
	bts_addr_table_clear(&t->bps);
}

/*
 * Without it, a thread that trapped on the int3 just before it was taken
 * out would resume one byte into the instruction, or die of our SIGTRAP.
 * When the table could not grow, the trap is not recognised: the thread
 * gets the SIGTRAP, as it would have before this table existed.
 */
bool bts_bp_gone(const struct bts_bptab *t, uint64_t addr)
{
	return bts_addr_table_get(&t->gone, addr) != NULL;
}

void bts_bp_forget_all(struct bts_bptab *t)
{
	bts_addr_table_clear(&t->bps);
	bts_addr_table_clear(&t->gone);
}

int bts_bp_clean_copy(const struct bts_bptab *t, pid_t pid)
{
	const struct bts_bp *b;
	int fd, err = 0;
	size_t i;

	if (!t->bps.used)
		return 0;
	fd = open_mem(pid, O_RDWR);
	if (fd < 0)
		return -1;
	for (i = 0; i < bts_addr_table_nslots(&t->bps); i++)
		if ((b = bts_addr_table_at(&t->bps, i)) &&
		    write_byte(fd, b->addr, b->orig))
			err = -1;
	close(fd);
	return err;
}

void bts_bp_unplant(const struct bts_bptab *t, uint64_t addr, uint8_t *buf,
		    size_t n)
{
	const struct bts_bp *b;
	size_t i;

	if (!t->bps.used)
		return;
	if (n <= 4 * t->bps.used) {
		for (i = 0; i < n; i++)
			if (buf[i] == BTS_INT3)
				bts_bp_lookup(t, addr + i, &buf[i]);
		return;
	}
	for (i = 0; i < bts_addr_table_nslots(&t->bps); i++) {
		b = bts_addr_table_at(&t->bps, i);
		if (b && b->addr >= addr && b->addr - addr < n &&
		    buf[b->addr - addr] == BTS_INT3)
			buf[b->addr - addr] = b->orig;
	}
}
