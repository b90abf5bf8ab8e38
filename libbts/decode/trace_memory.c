// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The memory of a traced process as its trace can show it (bts.h): the
 * code image the decoder reads (decode_code.c), so that a debugger on a
 * saved trace disassembles exactly the bytes the history was decoded
 * from, build-id checks included.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"

struct bts_trace_memory {
	struct bts_code_image *ci;
};

int bts_trace_memory_new(const struct bts_trace *t, pid_t pid,
			 struct bts_trace_memory **out)
{
	struct bts_trace_memory *m;
	int ret;

	if (!t || !out)
		return bts_fail(BTS_E_INVAL, "trace memory: NULL argument");
	if (bts_trace_process_bits(t, pid) < 0)
		return bts_fail(BTS_E_INVAL, "trace memory: no process %d in the trace",
				(int)pid);
	m = calloc(1, sizeof(*m));
	if (!m)
		return bts_fail(BTS_E_NOMEM, "trace memory");
	ret = bts_code_image_new(t, pid, NULL, &m->ci);
	if (ret < 0) {
		free(m);
		return ret;
	}
	*out = m;
	return 0;
}

void bts_trace_memory_free(struct bts_trace_memory *m)
{
	if (!m)
		return;
	bts_code_image_free(m->ci);
	free(m);
}

ssize_t bts_trace_memory_read(struct bts_trace_memory *m, uint64_t addr,
			      void *buf, size_t len)
{
	size_t done = 0, avail;
	const uint8_t *p;

	if (!m || (!buf && len))
		return bts_fail(BTS_E_INVAL, "trace memory: NULL argument");
	while (done < len) {
		p = bts_code_image_at(m->ci, addr + done, &avail);
		if (!p || !avail)
			break;
		if (avail > len - done)
			avail = len - done;
		memcpy((uint8_t *)buf + done, p, avail);
		done += avail;
	}
	if (!done && len)
		return bts_fail(BTS_E_IO, "trace memory: nothing at 0x%llx",
				(unsigned long long)addr);
	return (ssize_t)done;
}

const char *bts_trace_memory_warning(const struct bts_trace_memory *m,
				     size_t i)
{
	return m ? bts_code_image_warning(m->ci, i) : NULL;
}
