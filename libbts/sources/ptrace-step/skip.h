/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The skip list of ptrace-step (--skip): which mapped objects run at full
 * speed, and a thread's way into one and back out.
 */
#ifndef BTS_SKIP_H
#define BTS_SKIP_H

#include <stdbool.h>
#include <stdint.h>

struct bts_skip;
struct bts_mapset;
struct bts_session;
struct bts_thread;
struct user_regs_struct;

/*
 * The list of @globs (NULL-terminated, as the CLI's --skip options give
 * them; each a glob on the base name of a mapped file) into *@out: NULL
 * for no globs.  0, -BTS_E_INVAL for an empty glob, or -BTS_E_NOMEM.
 */
int bts_skip_list_new(const char *const *globs, struct bts_skip **out);
void bts_skip_list_free(struct bts_skip *k);
/* Whether the file at @path is skipped: a glob matches its base name. */
bool bts_skip_list_matches(const struct bts_skip *k, const char *path);
/*
 * Whether @addr is code of a skipped object among @maps; false for an
 * address no map holds.  The last map's answer is kept.
 */
bool bts_skip_list_at(struct bts_skip *k, const struct bts_mapset *maps,
		      uint64_t addr);

/* The maps changed (exec): what was known of them is forgotten. */
void bts_skip_forget(struct bts_session *s);
/* Whether @addr is code of a skipped object. */
bool bts_skip_addr(struct bts_session *s, uint64_t addr);
/* The thread at @regs is about to run a skipped object: let it. */
void bts_skip_enter(struct bts_session *s, struct bts_thread *t,
		    const struct user_regs_struct *regs);

#endif /* BTS_SKIP_H */
