// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers of the tests of following and of the flight recorder: running
 * btrace, finding files, names.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_oncrash.h"

void crash_btrace(const char *const args[], const char *prog,
		  const char *const prog_args[], struct harness_cmd *out)
{
	char *argv[32];
	char *bt = BTRACE_PATH(), *pp = PROG_PATH(prog);
	int n = 0;

	argv[n++] = bt;
	argv[n++] = (char *)"record";
	for (size_t i = 0; args && args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n++] = (char *)"--";
	argv[n++] = pp;
	for (size_t i = 0; prog_args && prog_args[i]; i++)
		argv[n++] = (char *)prog_args[i];
	argv[n] = NULL;
	if (harness_run(argv, CRASH_LIMIT_S, out))
		FAIL("cannot run %s", bt);
	free(bt);
	free(pp);
}

char *crash_find_file(const char *dir, const char *prefix)
{
	struct dirent *d;
	char *found = NULL;
	DIR *dp = opendir(dir);

	if (!dp)
		return NULL;
	while ((d = readdir(dp))) {
		if (strncmp(d->d_name, prefix, strlen(prefix)))
			continue;
		if (found) {
			free(found);
			found = NULL;
			break;	/* two: not the one file asked for */
		}
		found = harness_path(dir, d->d_name);
	}
	closedir(dp);
	return found;
}

int crash_count_files(const char *dir)
{
	struct dirent *d;
	int n = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

const char *crash_sym(struct bts_symbolizer *sym, uint64_t addr)
{
	const char *name = NULL;
	uint64_t off;

	if (bts_symbolize(sym, addr, &name, &off) || !name)
		return "?";
	return name;
}

bool crash_has_calls(const struct bts_trace *t, size_t th,
		     struct bts_symbolizer *sym, const char *const pairs[],
		     size_t npairs)
{
	struct ptbts_record *recs = NULL, r;
	struct bts_rec_iter *it = NULL;
	size_t n = 0, cap = 0;
	bool found = false;

	ASSERT_EQ(bts_rec_iter_new(t, th, &it), 0);
	while (bts_rec_iter_next(it, &r) == 1) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs) {
				bts_rec_iter_free(it);
				return false;
			}
		}
		recs[n++] = r;
	}
	bts_rec_iter_free(it);
	for (size_t i = 0; !found && i + npairs <= n; i++) {
		size_t k = 0;

		while (k < npairs && recs[i + k].from &&
		       !strcmp(crash_sym(sym, recs[i + k].from), pairs[2 * k]) &&
		       !strcmp(crash_sym(sym, recs[i + k].to), pairs[2 * k + 1]))
			k++;
		found = k == npairs;
	}
	free(recs);
	return found;
}

/*
 * A symbolizer over image @img of process @pid only: a trace of that
 * image's maps and code copies is written and opened (one file reported
 * at two addresses by two images would name only one of them).
 */
int crash_image_sym(const struct bts_trace *t, pid_t pid, size_t img,
		    struct bts_trace **tt, struct bts_symbolizer **sym)
{
	const struct bts_image_info *im = bts_trace_image(t, pid, img);
	const struct bts_trace_info *ti = bts_trace_info(t);
	struct bts_writer *w;
	char name[64], *path;
	int err;

	if (!im)
		return -1;
	snprintf(name, sizeof(name), "image-%d-%zu.btr", (int)pid, img);
	path = harness_path(harness_tmpdir(), name);
	err = bts_writer_new(path, &w);
	if (!err)
		err = bts_writer_session(w, ti->source, ti->mode, ti->buffer_size);
	if (!err)
		err = bts_writer_process(w, pid, 0, im->exe);
	for (size_t i = 0; !err && i < im->nmaps; i++)
		err = bts_writer_map(w, pid, &im->maps[i]);
	for (size_t i = 0; !err && i < im->ncode; i++)
		err = bts_writer_code(w, pid, im->code[i].addr, im->code[i].bytes,
				      im->code[i].len);
	if (!err)
		err = bts_writer_finish(w);
	bts_writer_free(w);
	if (!err)
		err = bts_trace_new(path, tt);
	if (!err)
		err = bts_symbolizer_new(*tt, pid, sym);
	free(path);
	return err;
}
