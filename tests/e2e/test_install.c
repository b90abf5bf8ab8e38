// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * make install / uninstall into a temporary DESTDIR, the example built
 * against it with pkg-config alone, and the library's exported symbols
 * compared with the committed list.
 */
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "raw_dump.h"

#define TIMEOUT 120

/* sh -c CMD; its exit code, the output in *c. */
static int sh(struct harness_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int sh(struct harness_cmd *c, const char *fmt, ...)
{
	char cmd[8192], *argv[] = { "/bin/sh", "-c", cmd, NULL };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (harness_run(argv, TIMEOUT, c))
		FAIL("cannot run sh -c %s", cmd);
	return harness_exit_code(c);
}

/*
 * make TARGET of this build directory into @dest.  The built files are
 * never remade (-o): install copies what the tests ran against, whatever
 * flags built it.  The test's make's job server is not ours.
 */
static void make(const char *target, const char *dest)
{
	struct harness_cmd c;
	int ret = sh(&c, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' O='%s' "
		     "-o '%s/btrace' -o '%s/libbts.so.2.0.0' -o '%s/libbts.a' "
		     "PREFIX=/usr DESTDIR='%s' %s", BTS_SRC_DIR, BTS_BUILD_DIR,
		     BTS_BUILD_DIR, BTS_BUILD_DIR, BTS_BUILD_DIR, dest, target);

	if (ret)
		FAIL("make %s exited %d:\n%s%s", target, ret, c.out, c.err);
	harness_cmd_free(&c);
}

static char *found[64];
static size_t nfound, found_root;

static int list_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	if ((type == FTW_F || type == FTW_SL) && nfound < 64)
		found[nfound++] = strdup(path + found_root);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files and links below @dir, one a line, sorted. */
static const char *files_below(const char *dir)
{
	static char listing[8192];
	size_t i;

	nfound = 0;
	found_root = strlen(dir);
	nftw(dir, list_one, 16, FTW_PHYS);
	qsort(found, nfound, sizeof(found[0]), by_name);
	listing[0] = '\0';
	for (i = 0; i < nfound; i++) {
		snprintf(listing + strlen(listing), sizeof(listing) - strlen(listing),
			 "%s\n", found[i]);
		free(found[i]);
	}
	return listing;
}

static char *dest_dir(void)
{
	char *d = harness_path(harness_tmpdir(), "dest");

	mkdir(d, 0755);
	return d;
}

static void expect_link(const char *dest, const char *rel, const char *want)
{
	char path[4096], got[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s%s", dest, rel);
	n = readlink(path, got, sizeof(got) - 1);
	ASSERT_GT(n, 0);
	got[n] = '\0';
	EXPECT_STREQ(got, want);
}

static void expect_mode(const char *dest, const char *rel, unsigned int mode)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", dest, rel);
	ASSERT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_mode & 07777, mode);
}

/*
 * What btrace view needs, as the build made it, under /usr/share/btrace:
 * btrace's page and speedscope's release, whose file names carry hashes.
 */
static char *share_listing(void)
{
	char *built = harness_path(BTS_BUILD_DIR, "share"), *list, *p;
	const char *files = files_below(built);

	ASSERT_TRUE(strstr(files, "/btrace/view/speedscope.js\n") != NULL);
	ASSERT_TRUE(strstr(files, "/btrace/view/page.js\n") != NULL);
	ASSERT_TRUE(strstr(files, "/btrace/speedscope/release/index.html\n") != NULL);
	ASSERT_TRUE(strstr(files, "/btrace/speedscope/LICENSE\n") != NULL);
	list = malloc(strlen(files) * 2 + 1);
	ASSERT_TRUE(list != NULL);
	for (p = list; *files; files = strchr(files, '\n') + 1)
		p += sprintf(p, "/usr/share%.*s", (int)(strchr(files, '\n') - files + 1), files);
	*p = '\0';
	free(built);
	return list;
}

TEST(install, installs_and_uninstalls_exactly)
{
	char *dest = dest_dir(), other[4096], want[8192];
	char *share = share_listing(), *btr;
	struct harness_cmd c;
	FILE *f;

	/* A file that is not ours: uninstall leaves it. */
	snprintf(other, sizeof(other), "%s/usr", dest);
	mkdir(other, 0755);
	snprintf(other, sizeof(other), "%s/usr/bin", dest);
	mkdir(other, 0755);
	snprintf(other, sizeof(other), "%s/usr/bin/other", dest);
	f = fopen(other, "w");
	fclose(f);
	make("install", dest);
	snprintf(want, sizeof(want),
		"/usr/bin/btrace\n"
		"/usr/bin/other\n"
		"/usr/include/bts.h\n"
		"/usr/include/linux/ptrace_bts.h\n"
		"/usr/lib/libbts.a\n"
		"/usr/lib/libbts.so\n"
		"/usr/lib/libbts.so.2\n"
		"/usr/lib/libbts.so.2.0.0\n"
		"/usr/lib/pkgconfig/libbts.pc\n"
		"/usr/lib/ptrace-bts/ptbts-qemu-user.so\n"
		"/usr/share/bash-completion/completions/btrace\n"
		"%s"
		"/usr/share/man/man1/btrace.1\n"
		"/usr/share/man/man3/libbts.3\n", share);
	EXPECT_STREQ(files_below(dest), want);
	expect_link(dest, "/usr/lib/libbts.so", "libbts.so.2");
	expect_link(dest, "/usr/lib/libbts.so.2", "libbts.so.2.0.0");
	expect_mode(dest, "/usr/bin/btrace", 0755);
	expect_mode(dest, "/usr/lib/libbts.so.2.0.0", 0755);
	expect_mode(dest, "/usr/include/bts.h", 0644);
	expect_mode(dest, "/usr/lib/pkgconfig/libbts.pc", 0644);
	expect_mode(dest, "/usr/lib/ptrace-bts/ptbts-qemu-user.so", 0644);
	EXPECT_EQ(sh(&c, "readelf -d '%s/usr/lib/libbts.so.2.0.0'", dest), 0);
	EXPECT_TRUE(strstr(c.out, "Library soname: [libbts.so.2]"));
	harness_cmd_free(&c);
	/* The installed btrace runs. */
	EXPECT_EQ(sh(&c, "'%s/usr/bin/btrace' --version", dest), 0);
	EXPECT_TRUE(!strncmp(c.out, "btrace (ptrace-bts) ", 20));
	harness_cmd_free(&c);
	/* ...finds the qemu-user source's plugin in ../lib/ptrace-bts... */
	EXPECT_EQ(sh(&c, "env -u BTS_QEMU_PLUGIN '%s/usr/bin/btrace' info", dest), 0);
	EXPECT_TRUE(strstr(c.out, "\nqemu-user    available\n") != NULL);
	harness_cmd_free(&c);
	/* ...and its viewer in ../share/btrace/view. */
	btr = raw_record("seq-calls", NULL, 0, &c);
	harness_cmd_free(&c);
	EXPECT_EQ(sh(&c, "'%s/usr/bin/btrace' view -o '%s/v.html' '%s'", dest,
		     harness_tmpdir(), btr), 0);
	EXPECT_STREQ(c.err, "");
	harness_cmd_free(&c);
	free(btr);
	make("uninstall", dest);
	EXPECT_STREQ(files_below(dest), "/usr/bin/other\n");
	free(share);
	free(dest);
}

/* The example, built from the DESTDIR with nothing but pkg-config's flags. */
TEST(install, example_builds_with_pkg_config_alone)
{
	char *dest = dest_dir(), *prog = PROG_PATH("cli-exit");
	const char *env = "PKG_CONFIG_PATH='%1$s/usr/lib/pkgconfig' "
			  "PKG_CONFIG_LIBDIR='%1$s/usr/lib/pkgconfig' "
			  "PKG_CONFIG_SYSROOT_DIR='%1$s'";
	char envs[4096], *line;
	struct harness_cmd c;
	int n = 0;

	snprintf(envs, sizeof(envs), env, dest);
	make("install", dest);
	EXPECT_EQ(sh(&c, "%s pkg-config --modversion libbts", envs), 0);
	EXPECT_STREQ(c.out, "2.0.0\n");
	harness_cmd_free(&c);
	EXPECT_EQ(sh(&c, "%s pkg-config --cflags --libs libbts", envs), 0);
	{
		char want[4096];

		snprintf(want, sizeof(want), "-I%1$s/usr/include -L%1$s/usr/lib -lbts \n", dest);
		EXPECT_STREQ(c.out, want);
	}
	harness_cmd_free(&c);
	if (sh(&c, "export %s; cc -Wall -Wextra -Werror -o '%s/lb' "
	       "'%s/examples/last-branches.c' $(pkg-config --cflags --libs libbts)",
	       envs, harness_tmpdir(), BTS_SRC_DIR))
		FAIL("the example does not build:\n%s%s", c.out, c.err);
	harness_cmd_free(&c);
	/*
	 * Run against the installed library.  A sanitized build's library
	 * brings its runtime along, which is then not first in the program.
	 */
	EXPECT_EQ(sh(&c, "LD_LIBRARY_PATH='%s/usr/lib' ASAN_OPTIONS=verify_asan_link_order=0"
		     ":detect_leaks=0 '%s/lb' -n 3 '%s' 7", dest, harness_tmpdir(), prog), 0);
	for (line = c.out; *line; n++) {
		char *nl = strchr(line, '\n');

		ASSERT_TRUE(nl);
		*nl = '\0';
		if (!harness_matches_lines("^0x[0-9a-f]{16}( <[^>]+>)?  ->  0x[0-9a-f]{16}( <[^>]+>)?$", line))
			FAIL("line %d: %s", n, line);
		line = nl + 1;
	}
	EXPECT_EQ(n, 3);
	harness_cmd_free(&c);
	make("uninstall", dest);
	free(prog);
	free(dest);
}

/* ----------------------------------------------------- exported symbols */

TEST(install, exported_symbols_are_the_committed_list)
{
	struct harness_cmd c, want;

	EXPECT_EQ(sh(&c, "nm -D --defined-only '%s/libbts.so.2.0.0' | awk '{print $3}' | "
		     "LC_ALL=C sort", BTS_BUILD_DIR), 0);
	EXPECT_EQ(sh(&want, "LC_ALL=C sort '%s/libbts/libbts.sym'", BTS_SRC_DIR), 0);
	if (strcmp(c.out, want.out)) {
		struct harness_cmd d;

		sh(&d, "cd '%s' && nm -D --defined-only '%s/libbts.so.2.0.0' | "
		   "awk '{print $3}' | LC_ALL=C sort | diff -u libbts/libbts.sym - ",
		   BTS_SRC_DIR, BTS_BUILD_DIR);
		static char diff[8192];

		snprintf(diff, sizeof(diff), "%s", d.out);
		harness_cmd_free(&d);
		harness_cmd_free(&c);
		harness_cmd_free(&want);
		FAIL("the exported symbols differ from libbts/libbts.sym (if the API "
		     "changed on purpose: make update-symbols):\n%s", diff);
	}
	/* Every export carries the version node. */
	EXPECT_TRUE(strstr(c.out, "LIBBTS_2\n") == c.out);
	EXPECT_FALSE(harness_matches_lines("^bts_[a-z0-9_]+$", c.out));
	harness_cmd_free(&c);
	harness_cmd_free(&want);
}
