/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the rest of libbts writes into a trace beyond bts.h's writer:
 * chunks built elsewhere, a file with its own mode, and the optional
 * chunks only a session writes (writer_optional.c).
 */
#ifndef BTS_TRACE_WRITER_H
#define BTS_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/trace_format.h"

/*
 * A chunk of @type made of @fixed, @a and the string @str with its NUL
 * (each may be NULL / 0) (writer.c).
 */
int bts_writer_chunk(struct bts_writer *w, uint32_t type, const void *fixed,
		     size_t flen, const void *a, size_t alen, const char *str);
/*
 * A chunk copied from another file as it is: @type and @len bytes of
 * payload, which hold @records records (for END's count).
 */
int bts_writer_copy_chunk(struct bts_writer *w, uint32_t type,
			  const void *payload, size_t len, uint64_t records);
/* bts_writer_new() creating the file with @mode (umask applies). */
int bts_writer_open_mode(const char *path, mode_t mode, struct bts_writer **out);

/* Thread @tid of process @pid starts its history at @pc. */
int bts_writer_start(struct bts_writer *w, pid_t pid, pid_t tid, uint64_t pc);
/* The image of @pid, as of its PROCESS or latest EXEC chunk, is @bits-bit code. */
int bts_writer_abi(struct bts_writer *w, pid_t pid, unsigned int bits);

#endif /* BTS_TRACE_WRITER_H */
