/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A capture file as a Perfetto trace (abicap export, record --perfetto). */
#ifndef ABICAP_PERFETTO_EXPORT_H
#define ABICAP_PERFETTO_EXPORT_H

#include <stdbool.h>

struct outfile;

/* A capture file as a Perfetto trace: an EXIT_* code, errors reported. */
int export_perfetto(const char *cap, const char *out, bool force);
/*
 * The same, only the records inside win (relative to the capture's first
 * record; the process tree names every thread of the capture).
 */
struct timewin;
int export_perfetto_window(const char *cap, const char *out, bool force,
			   const struct timewin *win);
/* The same into fd, opened for out beforehand (outfile_open); takes fd. */
int export_perfetto_fd(const char *cap, int fd, const char *out);
/* The same into of (outfile_open), its descriptor kept for outfile_commit. */
int export_dup_fd(const char *cap, struct outfile *of);

#endif
