// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prints the size and every field offset of the uapi structs.  Built with
 * -m32 and -m64; tests/unit/test_abi.c asserts both print the same.
 */
#include <stddef.h>
#include <stdio.h>

#include <linux/ptrace_bts.h>

#define S(T)	 printf("sizeof(struct %s) = %zu\n", #T, sizeof(struct T))
#define F(T, f)	 printf("  %s.%s @ %zu +%zu\n", #T, #f, offsetof(struct T, f), \
			sizeof(((struct T *)0)->f))

int main(void)
{
	S(ptbts_record);
	F(ptbts_record, from); F(ptbts_record, to); F(ptbts_record, flags);

	S(ptbts_config);
	F(ptbts_config, size); F(ptbts_config, tid); F(ptbts_config, source);
	F(ptbts_config, mode); F(ptbts_config, buffer);
	F(ptbts_config, buffer_size); F(ptbts_config, wakeup);
	F(ptbts_config, buffer2); F(ptbts_config, buffer2_size);
	F(ptbts_config, flags); F(ptbts_config, __reserved0);
	F(ptbts_config, __reserved); F(ptbts_config, pebs_event);
	F(ptbts_config, pebs_period);

	S(ptbts_status);
	F(ptbts_status, size); F(ptbts_status, tid); F(ptbts_status, state);
	F(ptbts_status, source); F(ptbts_status, head); F(ptbts_status, wraps);
	F(ptbts_status, lost); F(ptbts_status, head2); F(ptbts_status, wraps2);
	F(ptbts_status, timeout_ns); F(ptbts_status, __reserved);

	S(ptbts_ack);
	F(ptbts_ack, size); F(ptbts_ack, tid); F(ptbts_ack, tail);
	F(ptbts_ack, __reserved);

	S(ptbts_caps);
	F(ptbts_caps, size); F(ptbts_caps, abi_version); F(ptbts_caps, sources);
	F(ptbts_caps, record_size); F(ptbts_caps, unavail);
	F(ptbts_caps, pebs_format); F(ptbts_caps, pebs_record_size);
	F(ptbts_caps, flags); F(ptbts_caps, percpu_unavail);
	F(ptbts_caps, __pad); F(ptbts_caps, __reserved);

	S(ptbts_percpu_config);
	F(ptbts_percpu_config, size); F(ptbts_percpu_config, mode);
	F(ptbts_percpu_config, cpu_mask); F(ptbts_percpu_config, buffer_size);
	F(ptbts_percpu_config, flags); F(ptbts_percpu_config, unavail);
	F(ptbts_percpu_config, cpu_mask_size);
	F(ptbts_percpu_config, __reserved0);
	F(ptbts_percpu_config, __reserved);

	S(ptbts_hdr);
	F(ptbts_hdr, size);

	S(ptbts_percpu_status);
	F(ptbts_percpu_status, size); F(ptbts_percpu_status, cpu);
	F(ptbts_percpu_status, state); F(ptbts_percpu_status, __pad);
	F(ptbts_percpu_status, head); F(ptbts_percpu_status, wraps);
	F(ptbts_percpu_status, lost); F(ptbts_percpu_status, offset);
	F(ptbts_percpu_status, buffer_size);
	F(ptbts_percpu_status, __reserved);

	printf("first sizes %d %d %d %d %d %d\n", PTBTS_CONFIG_SIZE_VER0,
	       PTBTS_STATUS_SIZE_VER0, PTBTS_ACK_SIZE_VER0,
	       PTBTS_CAPS_SIZE_VER0, PTBTS_PERCPU_CONFIG_SIZE_VER0,
	       PTBTS_PERCPU_STATUS_SIZE_VER0);
	/* _IOWR() has sizeof's type: the same 32 bits on both. */
	printf("ioctls %#x %#x %#x %#x %#x %#x %#x %#x %#x\n",
	       (unsigned)PTBTS_IOC_CAPS, (unsigned)PTBTS_IOC_ATTACH,
	       (unsigned)PTBTS_IOC_DETACH, (unsigned)PTBTS_IOC_STATUS,
	       (unsigned)PTBTS_IOC_WAIT, (unsigned)PTBTS_IOC_ACK,
	       (unsigned)PTBTS_IOC_PERCPU_START,
	       (unsigned)PTBTS_IOC_PERCPU_STOP,
	       (unsigned)PTBTS_IOC_PERCPU_STATUS);
	return 0;
}
