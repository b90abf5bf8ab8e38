// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The refusal checks: facts in, one line out.  A line that refuses says
 * what is refused, why, and what to do; one that refuses nothing starts
 * with "ok: ".  Every source needs ptrace (the kmod and perf sources keep
 * the ptrace side: spawn, stops, threads), so a ptrace refusal refuses all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sources/refusal/refusal.h"

#define SRC(s)		(1u << (s))
#define KMOD_HW		(SRC(PTBTS_SOURCE_KMOD_BTS) | SRC(PTBTS_SOURCE_KMOD_PEBS))
#define KMOD_ALL	(KMOD_HW | SRC(PTBTS_SOURCE_KMOD_STEP))
#define ALL_SOURCES	(KMOD_ALL | SRC(PTBTS_SOURCE_PERF_BTS) | \
			 SRC(PTBTS_SOURCE_PTRACE_STEP) | SRC(PTBTS_SOURCE_QEMU_USER))

#define YAMA_FILE	"/proc/sys/kernel/yama/ptrace_scope"
#define PARANOID_FILE	"/proc/sys/kernel/perf_event_paranoid"
#define MELTDOWN_FILE	"/sys/devices/system/cpu/vulnerabilities/meltdown"

static void say(struct bts_refusal *out, uint32_t sources, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct bts_refusal *out, uint32_t sources, const char *fmt, ...)
{
	va_list ap;

	out->sources = sources;
	va_start(ap, fmt);
	vsnprintf(out->line, sizeof(out->line), fmt, ap);
	va_end(ap);
}

/* Yama alone refuses ptrace at these levels (the try would say EPERM). */
static bool yama_refuses(const struct bts_refusal_facts *f)
{
	return f->yama >= 3 ||
	       (f->yama == 2 && !bts_has_cap(f->cap_eff, BTS_CAP_SYS_PTRACE));
}

static void check_yama(const struct bts_refusal_facts *f, struct bts_refusal *out)
{
	bool cap = bts_has_cap(f->cap_eff, BTS_CAP_SYS_PTRACE);

	if (f->yama < 0) {
		say(out, 0, "ok: no Yama (no " YAMA_FILE ")");
	} else if (f->yama >= 3) {
		say(out, ALL_SOURCES, "ptrace is disabled: " YAMA_FILE " is %d, which only "
		    "a reboot undoes; boot with kernel.yama.ptrace_scope set to 2 or less",
		    f->yama);
	} else if (f->yama == 2 && !cap) {
		say(out, ALL_SOURCES, "ptrace is for administrators only: " YAMA_FILE
		    " is 2; run btrace as root (CAP_SYS_PTRACE), or set "
		    "'sysctl kernel.yama.ptrace_scope=1'");
	} else if (f->yama == 1 && !cap) {
		say(out, ALL_SOURCES, "attaching is limited to descendants: " YAMA_FILE
		    " is 1; start the program under 'btrace record', run btrace as "
		    "root (CAP_SYS_PTRACE), or set 'sysctl kernel.yama.ptrace_scope=0'");
		out->attach_only = true;
	} else if (f->yama == 0) {
		say(out, 0, "ok: " YAMA_FILE " is 0 (classic ptrace permissions)");
	} else {
		say(out, 0, "ok: " YAMA_FILE " is %d, and btrace has CAP_SYS_PTRACE",
		    f->yama);
	}
}

static bool perf_refused_by_paranoid(const struct bts_refusal_facts *f)
{
	return f->paranoid != BTS_NO_PERF && f->paranoid > 2 &&
	       !bts_has_cap(f->cap_eff, BTS_CAP_PERFMON) &&
	       !bts_has_cap(f->cap_eff, BTS_CAP_SYS_ADMIN);
}

static bool blocked(int err)
{
	return err == EPERM || err == EACCES || err == ENOSYS;
}

static void check_policy(const struct bts_refusal_facts *f, struct bts_refusal *out)
{
	/* What Yama or perf_event_paranoid explain is theirs to say. */
	bool pt = blocked(f->ptrace_err) && !yama_refuses(f);
	bool perf = blocked(f->perf_err) && !perf_refused_by_paranoid(f) &&
		    f->paranoid != BTS_NO_PERF;
	const char *what = pt && perf ? "ptrace and perf_event_open" :
			   pt ? "ptrace" : "perf_event_open";
	uint32_t refused = pt ? ALL_SOURCES : SRC(PTBTS_SOURCE_PERF_BTS);

	if (!pt && !perf) {
		if (f->seccomp > 0)
			say(out, 0, "ok: a seccomp filter is active (Seccomp: %d in "
			    "/proc/self/status) but allows ptrace and perf_event_open",
			    f->seccomp);
		else
			say(out, 0, "ok: no seccomp filter; ptrace and perf_event_open "
			    "are allowed");
		return;
	}
	if (f->seccomp > 0)
		say(out, refused, "a seccomp filter blocks %s (Seccomp: %d in "
		    "/proc/self/status, %s): run btrace outside the sandbox, or allow "
		    "it (docker: --cap-add=SYS_PTRACE --security-opt seccomp=unconfined)",
		    what, f->seccomp, strerror(pt ? f->ptrace_err : f->perf_err));
	else
		say(out, refused, "a container or security policy blocks %s (%s): run "
		    "btrace outside it, or allow it (docker: --cap-add=SYS_PTRACE "
		    "--cap-add=PERFMON)", what,
		    strerror(pt ? f->ptrace_err : f->perf_err));
}

/* gdb's own words (gdb/nat/linux-btrace.c), so its users recognise them. */
#define GDB_PARANOID "You do not have permission to record the process.  " \
	"Try setting /proc/sys/kernel/perf_event_paranoid to 2 or less."

const char *bts_paranoid_line(void)
{
	return GDB_PARANOID;
}

static void check_paranoid(const struct bts_refusal_facts *f, struct bts_refusal *out)
{
	if (f->paranoid == BTS_NO_PERF)
		say(out, SRC(PTBTS_SOURCE_PERF_BTS), "this kernel has no perf events "
		    "(no " PARANOID_FILE "): perf-bts needs CONFIG_PERF_EVENTS");
	else if (perf_refused_by_paranoid(f))
		say(out, SRC(PTBTS_SOURCE_PERF_BTS), GDB_PARANOID);
	else if (f->paranoid > 2)
		say(out, 0, "ok: " PARANOID_FILE " is %d, and btrace has CAP_PERFMON",
		    f->paranoid);
	else
		say(out, 0, "ok: " PARANOID_FILE " is %d (2 or less: user-mode "
		    "branch sampling of one's own processes is allowed)", f->paranoid);
}

static void check_pti(const struct bts_refusal_facts *f, struct bts_refusal *out)
{
	if (!f->meltdown[0])
		say(out, 0, "ok: PTI unknown (no " MELTDOWN_FILE "); the module checks "
		    "it itself");
	else if (strstr(f->meltdown, "PTI"))
		say(out, KMOD_HW, "PTI is on (meltdown: %s): the CPU cannot store "
		    "branch records into user pages, so kmod-bts and kmod-pebs are "
		    "refused; boot with pti=off, or use a CPU not affected by Meltdown",
		    f->meltdown);
	else
		say(out, 0, "ok: PTI is off (meltdown: %s)", f->meltdown);
}

static void check_lockdown(const struct bts_refusal_facts *f, struct bts_refusal *out)
{
	if (!f->lockdown[0])
		say(out, 0, "ok: no kernel lockdown");
	else if (!strcmp(f->lockdown, "none"))
		say(out, 0, "ok: kernel lockdown is off");
	else if (f->module_abi < 0)
		say(out, KMOD_ALL, "the kernel is locked down (%s): it loads only "
		    "signed modules; sign ptrace_bts with a key enrolled as a MOK "
		    "(mokutil --import, see README), then load it", f->lockdown);
	else
		say(out, 0, "ok: the kernel is locked down (%s), and the ptrace_bts "
		    "module is loaded", f->lockdown);
}

static void check_module(const struct bts_refusal_facts *f, struct bts_refusal *out)
{
	if (f->module_abi < 0)
		say(out, KMOD_ALL, "the ptrace_bts module is not loaded: the kmod "
		    "sources need it; load it with 'modprobe ptrace_bts' (see README: DKMS)");
	else if (f->module_abi != PTBTS_ABI_VERSION)
		say(out, KMOD_ALL, "the ptrace_bts module speaks ABI version %d, "
		    "libbts version %d: load the matching module",
		    f->module_abi, PTBTS_ABI_VERSION);
	else
		say(out, 0, "ok: the ptrace_bts module is loaded (ABI version %d)",
		    f->module_abi);
}

void bts_refusal_decide(int check, const struct bts_refusal_facts *f,
			struct bts_refusal *out)
{
	memset(out, 0, sizeof(*out));
	out->check = check;
	switch (check) {
	case BTS_REFUSAL_YAMA:		check_yama(f, out); break;
	case BTS_REFUSAL_POLICY:	check_policy(f, out); break;
	case BTS_REFUSAL_PARANOID:	check_paranoid(f, out); break;
	case BTS_REFUSAL_PTI:		check_pti(f, out); break;
	case BTS_REFUSAL_LOCKDOWN:	check_lockdown(f, out); break;
	case BTS_REFUSAL_MODULE:	check_module(f, out); break;
	}
}
