/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The report as text tables. */
#ifndef ABICAP_REPORT_TEXT_H
#define ABICAP_REPORT_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include "analysis/analysis.h"
#include "capfile/capinfo.h"
#include "report/report_group.h"
#include "event/cgnames.h"

/*
 * The report of a (path), its metadata in ci, into f: top rows a table; g: the
 * per-task tables per group instead (--by), named key; names: the
 * capture's cgroups. Sorts a's and g's tables.
 */
void report_text(FILE *f, struct analysis *a, const char *path, bool cut,
		 int top, struct grouping *g, const char *key,
		 struct cgnames *names, const struct capinfo *ci);

#endif
