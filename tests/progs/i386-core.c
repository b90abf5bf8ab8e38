// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386-core: speed-core built -m32 (tests/e2e/test_i386_fast.c): its core
 * dump, written after branch stops ran its code, holds none of the
 * tracer's int3s.
 */
#include "speed-core.c"
