// SPDX-License-Identifier: GPL-2.0-or-later
/* btrace dump --pebs: kmod-pebs's samples, one line each. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "btrace.h"
#include "dump.h"

/* struct bts_pebs's order of @regs. */
static const char *const reg_names[16] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static void print_header(const struct bts_trace *t)
{
	const struct bts_pebs_sample *s = bts_trace_pebs(t, 0);

	printf("# pebs: %zu records, %" PRIu64 " lost", bts_trace_npebs(t),
	       bts_trace_pebs_lost(t));
	if (s)
		printf("; event 0x%" PRIx64 " every %" PRIu64 " events, format %u",
		       s->event, s->period, s->format);
	putchar('\n');
}

static void print_sample(struct dump_ctx *c, const struct bts_pebs_sample *s,
			 uint64_t n)
{
	const struct bts_pebs *p = &s->rec;

	printf("%d %" PRIu64 " ", (int)s->tid, n);
	dump_addr(dump_symbolizer(c, s->pid), p->ip);
	if (!p->ip_exact)
		fputs(" [after]", stdout);
	for (int i = 0; p->has_regs && i < 16; i++)
		printf(" %s 0x%" PRIx64, reg_names[i], p->regs[i]);
	if (p->has_regs)
		printf(" rflags 0x%" PRIx64, p->flags);
	if (p->tsc)
		printf(" tsc %" PRIu64, p->tsc);
	putchar('\n');
}

int dump_pebs(struct dump_ctx *c)
{
	size_t nthreads = bts_trace_nthreads(c->trace);
	uint64_t *seen = calloc(nthreads ? nthreads : 1, sizeof(*seen));

	if (!seen) {
		error("dump: out of memory");
		return EXIT_FAILED;
	}
	print_header(c->trace);
	for (size_t i = 0; i < bts_trace_npebs(c->trace); i++) {
		const struct bts_pebs_sample *s = bts_trace_pebs(c->trace, i);
		long th = bts_trace_thread_index(c->trace, s->tid);

		if (th < 0)
			continue;	/* the reader's checks make it one */
		if (!c->o->thread || c->o->thread == s->tid)
			print_sample(c, s, seen[th]);
		seen[th]++;
	}
	free(seen);
	return 0;
}
