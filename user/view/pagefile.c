// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A page into its file through lib/outfile: never half-written, never over an input. */
#define _GNU_SOURCE /* fopencookie */
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

/*
 * The page's stream writes through here, keeping the first write's errno:
 * stdio keeps only that one failed (a full disk read as "Input/output
 * error", issue 37).
 */
struct page_sink {
	int fd;
	int err;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	struct page_sink *s = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(s->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!s->err)
				s->err = n < 0 ? errno : ENOSPC;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int page_write(struct outfile *of, const char *out,
	       int (*write_page)(void *ctx, FILE *f), void *ctx)
{
	static const cookie_io_functions_t io = { .write = sink_write };
	struct page_sink s = { .fd = of->fd };
	char err[ERRMSG_LEN];
	int ret = EXIT_OK, c;
	FILE *f = fopencookie(&s, "w", io);

	if (!f) {
		c = -errno;
	} else {
		c = write_page(ctx, f);
		if (fclose(f) && !c)
			c = -EIO;
		if (c == -EIO && s.err)
			c = -s.err;
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
