// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracer32: a 32-bit tracer of a 64-bit program, built -m32 -static with
 * nothing but libc and the uapi header, so that every ioctl goes through
 * the module's compat_ioctl.  It runs PROG (its output to /dev/null),
 * attaches it at its exec with kmod-step in BLOCK mode with a small
 * buffer, takes the records as WAIT says they are ready, acknowledges
 * them, and prints them as `btrace dump --raw` does.  Exits with PROG's
 * exit code, or 100 + a step number when something of its own fails.
 *
 * Usage: tracer32 PROG
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ptrace_bts.h>

#define BUF_SIZE	(4 * 4096)
#define NSLOTS		(BUF_SIZE / sizeof(struct ptbts_record))

static int fd;
static struct ptbts_record *buf;
static uint64_t tail;

static void die(int step, const char *what)
{
	fprintf(stderr, "tracer32: %s: %s\n", what, strerror(errno));
	exit(100 + step);
}

static void print_rec(const struct ptbts_record *r)
{
	unsigned int kind = PTBTS_KIND(r->flags);

	if (r->from)
		printf("0x%llx 0x%llx\n", (unsigned long long)r->from,
		       (unsigned long long)r->to);
	else if (kind == PTBTS_KIND_EXEC)
		printf("# exec 0x%llx\n", (unsigned long long)r->to);
	else if (kind == PTBTS_KIND_LOST)
		printf("# lost %llu\n", (unsigned long long)r->to);
	else
		printf("# marker %u %llu\n", kind, (unsigned long long)r->to);
}

/* Prints the records up to @st's producer position and acknowledges them. */
static void take(pid_t pid, const struct ptbts_status *st)
{
	uint64_t count = st->wraps * NSLOTS + st->head / sizeof(*buf);
	struct ptbts_ack a = { .size = sizeof(a), .tid = (uint32_t)pid };

	for (; tail < count; tail++)
		print_rec(&buf[tail % NSLOTS]);
	a.tail = tail;
	if (st->state <= PTBTS_STATE_STOPPED && ioctl(fd, PTBTS_IOC_ACK, &a))
		die(6, "ACK");
}

static void child(const char *prog)
{
	int null = open("/dev/null", O_WRONLY);

	if (null < 0 || dup2(null, 1) < 0)
		_exit(120);
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(121);
	raise(SIGSTOP);
	execl(prog, prog, (char *)NULL);
	_exit(122);
}

/* Runs the child to its exec stop. */
static void to_exec(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		die(1, "first stop");
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) ||
	    ptrace(PTRACE_CONT, pid, 0, 0))
		die(2, "options");
	if (waitpid(pid, &status, 0) != pid ||
	    status >> 8 != (SIGTRAP | PTRACE_EVENT_EXEC << 8))
		die(3, "exec stop");
}

static void attach(pid_t pid)
{
	struct ptbts_config c = {
		.size = sizeof(c),
		.tid = (uint32_t)pid,
		.source = PTBTS_SOURCE_KMOD_STEP,
		.mode = PTBTS_MODE_BLOCK,
		.buffer_size = BUF_SIZE,
	};

	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(PTBTS_DEVICE, O_RDWR | O_CLOEXEC);
	if (buf == MAP_FAILED || fd < 0)
		die(4, "buffer or device");
	c.buffer = (uintptr_t)buf;
	if (ioctl(fd, PTBTS_IOC_ATTACH, &c))
		die(5, "ATTACH");
}

/*
 * WAIT returns at the threshold or when the thread stops or exits; a stop
 * (a signal of the program's) is passed on, the exit ends the run.
 */
static int run(pid_t pid)
{
	struct ptbts_status st;
	int status;

	if (ptrace(PTRACE_CONT, pid, 0, 0))
		die(7, "PTRACE_CONT");
	for (;;) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		st.tid = (uint32_t)pid;
		st.timeout_ns = PTBTS_WAIT_FOREVER;
		if (ioctl(fd, PTBTS_IOC_WAIT, &st)) {
			if (errno == EINTR)
				continue;
			die(8, "WAIT");
		}
		take(pid, &st);
		if (st.state == PTBTS_STATE_RUNNING)
			continue;
		if (waitpid(pid, &status, 0) != pid)
			die(9, "waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (ptrace(PTRACE_CONT, pid, 0, (void *)(long)WSTOPSIG(status)))
			die(10, "PTRACE_CONT");
	}
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.tid = (uint32_t)pid;
	if (ioctl(fd, PTBTS_IOC_STATUS, &st))
		die(11, "STATUS");
	take(pid, &st);
	if (st.state != PTBTS_STATE_EXITED || st.lost)
		die(12, "state or lost");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc != 2 || sizeof(void *) != 4) {
		fprintf(stderr, "usage: tracer32 PROG (a 32-bit build)\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		die(0, "fork");
	if (!pid)
		child(argv[1]);
	to_exec(pid);
	attach(pid);
	return run(pid);
}
