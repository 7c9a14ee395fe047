// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A page into its file through lib/outfile: never half-written, never over an input. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "lib/outfile.h"
#include "lib/util.h"
#include "view/pagefile.h"

int page_open(struct outfile *of, const char *out, const char *cap,
	      bool force)
{
	char err[ERRMSG_LEN];
	int ret = outfile_distinct(out, cap, "the capture", err, sizeof(err));

	if (!ret)
		ret = outfile_open(of, out, force, err, sizeof(err));
	if (ret)
		ab_error("%s", err);
	return ret;
}

int page_write(struct outfile *of, const char *out,
	       int (*write)(void *ctx, FILE *f), void *ctx)
{
	char err[ERRMSG_LEN];
	int ret = EXIT_OK, fd = dup(of->fd), c;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		c = -errno;
		if (fd >= 0)
			close(fd);
	} else {
		c = write(ctx, f);
		if (fclose(f) && !c)
			c = -errno;
	}
	if (c) {
		ab_error("cannot write '%s': %s", out, strerror(-c));
		ret = EXIT_RUNTIME;
	} else if (outfile_commit(of, err, sizeof(err))) {
		ab_error("%s", err);
		ret = EXIT_RUNTIME;
	}
	outfile_abort(of, false);
	return ret;
}

void page_abort(struct outfile *of)
{
	outfile_abort(of, false);
}
