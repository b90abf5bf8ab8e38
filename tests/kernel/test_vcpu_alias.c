// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The same code at two virtual addresses (a shared library in two
 * processes, the vDSO, a file mapped twice): TCG translates a physical page
 * once and runs that translation at every address that maps it, so a CPU
 * that took a branch's addresses from the translation would record the
 * first mapping's addresses for the second.  Each mapping's records must
 * carry its own.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "kt.h"
#include "kt_guard.h"
#include "kt_step.h"

#define REC	sizeof(struct ptbts_record)

/* jmp +2; ud2; ret */
static const uint8_t code[] = { 0xeb, 0x02, 0x0f, 0x0b, 0xc3 };

static uint8_t *alias[2];

static void run_both(long arg)
{
	(void)arg;
	raise(SIGSTOP);
	((void (*)(void))alias[0])();
	((void (*)(void))alias[1])();
	syscall(SYS_exit_group, 0);
}

/*
 * The user branches whose 'from' lies in @at's five bytes, into @out (the
 * first run of each mapping enters the kernel too: a page fault).
 */
static size_t records_in(const struct ptbts_record *r, size_t n,
			 const uint8_t *at, struct ptbts_record *out)
{
	uint64_t lo = (uintptr_t)at;
	size_t i, k = 0;

	for (i = 0; i < n && k < 4; i++)
		if (r[i].from >= lo && r[i].from < lo + sizeof(code) &&
		    r[i].to < 0xffff800000000000ull)
			out[k++] = r[i];
	return k;
}

KT_GUARDED_TEST(vcpu, kmod_bts_same_code_at_two_addresses)
{
	struct ptbts_record got[4];
	struct kt_run r;
	size_t n, i;
	int fd, st;

	fd = memfd_create("kt-alias", 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, code, sizeof(code)), (ssize_t)sizeof(code));
	for (i = 0; i < 2; i++) {
		alias[i] = mmap(NULL, KT_PAGE, PROT_READ | PROT_EXEC, MAP_SHARED,
				fd, 0);
		ASSERT_TRUE(alias[i] != MAP_FAILED);
	}
	close(fd);
	ASSERT_EQ(kt_run_start_source(&r, run_both, 0, 16 * KT_PAGE,
				      PTBTS_MODE_RING, 0,
				      PTBTS_SOURCE_KMOD_BTS), 0);
	st = kt_run_finish(&r);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(r.st.wraps, 0u);
	n = r.st.head / REC;
	for (i = 0; i < 2; i++) {
		uint64_t a = (uintptr_t)alias[i];

		/* {jmp -> ret}, {ret -> the caller}, at this mapping's address. */
		if (records_in(kt_run_recs(&r), n, alias[i], got) != 2) {
			harness_fail(__FILE__, __LINE__, "mapping %zu at %#llx: "
				     "not its two branches", i,
				     (unsigned long long)a);
			continue;
		}
		EXPECT_EQ(got[0].from, a);
		EXPECT_EQ(got[0].to, a + 4);
		EXPECT_EQ(got[1].from, a + 4);
	}
	kt_run_end(&r);
	for (i = 0; i < 2; i++)
		munmap(alias[i], KT_PAGE);
}
