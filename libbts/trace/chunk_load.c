// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The fixed part of a chunk, from the file's little-endian order into the
 * host's.  Each struct of trace_format.h has a layout string beside
 * it, so that every reader loads a chunk in one call and no reader carries
 * a le32toh() line per field that a new field could be forgotten in.
 */
#include <endian.h>
#include <string.h>

#include "trace/trace_format.h"

static void to_host32(uint8_t *d)
{
	uint32_t v;

	memcpy(&v, d, sizeof(v));
	v = le32toh(v);
	memcpy(d, &v, sizeof(v));
}

static void to_host64(uint8_t *d)
{
	uint64_t v;

	memcpy(&v, d, sizeof(v));
	v = le64toh(v);
	memcpy(d, &v, sizeof(v));
}

void bts_chunk_to_host(void *c, const char *layout)
{
	uint8_t *d = c;

	for (; *layout; layout++) {
		if (*layout == '4')
			to_host32(d);
		else if (*layout == '8')
			to_host64(d);
		d += *layout == '8' ? 8 : 4;
	}
}

size_t bts_chunk_layout_size(const char *layout)
{
	size_t n = 0;

	for (; *layout; layout++)
		n += *layout == '8' ? 8 : 4;
	return n;
}
