// SPDX-License-Identifier: GPL-2.0-or-later
/* Running the btrace under test (btrace_run.h). */
#include <stdlib.h>

#include "btrace_run.h"

int harness_btrace_va(struct harness_cmd *cmd, int timeout, va_list ap)
{
	char *argv[32];
	int n = 0;

	argv[n++] = BTRACE_PATH();
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	if (harness_run(argv, timeout, cmd))
		FAIL("cannot run %s", argv[0]);
	free(argv[0]);
	return harness_exit_code(cmd);
}

int harness_btrace(struct harness_cmd *cmd, int timeout, ...)
{
	va_list ap;
	int ret;

	va_start(ap, timeout);
	ret = harness_btrace_va(cmd, timeout, ap);
	va_end(ap);
	return ret;
}
