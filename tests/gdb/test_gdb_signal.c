// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Signal handlers in the history gdb reads (tests/progs/gdb-signal): a
 * signal gdb gives the program (`signal SIGUSR1`, sent by the stub) and one
 * the program raised and gdb passed on both show as a jump from the pc
 * they interrupted to the handler's first instruction, and the program
 * runs on to its exit.
 */
#include <stdlib.h>

#include "gdb_util.h"

/* The program's own functions in the call history, in order. */
#define PY_OWN								\
	"python own = ('main', 'spot', 'done', 'on_usr1', 'on_usr2')\n"	\
	"h = gdb.current_recording().function_call_history\n"		\
	"print('@@own', ','.join(f.symbol.name for f in h "		\
	"if f.symbol and f.symbol.name in own))"

/*
 * Where the handler was entered from: the instruction before it in the
 * history ends at the pc the signal interrupted (@var, saved at the stop).
 */
#define PY_ENTRY(var)							\
	"python h = gdb.current_recording().instruction_history\n"	\
	"f = gdb.current_recording().function_call_history\n"		\
	"print('@@entry', f[-1].symbol.name, h[-2].pc + "		\
	"(0 if h[-2].pc == " var " else h[-2].size) == " var ")"

TEST(gdb_signal, handlers_recorded)
{
	static const char *const cmds[] = {
		"break spot", "continue", "record btrace bts",
		"python p1 = gdb.selected_frame().pc()",
		"break on_usr1", "break on_usr2",
		"signal SIGUSR1", "stepi",
		"echo @@begin usr1\\n", PY_ENTRY("p1"), "echo @@end usr1\\n",
		/* Back from the handler onto spot's breakpoint, and on. */
		"continue", "stepi",
		"echo @@begin back\\n", PY_OWN, "echo @@end back\\n",
		/* raise(SIGUSR2): gdb stops, then passes it on. */
		"continue", "python p2 = gdb.selected_frame().pc()",
		"continue", "stepi",
		"echo @@begin usr2\\n", PY_ENTRY("p2"), "echo @@end usr2\\n",
		"record stop", "delete", "continue",
		NULL,
	};
	struct harness_cmd cmd;
	char *usr1, *back, *usr2;

	gdb_run(&cmd, "gdb-signal", NULL, cmds);
	gdb_expect_out(&cmd, "Program received signal SIGUSR2, User defined signal 2.");
	usr1 = gdb_section(&cmd, "usr1");
	EXPECT_STREQ(usr1, "@@entry on_usr1 True\n");
	back = gdb_section(&cmd, "back");
	EXPECT_STREQ(back, "@@own spot,on_usr1,spot\n");
	usr2 = gdb_section(&cmd, "usr2");
	EXPECT_STREQ(usr2, "@@entry on_usr2 True\n");
	gdb_expect_exit(&cmd, "exited with code 05");
	free(usr1);
	free(back);
	free(usr2);
	harness_cmd_free(&cmd);
}
