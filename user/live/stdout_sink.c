// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Records formatted onto stdout, write errors kept rather than fatal. */
#include <errno.h>
#include <stdio.h>
#include "lib/sbuf.h"
#include "live/stdout_sink.h"

int stdout_sink_record(void *ctx, const union abicap_rec *r)
{
	struct stdout_sink *st = ctx;
	char line[FORMAT_LINE_MAX];
	struct sbuf sb;

	if (st->out_closed || st->out_errno)
		return 0;
	sb_init(&sb, line, sizeof(line));
	format_record(&sb, &st->f, r);
	if (fwrite(line, 1, sb.len, stdout) != sb.len) {
		if (errno == EPIPE)
			st->out_closed = true;
		else
			st->out_errno = errno;
		return 0;
	}
	st->written++;
	return 0;
}

bool stdout_sink_done(void *ctx)
{
	struct stdout_sink *st = ctx;

	return st->out_closed || st->out_errno;
}

void stdout_sink_flush(void *ctx)
{
	struct stdout_sink *st = ctx;

	if (st->out_closed || st->out_errno)
		return;
	if (fflush(stdout)) {
		if (errno == EPIPE)
			st->out_closed = true;
		else
			st->out_errno = errno;
	}
}
