/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What dump shows of a view: code of one function (--function GLOB), of
 * one file (--object GLOB), whose name matches a regular expression
 * (--grep REGEX), or at addresses in a range (--addr LO-HI).  Given
 * together, all must hold.
 */
#ifndef BTRACE_DUMP_FILTER_H
#define BTRACE_DUMP_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include <bts.h>

struct dump_filter {
	const char *function;	/* a glob on the name, as shown or raw */
	const char *object;	/* a glob on the file's path or its name */
	bool grep;		/* re holds --grep */
	regex_t re;
	bool addr;		/* lo, hi hold --addr */
	uint64_t lo, hi;	/* inclusive */
};

/* Any filter given. */
bool filter_active(const struct dump_filter *f);
/* Whether filters on the place in the file (--object, --addr) are given. */
bool filter_needs_addr(const struct dump_filter *f);

/*
 * Whether code at @addr (0: unknown), in the function @name (raw, or
 * NULL) and the file @object (or NULL) is shown.
 */
bool filter_match(const struct dump_filter *f, uint64_t addr, const char *name,
		  const char *object);
/* The same with @addr's name and file from @sym (may be NULL). */
bool filter_addr(const struct dump_filter *f, struct bts_symbolizer *sym,
		 uint64_t addr);

/* Option callbacks: NULL, or why the argument is wrong. */
const char *parse_filter_grep(const char *arg, void *filter);
const char *parse_filter_addr(const char *arg, void *filter);
void filter_free(struct dump_filter *f);

#endif /* BTRACE_DUMP_FILTER_H */
