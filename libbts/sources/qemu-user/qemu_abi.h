/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the qemu-user source's tracer (libbts) and its plugin inside
 * qemu-x86_64 (plugin/) share: one memfd of the tracer's, which both map.
 *
 * The memfd starts with a directory (PTBTS_QU_DIR_SIZE bytes): the
 * tracer's settings, the plugin's answers, and one entry per thread the
 * tracer gave a ring.  Each ring lies further on in the memfd, at the
 * entry's @offset: a header page (struct ptbts_qu_ring), then @nslots
 * records of struct ptbts_record.  The tracer grows the memfd, maps and
 * locks a ring (charged to its RLIMIT_MEMLOCK) before it publishes the
 * entry; the plugin maps the ring of its thread, found by thread id, when
 * the thread first runs guest code.
 *
 * The positions are the module's (include/uapi/linux/ptrace_bts.h): the
 * producer's @count (records written since the ring was given; head is
 * count % nslots slots, wraps count / nslots), the consumer's @tail (ACK:
 * records consumed), @lost (STOP).  The plugin publishes @count with a
 * store-release after the record; the tracer acknowledges with a
 * store-release of @tail, then bumps @ack_seq and wakes the futex on it
 * when the producer waits (BLOCK).  The producer writes the eventfd named
 * at load (plugin argument evfd=) once each time the unread records reach
 * @wakeup, and whenever it starts to wait.
 *
 * Everything here lives in memory the traced program could scribble on
 * (qemu-user gives the guest no protection from its emulator's memory):
 * the tracer checks every position it reads against its own bounds.
 */
#ifndef PTBTS_QEMU_ABI_H
#define PTBTS_QEMU_ABI_H

#include <stdint.h>

#define PTBTS_QU_MAGIC		0x51425450u	/* "PTBQ" */
#define PTBTS_QU_VERSION	3u
#define PTBTS_QU_DIR_SIZE	65536u
#define PTBTS_QU_RING_HDR	4096u

/* &struct ptbts_qu_dir.state: how far the plugin got. */
enum ptbts_qu_state {
	PTBTS_QU_LOADING	= 0,	/* the plugin did not answer (yet) */
	PTBTS_QU_READY		= 1,	/* installed: the guest may run */
	PTBTS_QU_FAILED		= 2,	/* it refused to record: @why says why */
};

/**
 * struct ptbts_qu_entry - one thread's ring
 * @tid:    the thread (the guest's thread id is its host thread's)
 * @live:   1 once the ring may be used; 0 again when the thread left
 * @offset: where its ring starts in the memfd (page-aligned)
 * @size:   bytes of the ring, header page included
 */
struct ptbts_qu_entry {
	uint32_t tid;
	uint32_t live;
	uint64_t offset;
	uint64_t size;
	uint64_t __reserved;
};

/**
 * struct ptbts_qu_dir - the directory, at offset 0 of the memfd
 * @magic, @version: %PTBTS_QU_MAGIC, %PTBTS_QU_VERSION (the tracer's)
 * @mode:       &enum ptbts_mode, for every ring
 * @nentries:   entries published (store-release after the entry)
 * @state:      &enum ptbts_qu_state, the plugin's
 * @guest_base: the plugin's: host address minus guest address of the
 *              guest's code (0 for x86-64 guests, a page for i386 ones:
 *              the tracer writes the maps less it)
 * @budget:     the tracer's: records the guest may make in all (the
 *              bound of --max-size and the one record past it that shows
 *              the bound was reached); 0: no bound
 * @taken:      the producers': records made against @budget, by every
 *              thread of every process (atomic); the one that makes
 *              record @budget wakes the tracer, and it and every later
 *              one waits to be killed
 * @why:        the plugin's reason when @state is %PTBTS_QU_FAILED
 * @entries:    the threads' rings
 */
struct ptbts_qu_dir {
	uint32_t magic;
	uint32_t version;
	uint32_t mode;
	uint32_t nentries;
	uint32_t state;
	uint32_t __pad;
	uint64_t guest_base;
	uint64_t budget;
	uint64_t taken;
	char why[96];
	struct ptbts_qu_entry entries[];
};

#define PTBTS_QU_MAX_ENTRIES \
	((PTBTS_QU_DIR_SIZE - sizeof(struct ptbts_qu_dir)) / \
	 sizeof(struct ptbts_qu_entry))

/**
 * struct ptbts_qu_ring - the header page of a thread's ring
 * @count:    producer: records written (store-release after the record)
 * @lost:     producer: records that found no room (STOP)
 * @tail:     consumer: records consumed (ACK)
 * @ack_seq:  consumer: bumped after each ACK; the futex a waiting producer
 *            sleeps on
 * @waiting:  producer: 1 while it waits for room (BLOCK)
 * @start_pc: producer: the first guest instruction the thread ran, 0
 *            before that
 * @nslots:   tracer: records the ring holds
 * @wakeup:   tracer: unread records that wake it
 */
struct ptbts_qu_ring {
	uint64_t count;
	uint64_t lost;
	uint64_t tail;
	uint32_t ack_seq;
	uint32_t waiting;
	uint64_t start_pc;
	uint64_t nslots;
	uint64_t wakeup;
};

/*
 * Records of the rings only, never of a trace: a copy of guest code that
 * no file holds (a JIT's), as the plugin translated it, in the ring of
 * the thread that runs it first, right after the record into it.  A CODE
 * record (@from: the code's address, @to: its length in bytes, at most
 * %PTBTS_QU_CODE_MAX), then one BYTES record per 16 bytes of it: @from
 * and @to hold them as memory does (little-endian), the flags' low 32
 * bits the record's index from 0.  The tracer writes the whole copy as a
 * CODE chunk; a copy with a part missing (STOP's losses, RING's
 * overwriting) is dropped.
 */
#define PTBTS_QU_KIND_CODE	0xf0
#define PTBTS_QU_KIND_BYTES	0xf1
#define PTBTS_QU_CODE_MAX	8192u

#endif /* PTBTS_QEMU_ABI_H */
