// SPDX-License-Identifier: GPL-2.0-or-later
/* Error lines and size parsing, shared by every command. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <bts.h>

#include "btrace.h"

/* One line, whatever names the message carries (escape.c). */
static void put_line(const char *line)
{
	fprintf(stderr, "btrace: %s\n", shown_msg(line));
}

void error(const char *fmt, ...)
{
	char line[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	put_line(line);
}

/*
 * "btrace: PREFIX: what: detail", without saying a thing twice: libbts's
 * detail often names the file or the error already.
 */
void error_bts(int err, const char *fmt, ...)
{
	const char *detail = bts_errdetail(), *what = bts_errstr(err);
	char prefix[4096];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	len = strlen(prefix);
	if (detail && !strncmp(detail, prefix, len) && !strncmp(detail + len, ": ", 2)
	    && !strstr(detail, what))
		detail += len + 2;
	if (!detail || !*detail)
		error("%s: %s", prefix, what);
	else if (!strstr(detail, what))
		error("%s: %s (%s)", prefix, what, detail);
	else if (!strncmp(detail, prefix, strlen(prefix)))
		put_line(detail);
	else
		error("%s: %s", prefix, detail);
}

static int suffix_shift(const char *end)
{
	if (!*end)
		return 0;
	if (end[1])
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': return 10;
	case 'M': return 20;
	case 'G': return 30;
	default: return -1;
	}
}

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v == 0)
		return -1;
	shift = suffix_shift(end);
	if (shift < 0 || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static char sigbus_msg[1024];
static size_t sigbus_len;

/*
 * A read of a mapped file past its end (BUS_ADRERR); any other SIGBUS is
 * a bug: the handler is reset, and the fault comes back to kill as it would.
 */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	if (si->si_code != BUS_ADRERR)
		return;
	/* Should stderr fail too, the exit status still says it. */
	sigbus_len = (size_t)write(STDERR_FILENO, sigbus_msg, sigbus_len);
	_exit(EXIT_FAILED);
}

int open_trace(const char *path, bool incomplete_ok, struct bts_trace **out)
{
	struct sigaction sa = {
		.sa_sigaction = on_sigbus,
		.sa_flags = SA_SIGINFO | SA_RESETHAND,
	};
	int ret = incomplete_ok ? bts_trace_new_incomplete(path, out)
				: bts_trace_new(path, out);

	if (ret < 0)
		return ret;
	snprintf(sigbus_msg, sizeof(sigbus_msg),
		 "btrace: %s: the trace file shrank while it was read "
		 "(rewritten in place?): stopped\n", shown_msg(path));
	sigbus_len = strlen(sigbus_msg);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	return 0;
}
