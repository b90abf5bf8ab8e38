// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One workload recorded by one source.  The workload runs in a fork of
 * btrace, blocked on a pipe until libbts has attached to it
 * (bts_session_new_attach() returns once every source records), so the
 * recording starts before the workload does; what comes before the call
 * of the workload (the return from the read that waited) is left out, so
 * that where exactly each source starts does not matter.  The trace goes
 * through a file in a directory of its own under $TMPDIR, removed after.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selftest.h"

#define BUFFER (4u << 20)	/* per thread: far more than a workload */

static void __attribute__((noreturn)) child(const struct selftest_workload *w,
					    int go)
{
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	w->run();
	_exit(0);
}

/* @r at the end of *@v (of *@n, room for *@cap); false without memory. */
static bool push(struct ptbts_record **v, size_t *n, size_t *cap,
		 const struct ptbts_record *r)
{
	if (*n == *cap) {
		struct ptbts_record *m;
		size_t c = *cap ? 2 * *cap : 4096;

		m = realloc(*v, c * sizeof(*m));
		if (!m)
			return false;
		*v = m;
		*cap = c;
	}
	(*v)[(*n)++] = *r;
	return true;
}

/* kmod-pebs's samples, in order. */
static bool take_samples(const struct bts_trace *t, struct selftest_trace *out)
{
	size_t i, n = bts_trace_npebs(t);

	out->lost_samples = bts_trace_pebs_lost(t);
	out->samples = calloc(n + 1, sizeof(*out->samples));
	if (!out->samples)
		return false;
	for (i = 0; i < n; i++) {
		out->samples[i] = bts_trace_pebs(t, i)->rec.ip;
		out->exact = bts_trace_pebs(t, i)->rec.ip_exact;
	}
	out->nsamples = n;
	return true;
}

/*
 * The records of @path's only thread from the call of @entry on (and
 * for kmod-pebs, every branch record and the samples).
 */
static int take(const char *path, uintptr_t entry, struct selftest_trace *out)
{
	struct bts_trace *t;
	struct bts_rec_iter *it = NULL;
	struct ptbts_record r;
	size_t cap = 0, capall = 0;
	bool in = false, pebs;
	int ret;

	ret = bts_trace_new(path, &t);
	if (ret < 0) {
		snprintf(out->err, sizeof(out->err), "reading the trace: %s",
			 bts_errstr(ret));
		return -1;
	}
	if (bts_trace_nthreads(t) != 1) {
		snprintf(out->err, sizeof(out->err), "%zu threads recorded, not 1",
			 bts_trace_nthreads(t));
		bts_trace_free(t);
		return -1;
	}
	pebs = bts_trace_info(t)->source == PTBTS_SOURCE_KMOD_PEBS;
	ret = pebs && !take_samples(t, out) ? -BTS_E_NOMEM : 1;
	if (ret == 1)
		ret = bts_rec_iter_new(t, 0, &it);
	while (ret >= 0 && (ret = bts_rec_iter_next(it, &r)) == 1) {
		unsigned int kind = PTBTS_KIND(r.flags);

		if (pebs && r.from && kind == PTBTS_KIND_BRANCH &&
		    !push(&out->all, &out->nall, &capall, &r))
			ret = -BTS_E_NOMEM;
		in = in || (r.from && r.to == entry);
		if (!in)
			continue;
		if (kind == PTBTS_KIND_SIGNAL || kind == PTBTS_KIND_SIGRETURN) {
			out->async++;
			continue;
		}
		if (!push(&out->rec, &out->n, &cap, &r))
			ret = -BTS_E_NOMEM;
	}
	bts_rec_iter_free(it);
	bts_trace_free(t);
	if (ret < 0) {
		snprintf(out->err, sizeof(out->err), "reading the trace: %s",
			 bts_errstr(ret));
		return -1;
	}
	if (!in) {
		snprintf(out->err, sizeof(out->err),
			 "no record of the call of the workload");
		return -1;
	}
	return 0;
}

/* Attaches to @pid, lets it go through @go, records it to its end. */
static int record(pid_t pid, int source, int go, const char *path,
		  struct selftest_trace *out)
{
	BTS_OPTS(bts_session_opts, o, .source = source,
		 .mode = PTBTS_MODE_RING, .buffer_size = BUFFER, .no_follow = true);

	if (source == PTBTS_SOURCE_KMOD_PEBS) {
		o.pebs_event = SELFTEST_PEBS_EVENT;
		o.pebs_period = SELFTEST_PEBS_PERIOD;
	}
	struct bts_session *s;
	int ret;

	ret = bts_writer_new(path, &o.writer);
	if (ret < 0)
		goto fail;
	ret = bts_session_new_attach(pid, &o, &s);
	if (ret < 0) {
		bts_writer_free(o.writer);
		goto fail;
	}
	ret = write(go, "g", 1) == 1 ? 0 : -BTS_E_IO;
	if (!ret)
		ret = bts_session_run(s);
	bts_session_free(s);
	if (ret < 0) {
		bts_writer_free(o.writer);
		goto fail;
	}
	ret = bts_writer_finish(o.writer);
	bts_writer_free(o.writer);
	if (ret >= 0)
		return 0;
fail:
	snprintf(out->err, sizeof(out->err), "%s: %s", bts_errstr(ret),
		 bts_errdetail());
	return -1;
}

int selftest_record(const struct selftest_workload *w, int source,
		    struct selftest_trace *out)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int pipefd[2], ret = -1, st;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	snprintf(dir, sizeof(dir), "%s/btrace-selftest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		snprintf(out->err, sizeof(out->err), "a directory in %s: %s",
			 tmp && *tmp ? "$TMPDIR" : "/tmp", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/trace.btr", dir);
	if (pipe(pipefd)) {
		snprintf(out->err, sizeof(out->err), "pipe: %s", strerror(errno));
		goto rmdir;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		child(w, pipefd[0]);
	}
	close(pipefd[0]);
	if (pid < 0) {
		snprintf(out->err, sizeof(out->err), "fork: %s", strerror(errno));
		close(pipefd[1]);
		goto rmdir;
	}
	ret = record(pid, source, pipefd[1], path, out);
	close(pipefd[1]);
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	if (!ret)
		ret = take(path, (uintptr_t)w->run, out);
	unlink(path);
rmdir:
	rmdir(dir);
	return ret;
}

void selftest_trace_free(struct selftest_trace *t)
{
	free(t->rec);
	free(t->samples);
	free(t->all);
	memset(t, 0, sizeof(*t));
}
