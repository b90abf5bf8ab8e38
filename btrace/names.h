/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function names as people read them: C++ and Rust names demangled (as
 * c++filt shows them) unless the user asked for the names as the ELF
 * symbol tables spell them.
 */
#ifndef BTRACE_NAMES_H
#define BTRACE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include <bts.h>

/* Raw names from now on (--no-demangle); demangled by default. */
void names_keep_raw(bool raw);

/*
 * @raw as shown: demangled, or @raw itself when it is not a mangled name
 * or names are kept raw.  NULL for NULL.  The text lives until exit.
 */
const char *name_shown(const char *raw);

/* bts_symbolize() with the name as shown. */
int symbolize_shown(struct bts_symbolizer *sym, uint64_t addr,
		    const char **name, uint64_t *off);

#endif /* BTRACE_NAMES_H */
