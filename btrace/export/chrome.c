// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Trace Event Format (JSON) that Perfetto and chrome://tracing open:
 * one B event where a frame opens and one E where it closes, per thread,
 * with the instruction position as "ts".  The viewers take ts for
 * microseconds; otherData says what it counts.
 */
#include <inttypes.h>

#include "../dump.h"
#include "export.h"

static bool first_event;

/* The comma between two events. */
static void event(struct export_out *x, const char *ph, uint64_t at)
{
	printf("%s\n{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%" PRIu64,
	       first_event ? "" : ",", ph, (int)x->pid, (int)x->tid, at);
	first_event = false;
}

static int begin(struct export_out *x, const char *path)
{
	(void)x;
	first_event = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":"
	      "\"instructions\",\"note\":\"" EXPORT_CLOCK_NOTE "\",\"trace\":",
	      stdout);
	json_str(path);
	fputs("},\"traceEvents\":[", stdout);
	return 0;
}

static void thread_begin(struct export_out *x, pid_t pid, pid_t tid,
			 uint64_t at)
{
	event(x, "M", at);
	printf(",\"name\":\"thread_name\",\"args\":{\"name\":\"thread %d "
	       "(process %d)\"}}", (int)tid, (int)pid);
}

static void open_frame(struct export_out *x, const struct export_frame *f,
		       uint64_t at)
{
	char buf[4096];

	event(x, "B", at);
	fputs(",\"name\":", stdout);
	json_str(export_frame_name(f, buf, sizeof(buf)));
	if (f->file) {
		fputs(",\"args\":{\"file\":", stdout);
		json_str(f->file);
		printf(",\"line\":%d}", f->line);
	}
	putchar('}');
}

static void close_frame(struct export_out *x, const struct export_frame *f,
			uint64_t at)
{
	(void)f;
	event(x, "E", at);
	putchar('}');
}

static void thread_end(struct export_out *x, uint64_t at)
{
	(void)x, (void)at;
}

static void end(struct export_out *x)
{
	(void)x;
	fputs("\n]}\n", stdout);
}

const struct export_ops export_chrome = {
	.begin = begin, .thread_begin = thread_begin, .open = open_frame,
	.close = close_frame, .thread_end = thread_end, .end = end,
};
