// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386-crash-deep: crash-deep built -m32 (tests/crash/test_oncrash_qemu.c):
 * under qemu-i386, its crash trace's stack is unwound from the i386 guest
 * core that QEMU writes.
 */
#include "crash-deep.c"
