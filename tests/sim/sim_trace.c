// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The traced thread and its consumer of sim_trace.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_trace.h"

static void sim_trace_nmi(struct sim_cpu *cpu, void *arg)
{
	struct sim_trace *tr = arg;
	int res;

	if (tr->cpu != cpu->id) {
		tr->stray++;
		return;
	}
	res = ds_task_pmi(&cpu->ops, &tr->task, tr->tail, tr->tail2);
	if (!(res & DS_PMI_OURS)) {
		tr->stray++;
		return;
	}
	if (res & DS_PMI_WAKE) {
		uint64_t unread = ds_win_unread(&tr->task.bts, tr->tail);

		if (!tr->wakes++ || unread < tr->wake_min)
			tr->wake_min = unread;
		if (unread > tr->wake_max)
			tr->wake_max = unread;
		/* The tracer reads part of what is unread, on its own CPU. */
		if (tr->task.bts.cfg.mode != PTBTS_MODE_RING && tr->ack_div) {
			uint64_t part = unread / tr->ack_div;

			sim_trace_consume_to(tr, tr->tail + (part ? part : 1));
		}
	}
	if (res & DS_PMI_BLOCK)
		tr->must_block = true;
}

void sim_trace_init(struct sim_trace *tr, uint64_t nslots, uint32_t mode,
		    uint64_t wakeup, uint64_t margin, unsigned latency,
		    const struct sim_model *m)
{
	struct sim_model full = sim_model_full();
	struct ds_win_cfg cfg;
	int i;

	memset(tr, 0, sizeof(*tr));
	for (i = 0; i < SIM_NCPU; i++) {
		sim_cpu_init(&tr->cpus[i], i, m ? m : &full);
		tr->cpus[i].latency = latency;
		tr->cpus[i].nmi = sim_trace_nmi;
		tr->cpus[i].nmi_arg = tr;
	}
	tr->buf = calloc(nslots, DS_BTS_RECORD);
	tr->scratch = calloc(DS_SCRATCH_RECS(margin), DS_BTS_RECORD);
	tr->own_area = calloc(1, sizeof(*tr->own_area));
	tr->cpu = -1;
	tr->ack_div = 1;
	cfg = (struct ds_win_cfg){
		.buf = tr->buf, .scratch = tr->scratch,
		.rec_size = DS_BTS_RECORD, .nslots = nslots, .mode = mode,
		.wakeup = wakeup, .margin = margin, .markers = true,
	};
	ds_win_init(&tr->task.bts, &cfg);
	ds_task_init(&tr->task, ds_debugctl_bts(true, false), tr->own_area);
}

void sim_trace_pebs(struct sim_trace *tr, uint64_t nrec, uint64_t reset)
{
	uint32_t fmt = DS_PERF_CAP_PEBS_FMT(tr->cpus[0].msr[SIM_PERF_CAP]);
	uint32_t size = ds_pebs_record_size(fmt);
	uint64_t margin = tr->task.bts.cfg.margin;
	struct ds_win_cfg cfg = {
		.rec_size = size, .nslots = nrec, .mode = PTBTS_MODE_RING,
		.wakeup = nrec, .margin = margin, .markers = false,
	};

	tr->pebs_buf = calloc(nrec, size);
	tr->pebs_scratch = calloc(DS_SCRATCH_RECS(margin), size);
	cfg.buf = tr->pebs_buf;
	cfg.scratch = tr->pebs_scratch;
	ds_win_init(&tr->task.pebs, &cfg);
	tr->task.has_pebs = true;
	/* Enabled, user mode only: EN (22) | USR (16); the event is ignored. */
	tr->task.pebs_evtsel = (1ULL << 22) | (1ULL << 16) | 0xc4;
	tr->task.pebs_reset = reset;
	tr->task.pebs_ctr = -reset;
	tr->task.pebs_adaptive = fmt >= 4;
}

void sim_trace_free(struct sim_trace *tr)
{
	free(tr->buf);
	free(tr->scratch);
	free(tr->pebs_buf);
	free(tr->pebs_scratch);
	free(tr->own_area);
}

void sim_trace_in(struct sim_trace *tr, int cpu)
{
	tr->cpu = cpu;
	ds_task_sched_in(&tr->cpus[cpu].ops, &tr->task, tr->tail, tr->tail2);
	if (tr->task.bts.blocked)
		tr->must_block = true;
}

void sim_trace_out(struct sim_trace *tr)
{
	struct sim_cpu *cpu = &tr->cpus[tr->cpu];

	ds_task_sched_out(&cpu->ops, &tr->task, tr->tail, tr->tail2);
	tr->cpu = -1;
	/* Interrupts come back on after the switch: a late PMI finds no one. */
	sim_flush_nmi(cpu);
}

static void sim_check(struct sim_trace *tr, const struct ptbts_record *r)
{
	if (!r->from && PTBTS_KIND(r->flags) == PTBTS_KIND_LOST) {
		tr->expect += r->to;
		tr->marked_lost += r->to;
		return;
	}
	if (!r->from && PTBTS_KIND(r->flags) == PTBTS_KIND_GAP) {
		tr->gaps++;
		return;
	}
	if (r->from != sim_from(tr->expect) || r->to != r->from + 8 ||
	    r->flags != 0)
		tr->bad++;
	tr->expect++;
}

void sim_trace_consume_to(struct sim_trace *tr, uint64_t upto)
{
	const struct ds_win *w = &tr->task.bts;
	const struct ptbts_record *recs = (const void *)tr->buf;
	uint64_t i = tr->tail;

	if (upto - i > w->cfg.nslots) {
		/* RING: the oldest were overwritten, by design. */
		i = upto - w->cfg.nslots;
		tr->expect = i;
	}
	for (; i < upto; i++)
		sim_check(tr, &recs[i % w->cfg.nslots]);
	tr->tail = upto;
	tr->tail2 = tr->task.has_pebs ? tr->task.pebs.count : 0;
}

void sim_trace_consume(struct sim_trace *tr)
{
	sim_trace_consume_to(tr, tr->task.bts.count);
}

static void sim_trace_block(struct sim_trace *tr)
{
	int cpu = tr->cpu;

	tr->blocks++;
	sim_trace_out(tr);
	sim_trace_consume(tr);
	tr->must_block = false;
	sim_trace_in(tr, cpu);
}

void sim_trace_run(struct sim_trace *tr, uint64_t n, uint64_t slice,
		   bool migrate)
{
	uint64_t i;
	int cpu;

	for (i = 0; i < n; i++) {
		if (tr->must_block)
			sim_trace_block(tr);
		cpu = tr->cpu;
		sim_branch(&tr->cpus[cpu], sim_from(tr->next),
			   sim_from(tr->next) + 8, 3);
		tr->next++;
		if (i % 3 == 2) {
			sim_branch(&tr->cpus[cpu], 0xffffffff81000000ULL + i,
				   0xffffffff81000100ULL, 0);
			tr->kernel++;
		}
		if (slice && i % slice == slice - 1) {
			sim_trace_out(tr);
			sim_trace_in(tr, migrate ? (cpu + 1) % SIM_NCPU : cpu);
		}
	}
}
