// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The size and every field offset of the uapi structs, put by the compiler
 * into a section of the object file: built with -m32 and -m64, the two
 * sections are compared by tests/unit/test_abi.c.  Nothing of it runs, so
 * the check holds on a kernel that cannot run i386 programs too.
 *
 * Each entry: a NUL-terminated name, then two 8-byte numbers.  Every number
 * is an int (the constants are small; an ioctl number is 32 bits): gcc
 * writes it the same way for both targets.
 */
#include <stddef.h>

#include <linux/ptrace_bts.h>

#define E(name, a, b)							\
	asm volatile(".pushsection .abi_layout, \"a\"\n\t"		\
		     ".asciz \"" name "\"\n\t"				\
		     ".quad %c0, %c1\n\t"					\
		     ".popsection" : : "i"((int)(a)), "i"((int)(b)))
#define S(T)	E("sizeof(struct " #T ")", sizeof(struct T), 0)
#define F(T, f)	E(#T "." #f, offsetof(struct T, f), sizeof(((struct T *)0)->f))

void abi_layout(void);

void abi_layout(void)
{
	S(ptbts_record);
	F(ptbts_record, from); F(ptbts_record, to); F(ptbts_record, flags);

	S(ptbts_config);
	F(ptbts_config, size); F(ptbts_config, tid); F(ptbts_config, source);
	F(ptbts_config, mode); F(ptbts_config, buffer);
	F(ptbts_config, buffer_size); F(ptbts_config, wakeup);
	F(ptbts_config, buffer2); F(ptbts_config, buffer2_size);
	F(ptbts_config, flags); F(ptbts_config, __reserved0); F(ptbts_config, limit);
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

	E("first size config", PTBTS_CONFIG_SIZE_VER0, 0);
	E("first size status", PTBTS_STATUS_SIZE_VER0, 0);
	E("first size ack", PTBTS_ACK_SIZE_VER0, 0);
	E("first size caps", PTBTS_CAPS_SIZE_VER0, 0);
	E("first size percpu_config", PTBTS_PERCPU_CONFIG_SIZE_VER0, 0);
	E("first size percpu_status", PTBTS_PERCPU_STATUS_SIZE_VER0, 0);
	/* _IOWR() has sizeof's type: the same 32 bits on both. */
	E("ioctl CAPS", PTBTS_IOC_CAPS, 0);
	E("ioctl ATTACH", PTBTS_IOC_ATTACH, 0);
	E("ioctl DETACH", PTBTS_IOC_DETACH, 0);
	E("ioctl STATUS", PTBTS_IOC_STATUS, 0);
	E("ioctl WAIT", PTBTS_IOC_WAIT, 0);
	E("ioctl ACK", PTBTS_IOC_ACK, 0);
	E("ioctl PERCPU_START", PTBTS_IOC_PERCPU_START, 0);
	E("ioctl PERCPU_STOP", PTBTS_IOC_PERCPU_STOP, 0);
	E("ioctl PERCPU_STATUS", PTBTS_IOC_PERCPU_STATUS, 0);
}
