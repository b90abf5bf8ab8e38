/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Reading the options structs of bts.h, after libbpf's OPTS_* macros.
 * Every such struct starts with its size, @sz, which the caller sets to
 * the size it was built with (BTS_OPTS() does).  The one rule:
 *
 *  - NULL options: every field takes its default;
 *  - a field is present when @sz covers it whole: a field that @sz cuts
 *    in two is absent, as is every field past @sz (an older caller);
 *  - a struct larger than this library's (a newer caller) is accepted
 *    when every byte past the fields this library knows is zero, and
 *    refused with BTS_E_INVAL otherwise: an option set and silently
 *    ignored would be a lie;
 *  - @sz smaller than @sz itself is refused with BTS_E_INVAL.
 *
 * An entry point checks once with BTS_OPTS_VALID() and then reads each
 * field with BTS_OPTS_GET(), never with ->field or a copy of the struct.
 */
#ifndef BTS_OPTS_H
#define BTS_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* The offset of the first byte past @FIELD of @TYPE. */
#define bts_offsetofend(TYPE, FIELD) \
	(offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))

/* Whether @opts (a pointer to an options struct, may be NULL) has @field. */
#define BTS_OPTS_HAS(opts, field) ({					\
	const __typeof__(*(opts)) *__o = (opts);			\
									\
	__o && __o->sz >= bts_offsetofend(__typeof__(*(opts)), field);	\
})

/* @opts->field when present, else @fallback. */
#define BTS_OPTS_GET(opts, field, fallback) \
	(BTS_OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/*
 * 0 when @opts (may be NULL) follows the rule above; else -BTS_E_INVAL,
 * with a detail that names @what ("session options").
 */
#define BTS_OPTS_VALID(opts, what) \
	bts_opts_valid((opts), (opts) ? (opts)->sz : 0, sizeof(*(opts)), (what))

int bts_opts_valid(const void *opts, size_t sz, size_t known, const char *what);

/*
 * The output half: a struct the library fills comes with the size the
 * caller was built with, @sz.  min(@sz, @known) bytes of @src are copied
 * to @dst and nothing past them is touched, so that an older caller gets
 * the fields it knows and a newer one the fields this library knows.
 * 0, or -BTS_E_INVAL (detail naming @what) for a NULL @dst or @sz 0.
 */
#define BTS_OUT_FILL(dst, sz, src, what) \
	bts_out_fill((dst), (sz), (src), sizeof(*(src)), (what))

int bts_out_fill(void *dst, size_t sz, const void *src, size_t known,
		 const char *what);

#endif /* BTS_OPTS_H */
