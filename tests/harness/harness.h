/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kselftest-like C test harness whose tests Google Test runs, so that
 * --gtest_filter, --gtest_output=xml and the rest work on C tests.
 *
 *	TEST(ring, keeps_newest)
 *	{
 *		ASSERT_EQ(bts_ring_new(mem, sizeof(mem), PTBTS_MODE_RING, &r), 0);
 *		EXPECT_STREQ(bts_kind_name(0), "branch");
 *	}
 *
 * EXPECT_* records a failure and goes on; ASSERT_* ends the test.  Both
 * print the expression and both values.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct harness_test {
	const char *suite;
	const char *name;
	const char *file;
	int line;
	void (*fn)(void);
	struct harness_test *next;
};

void harness_register(struct harness_test *t);
void harness_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void harness_abort(void) __attribute__((noreturn));
void harness_skip(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
bool harness_can_run_i386(void);
/* Runs @t's body, catching ASSERT_* failures; used by the Google Test side. */
void harness_call(const struct harness_test *t);

/* A directory of the test's own, removed with its content after the test. */
const char *harness_tmpdir(void);
void harness_cleanup(void);

#ifndef __cplusplus
/* The C side only: Google Test has macros of the same names. */
#define TEST(suite, name)						\
	static void suite##__##name(void);				\
	static struct harness_test suite##__##name##__t = {		\
		#suite, #name, __FILE__, __LINE__, suite##__##name, NULL \
	};								\
	__attribute__((constructor)) static void suite##__##name##__r(void) \
	{								\
		harness_register(&suite##__##name##__t);		\
	}								\
	static void suite##__##name(void)

#define __H_BAIL(fatal) do { if (fatal) harness_abort(); } while (0)

#define __H_CMP(fatal, a, op, b) do {					\
	__typeof__(a) __a = (a);					\
	__typeof__(b) __b = (b);					\
	if (!(__a op __b)) {						\
		harness_fail(__FILE__, __LINE__,			\
			"Expected: %s %s %s\n  Actual: %lld vs %lld (0x%llx vs 0x%llx)", \
			#a, #op, #b, (long long)__a, (long long)__b,	\
			(unsigned long long)__a, (unsigned long long)__b); \
		__H_BAIL(fatal);					\
	}								\
} while (0)

#define __H_STR(fatal, a, b, eq) do {					\
	const char *__a = (a), *__b = (b);				\
	bool __same = __a && __b ? !strcmp(__a, __b) : __a == __b;	\
	if (__same != (eq)) {						\
		harness_fail(__FILE__, __LINE__,			\
			"Expected: %s %s %s\n  Actual: \"%s\" vs \"%s\"", \
			#a, (eq) ? "==" : "!=", #b,			\
			__a ? __a : "(null)", __b ? __b : "(null)");	\
		__H_BAIL(fatal);					\
	}								\
} while (0)

#define __H_TRUE(fatal, c, want) do {					\
	if ((!!(c)) != (want)) {						\
		harness_fail(__FILE__, __LINE__, "Expected: %s is %s",	\
			     #c, (want) ? "true" : "false");		\
		__H_BAIL(fatal);					\
	}								\
} while (0)

#define EXPECT_EQ(a, b)	__H_CMP(false, a, ==, b)
#define EXPECT_NE(a, b)	__H_CMP(false, a, !=, b)
#define EXPECT_LT(a, b)	__H_CMP(false, a, <, b)
#define EXPECT_LE(a, b)	__H_CMP(false, a, <=, b)
#define EXPECT_GT(a, b)	__H_CMP(false, a, >, b)
#define EXPECT_GE(a, b)	__H_CMP(false, a, >=, b)
#define EXPECT_TRUE(c)	__H_TRUE(false, c, true)
#define EXPECT_FALSE(c)	__H_TRUE(false, c, false)
#define EXPECT_STREQ(a, b) __H_STR(false, a, b, true)
#define EXPECT_STRNE(a, b) __H_STR(false, a, b, false)
#define ASSERT_EQ(a, b)	__H_CMP(true, a, ==, b)
#define ASSERT_NE(a, b)	__H_CMP(true, a, !=, b)
#define ASSERT_LT(a, b)	__H_CMP(true, a, <, b)
#define ASSERT_LE(a, b)	__H_CMP(true, a, <=, b)
#define ASSERT_GT(a, b)	__H_CMP(true, a, >, b)
#define ASSERT_GE(a, b)	__H_CMP(true, a, >=, b)
#define ASSERT_TRUE(c)	__H_TRUE(true, c, true)
#define ASSERT_FALSE(c)	__H_TRUE(true, c, false)
#define ASSERT_STREQ(a, b) __H_STR(true, a, b, true)
#define ASSERT_STRNE(a, b) __H_STR(true, a, b, false)
/* A failure with a message of the test's own. */
#define FAIL(...) do { harness_fail(__FILE__, __LINE__, __VA_ARGS__); harness_abort(); } while (0)
/*
 * Ends the test as skipped, with the reason: only for what the machine
 * cannot do (the kernel's answer, never the code's), and the reason says
 * where the same thing is tested instead.
 */
#define SKIP(...) harness_skip(__FILE__, __LINE__, __VA_ARGS__)

/* A test that runs i386 programs: skipped where the kernel cannot run them. */
#define REQUIRE_I386()							\
	do {								\
		if (!harness_can_run_i386())				\
			SKIP("this kernel cannot run i386 programs (no "	\
			     "IA32 emulation): the guest suite records them " \
			     "(tests/kernel/test_i386.c)");		\
	} while (0)
#endif /* !__cplusplus */

/* ------------------------------------------------------- running programs */

/*
 * The output of a finished command.  @status is as waitpid() gives it.
 */
struct harness_cmd {
	char *out;		/* stdout, NUL-terminated */
	size_t out_len;
	char *err;		/* stderr, NUL-terminated */
	size_t err_len;
	int status;
};

/*
 * Runs argv (argv[0] a path) with stdin from /dev/null, to its end, and
 * captures both outputs.  Kills it after @timeout_s seconds (a failure).
 * Returns 0, or -1 when it could not be started.
 */
int harness_run(char *const argv[], int timeout_s, struct harness_cmd *cmd);
void harness_cmd_free(struct harness_cmd *cmd);
/* The exit code, or 128 + signal for a killed command. */
int harness_exit_code(const struct harness_cmd *cmd);

/*
 * Programs started from now on get the same addresses in every run (what
 * setarch -R does): libc's string routines take alignment-dependent
 * branches, so two recordings compared branch for branch need this.
 * Returns the persona to hand back to harness_aslr_restore().
 */
unsigned long harness_aslr_off(void);
void harness_aslr_restore(unsigned long persona);

/*
 * POSIX extended regular expressions over a command's output.  In
 * harness_matches() ^ and $ anchor the whole text; in harness_matches_lines()
 * they anchor any line, and . never crosses a newline.  A regex that does not
 * compile aborts: it is a bug in the test, not a failure of the code.
 */
bool harness_matches(const char *re, const char *s);
bool harness_matches_lines(const char *re, const char *s);

/*
 * Room for element @n of an array of @n elements of @size bytes, grown by
 * doubling (the room is kept implicit: it is @n rounded up to a power of
 * two); aborts when memory runs out.  A copy per element would make a
 * parser of a million records quadratic, and slow beyond use under ASan.
 */
void *harness_grow(void *p, size_t n, size_t size);

/* Heap bytes in use in this process (ASan's count in a SAN build). */
size_t harness_heap_in_use(void);

/* Paths inside the build and source trees. */
char *harness_path(const char *dir, const char *rel);	/* malloc'ed */
#define BTRACE_PATH()	harness_path(BTS_BUILD_DIR, "btrace")
#define PROG_PATH(name)	harness_path(BTS_BUILD_DIR "/progs", name)

#include <string.h>

#endif /* HARNESS_H */
