// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Where the qemu-user source's programs are: Debian's qemu-x86_64 and
 * qemu-i386 (package qemu-user) and our plugin for both.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/qemu-user/qemu_user.h"

#define QEMU_X86_64	"qemu-x86_64"
#define QEMU_I386	"qemu-i386"
#define PLUGIN_NAME	"ptbts-qemu-user.so"

static bool executable(const char *path)
{
	return access(path, X_OK) == 0;
}

static bool in_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (end > p && (size_t)snprintf(out, len, "%.*s/%s", (int)(end - p),
						p, name) < len && executable(out))
			return true;
		if (!*end)
			return false;
	}
}

/*
 * Each emulator has its own variable, so that BTS_QEMU keeps naming the
 * x86-64 one it always named.
 */
bool bts_qemu_find_emulator(bool i386, char *out, size_t len, char *why,
			    size_t wlen)
{
	const char *var = i386 ? "BTS_QEMU_I386" : "BTS_QEMU";
	const char *name = i386 ? QEMU_I386 : QEMU_X86_64;
	const char *env = getenv(var);

	if (env && *env) {
		if ((size_t)snprintf(out, len, "%s", env) < len && executable(out))
			return true;
		snprintf(why, wlen, "%s (%s): %s", env, var, strerror(errno));
		return false;
	}
	if (in_path(name, out, len))
		return true;
	snprintf(why, wlen, "%s not found in PATH (install Debian's qemu-user "
		 "package)", name);
	return false;
}

/* Beside the running program (a build tree), or as installed. */
static bool find_plugin(char *out, size_t len, char *why, size_t wlen)
{
	const char *env = getenv("BTS_QEMU_PLUGIN");
	char exe[PATH_MAX], *dir;
	ssize_t n;

	if (env && *env) {
		if ((size_t)snprintf(out, len, "%s", env) < len &&
		    access(out, R_OK) == 0)
			return true;
		snprintf(why, wlen, "%s (BTS_QEMU_PLUGIN): %s", env, strerror(errno));
		return false;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		dir = dirname(exe);
		if ((size_t)snprintf(out, len, "%s/" PLUGIN_NAME, dir) < len &&
		    access(out, R_OK) == 0)
			return true;
		if ((size_t)snprintf(out, len, "%s/../lib/ptrace-bts/" PLUGIN_NAME,
				     dir) < len && access(out, R_OK) == 0)
			return true;
	}
	snprintf(why, wlen, "the plugin " PLUGIN_NAME " is not installed beside "
		 "btrace (../lib/ptrace-bts/); BTS_QEMU_PLUGIN names another");
	return false;
}

/* The symbols QEMU looks for in a plugin, in its dynamic symbol table. */
static bool exports(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	size_t i, n;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; d && i < n; i++) {
			const char *s;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name))
				return true;
		}
	}
	return false;
}

/* A file QEMU would refuse outright is refused here, in one line. */
static bool plugin_ok(const char *path, char *why, size_t wlen)
{
	bool ok = false;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, wlen, "%s: %s", path, strerror(errno));
		return false;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF &&
	     exports(elf, "qemu_plugin_install") &&
	     exports(elf, "qemu_plugin_version");
	if (elf)
		elf_end(elf);
	close(fd);
	if (!ok)
		snprintf(why, wlen, "%s: not a QEMU plugin (it exports no "
			 "qemu_plugin_install and qemu_plugin_version)", path);
	return ok;
}

bool bts_qemu_find(char *qemu, char *plugin, size_t len, char *why,
		   size_t wlen)
{
	if (!bts_qemu_find_emulator(false, qemu, len, why, wlen) ||
	    !find_plugin(plugin, len, why, wlen) || !plugin_ok(plugin, why, wlen))
		return false;
	/* QEMU's option syntax would split the path at a comma. */
	if (strchr(plugin, ',')) {
		snprintf(why, wlen, "%s: a plugin path with a comma", plugin);
		return false;
	}
	return true;
}

void bts_qemu_probe(struct bts_source_info *si)
{
	char qemu[PATH_MAX], plugin[PATH_MAX];

	si->available = bts_qemu_find(qemu, plugin, sizeof(qemu), si->why,
				      sizeof(si->why));
}
