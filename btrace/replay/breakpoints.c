// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Breakpoints in a replay: break FUNC|FILE:LINE|*ADDR, delete, continue
 * and reverse-continue to them, info breakpoints.  A location resolves to
 * one address, as gdb resolves it, found in the current thread's history:
 * the first instruction of FUNC, the first instruction of FILE:LINE that
 * ran.  A breakpoint then stops every thread that reaches that address.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../btrace.h"
#include "../names.h"
#include "commands.h"
#include "motion.h"

static bool file_is(const char *path, const char *want)
{
	size_t n = strlen(path), w = strlen(want);

	return !strcmp(path, want) ||
	       (n > w && path[n - w - 1] == '/' && !strcmp(path + n - w, want));
}

/* The first instruction of @func in the history, or 0. */
static uint64_t find_function(const struct replay_history *h,
			      struct bts_symbolizer *sym, const char *func)
{
	for (uint64_t q = 1; sym && q <= h->n; q++) {
		const struct replay_insn *in = replay_insn(h, q);
		const char *name;
		uint64_t off;

		if (in->iclass == BTS_ICLASS_GAP ||
		    bts_symbolize(sym, in->ip, &name, &off) < 0 || off)
			continue;
		if (!strcmp(name, func) || !strcmp(name_shown(name), func))
			return in->ip;
	}
	return 0;
}

/* The first instruction of @file:@line that ran, or 0. */
static uint64_t find_line(const struct replay_history *h,
			  struct bts_symbolizer *sym, const char *file, int line)
{
	for (uint64_t q = 1; sym && q <= h->n; q++) {
		const struct replay_insn *in = replay_insn(h, q);
		const char *f;
		int l;

		if (in->iclass != BTS_ICLASS_GAP &&
		    bts_symbolize_line(sym, in->ip, &f, &l) == 0 && l == line &&
		    file_is(f, file))
			return in->ip;
	}
	return 0;
}

/* FUNC, FILE:LINE or *ADDR into an address; 0 when it is none. */
static uint64_t resolve(struct replay *r, const char *spec)
{
	struct replay_thread *th = replay_current(r);
	const char *colon = strrchr(spec, ':');
	char *end, file[256];
	unsigned long long v;

	if (spec[0] == '*') {
		errno = 0;
		v = strtoull(spec + 1, &end, 0);
		return errno || end == spec + 1 || *end ? 0 : v;
	}
	if (colon && colon[1] && colon > spec && colon[-1] != ':') {
		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (!errno && !*end && v > 0 && v < INT32_MAX &&
		    (size_t)(colon - spec) < sizeof(file)) {
			snprintf(file, sizeof(file), "%.*s", (int)(colon - spec), spec);
			return find_line(&th->h, replay_sym(r), file, (int)v);
		}
	}
	return find_function(&th->h, replay_sym(r), spec);
}

/* " main () at t.c:5" / " 0x... in ?? ()": where @addr is, as gdb names it. */
static void print_place(struct bts_symbolizer *sym, uint64_t addr)
{
	const char *name, *file;
	uint64_t off;
	int line;

	if (sym && symbolize_shown(sym, addr, &name, &off) == 0)
		printf("%s ()", name);
	else
		printf("0x%016" PRIx64 " in ?? ()", addr);
	if (sym && bts_symbolize_line(sym, addr, &file, &line) == 0)
		printf(" at %s:%d", shown(file), line);
}

int rc_break(struct replay *r, const char *args)
{
	struct replay_break *v, *b;
	const char *file;
	uint64_t addr;
	int line;

	if (!*args) {
		error("break: FUNC, FILE:LINE or *ADDR");
		return -1;
	}
	addr = resolve(r, args);
	if (!addr) {
		error("break: \"%s\" is not in the history of thread %d", args,
		      (int)replay_current(r)->tid);
		return -1;
	}
	v = realloc(r->breaks, (r->nbreaks + 1) * sizeof(*v));
	if (!v) {
		error("out of memory");
		return -1;
	}
	r->breaks = v;
	b = &v[r->nbreaks];
	b->spec = strdup(args);
	if (!b->spec) {
		error("out of memory");
		return -1;
	}
	b->number = ++r->last_break;
	b->addr = addr;
	r->nbreaks++;
	printf("Breakpoint %d at 0x%" PRIx64, b->number, addr);
	if (replay_sym(r) && bts_symbolize_line(replay_sym(r), addr, &file, &line) == 0)
		printf(": file %s, line %d", shown(file), line);
	printf(".\n");
	return 0;
}

int rc_delete(struct replay *r, const char *args)
{
	char *end;
	long n;

	if (!*args) {
		for (size_t i = 0; i < r->nbreaks; i++)
			free(r->breaks[i].spec);
		r->nbreaks = 0;
		return 0;
	}
	n = strtol(args, &end, 10);
	for (size_t i = 0; !*end && i < r->nbreaks; i++) {
		if (r->breaks[i].number != n)
			continue;
		free(r->breaks[i].spec);
		memmove(&r->breaks[i], &r->breaks[i + 1],
			(r->nbreaks - i - 1) * sizeof(r->breaks[0]));
		r->nbreaks--;
		return 0;
	}
	error("delete: no breakpoint number %s", args);
	return -1;
}

static const struct replay_break *break_at(const struct replay *r,
					   const struct replay_insn *in)
{
	if (in->iclass == BTS_ICLASS_GAP)
		return NULL;
	for (size_t i = 0; i < r->nbreaks; i++)
		if (r->breaks[i].addr == in->ip)
			return &r->breaks[i];
	return NULL;
}

static int run_to_break(struct replay *r, const char *cmd, const char *args,
			bool reverse)
{
	struct replay_thread *th = replay_current(r);
	const struct replay_break *b;
	uint64_t q = th->pos;

	if (*args) {
		error("%s takes no argument", cmd);
		return -1;
	}
	while (reverse ? q > 1 : q < th->h.n) {
		q = reverse ? q - 1 : q + 1;
		b = break_at(r, replay_insn(&th->h, q));
		if (!b)
			continue;
		th->pos = q;
		printf("\nBreakpoint %d, ", b->number);
		print_place(replay_sym(r), b->addr);
		putchar('\n');
		replay_print_where(r);
		return 0;
	}
	th->pos = q;
	return replay_moved(r, MOTION_NO_HISTORY);
}

int rc_continue(struct replay *r, const char *args)
{
	return run_to_break(r, "continue", args, false);
}

int rc_reverse_continue(struct replay *r, const char *args)
{
	return run_to_break(r, "reverse-continue", args, true);
}

int info_breakpoints(struct replay *r)
{
	if (!r->nbreaks) {
		printf("No breakpoints.\n");
		return 0;
	}
	printf("Num     Address            What\n");
	for (size_t i = 0; i < r->nbreaks; i++) {
		printf("%-7d 0x%016" PRIx64 " %s: ", r->breaks[i].number,
		       r->breaks[i].addr, r->breaks[i].spec);
		print_place(replay_sym(r), r->breaks[i].addr);
		putchar('\n');
	}
	return 0;
}
