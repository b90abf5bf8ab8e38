/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Core dumps of traced programs, shared by the tests that check a core
 * holds none of the tracer's int3s (speed_core, oncrash_core).
 */
#ifndef CORE_DUMP_H
#define CORE_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

/*
 * Fails the test unless the host's core_pattern writes a plain file into
 * the working directory (a piped or absolute pattern is a failure, not a
 * skip).
 */
void core_require_cwd_pattern(void);
/* The core file the kernel wrote into @dir ("core" or "core.PID"), or NULL. */
char *core_find(const char *dir);
/* @len bytes at @vaddr of the process in the ELF core @path. */
bool core_read(const char *path, uint64_t vaddr, unsigned char *buf, size_t len);
/* @len bytes at offset @off of file @path (asserts). */
void core_file_bytes(const char *path, uint64_t off, unsigned char *buf, size_t len);
/*
 * Runs @argv (NULL-terminated; argv[0] a path) in directory @dir with cores
 * enabled (a shell sets `ulimit -c unlimited`; ASan, when the program has
 * it, must not turn cores off).  Asserts that it could run.
 */
void core_run_in(const char *dir, char *const argv[], struct harness_cmd *cmd);

/*
 * A fresh directory for cores, harness_tmpdir()/cores (malloc'ed), once
 * core_require_cwd_pattern() is satisfied.
 */
char *core_dir_new(void);
/*
 * The check both core tests make once @cmd (a `btrace record` of @prog,
 * run by core_run_in() in @dir) is over: the program died of SIGABRT
 * (btrace's exit 128 + 6); its "label page 0x..." / "label base 0x..."
 * and "changed N" lines say that N > 0 bytes of that code page differed
 * (the tracer's int3s) while it ran; the page in the core written into
 * @dir equals the same bytes of the program's file.  The core is removed.
 */
void core_expect_clean_page(const char *dir, const char *prog,
			    const struct harness_cmd *cmd);
/*
 * `btrace record --no-follow PROG` in a fresh directory with cores on,
 * then core_expect_clean_page() of it.
 */
void core_record_expect_clean(const char *prog);

#endif /* CORE_DUMP_H */
