/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * speed_hop(p): jmp *(p).  With p pointing at speed_hop_back it returns;
 * with p unreadable the jmp faults, which the tracer cannot emulate: it
 * lifts the int3 of the site and steps the real jmp.
 */
	.text
	.globl speed_hop, speed_hop_jmp, speed_hop_back
	.type speed_hop, @function
speed_hop:
speed_hop_jmp:
	jmp *(%rdi)
speed_hop_back:
	ret
	.size speed_hop, . - speed_hop

	.section .note.GNU-stack, "", @progbits
