// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KT_GUARDED_TEST's checks (kt_guard.h).  The kernel log is read through
 * /dev/kmsg from where it stood when the test began, so that only what
 * the test's own run added is judged; the words are those tests/kernel/
 * qemu-run fails a whole run on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kt.h"
#include "kt_guard.h"

static const char *const kt_bad[] = {
	"Oops", "BUG:", "WARNING:", "general protection fault", "kernel BUG",
	"Call Trace", "UBSAN", "sleeping function called from invalid context",
	"blocked for more than", "Unable to handle", "unable to handle",
	"refcount_t:", "list_add corruption", "list_del corruption",
};

void kt_guard_begin(struct kt_guard *g)
{
	g->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (g->kmsg >= 0)
		lseek(g->kmsg, 0, SEEK_END);
	g->pinned = kt_pinned();
	g->vmlck = kt_vmlck_kb();
	g->vmpin = kt_vmpin_kb();
}

/* The log's new records; a bad one is a failure of the test. */
static void kt_guard_log(int fd)
{
	char rec[2048];
	size_t i;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before it was read */
		if (n <= 0)
			break;
		rec[n] = 0;
		for (i = 0; i < sizeof(kt_bad) / sizeof(kt_bad[0]); i++)
			if (strstr(rec, kt_bad[i]))
				harness_fail(__FILE__, __LINE__,
					     "the kernel log has: %s", rec);
	}
}

void kt_guard_end(struct kt_guard *g)
{
	long pinned = kt_pinned(), vmlck = kt_vmlck_kb(), vmpin = kt_vmpin_kb();

	if (g->kmsg < 0) {
		harness_fail(__FILE__, __LINE__, "cannot read /dev/kmsg");
	} else {
		kt_guard_log(g->kmsg);
		close(g->kmsg);
	}
	if (pinned != g->pinned)
		harness_fail(__FILE__, __LINE__, "pinned_pages %ld, was %ld",
			     pinned, g->pinned);
	if (vmlck != g->vmlck)
		harness_fail(__FILE__, __LINE__, "VmLck %ld kB, was %ld kB",
			     vmlck, g->vmlck);
	if (vmpin != g->vmpin)
		harness_fail(__FILE__, __LINE__, "VmPin %ld kB, was %ld kB",
			     vmpin, g->vmpin);
}
