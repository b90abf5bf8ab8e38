// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include "bts.h"

unsigned int bts_version(void)
{
	return 2 << 16 | 0 << 8 | 0;
}
