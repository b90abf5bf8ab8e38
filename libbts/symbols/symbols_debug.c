// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Separate debug files.  A traced file's path is the trace's word, and so
 * is the directory it names: libdwfl's standard search opens its debug
 * link there (and in its .debug subdirectory) with a plain open(), which
 * blocks forever on a FIFO and may act on a device.  So libdwfl searches
 * only the system's debug tree, which only root fills: by build-id under
 * /usr/lib/debug/.build-id/, then by .gnu_debuglink under /usr/lib/debug.
 * Beside the traced file the link is looked for here, opened only if it is
 * a regular file, and taken only if its build-id is the traced file's (a
 * file without a build-id gets no debug file from there).  The standard
 * search ends by asking the debuginfod servers DEBUGINFOD_URLS names; a
 * trace is read offline, so when any are named only the local build-id
 * search is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "symbols/symbols.h"

static char debug_tree[] = "/usr/lib/debug";
char *bts_sym_debuginfo_path = debug_tree;

static bool has_build_id(int fd, const void *id, int len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *got;
	bool same;

	same = elf && dwelf_elf_gnu_build_id(elf, &got) == len &&
	       !memcmp(got, id, (size_t)len);
	elf_end(elf);
	return same;
}

/* @link in @file's directory or its .debug subdirectory, or -1. */
static int beside(Dwfl_Module *mod, const char *file, const char *link,
		  char **found)
{
	static const char *const subdirs[] = { "", "/.debug" };
	const char *slash = file ? strrchr(file, '/') : NULL;
	const unsigned char *id;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &id, &vaddr);

	if (len <= 0 || !slash || !link || !*link || strchr(link, '/'))
		return -1;
	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		char *path;
		int fd;

		if (asprintf(&path, "%.*s%s/%s", (int)(slash - file), file,
			     subdirs[i], link) < 0)
			return -1;
		fd = bts_open_regular(path);
		if (fd >= 0 && has_build_id(fd, id, len)) {
			*found = path;
			return fd;
		}
		if (fd >= 0)
			close(fd);
		free(path);
	}
	return -1;
}

int bts_sym_find_debuginfo(Dwfl_Module *mod, void **userdata,
			   const char *modname, Dwarf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd;

	if (urls && *urls)
		return dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
						    file_name, debuglink_file,
						    debuglink_crc,
						    debuginfo_file_name);
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					  file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	return fd >= 0 ? fd : beside(mod, file_name, debuglink_file,
				     debuginfo_file_name);
}
