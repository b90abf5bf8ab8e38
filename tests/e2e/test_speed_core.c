// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The int3s of branch stops are out of the program before a fatal signal
 * is delivered, so its core dump shows the original code: speed-core sees
 * int3s in its own code page while it runs traced, then dies of SIGABRT;
 * the page in the core must equal the same bytes of its file.
 *
 * Cores are enabled for btrace (and so the program) with `ulimit -c` in a
 * shell that also enters a fresh temporary directory; the host's
 * core_pattern must name a file there (this host: "core"): a pattern that
 * pipes to a program is reported as a failure, not skipped.
 */
#include "core_dump.h"
#include "harness.h"

TEST(speed_core, a_core_dump_shows_no_int3_of_ours)
{
	core_record_expect_clean("speed-core");
}
