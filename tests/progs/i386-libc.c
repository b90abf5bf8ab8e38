// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386-libc: oracle-libc built -m32 against the i386 libc, so that the
 * oracle compares a dynamic 32-bit program's own functions too.  Its first
 * line is the same "oracle-libc main 0xADDR".
 */
#include "oracle-libc.c"
