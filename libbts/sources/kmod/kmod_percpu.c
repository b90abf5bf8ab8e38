// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The module's per-CPU (kernel and user) mode: whether it can record
 * here, and a session of it.  The kernel allocates one buffer per CPU; a
 * session maps each read-only, at the offset the module's STATUS gives,
 * and reads the records there.  Nothing here writes to them: the module
 * refuses writable mappings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sources/kmod/kmod.h"
#include "sources/refusal/refusal.h"
#include "util/opts.h"

/*
 * The checks that concern the mode: the module's presence and ABI, and
 * lockdown (which keeps it from loading).  PTI the module answers itself;
 * Yama, seccomp and perf_event_paranoid govern ptrace and perf, which the
 * mode does not use.
 */
#define PERCPU_SKIP ((1u << BTS_REFUSAL_YAMA) | (1u << BTS_REFUSAL_POLICY) | \
		     (1u << BTS_REFUSAL_PARANOID) | (1u << BTS_REFUSAL_PTI))

static void percpu_probe(struct bts_percpu_info *out)
{
	struct ptbts_caps c;
	struct bts_refusal r;

	if (bts_kmod_caps(&c, out->why, sizeof(out->why))) {
		if (c.percpu_unavail == PTBTS_OK) {
			out->available = true;
			return;
		}
		bts_kmod_unavail_text(c.percpu_unavail, out->why, sizeof(out->why));
	}
	if (bts_refusal_find(PTBTS_SOURCE_KMOD_BTS, false, PERCPU_SKIP, &r))
		snprintf(out->why, sizeof(out->why), "%s", r.line);
}

int bts_percpu_probe(struct bts_percpu_info *out, size_t size)
{
	struct bts_percpu_info info = { 0 };

	if (!out)
		return bts_fail(BTS_E_INVAL, "no info to fill");
	percpu_probe(&info);
	return BTS_OUT_FILL(out, size, &info, "per-CPU info");
}

int bts_percpu_parse_cpus(const char *list, uint64_t *mask)
{
	const char *p = list;
	uint64_t m = 0;
	unsigned long a, b;
	char *end;

	if (!list || !mask || !*list)
		return bts_fail(BTS_E_INVAL, "no CPU list");
	for (;;) {
		if (*p < '0' || *p > '9')
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				goto bad;
			b = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (a > b || b >= 64)
			goto bad;
		for (; a <= b; a++)
			m |= 1ULL << a;
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad;
	}
	*mask = m;
	return 0;
bad:
	return bts_fail(BTS_E_INVAL, "bad CPU list '%s' (CPUs 0-63, as in 0,2-3)",
			list);
}

struct bts_percpu {
	int fd;
	size_t size;			/* bytes per CPU */
	void *map[64];			/* read-only views, NULL until asked */
};

static int percpu_refused(long err, unsigned int why)
{
	char text[320];

	bts_kmod_unavail_text(why, text, sizeof(text));
	return bts_fail(err == EPERM ? BTS_E_PERM : BTS_E_NOSOURCE,
			"per-CPU mode: %s", text);
}

int bts_percpu_new(uint64_t cpus, size_t buffer_size, int mode,
		   struct bts_percpu **out)
{
	/* The module takes a mask of any size; libbts names 64 CPUs. */
	uint64_t mask[1] = { cpus };
	struct ptbts_percpu_config cfg = {
		.size = sizeof(cfg), .mode = (uint32_t)mode,
		.cpu_mask = (uintptr_t)mask, .cpu_mask_size = sizeof(mask),
		.buffer_size = buffer_size,
	};
	struct ptbts_caps c;
	struct bts_percpu *p;
	char why[320];
	int err;

	if (!out || !cpus || (mode != PTBTS_MODE_RING && mode != PTBTS_MODE_STOP))
		return bts_fail(BTS_E_INVAL, "per-CPU mode: no CPU, or a mode "
				"other than ring or stop");
	if (!bts_kmod_caps(&c, why, sizeof(why)))
		return bts_fail(BTS_E_NOSOURCE, "per-CPU mode: %s", why);
	p = calloc(1, sizeof(*p));
	if (!p)
		return bts_fail(BTS_E_NOMEM, "per-CPU mode");
	p->size = buffer_size;
	p->fd = open(PTBTS_DEVICE, O_RDWR | O_CLOEXEC);
	if (p->fd < 0) {
		free(p);
		return bts_fail_errno(BTS_E_NOSOURCE, "per-CPU mode: cannot open "
				      PTBTS_DEVICE);
	}
	if (!ioctl(p->fd, PTBTS_IOC_PERCPU_START, &cfg)) {
		*out = p;
		return 0;
	}
	err = errno;
	close(p->fd);
	free(p);
	if ((err == EOPNOTSUPP || err == EPERM) && cfg.unavail)
		return percpu_refused(err, cfg.unavail);
	errno = err;
	return bts_fail_errno(err == EINVAL ? BTS_E_INVAL : BTS_E_NOSOURCE,
			      "per-CPU mode: start");
}

int bts_percpu_status(struct bts_percpu *p, unsigned int cpu,
		      struct ptbts_percpu_status *st)
{
	if (!p || !st || cpu >= 64)
		return bts_fail(BTS_E_INVAL, "per-CPU status: bad argument");
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->cpu = cpu;
	if (ioctl(p->fd, PTBTS_IOC_PERCPU_STATUS, st))
		return bts_fail_errno(BTS_E_IO, "per-CPU status of CPU %u", cpu);
	return 0;
}

const struct ptbts_record *bts_percpu_records(struct bts_percpu *p,
					      unsigned int cpu, size_t *nslots)
{
	struct ptbts_percpu_status st;
	void *m;

	if (bts_percpu_status(p, cpu, &st))
		return NULL;
	if (!st.buffer_size) {
		bts_fail(BTS_E_INVAL, "CPU %u has no per-CPU buffer", cpu);
		return NULL;
	}
	if (!p->map[cpu]) {
		m = mmap(NULL, st.buffer_size, PROT_READ, MAP_SHARED, p->fd,
			 (off_t)st.offset);
		if (m == MAP_FAILED) {
			bts_fail_errno(BTS_E_IO, "mapping CPU %u's buffer", cpu);
			return NULL;
		}
		p->map[cpu] = m;
	}
	if (nslots)
		*nslots = st.buffer_size / sizeof(struct ptbts_record);
	return p->map[cpu];
}

void bts_percpu_free(struct bts_percpu *p)
{
	unsigned int cpu;

	if (!p)
		return;
	ioctl(p->fd, PTBTS_IOC_PERCPU_STOP);
	for (cpu = 0; cpu < 64; cpu++)
		if (p->map[cpu])
			munmap(p->map[cpu], p->size);
	close(p->fd);
	free(p);
}
