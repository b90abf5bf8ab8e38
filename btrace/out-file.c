// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An output file written under a temporary name beside PATH and renamed
 * into place once complete: a reader never finds a half-written PATH, and
 * a failed or interrupted write leaves PATH as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrace.h"
#include "out-file.h"

/*
 * The rename replaces whatever holds PATH: only a regular file, or
 * nothing, may be replaced (never a device, a FIFO or a symbolic link).
 */
static int check_destination(const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		error("cannot create %s: %s", shown(path), strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	error("%s: not a regular file: not replaced", shown(path));
	return -1;
}

static void out_file_free(struct out_file *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	o->f = NULL;
}

int out_file_open(struct out_file *o, const char *path)
{
	int fd;

	*o = (struct out_file){ 0 };
	if (check_destination(path))
		return -1;
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		o->tmp = NULL;
		out_file_free(o);
		error("out of memory");
		return -1;
	}
	/* O_EXCL: never write through a link planted at the temporary name. */
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		error("cannot create %s: %s", shown(path), strerror(errno));
		out_file_free(o);
		return -1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		error("cannot create %s: %s", shown(path), strerror(errno));
		close(fd);
		unlink(o->tmp);
		out_file_free(o);
		return -1;
	}
	return 0;
}

int out_file_commit(struct out_file *o)
{
	int err = 0;

	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		err = errno ? errno : EIO;
	if (fclose(o->f) && !err)
		err = errno;
	o->f = NULL;
	if (err) {
		error("cannot write %s: %s", shown(o->path), strerror(err));
		goto remove_tmp;
	}
	/* Again: something may have taken PATH while we wrote. */
	if (check_destination(o->path))
		goto remove_tmp;
	if (rename(o->tmp, o->path)) {
		error("cannot rename %s to %s: %s", shown(o->tmp), shown(o->path),
		      strerror(errno));
		goto remove_tmp;
	}
	out_file_free(o);
	return 0;

remove_tmp:
	unlink(o->tmp);
	out_file_free(o);
	return -1;
}

void out_file_abort(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	out_file_free(o);
}
