// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stub's host I/O (vFile), as gdbserver serves it: gdb reads the
 * program, its libraries and /proc/PID/maps through the stub, so a
 * connection no longer says "remote target does not support file
 * transfer" nor "unable to open /proc file".  Packet by packet first
 * (exact replies, gdb's File-I/O errno numbers), then with real gdb.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_util.h"
#include "rsp_client.h"

static char *hex(const char *s)
{
	char *out = malloc(2 * strlen(s) + 1);

	ASSERT_TRUE(out != NULL);
	for (size_t i = 0; s[i]; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)s[i]);
	out[2 * strlen(s)] = 0;
	return out;
}

/* The pid of the program, from the stop reply's thread ("T05thread:pP.T;"). */
static int program_pid(struct rsp_client *s)
{
	const char *r;

	rsp_ask(s, "qSupported:multiprocess+");
	r = rsp_ask(s, "?");
	r = strstr(r, "thread:p");
	ASSERT_TRUE(r != NULL);
	return (int)strtol(r + 8, NULL, 16);
}

TEST(gdb_vfile, packets_read_the_programs_files)
{
	struct rsp_client s;
	char path[64], *h, *prog = PROG_PATH("gdb-loop");
	const char *r;
	int pid, fd;

	gdb_stub_start(&s, "gdb-loop");
	pid = program_pid(&s);
	EXPECT_STREQ(rsp_ask(&s, "vFile:setfs:0"), "F0");
	snprintf(path, sizeof(path), "vFile:setfs:%x", pid);
	EXPECT_STREQ(rsp_ask(&s, "%s", path), "F0");

	/* /proc/PID/maps, which gdb itself may not read: it names the program. */
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	h = hex(path);
	r = rsp_ask(&s, "vFile:open:%s,0,1c0", h);
	ASSERT_EQ(r[0], 'F');
	fd = (int)strtol(r + 1, NULL, 16);
	EXPECT_TRUE(fd > 2);
	r = rsp_ask(&s, "vFile:pread:%x,1000,0", fd);
	EXPECT_TRUE(r[0] == 'F' && strchr(r, ';') && strstr(r, prog));
	r = rsp_ask(&s, "vFile:fstat:%x", fd);
	EXPECT_EQ(strncmp(r, "F40;", 4), 0);
	EXPECT_STREQ(rsp_ask(&s, "vFile:close:%x", fd), "F0");
	EXPECT_STREQ(rsp_ask(&s, "vFile:close:%x", fd), "F-1,9");	/* EBADF */
	EXPECT_STREQ(rsp_ask(&s, "vFile:pread:%x,10,0", fd), "F-1,9");
	free(h);

	/* readlink /proc/PID/exe: the program. */
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	h = hex(path);
	r = rsp_ask(&s, "vFile:readlink:%s", h);
	snprintf(path, sizeof(path), "F%zx;", strlen(prog));
	EXPECT_EQ(strncmp(r, path, strlen(path)), 0);
	EXPECT_STREQ(strchr(r, ';') + 1, prog);
	free(h);

	/* Refusals, in gdb's errno numbers (hex). */
	h = hex("/nonexistent");
	EXPECT_STREQ(rsp_ask(&s, "vFile:open:%s,0,0", h), "F-1,2");	/* ENOENT */
	free(h);
	h = hex("/tmp");
	EXPECT_STREQ(rsp_ask(&s, "vFile:open:%s,0,0", h), "F-1,15");	/* EISDIR */
	free(h);
	h = hex("/dev/null");
	EXPECT_STREQ(rsp_ask(&s, "vFile:open:%s,0,0", h), "F-1,13");	/* ENODEV */
	EXPECT_STREQ(rsp_ask(&s, "vFile:open:%s,201,1b6", h), "F-1,d");	/* EACCES */
	free(h);
	EXPECT_STREQ(rsp_ask(&s, "vFile:open:zz,0,0"), "F-1,16");	/* EINVAL */
	EXPECT_STREQ(rsp_ask(&s, "vFile:setfs:1"), "F-1,270f");	/* another's */
	EXPECT_STREQ(rsp_ask(&s, "vFile:unlink:2f746d70"), "");	/* not served */
	EXPECT_EQ(rsp_hang_up(&s), 0);
	free(prog);
}

/* gdb's own lines on stderr that start with "warning:", joined. */
static char *warnings(const char *err)
{
	size_t cap = strlen(err) + 1, n = 0;
	char *out = malloc(cap);

	ASSERT_TRUE(out != NULL);
	for (const char *l = err; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, "warning:", 8)) {
			size_t len = strcspn(l, "\n") + 1;

			memcpy(out + n, l, len);
			n += len;
		}
	out[n] = 0;
	return out;
}

TEST(gdb_vfile, gdb_reads_maps_without_a_warning)
{
	const char *cmds[] = { NULL, "info proc mappings", "continue", NULL };
	struct harness_cmd cmd;
	char *w, *prog = PROG_PATH("cli-exit");

	/* What a local stub wants: files read from here, /proc through it. */
	cmds[0] = gdb_target("cli-exit", NULL);
	gdb_run(&cmd, "cli-exit", "set sysroot /", cmds);
	w = warnings(cmd.err);
	EXPECT_STREQ(w, "");
	gdb_expect_out(&cmd, prog);
	gdb_expect_out(&cmd, "[stack]");
	gdb_expect_exit(&cmd, "exited normally");
	free(w);
	free((char *)cmds[0]);
	harness_cmd_free(&cmd);

	/* gdb's default sysroot: files come through the stub; gdb's one
	 * warning is the one it gives gdbserver too. */
	cmds[0] = "info proc mappings";
	cmds[1] = "continue";
	cmds[2] = NULL;
	gdb_run(&cmd, "cli-exit", NULL, cmds);
	w = warnings(cmd.err);
	EXPECT_STREQ(w, "warning: File transfers from remote targets can be slow. "
			"Use \"set sysroot\" to access files locally instead.\n");
	gdb_expect_out(&cmd, "Reading /lib64/ld-linux-x86-64.so.2 from remote target...");
	gdb_expect_out(&cmd, "[stack]");
	gdb_expect_exit(&cmd, "exited normally");
	free(w);
	harness_cmd_free(&cmd);
	free(prog);
}
