// SPDX-License-Identifier: GPL-2.0-or-later
/* Running the btrace under test (btrace_run.h). */
#include <stdlib.h>

#include "btrace_run.h"

int harness_btrace_argv(struct harness_cmd *cmd, int timeout,
			const char *const args[])
{
	char *argv[32];
	int n = 0;

	argv[n++] = BTRACE_PATH();
	for (size_t i = 0; n < 31 && args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	if (harness_run(argv, timeout, cmd))
		FAIL("cannot run %s", argv[0]);
	free(argv[0]);
	return harness_exit_code(cmd);
}

int harness_btrace_va(struct harness_cmd *cmd, int timeout, va_list ap)
{
	const char *args[31];
	int n = 0;

	while (n < 30 && (args[n] = va_arg(ap, const char *)))
		n++;
	args[n] = NULL;
	return harness_btrace_argv(cmd, timeout, args);
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
