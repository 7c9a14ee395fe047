/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Records (in time order) as a Perfetto trace (.pftrace). */
#ifndef ABICAP_PERFETTO_H
#define ABICAP_PERFETTO_H

#include <stdio.h>
#include "record.h"

/* 0, or -errno. */
int perfetto_write(FILE *out, const union abicap_rec *recs, size_t n, int ncpus);

#endif
