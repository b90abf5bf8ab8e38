// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where btrace view finds speedscope and its own script: relative to the
 * btrace binary, so that the build tree (build/btrace beside
 * build/share/btrace/view) and any installation prefix (bin/btrace,
 * share/btrace/view) work alike without a path built into the binary.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../btrace.h"
#include "view.h"

static const char *const wanted[] = {
	"speedscope.js", "speedscope.css", "page.js", "page.css",
};

static const char *const places[] = {
	"%s/share/btrace/view",		/* the build directory */
	"%s/../share/btrace/view",	/* PREFIX/bin/btrace */
};

static bool complete(const char *dir)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, wanted[i]) >=
		    (int)sizeof(path) || access(path, R_OK))
			return false;
	}
	return true;
}

int view_assets(char *dir, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
			if (snprintf(dir, len, places[i], exe) < (int)len &&
			    complete(dir))
				return 0;
		}
	}
	error("view: the viewer is not installed: no speedscope.js, speedscope.css, "
	      "page.js and page.css in %s/share/btrace/view or "
	      "%s/../share/btrace/view ('make' builds them, 'make install' "
	      "installs them)", n > 0 ? shown(exe) : "?", n > 0 ? shown(exe) : "?");
	return -1;
}
