// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Perfetto's protobuf trace, for histories too big for JSON: per thread a
 * TrackDescriptor, then one TrackEvent slice begin and end per frame, the
 * instruction position as the timestamp (in the viewer's nanoseconds).
 * The few messages needed are encoded here, with the field numbers of
 * Perfetto's published definitions (protos/perfetto/trace/...):
 *	Trace.packet 1
 *	TracePacket: timestamp 8, trusted_packet_sequence_id 10,
 *		track_event 11, track_descriptor 60
 *	TrackDescriptor: uuid 1, name 2, thread 4
 *	ThreadDescriptor: pid 1, tid 2
 *	TrackEvent: type 9 (1 slice begin, 2 slice end), track_uuid 11,
 *		name 23
 */
#include <stdint.h>
#include <string.h>

#include "export.h"

enum { VARINT = 0, BYTES = 2 };

struct pb {
	uint8_t b[8192];
	size_t n;
};

static void put_varint(struct pb *p, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		p->b[p->n++] = byte | (v ? 0x80 : 0);
	} while (v);
}

static void put_tag(struct pb *p, unsigned int field, int wire)
{
	put_varint(p, (uint64_t)field << 3 | wire);
}

static void put_uint(struct pb *p, unsigned int field, uint64_t v)
{
	put_tag(p, field, VARINT);
	put_varint(p, v);
}

/* Strings are cut to what a packet holds; names are far shorter. */
static void put_bytes(struct pb *p, unsigned int field, const void *s,
		      size_t len)
{
	size_t room = sizeof(p->b) - p->n - 16;

	if (len > room)
		len = room;
	put_tag(p, field, BYTES);
	put_varint(p, len);
	memcpy(p->b + p->n, s, len);
	p->n += len;
}

static void put_msg(struct pb *p, unsigned int field, const struct pb *m)
{
	put_bytes(p, field, m->b, m->n);
}

/* One TracePacket, as Trace's field 1. */
static void emit(const struct pb *packet)
{
	struct pb head = { .n = 0 };

	put_tag(&head, 1, BYTES);
	put_varint(&head, packet->n);
	fwrite(head.b, 1, head.n, stdout);
	fwrite(packet->b, 1, packet->n, stdout);
}

static void slice(struct export_out *x, int type, const char *name,
		  uint64_t at)
{
	struct pb ev = { .n = 0 }, pk = { .n = 0 };

	put_uint(&ev, 9, type);
	put_uint(&ev, 11, (uint64_t)x->tid);
	if (name)
		put_bytes(&ev, 23, name, strlen(name));
	put_uint(&pk, 8, at);
	put_uint(&pk, 10, 1);
	put_msg(&pk, 11, &ev);
	emit(&pk);
}

static int begin(struct export_out *x, const char *path)
{
	(void)x, (void)path;
	return 0;
}

static void thread_begin(struct export_out *x, pid_t pid, pid_t tid,
			 uint64_t at)
{
	struct pb th = { .n = 0 }, td = { .n = 0 }, pk = { .n = 0 };
	char name[128];

	(void)at;
	snprintf(name, sizeof(name), "thread %d (process %d), %s", (int)tid,
		 (int)pid, "clock: instructions, as btrace records carry no timestamps");
	put_uint(&th, 1, pid);
	put_uint(&th, 2, tid);
	put_uint(&td, 1, (uint64_t)tid);
	put_bytes(&td, 2, name, strlen(name));
	put_msg(&td, 4, &th);
	put_uint(&pk, 10, 1);
	put_msg(&pk, 60, &td);
	emit(&pk);
	(void)x;
}

static void open_frame(struct export_out *x, const struct export_frame *f,
		       uint64_t at)
{
	char buf[4096];

	slice(x, 1, export_frame_name(f, buf, sizeof(buf)), at);
}

static void close_frame(struct export_out *x, const struct export_frame *f,
			uint64_t at)
{
	(void)f;
	slice(x, 2, NULL, at);
}

static void thread_end(struct export_out *x, uint64_t at)
{
	(void)x, (void)at;
}

static void end(struct export_out *x)
{
	(void)x;
}

const struct export_ops export_perfetto = {
	.begin = begin, .thread_begin = thread_begin, .open = open_frame,
	.close = close_frame, .thread_end = thread_end, .end = end,
};
