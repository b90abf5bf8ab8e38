/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An output file that appears whole or not at all: written under
 * PATH.tmp.PID and renamed to PATH once complete, as trace files are.
 */
#ifndef BTRACE_OUT_FILE_H
#define BTRACE_OUT_FILE_H

#include <stdio.h>

struct out_file {
	char *path, *tmp;
	FILE *f;		/* write here */
};

/* -1 (said on stderr) when PATH cannot be made or must not be replaced. */
int out_file_open(struct out_file *o, const char *path);
/* Puts the file in place; -1 (said, nothing left behind) when it failed. */
int out_file_commit(struct out_file *o);
/* Removes what was written. */
void out_file_abort(struct out_file *o);

#endif /* BTRACE_OUT_FILE_H */
