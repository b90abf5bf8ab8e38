// SPDX-License-Identifier: GPL-2.0-or-later
/* The bytes the allocator has handed out and not had back. */
#include <malloc.h>

#include "harness.h"

#ifdef __SANITIZE_ADDRESS__
/* ASan's allocator replaces glibc's: it counts its own. */
size_t __sanitizer_get_current_allocated_bytes(void);

size_t harness_heap_in_use(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
size_t harness_heap_in_use(void)
{
	return mallinfo2().uordblks;
}
#endif
