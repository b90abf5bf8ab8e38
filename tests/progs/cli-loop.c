// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-loop PIDFILE: writes its pid to PIDFILE (atomically, once it runs
 * main), then loops until SIGINT, when it exits with 42: a program that
 * handles Ctrl-C its own way.  Without a SIGINT it runs until killed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int write_pid(const char *path)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 2000000 };
	volatile unsigned long work = 0;

	if (argc != 2)
		return 2;
	signal(SIGINT, on_sigint);
	if (write_pid(argv[1]))
		return 1;
	while (!interrupted) {
		for (int i = 0; i < 10; i++)
			work += i;
		nanosleep(&tick, NULL);
	}
	return 42;
}
