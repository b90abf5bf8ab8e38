// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The chunks written optional (trace_format.h): EXEC, START, ABI, PEBS
 * and the CRASH parts.  A reader older than one of them skips it and still reads
 * the records and maps, so each adds to what the core chunks say.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/writer.h"

int bts_writer_crash(struct bts_writer *w, const struct bts_crash_info *info)
{
	struct {
		struct bts_chunk_crash h;
		struct bts_chunk_crash_signal s;
	} c;

	if (!w || !info || info->pid <= 0 || info->tid <= 0 ||
	    info->signo <= 0 || info->signo > 64)
		return bts_fail(BTS_E_INVAL, "a malformed crash");
	memset(&c, 0, sizeof(c));
	c.h.pid = htole32(info->pid);
	c.h.part = htole32(BTS_CRASH_SIGNAL);
	c.s.tid = htole32(info->tid);
	c.s.signo = htole32(info->signo);
	c.s.code = htole32(info->code);
	c.s.si_errno = htole32(info->si_errno);
	c.s.sender_pid = htole32(info->sender_pid);
	c.s.sender_uid = htole32(info->sender_uid);
	c.s.addr = htole64(info->addr);
	memcpy(c.s.siginfo, info->siginfo, sizeof(c.s.siginfo));
	return bts_writer_chunk(w, BTS_CHUNK_CRASH | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, NULL);
}

int bts_writer_crash_thread(struct bts_writer *w, pid_t pid,
			    const struct bts_crash_thread *th)
{
	struct {
		struct bts_chunk_crash h;
		struct bts_chunk_crash_thread t;
	} c;
	const char *why = th && th->unwind_error ? th->unwind_error : "";
	struct bts_frame *frames;
	uint64_t regs[27];
	int err;

	if (!w || !th || pid <= 0 || th->tid <= 0 || th->nframes > 65536 ||
	    (th->nframes && !th->frames) || strlen(why) > 4096)
		return bts_fail(BTS_E_INVAL, "a malformed crashed thread");
	memset(&c, 0, sizeof(c));
	c.h.pid = htole32(pid);
	c.h.part = htole32(BTS_CRASH_THREAD);
	c.t.tid = htole32(th->tid);
	c.t.flags = htole32((th->crashed ? BTS_CRASH_CRASHED : 0) |
			    (th->has_regs ? BTS_CRASH_REGS : 0));
	c.t.nframes = htole32(th->nframes);
	c.t.err_len = htole32(strlen(why));
	memcpy(regs, &th->regs, sizeof(regs));
	for (int i = 0; i < 27; i++)
		c.t.regs[i] = htole64(th->has_regs ? regs[i] : 0);
	frames = calloc(th->nframes + 1, sizeof(*frames));
	if (!frames)
		return bts_fail(BTS_E_NOMEM, "frames");
	for (size_t i = 0; i < th->nframes; i++) {
		frames[i].pc = htole64(th->frames[i].pc);
		frames[i].sp = htole64(th->frames[i].sp);
		frames[i].cfa = htole64(th->frames[i].cfa);
		frames[i].flags = htole32(th->frames[i].flags & BTS_FRAME_SIGNAL);
	}
	err = bts_writer_chunk(w, BTS_CHUNK_CRASH | BTS_CHUNK_OPTIONAL, &c,
			       sizeof(c), frames, th->nframes * sizeof(*frames),
			       why);
	free(frames);
	return err;
}

int bts_writer_exec(struct bts_writer *w, pid_t pid, pid_t tid,
		    const char *exe, uint64_t entry)
{
	struct bts_chunk_exec c = {
		.pid = htole32(pid),
		.tid = htole32(tid),
		.entry = htole64(entry),
	};

	if (!exe)
		exe = "";
	if (!w || pid <= 0 || tid <= 0 || strlen(exe) >= UINT32_MAX / 2)
		return bts_fail(BTS_E_INVAL, "exec of thread %d of process %d",
				tid, pid);
	c.exe_len = htole32(strlen(exe));
	return bts_writer_chunk(w, BTS_CHUNK_EXEC | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, exe);
}

int bts_writer_start(struct bts_writer *w, pid_t pid, pid_t tid, uint64_t pc)
{
	struct bts_chunk_start c = {
		.pid = htole32(pid),
		.tid = htole32(tid),
		.pc = htole64(pc),
	};

	if (!w || pid <= 0 || tid <= 0 || !pc)
		return bts_fail(BTS_E_INVAL, "start of thread %d: pc 0x%llx",
				(int)tid, (unsigned long long)pc);
	return bts_writer_chunk(w, BTS_CHUNK_START | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, NULL);
}

int bts_writer_abi(struct bts_writer *w, pid_t pid, unsigned int bits)
{
	struct bts_chunk_abi c = {
		.pid = htole32(pid),
		.bits = htole32(bits),
	};

	if (!w || pid <= 0 || (bits != 32 && bits != 64))
		return bts_fail(BTS_E_INVAL, "abi of process %d: %u-bit", (int)pid, bits);
	return bts_writer_chunk(w, BTS_CHUNK_ABI | BTS_CHUNK_OPTIONAL, &c,
				sizeof(c), NULL, 0, NULL);
}

/* A batch as every reader takes it: the records decode to their size. */
static int pebs_check(const struct bts_pebs_batch *b)
{
	const uint8_t *r = b->records;
	const char *why = bts_pebs_event_problem(b->event, b->period);
	struct bts_pebs p;
	char detail[160];

	if (why)
		return bts_fail(BTS_E_INVAL, "PEBS event 0x%llx, period %llu: %s",
				(unsigned long long)b->event,
				(unsigned long long)b->period, why);
	if ((!b->count && !b->lost) || (b->count && !r) ||
	    !b->record_size || b->record_size > BTS_PEBS_RECORD_MAX ||
	    b->record_size % 8)
		return bts_fail(BTS_E_INVAL, "a malformed PEBS batch");
	for (size_t i = 0; i < b->count; i++) {
		if (bts_pebs_decode(b->format, r + i * b->record_size,
				    b->record_size, &p, sizeof(p)) ==
		    (int)b->record_size)
			continue;
		snprintf(detail, sizeof(detail), "%s", bts_errdetail());
		return bts_fail(BTS_E_INVAL, "PEBS record %zu of format %u is not "
				"%zu bytes: %s", i, b->format, b->record_size, detail);
	}
	return 0;
}

int bts_writer_pebs(struct bts_writer *w, pid_t pid, pid_t tid,
		    const struct bts_pebs_batch *b)
{
	struct bts_chunk_pebs c;
	size_t done = 0, n;
	int err;

	if (!w || !b || pid <= 0 || tid <= 0)
		return bts_fail(BTS_E_INVAL, "PEBS records of thread %d", (int)tid);
	err = pebs_check(b);
	do {
		n = b->count - done;
		if (n > BTS_PEBS_PER_CHUNK)
			n = BTS_PEBS_PER_CHUNK;
		c = (struct bts_chunk_pebs){
			.pid = htole32(pid),
			.tid = htole32(tid),
			.format = htole32(b->format),
			.record_size = htole32((uint32_t)b->record_size),
			.count = htole32((uint32_t)n),
			.event = htole64(b->event),
			.period = htole64(b->period),
			.lost = htole64(done ? 0 : b->lost),
		};
		if (!err)
			err = bts_writer_chunk(w, BTS_CHUNK_PEBS | BTS_CHUNK_OPTIONAL,
					       &c, sizeof(c),
					       (const uint8_t *)b->records +
					       done * b->record_size,
					       n * b->record_size, NULL);
		done += n;
	} while (!err && done < b->count);
	return err;
}
