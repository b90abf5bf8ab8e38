// SPDX-License-Identifier: GPL-2.0-or-later
/* What the tests of btrace view share. */
#include <dirent.h>
#include <string.h>

#include "raw_dump.h"
#include "view_util.h"

char *view_record_crash(struct harness_cmd *rec)
{
	static const char *const opts[] = { "--on-crash", "--keep", "100", NULL };

	return raw_record("crash-deep", opts, 128 + 11, rec);
}

bool view_no_temporary(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool none = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp."))
			none = false;
	closedir(d);
	return none;
}
