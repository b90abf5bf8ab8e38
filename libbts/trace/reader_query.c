// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The accessors of bts.h that read the model of an opened trace (reader.h). */
#include "trace/reader.h"

const struct bts_trace_info *bts_trace_info(const struct bts_trace *t)
{
	return &t->info;
}

size_t bts_trace_nprocesses(const struct bts_trace *t)
{
	return t->nprocs;
}

const struct bts_process_info *bts_trace_process(const struct bts_trace *t,
						 size_t i)
{
	return i < t->nprocs ? &t->procs[i].info : NULL;
}

size_t bts_trace_nthreads(const struct bts_trace *t)
{
	return t->nthreads;
}

const struct bts_thread_info *bts_trace_thread(const struct bts_trace *t,
					       size_t i)
{
	return i < t->nthreads ? &t->threads[i].info : NULL;
}

long bts_trace_thread_index(const struct bts_trace *t, pid_t tid)
{
	return t ? bts_reader_thread_index(t, tid) : -1;
}

size_t bts_trace_maps(const struct bts_trace *t, pid_t pid,
		      const struct bts_map **maps)
{
	const struct trace_process *p = bts_reader_process(t, pid);

	if (!p) {
		*maps = NULL;
		return 0;
	}
	*maps = trace_process_space(p)->maps;
	return trace_process_space(p)->nmaps;
}

size_t bts_trace_code(const struct bts_trace *t, pid_t pid,
		      const struct bts_code **code)
{
	const struct trace_process *p = bts_reader_process(t, pid);

	if (!p) {
		*code = NULL;
		return 0;
	}
	*code = trace_process_space(p)->code;
	return trace_process_space(p)->ncode;
}

size_t bts_trace_nimages(const struct bts_trace *t, pid_t pid)
{
	const struct trace_process *p = t ? bts_reader_process(t, pid) : NULL;

	return p ? p->nimages : 0;
}

const struct bts_image_info *bts_trace_image(const struct bts_trace *t,
					     pid_t pid, size_t i)
{
	const struct trace_process *p = t ? bts_reader_process(t, pid) : NULL;

	return p && i < p->nimages ? &p->images[i].info : NULL;
}

int bts_trace_process_bits(const struct bts_trace *t, pid_t pid)
{
	const struct trace_process *p = t ? bts_reader_process(t, pid) : NULL;

	if (!p)
		return bts_fail(BTS_E_INVAL, "no process %d in the trace", (int)pid);
	return p->abi_bits == 32 ? 32 : 64;
}
