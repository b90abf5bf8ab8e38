/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A traced thread on simulated CPUs, driven through arch/x86/ds/ exactly
 * as the module drives it (sched-in, PMI, sched-out, BLOCK waits), and a
 * consumer that checks what it reads.
 *
 * The thread executes user branches numbered 0, 1, 2, ... (from
 * sim_from(n), to sim_from(n) + 8) with kernel branches in between, which
 * BTS_OFF_OS must keep out.  The consumer checks that the records it reads
 * are those numbers in order, each exactly once, LOST markers accounting
 * for every number missing.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdint.h>

#include "sim_cpu.h"

#define SIM_NCPU 2

static inline uint64_t sim_from(uint64_t n)
{
	return 0x400000 + n * 16;
}

struct sim_trace {
	struct sim_cpu cpus[SIM_NCPU];
	struct ds_task task;
	uint8_t *buf;
	uint8_t *scratch;
	uint8_t *pebs_buf;
	uint8_t *pebs_scratch;
	struct ds_area *own_area;
	int cpu;		/* where the thread runs; -1: switched out */
	uint64_t tail;		/* the consumer's position (ACK) */
	uint64_t tail2;		/* the same, PEBS */

	uint64_t next;		/* the next user branch's number */
	uint64_t kernel;	/* kernel branches executed */
	uint64_t expect;	/* the consumer: the next number it expects */
	uint64_t marked_lost;	/* the sum of the LOST markers read */
	uint64_t bad;		/* records that were not as expected */
	uint64_t gaps;		/* GAP markers read */
	uint64_t wakes;
	uint64_t wake_min;	/* fewest and most unread records at a wake */
	uint64_t wake_max;
	uint64_t blocks;
	uint64_t stray;		/* PMIs that were not the thread's */
	bool must_block;
	unsigned ack_div;	/* on a wake, ack 1/ack_div of the unread */
};

/*
 * @nslots BTS records, @mode, @wakeup records, @margin, PMI @latency.
 * The CPUs are sim_model_full() unless @m is given.
 */
void sim_trace_init(struct sim_trace *tr, uint64_t nslots, uint32_t mode,
		    uint64_t wakeup, uint64_t margin, unsigned latency,
		    const struct sim_model *m);
/* Adds a PEBS region of @nrec records; the event fires every @reset. */
void sim_trace_pebs(struct sim_trace *tr, uint64_t nrec, uint64_t reset);
void sim_trace_free(struct sim_trace *tr);

void sim_trace_in(struct sim_trace *tr, int cpu);
void sim_trace_out(struct sim_trace *tr);
/*
 * @n user branches (and a kernel branch after every 3rd); every @slice
 * branches the thread is switched out and in again, on the other CPU
 * when @migrate.  A BLOCK wait happens where the PMI asks for it.
 */
void sim_trace_run(struct sim_trace *tr, uint64_t n, uint64_t slice,
		   bool migrate);
/* The consumer reads every unread record and acknowledges them. */
void sim_trace_consume(struct sim_trace *tr);
/* ... up to record @upto (a count since attach). */
void sim_trace_consume_to(struct sim_trace *tr, uint64_t upto);

#endif /* SIM_TRACE_H */
