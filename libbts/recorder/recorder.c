// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A recording session as the caller of libbts asks for one: the options
 * read, a source picked from the table of sources/ (ptrace-step for a
 * 32-bit program under `auto`), the flight recorder's hook when crash
 * traces are asked for; then session/ spawns or attaches.  The layers
 * below call nothing up here: what they need of it, this file hands in.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crash/crash.h"
#include "session/session.h"
#include "sources/sources.h"

static bool elf32_file(const char *path)
{
	unsigned char id[EI_NIDENT];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, id, sizeof(id), 0);
	close(fd);
	return n == (ssize_t)sizeof(id) && !memcmp(id, ELFMAG, SELFMAG) &&
	       id[EI_CLASS] == ELFCLASS32;
}

/*
 * @opts for the program at @path into @setup.  ptrace-step records 32-bit
 * programs on every machine, so `auto` takes it for them (kmod-step does
 * too, when asked for by name).
 */
static int setup_for(const struct bts_session_opts *opts, const char *path,
		     struct bts_session_setup *setup)
{
	struct bts_session_opts *o = &setup->opts;
	int err = bts_session_opts_take(opts, o);

	if (err)
		return err;
	if ((!o->source || o->source == BTS_SOURCE_AUTO) && elf32_file(path))
		o->source = PTBTS_SOURCE_PTRACE_STEP;
	err = bts_session_opts_check(o);
	if (err)
		return err;
	setup->source = bts_source_pick(o->source, o->mode, &setup->ops);
	if (setup->source < 0)
		return setup->source;
	setup->crash_check = o->on_crash ? bts_crash_check : NULL;
	return 0;
}

int bts_session_new_spawn(char *const argv[],
			  const struct bts_session_opts *opts,
			  struct bts_session **out)
{
	struct bts_session_setup setup;
	char path[PATH_MAX];
	int err;

	if (!argv || !argv[0] || !out)
		return bts_fail(BTS_E_INVAL, "spawn: no program");
	err = bts_spawn_resolve(argv[0], path, sizeof(path));
	if (!err)
		err = setup_for(opts, path, &setup);
	return err ? err : bts_session_spawn(&setup, argv, path, out);
}

int bts_session_new_attach(pid_t pid, const struct bts_session_opts *opts,
			   struct bts_session **out)
{
	struct bts_session_setup setup;
	char exe[64];
	int err;

	if (!out)
		return bts_fail(BTS_E_INVAL, "attach: no result pointer");
	err = bts_attach_check(pid);
	if (err)
		return err;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	err = setup_for(opts, exe, &setup);
	return err ? err : bts_session_attach(&setup, pid, out);
}
