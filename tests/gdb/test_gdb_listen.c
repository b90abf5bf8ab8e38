// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gdbserver --listen's address: a port out of range is an error, never
 * another port; an IPv6 host in brackets, as gdb writes it, is taken.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdb_util.h"

static void expect_refused(const char *addr, const char *why)
{
	char *btrace = BTRACE_PATH();
	char *argv[] = { btrace, "gdbserver", "--listen", (char *)addr, "--",
			 "x", NULL };
	struct harness_cmd cmd;
	char want[256];

	snprintf(want, sizeof(want), "btrace: gdbserver: --listen %s: %s\n",
		 addr, why);
	ASSERT_EQ(harness_run(argv, GDB_TIMEOUT, &cmd), 0);
	EXPECT_EQ(harness_exit_code(&cmd), 2);
	EXPECT_STREQ(cmd.err, want);
	harness_cmd_free(&cmd);
	free(btrace);
}

TEST(gdb_listen, a_port_out_of_range_is_refused)
{
	expect_refused(":99999", "port out of range (0 to 65535)");
	expect_refused("127.0.0.1:65536", "port out of range (0 to 65535)");
	expect_refused("4294967297", "port out of range (0 to 65535)");
	expect_refused("[::1]:", "expected HOST:PORT, :PORT or PORT");
}

/* [::1]:0 listens on the IPv6 loopback, says where, and takes gdb. */
TEST(gdb_listen, an_ipv6_host_in_brackets_is_taken)
{
	char *stub = BTRACE_PATH(), *prog = PROG_PATH("gdb-seq");
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	char buf[512], *p;
	int pe[2], fd, status;
	pid_t pid;

	ASSERT_EQ(pipe(pe), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		dup2(pe[1], 2);
		close(pe[0]);
		execl(stub, stub, "gdbserver", "--listen", "[::1]:0", "--", prog,
		      (char *)NULL);
		_exit(127);
	}
	close(pe[1]);
	gdb_read_line(pe[0], buf, sizeof(buf));
	p = strstr(buf, "btrace: gdbserver: listening on [::1]:");
	if (!p)
		FAIL("the stub did not listen on [::1]: %s", buf);
	sa.sin6_port = htons((uint16_t)atoi(p + strlen("btrace: gdbserver: listening on [::1]:")));
	ASSERT_EQ(inet_pton(AF_INET6, "::1", &sa.sin6_addr), 1);
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	/* gdb goes at once: the program is killed and the stub exits 0. */
	close(fd);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(pe[0]);
	free(stub);
	free(prog);
}
