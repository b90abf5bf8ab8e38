// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH.  The document is built when
 * OFFSET is 0 and kept for the later chunks of the same object, annex and
 * thread, as gdbserver does: a delta read must advance its mark once per
 * document, not once per chunk.  Objects: auxv (gdb relocates a PIE
 * program with its AT_ENTRY), exec-file, features (target.xml), btrace,
 * btrace-conf; for a saved trace, libraries-svr4 (no link map to read).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "server.h"
#include "server_tdesc.h"

static int read_auxv(struct gdb_server *sv, struct strbuf *doc)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	if (sv->tr)
		return gdb_trace_auxv(sv->tr, doc);
	if (!sv->c)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)bts_control_pid(sv->c));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sb_add(doc, buf, (size_t)n);
	close(fd);
	return n < 0 ? -1 : 0;
}

static int read_exe(struct gdb_server *sv, struct strbuf *doc)
{
	char path[64], buf[4096];
	const char *exe;
	ssize_t n;

	if (sv->tr) {
		exe = gdb_trace_exe(sv->tr);
		if (!exe)
			return -1;
		sb_puts(doc, exe);
		return 0;
	}
	if (!sv->c)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)bts_control_pid(sv->c));
	n = readlink(path, buf, sizeof(buf));
	if (n <= 0 || n == (ssize_t)sizeof(buf))
		return -1;
	sb_add(doc, buf, (size_t)n);
	return 0;
}

/* Builds the document; a reply of its own (an error) when negative. */
static int build(struct gdb_server *sv, const struct rsp_req *rq,
		 struct strbuf *doc, struct strbuf *reply)
{
	if (!strcmp(rq->object, "auxv") || !strcmp(rq->object, "exec-file")) {
		bool auxv = rq->object[0] == 'a';

		if (auxv && rq->annex[0]) {
			sb_puts(reply, "E00");
			return -1;
		}
		if (auxv ? read_auxv(sv, doc) : read_exe(sv, doc)) {
			sb_puts(reply, "E01");
			return -1;
		}
		return 0;
	}
	if (!strcmp(rq->object, "libraries-svr4") && sv->tr) {
		if (rq->annex[0]) {
			sb_puts(reply, "E00");
			return -1;
		}
		return gdb_trace_libraries(sv->tr, doc);
	}
	if (!strcmp(rq->object, "features")) {	/* target.xml */
		if (gdb_tdesc_doc(sv, rq->annex, doc)) {
			sb_add(reply, doc->s, doc->len);
			return -1;
		}
		return 0;
	}
	if (!strcmp(rq->object, "btrace") || !strcmp(rq->object, "btrace-conf")) {
		bool conf = !strcmp(rq->object, "btrace-conf");

		if (gdb_btrace_doc(sv, conf, rq->annex, doc)) {
			sb_add(reply, doc->s, doc->len);
			return -1;
		}
		return 0;
	}
	return 1;	/* not an object of ours: the empty reply */
}

void gdb_xfer(struct gdb_server *sv, const struct rsp_req *rq,
	      struct strbuf *reply)
{
	char key[sizeof(sv->xfer_key)];
	size_t len, max = RSP_PACKET_MAX / 2;
	int r;

	snprintf(key, sizeof(key), "%s:%s:%d", rq->object, rq->annex,
		 (int)gdb_general_thread(sv));
	if (rq->addr == 0 || !sv->xfer_valid || strcmp(key, sv->xfer_key)) {
		if (rq->addr != 0) {
			sb_puts(reply, "E01");	/* a chunk of no document */
			return;
		}
		sb_reset(&sv->xfer);
		sv->xfer_valid = false;
		r = build(sv, rq, &sv->xfer, reply);
		if (r)
			return;
		if (sv->xfer.oom) {
			sb_puts(reply, "E01");
			return;
		}
		sv->xfer_valid = true;
		snprintf(sv->xfer_key, sizeof(sv->xfer_key), "%s", key);
	}
	if (rq->addr > sv->xfer.len) {
		sb_puts(reply, "E01");
		return;
	}
	len = sv->xfer.len - rq->addr;
	if (len > rq->len)
		len = rq->len;
	/* Escaping may double the data: half a packet always fits. */
	if (len > max)
		len = max;
	sb_puts(reply, rq->addr + len < sv->xfer.len ? "m" : "l");
	/* Raw: rsp_frame() escapes the whole reply. */
	sb_add(reply, sv->xfer.s ? sv->xfer.s + rq->addr : "", len);
}
