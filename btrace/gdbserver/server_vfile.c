// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vFile: the host I/O packets gdb uses to read the program's files and
 * /proc entries through the stub, as it does with gdbserver: setfs, open,
 * pread, close, fstat, readlink.  Files are served for reading only, and
 * only regular files (a FIFO or a device opened for gdb could block the
 * stub or act on the device); the stub is the program's tracer, so it may
 * read the /proc files of the program that gdb itself may not.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"

/* gdb's File-I/O errno values, where they differ or may differ. */
static int fileio_errno(int err)
{
	switch (err) {
	case EPERM: case ENOENT: case EINTR: case EBADF: case EACCES:
	case EFAULT: case EBUSY: case EEXIST: case ENODEV: case ENOTDIR:
	case EISDIR: case EINVAL: case ENFILE: case EMFILE: case EFBIG:
	case ENOSPC: case ESPIPE: case EROFS:
		return err;	/* Linux's numbers are the protocol's */
	case ENAMETOOLONG:
		return 91;
	default:
		return 9999;	/* FILEIO_EUNKNOWN */
	}
}

static void fail(struct strbuf *reply, int err)
{
	sb_printf(reply, "F-1,%x", fileio_errno(err));
}

/* A hex number ended by @stop ('\0' for the end); @s moves past it. */
static bool hex_arg(const char **s, char stop, uint64_t *v)
{
	const char *p = *s;
	char *end;

	if (!isxdigit((unsigned char)*p))
		return false;
	errno = 0;
	*v = strtoull(p, &end, 16);
	if (errno || *end != stop)
		return false;
	*s = stop ? end + 1 : end;
	return true;
}

/* A hex-encoded path ended by @stop into @path; @s moves past it. */
static bool path_arg(const char **s, char stop, char *path, size_t len)
{
	const char *p = *s, *end = stop ? strchr(p, stop) : p + strlen(p);
	size_t n;

	if (!end || (end - p) % 2 || !(n = (size_t)(end - p) / 2) || n >= len ||
	    !rsp_unhex(p, (size_t)(end - p), (uint8_t *)path))
		return false;
	path[n] = 0;
	if (strlen(path) != n)
		return false;	/* a NUL inside the name */
	*s = stop ? end + 1 : end;
	return true;
}

static int *slot_of(struct gdb_server *sv, uint64_t fd)
{
	for (size_t i = 0; i < GDB_VFILE_MAX; i++)
		if (sv->vfile[i] >= 0 && (uint64_t)sv->vfile[i] == fd)
			return &sv->vfile[i];
	return NULL;
}

static void vopen(struct gdb_server *sv, const char *args, struct strbuf *reply)
{
	char path[PATH_MAX];
	uint64_t flags, mode;
	struct stat st;
	int *slot = NULL, fd;

	if (!path_arg(&args, ',', path, sizeof(path)) || !hex_arg(&args, ',', &flags) ||
	    !hex_arg(&args, 0, &mode))
		return fail(reply, EINVAL);
	if (flags)	/* FILEIO_O_RDONLY is 0; anything else writes */
		return fail(reply, EACCES);
	for (size_t i = 0; i < GDB_VFILE_MAX && !slot; i++)
		if (sv->vfile[i] < 0)
			slot = &sv->vfile[i];
	if (!slot)
		return fail(reply, EMFILE);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail(reply, errno);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(reply, S_ISDIR(st.st_mode) ? EISDIR : ENODEV);
	}
	*slot = fd;
	sb_printf(reply, "F%x", fd);
}

static void vpread(struct gdb_server *sv, const char *args, struct strbuf *reply)
{
	/* Escaping may double the data: half a packet always fits. */
	static uint8_t buf[RSP_PACKET_MAX / 2 - 32];
	uint64_t fd, count, off;
	ssize_t n;

	if (!hex_arg(&args, ',', &fd) || !hex_arg(&args, ',', &count) ||
	    !hex_arg(&args, 0, &off) || off > INT64_MAX)
		return fail(reply, EINVAL);
	if (!slot_of(sv, fd))
		return fail(reply, EBADF);
	if (count > sizeof(buf))
		count = sizeof(buf);
	n = pread((int)fd, buf, count, (off_t)off);
	if (n < 0)
		return fail(reply, errno);
	sb_printf(reply, "F%zx;", (size_t)n);
	sb_add(reply, buf, (size_t)n);	/* rsp_frame() escapes the reply */
}

static void vclose(struct gdb_server *sv, const char *args, struct strbuf *reply)
{
	uint64_t fd;
	int *slot;

	if (!hex_arg(&args, 0, &fd))
		return fail(reply, EINVAL);
	slot = slot_of(sv, fd);
	if (!slot)
		return fail(reply, EBADF);
	close(*slot);
	*slot = -1;
	sb_puts(reply, "F0");
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* gdb's struct fio_stat: big-endian, 64 bytes. */
static void vfstat(struct gdb_server *sv, const char *args, struct strbuf *reply)
{
	uint8_t s[64];
	struct stat st;
	uint64_t fd;

	if (!hex_arg(&args, 0, &fd))
		return fail(reply, EINVAL);
	if (!slot_of(sv, fd))
		return fail(reply, EBADF);
	if (fstat((int)fd, &st))
		return fail(reply, errno);
	put_be(s + 0, st.st_dev, 4);
	put_be(s + 4, st.st_ino, 4);
	put_be(s + 8, st.st_mode, 4);
	put_be(s + 12, st.st_nlink, 4);
	put_be(s + 16, st.st_uid, 4);
	put_be(s + 20, st.st_gid, 4);
	put_be(s + 24, st.st_rdev, 4);
	put_be(s + 28, (uint64_t)st.st_size, 8);
	put_be(s + 36, (uint64_t)st.st_blksize, 8);
	put_be(s + 44, (uint64_t)st.st_blocks, 8);
	put_be(s + 52, (uint64_t)st.st_atime, 4);
	put_be(s + 56, (uint64_t)st.st_mtime, 4);
	put_be(s + 60, (uint64_t)st.st_ctime, 4);
	sb_printf(reply, "F%zx;", sizeof(s));
	sb_add(reply, s, sizeof(s));
}

static void vreadlink(const char *args, struct strbuf *reply)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	if (!path_arg(&args, 0, path, sizeof(path)))
		return fail(reply, EINVAL);
	n = readlink(path, target, sizeof(target));
	if (n < 0)
		return fail(reply, errno);
	if (n == (ssize_t)sizeof(target))
		return fail(reply, ENAMETOOLONG);
	sb_printf(reply, "F%zx;", (size_t)n);
	sb_add(reply, target, (size_t)n);
}

/* The program's filesystem is the stub's own: setfs takes 0 or its pid. */
static void vsetfs(struct gdb_server *sv, const char *args, struct strbuf *reply)
{
	uint64_t pid;

	if (!hex_arg(&args, 0, &pid))
		return fail(reply, EINVAL);
	if (pid && pid != (uint64_t)sv->pid)
		return fail(reply, ENOSYS);
	sb_puts(reply, "F0");
}

void gdb_vfile(struct gdb_server *sv, const char *args, struct strbuf *reply)
{
	static const char *const ops[] = {
		"setfs:", "open:", "pread:", "close:", "fstat:", "readlink:",
	};
	size_t i, n;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(args, ops[i], strlen(ops[i])))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return;		/* pwrite, unlink, ...: not served (empty) */
	/* Without a program (gone, or fuzzing) there is nothing to serve. */
	if (!gdb_has_program(sv))
		return fail(reply, ENOENT);
	n = strlen(ops[i]);
	switch (i) {
	case 0: return vsetfs(sv, args + n, reply);
	case 1: return vopen(sv, args + n, reply);
	case 2: return vpread(sv, args + n, reply);
	case 3: return vclose(sv, args + n, reply);
	case 4: return vfstat(sv, args + n, reply);
	default: return vreadlink(args + n, reply);
	}
}

void gdb_vfile_close_all(struct gdb_server *sv)
{
	for (size_t i = 0; i < GDB_VFILE_MAX; i++) {
		if (sv->vfile[i] >= 0)
			close(sv->vfile[i]);
		sv->vfile[i] = -1;
	}
}
