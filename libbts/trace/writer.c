// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Writing a trace file as a stream of chunks (trace_format.h).
 *
 * Everything goes through one fixed buffer, so a writer's memory does not
 * grow with the length of the trace.  The file is written under a
 * temporary name and renamed into place only once its END chunk is on
 * disk: a file named PATH is always complete.  After a failed write the
 * writer refuses further work; close and abort both remove the temporary
 * file then.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/codec.h"
#include "trace/writer.h"

#define WRITER_BUF	65536

/*
 * The compact encoding gathers one thread's records until a
 * chunk is full or anything else is written, so that small batches still
 * make large chunks (zstd needs them); order across chunks is kept.
 */
struct compact {
	pid_t pid, tid;
	size_t n;		/* records pending */
	struct ptbts_record *recs;	/* BTS_RECORDS_PER_CHUNK */
	uint8_t *enc;		/* their encoding */
	uint8_t *packed;	/* compressed */
	size_t packed_cap;
	struct bts_zstd *zstd;
};

struct bts_writer {
	int fd;
	int err;		/* sticky: the first failure, or 0 */
	bool finished;		/* bts_writer_finish() named the file PATH */
	bool session;		/* a SESSION chunk was written */
	char *path;
	char *tmp;
	uint64_t chunks;
	uint64_t records;
	struct compact *compact;	/* NULL: raw records */
	size_t used;
	uint8_t buf[WRITER_BUF];
};

static int wr_flush(struct bts_writer *w)
{
	size_t done = 0;

	while (done < w->used) {
		ssize_t n = write(w->fd, w->buf + done, w->used - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			w->err = bts_fail_errno(BTS_E_IO, "write %s", w->tmp);
			return w->err;
		}
		done += n;
	}
	w->used = 0;
	return 0;
}

static int wr_put(struct bts_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len) {
		size_t n = WRITER_BUF - w->used;

		if (!n && wr_flush(w))
			return w->err;
		n = WRITER_BUF - w->used;
		if (n > len)
			n = len;
		memcpy(w->buf + w->used, p, n);
		w->used += n;
		p += n;
		len -= n;
	}
	return 0;
}

static int wr_begin(struct bts_writer *w, uint32_t type, size_t len)
{
	struct bts_chunk_header h = {
		.type = htole32(type),
		.len = htole32((uint32_t)len),
	};

	if (w->err)
		return w->err;
	if (len > UINT32_MAX)
		return bts_fail(BTS_E_INVAL, "chunk of %zu bytes is too large", len);
	return wr_put(w, &h, sizeof(h));
}

static int wr_end(struct bts_writer *w, size_t len)
{
	static const uint8_t zero[BTS_FILE_ALIGN];

	w->chunks++;
	return wr_put(w, zero, bts_file_pad(len));
}

static int wr_compact_flush(struct bts_writer *w);

/* A chunk of a fixed part and up to two variable byte strings. */
static int wr_chunk(struct bts_writer *w, uint32_t type, const void *fixed,
		    size_t flen, const void *a, size_t alen, const char *str)
{
	size_t slen = str ? strlen(str) + 1 : 0;
	size_t len = flen + alen + slen;

	/* Pending compact records come first: the order of chunks is kept. */
	if (wr_compact_flush(w))
		return w->err ? w->err : -BTS_E_INVAL;
	if (wr_begin(w, type, len) || wr_put(w, fixed, flen) ||
	    wr_put(w, a, alen) || wr_put(w, str, slen))
		return w->err ? w->err : -BTS_E_INVAL;
	return wr_end(w, len);
}

int bts_writer_chunk(struct bts_writer *w, uint32_t type, const void *fixed,
		     size_t flen, const void *a, size_t alen, const char *str)
{
	if (!w)
		return bts_fail(BTS_E_INVAL, "no trace writer");
	return wr_chunk(w, type, fixed, flen, a, alen, str);
}

int bts_writer_copy_chunk(struct bts_writer *w, uint32_t type,
			  const void *payload, size_t len, uint64_t records)
{
	int ret = bts_writer_chunk(w, type, payload, len, NULL, 0, NULL);

	if (!ret)
		w->records += records;
	return ret;
}

static int wr_header(struct bts_writer *w)
{
	struct bts_file_header h = {
		.version = htole32(BTS_FILE_VERSION),
		.header_size = htole32(sizeof(h)),
	};

	memcpy(h.magic, BTS_FILE_MAGIC, BTS_FILE_MAGIC_LEN);
	return wr_put(w, &h, sizeof(h));
}

static void compact_free(struct compact *c)
{
	if (!c)
		return;
	free(c->recs);
	free(c->enc);
	free(c->packed);
	bts_zstd_free(c->zstd);
	free(c);
}

static void wr_free(struct bts_writer *w)
{
	compact_free(w->compact);
	free(w->path);
	free(w->tmp);
	free(w);
}

static const char *kind_of(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/*
 * The rename replaces whatever holds PATH: a device node, a FIFO or a
 * symbolic link would become a regular file (as root, -o /dev/null would
 * replace /dev/null).  Only a regular file, or nothing, may be replaced.
 */
static int check_destination(const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;	/* creating it says why it cannot be */
		return bts_fail_errno(BTS_E_IO, "cannot create %s", path);
	}
	if (S_ISREG(st.st_mode))
		return 0;
	return bts_fail(BTS_E_INVAL, "%s: %s, not a regular file: not replaced",
			path, kind_of(st.st_mode));
}

int bts_writer_new(const char *path, struct bts_writer **out)
{
	return bts_writer_open_mode(path, 0666, out);
}

int bts_writer_open_mode(const char *path, mode_t mode, struct bts_writer **out)
{
	int err;

	struct bts_writer *w;

	if (!path || !*path || !out)
		return bts_fail(BTS_E_INVAL, "no trace file name");
	err = check_destination(path);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w)
		return bts_fail(BTS_E_NOMEM, "trace writer");
	w->path = strdup(path);
	if (!w->path || asprintf(&w->tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		w->tmp = NULL;
		wr_free(w);
		return bts_fail(BTS_E_NOMEM, "trace writer");
	}
	/* O_EXCL: never write through a link someone planted at our name. */
	w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (w->fd < 0) {
		/*
		 * Named by the path asked for; the temporary only when it is
		 * what stands in the way.
		 */
		err = errno == EEXIST ?
			  bts_fail_errno(BTS_E_IO, "cannot create %s (temporary %s)",
					 path, w->tmp) :
			  bts_fail_errno(BTS_E_IO, "cannot create %s", path);

		wr_free(w);
		return err;
	}
	wr_header(w);
	*out = w;
	return 0;
}

int bts_writer_session(struct bts_writer *w, int source, int mode,
		       uint64_t buffer_size)
{
	struct bts_chunk_session c = {
		.source = htole32(source),
		.mode = htole32(mode),
		.buffer_size = htole64(buffer_size),
	};

	if (source < 0 || source >= PTBTS_SOURCE_MAX ||
	    mode < PTBTS_MODE_RING || mode > PTBTS_MODE_BLOCK)
		return bts_fail(BTS_E_INVAL, "session: source %d, mode %d",
				source, mode);
	if (w->session)
		return bts_fail(BTS_E_INVAL, "session written twice");
	w->session = true;
	return wr_chunk(w, BTS_CHUNK_SESSION, &c, sizeof(c), NULL, 0, NULL);
}

int bts_writer_process(struct bts_writer *w, pid_t pid, pid_t ppid,
		       const char *exe)
{
	struct bts_chunk_process c = {
		.pid = htole32(pid),
		.ppid = htole32(ppid),
	};

	if (!exe)
		exe = "";
	if (pid <= 0 || ppid < 0 || strlen(exe) >= UINT32_MAX / 2)
		return bts_fail(BTS_E_INVAL, "process %d, parent %d", pid, ppid);
	c.exe_len = htole32(strlen(exe));
	return wr_chunk(w, BTS_CHUNK_PROCESS, &c, sizeof(c), NULL, 0, exe);
}

int bts_writer_thread(struct bts_writer *w, pid_t pid, pid_t tid)
{
	struct bts_chunk_thread c = {
		.pid = htole32(pid),
		.tid = htole32(tid),
	};

	if (pid <= 0 || tid <= 0)
		return bts_fail(BTS_E_INVAL, "thread %d of process %d", tid, pid);
	return wr_chunk(w, BTS_CHUNK_THREAD, &c, sizeof(c), NULL, 0, NULL);
}

int bts_writer_map(struct bts_writer *w, pid_t pid, const struct bts_map *map)
{
	const char *path = map && map->path ? map->path : "";
	struct bts_chunk_map c;

	if (pid <= 0 || !map || map->start >= map->end ||
	    map->build_id_len > BTS_BUILD_ID_MAX || (map->prot & ~7u) ||
	    strlen(path) >= UINT32_MAX / 2)
		return bts_fail(BTS_E_INVAL, "a malformed map of process %d", pid);
	c = (struct bts_chunk_map){
		.pid = htole32(pid),
		.prot = htole32(map->prot),
		.start = htole64(map->start),
		.end = htole64(map->end),
		.offset = htole64(map->offset),
		.build_id_len = htole32(map->build_id_len),
		.path_len = htole32(strlen(path)),
	};
	return wr_chunk(w, BTS_CHUNK_MAP, &c, sizeof(c), map->build_id,
			map->build_id_len, path);
}

int bts_writer_code(struct bts_writer *w, pid_t pid, uint64_t addr,
		    const void *bytes, size_t len)
{
	struct bts_chunk_code c = {
		.pid = htole32(pid),
		.length = htole32((uint32_t)len),
		.address = htole64(addr),
	};

	/* Room for the fixed part: the chunk length is 32 bits. */
	if (pid <= 0 || !bytes || !len || len > UINT32_MAX - sizeof(c) ||
	    addr + len < addr)
		return bts_fail(BTS_E_INVAL, "a malformed code copy of process %d",
				pid);
	return wr_chunk(w, BTS_CHUNK_CODE | BTS_CHUNK_OPTIONAL, &c, sizeof(c),
			bytes, len, NULL);
}

static int wr_batch(struct bts_writer *w, pid_t pid, pid_t tid,
		    const struct ptbts_record *recs, size_t n)
{
	struct bts_chunk_records c = {
		.pid = htole32(pid),
		.tid = htole32(tid),
		.count = htole32((uint32_t)n),
	};
	size_t len = sizeof(c) + n * sizeof(*recs);

	if (wr_begin(w, BTS_CHUNK_RECORDS, len) || wr_put(w, &c, sizeof(c)))
		return w->err;
	for (size_t i = 0; i < n; i++) {
		struct ptbts_record r = {
			.from = htole64(recs[i].from),
			.to = htole64(recs[i].to),
			.flags = htole64(recs[i].flags),
		};

		if (wr_put(w, &r, sizeof(r)))
			return w->err;
	}
	w->records += n;
	return wr_end(w, len);
}

/* One RECORDS_COMPACT chunk of the pending records. */
static int wr_compact_flush(struct bts_writer *w)
{
	struct compact *c = w->compact;
	struct bts_chunk_records_compact h;
	size_t raw, len;
	long packed;

	if (!c || !c->n || w->err)
		return w->err;
	raw = bts_codec_encode(c->recs, c->n, c->enc);
	packed = bts_zstd_pack(c->zstd, c->enc, raw, c->packed, c->packed_cap);
	if (packed < 0)
		return w->err = (int)packed;
	h = (struct bts_chunk_records_compact){
		.pid = htole32(c->pid),
		.tid = htole32(c->tid),
		.count = htole32((uint32_t)c->n),
		.raw_len = htole32((uint32_t)raw),
		.codec = htole32(BTS_CODEC_DELTA_ZSTD),
	};
	len = sizeof(h) + packed;
	if (wr_begin(w, BTS_CHUNK_RECORDS_COMPACT, len) ||
	    wr_put(w, &h, sizeof(h)) || wr_put(w, c->packed, packed))
		return w->err;
	w->records += c->n;
	c->n = 0;
	return wr_end(w, len);
}

static int wr_compact(struct bts_writer *w, pid_t pid, pid_t tid,
		      const struct ptbts_record *recs, size_t n)
{
	struct compact *c = w->compact;

	if (c->n && (c->pid != pid || c->tid != tid) && wr_compact_flush(w))
		return w->err;
	c->pid = pid;
	c->tid = tid;
	while (n) {
		size_t k = BTS_RECORDS_PER_CHUNK - c->n;

		if (k > n)
			k = n;
		memcpy(c->recs + c->n, recs, k * sizeof(*recs));
		c->n += k;
		recs += k;
		n -= k;
		if (c->n == BTS_RECORDS_PER_CHUNK && wr_compact_flush(w))
			return w->err;
	}
	return w->err;
}

int bts_writer_format(struct bts_writer *w, int format)
{
	struct compact *c;

	if (!w || (format != BTS_FORMAT_RAW && format != BTS_FORMAT_COMPACT))
		return bts_fail(BTS_E_INVAL, "trace format %d", format);
	if (w->records || (w->compact && w->compact->n))
		return bts_fail(BTS_E_INVAL, "the trace format is chosen before any record");
	if (format == BTS_FORMAT_RAW) {
		compact_free(w->compact);
		w->compact = NULL;
		return 0;
	}
	if (w->compact)
		return 0;
	c = calloc(1, sizeof(*c));
	if (c) {
		c->packed_cap = bts_zstd_bound(BTS_RECORDS_PER_CHUNK * BTS_CODEC_REC_MAX);
		c->recs = calloc(BTS_RECORDS_PER_CHUNK, sizeof(*c->recs));
		c->enc = malloc(BTS_RECORDS_PER_CHUNK * BTS_CODEC_REC_MAX);
		c->packed = malloc(c->packed_cap);
		c->zstd = bts_zstd_new();
	}
	if (!c || !c->recs || !c->enc || !c->packed || !c->zstd) {
		compact_free(c);
		return bts_fail(BTS_E_NOMEM, "compact trace writer");
	}
	w->compact = c;
	return 0;
}

int bts_writer_records(struct bts_writer *w, pid_t pid, pid_t tid,
		       const struct ptbts_record *recs, size_t n)
{
	int kind, err;

	if (pid <= 0 || tid <= 0 || (n && !recs))
		return bts_fail(BTS_E_INVAL, "records of thread %d of process %d",
				tid, pid);
	/* Refuse here what every reader would refuse: the file stays readable. */
	for (size_t i = 0; i < n; i++) {
		const char *why = bts_record_problem(&recs[i], &kind);

		if (why)
			return bts_fail(BTS_E_INVAL, "record %zu of thread %d: %s",
					i, tid, why);
	}
	if (w->compact)
		return w->err ? w->err : wr_compact(w, pid, tid, recs, n);
	while (n) {
		size_t k = n < BTS_RECORDS_PER_CHUNK ? n : BTS_RECORDS_PER_CHUNK;

		err = wr_batch(w, pid, tid, recs, k);
		if (err)
			return err;
		recs += k;
		n -= k;
	}
	return w->err;
}

int bts_writer_exit(struct bts_writer *w, pid_t pid, pid_t tid, int status)
{
	struct bts_chunk_exit c = {
		.pid = htole32(pid),
		.tid = htole32(tid),
		.status = htole32(status),
	};

	if (pid <= 0 || tid < 0)
		return bts_fail(BTS_E_INVAL, "exit of thread %d of process %d",
				tid, pid);
	return wr_chunk(w, BTS_CHUNK_EXIT, &c, sizeof(c), NULL, 0, NULL);
}

/* So that the rename, too, survives a crash of the machine. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

static int wr_finish(struct bts_writer *w)
{
	struct bts_chunk_end c;
	int err;

	/* Pending compact records first: the totals count them. */
	if (wr_compact_flush(w))
		return w->err;
	c = (struct bts_chunk_end){
		.chunks = htole64(w->chunks),
		.records = htole64(w->records),
	};
	if (wr_chunk(w, BTS_CHUNK_END, &c, sizeof(c), NULL, 0, NULL) ||
	    wr_flush(w))
		return w->err;
	if (fsync(w->fd))
		return bts_fail_errno(BTS_E_IO, "fsync %s", w->tmp);
	if (close(w->fd)) {
		w->fd = -1;
		return bts_fail_errno(BTS_E_IO, "close %s", w->tmp);
	}
	w->fd = -1;
	/* Again: something may have taken PATH while we wrote. */
	err = check_destination(w->path);
	if (err)
		return err;
	if (rename(w->tmp, w->path))
		return bts_fail_errno(BTS_E_IO, "rename %s to %s", w->tmp, w->path);
	sync_dir(w->path);
	return 0;
}

int bts_writer_sync(struct bts_writer *w)
{
	if (!w)
		return 0;
	if (wr_compact_flush(w))
		return w->err;
	return w->err ? w->err : wr_flush(w);
}

int bts_writer_finish(struct bts_writer *w)
{
	int err;

	if (!w)
		return bts_fail(BTS_E_INVAL, "no trace writer");
	if (w->finished)
		return bts_fail(BTS_E_INVAL, "%s: already finished", w->path);
	err = w->err ? w->err : wr_finish(w);
	if (err) {
		w->err = err;
		return err;
	}
	w->finished = true;
	/* The file is whole and named: nothing more goes into it. */
	w->err = -BTS_E_INVAL;
	return 0;
}

void bts_writer_free(struct bts_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (!w->finished)
		unlink(w->tmp);
	wr_free(w);
}
