// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * info sharedlibrary: the shared objects of the current thread's process
 * (its newest image), laid out as gdb lays them out.  From and To bound
 * each object's executable mappings; the program itself is not listed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../btrace.h"
#include "commands.h"

/* Whether an earlier map of @im already listed @path. */
static bool listed(const struct bts_image_info *im, size_t i, const char *path)
{
	for (size_t k = 0; k < i; k++)
		if ((im->maps[k].prot & PROT_EXEC) && !strcmp(im->maps[k].path, path))
			return true;
	return false;
}

static void print_object(const struct bts_image_info *im, const char *path)
{
	uint64_t from = UINT64_MAX, to = 0;

	for (size_t k = 0; k < im->nmaps; k++) {
		const struct bts_map *m = &im->maps[k];

		if (!(m->prot & PROT_EXEC) || strcmp(m->path, path))
			continue;
		from = m->start < from ? m->start : from;
		to = m->end > to ? m->end : to;
	}
	/* Symbols are read from the file when it is there. */
	printf("0x%016" PRIx64 "  0x%016" PRIx64 "  %-11s %s\n", from, to,
	       access(path, R_OK) ? "No" : "Yes", shown(path));
}

int info_sharedlibrary(struct replay *r)
{
	struct replay_thread *th = replay_current(r);
	size_t n = bts_trace_nimages(r->trace, th->pid);
	const struct bts_image_info *im = n ? bts_trace_image(r->trace, th->pid, n - 1) : NULL;
	bool any = false;

	for (size_t i = 0; im && i < im->nmaps; i++) {
		const char *path = im->maps[i].path;

		if (!(im->maps[i].prot & PROT_EXEC) || path[0] != '/' ||
		    (im->exe && !strcmp(path, im->exe)) || listed(im, i, path))
			continue;
		if (!any)
			printf("From                To                  Syms Read   "
			       "Shared Object Library\n");
		any = true;
		print_object(im, path);
	}
	if (!any)
		printf("No shared libraries loaded at this time.\n");
	return 0;
}
