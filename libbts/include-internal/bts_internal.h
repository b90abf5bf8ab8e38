/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * NOT API.  The internals of libbts that its unit tests (tests/unit/)
 * reach: the parts with no public entry point of their own, whose
 * behaviour end-to-end tests see only as a whole.  Nothing here is
 * exported from libbts.so, kept stable, or meant for any other program;
 * tests are built with -Ilibbts/include-internal and include this one
 * header rather than the files of libbts/ one by one.
 */
#ifndef BTS_INTERNAL_TESTS_H
#define BTS_INTERNAL_TESTS_H

#include "internal.h"

/* The plumbing of util/: one array, one options reader, one hash table. */
#include "util/addr_table.h"
#include "util/array.h"
#include "util/opts.h"
#include "util/warnings.h"

/* The record ring's positions (bts_ring_new() gives an opaque one). */
#include "records/ring.h"

/*
 * The int3 table of a memory (the session's, which ptrace-step and a
 * debugger plant in); ptrace-step's skip list and branch-stop blocks.
 */
#include "decode/insn.h"
#include "session/breakpoints.h"
#include "session/session.h"
#include "sources/ptrace-step/skip.h"
#include "sources/ptrace-step/step.h"

#endif /* BTS_INTERNAL_TESTS_H */
