// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ioctl numbers and the rules of the structs, as the module applies
 * them: version 1's numbers (nsfs's magic) are unknown, and STATUS checks
 * its struct as every other ioctl does.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "harness.h"
#include "kt.h"

/* _IO(0xb7, n): version 1's numbers, and nsfs's (NS_GET_USERNS is 1). */
TEST(uapi, old_numbers_are_enotty)
{
	struct ptbts_caps caps;
	int fd = kt_open();
	unsigned int nr;

	ASSERT_GE(fd, 0);
	for (nr = 0; nr <= 8; nr++) {
		memset(&caps, 0, sizeof(caps));
		caps.size = sizeof(caps);
		EXPECT_EQ(kt_ioctl(fd, _IO(0xb7, nr), &caps), -ENOTTY);
	}
	/* The new number answers, and says version 2. */
	EXPECT_EQ(kt_ioctl(fd, PTBTS_IOC_CAPS, &caps), 0);
	EXPECT_EQ(caps.abi_version, 2u);
	close(fd);
}

static long status_of(int fd, void *st)
{
	return kt_ioctl(fd, PTBTS_IOC_STATUS, st);
}

/*
 * STATUS: a reserved field set is -EINVAL, a larger struct is taken with
 * a zero tail and -E2BIG otherwise; the output fields and @timeout_ns are
 * not input.
 */
TEST(uapi, status_checks_reserved_fields_and_tail)
{
	struct {
		struct ptbts_status st;
		uint64_t tail[3];
	} big;
	uint8_t *p = kt_map(4 * KT_PAGE);
	struct kt_tracee t;
	int fd = kt_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(kt_tracee_start(&t, 0, 1), 0);
	ASSERT_EQ(kt_attach(fd, t.pid, p, 4 * KT_PAGE), 0);
	memset(&big, 0, sizeof(big));
	big.st.size = sizeof(big.st);
	big.st.tid = t.pid;
	EXPECT_EQ(status_of(fd, &big), 0);
	EXPECT_EQ(big.st.state, (unsigned)PTBTS_STATE_STOPPED);
	big.st.__reserved[0] = 1;
	EXPECT_EQ(status_of(fd, &big), -EINVAL);
	big.st.__reserved[0] = 0;
	big.st.__reserved[1] = 1ull << 63;
	EXPECT_EQ(status_of(fd, &big), -EINVAL);
	big.st.__reserved[1] = 0;
	big.st.size = sizeof(big);
	EXPECT_EQ(status_of(fd, &big), 0);
	EXPECT_EQ(big.st.size, (unsigned)sizeof(big.st));
	big.st.size = sizeof(big);
	big.tail[2] = 1;
	EXPECT_EQ(status_of(fd, &big), -E2BIG);
	big.tail[2] = 0;
	/* Output fields and a WAIT's timeout are not read. */
	big.st.state = 0xdead;
	big.st.head = ~0ull;
	big.st.timeout_ns = 5;
	EXPECT_EQ(status_of(fd, &big), 0);
	EXPECT_EQ(big.st.state, (unsigned)PTBTS_STATE_STOPPED);
	EXPECT_EQ(big.st.timeout_ns, 0u);
	EXPECT_EQ(kt_detach(fd, t.pid), 0);
	kt_tracee_kill(&t);
	close(fd);
	kt_unmap(p, 4 * KT_PAGE);
	EXPECT_EQ(kt_pinned(), 0);
}
