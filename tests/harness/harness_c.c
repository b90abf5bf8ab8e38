// SPDX-License-Identifier: GPL-2.0-or-later
/* The C half of the harness: registration, ASSERT's escape, temp dirs. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

struct harness_test *harness_tests;
static jmp_buf harness_bail;
static char harness_dir[256];

void harness_register(struct harness_test *t)
{
	t->next = harness_tests;
	harness_tests = t;
}

/*
 * ASSERT_* jumps back here.  Test bodies are C: there are no destructors
 * for the jump to skip.
 */
void harness_call(const struct harness_test *t)
{
	if (!setjmp(harness_bail))
		t->fn();
	harness_cleanup();
}

void harness_abort(void)
{
	longjmp(harness_bail, 1);
}

const char *harness_tmpdir(void)
{
	if (!harness_dir[0]) {
		snprintf(harness_dir, sizeof(harness_dir), "%s/bts-test.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(harness_dir)) {
			harness_dir[0] = 0;
			FAIL("mkdtemp: %m");
		}
	}
	return harness_dir;
}

static int remove_one(const char *path, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

void harness_cleanup(void)
{
	if (harness_dir[0])
		nftw(harness_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	harness_dir[0] = 0;
}

char *harness_path(const char *dir, const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		abort();
	return p;
}
