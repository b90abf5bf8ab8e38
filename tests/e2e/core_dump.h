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

#endif /* CORE_DUMP_H */
