/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The report as a JSON document. */
#ifndef ABICAP_REPORT_JSON_H
#define ABICAP_REPORT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include "analysis/analysis.h"
#include "capfile/capinfo.h"
#include "report/report_group.h"
#include "event/cgnames.h"

/*
 * The report of a (path), its metadata in ci, its "tasks" empty (written by
 * report_json_dump); NULL: no memory.
 */
json_t *report_json(struct analysis *a, const char *path,
		    bool cut, const struct capinfo *ci);
/* out with a's task rows streamed into its "tasks": 0, or -ENOMEM. */
int report_json_dump(FILE *f, json_t *out, const struct analysis *a,
		     struct cgnames *names);

/* The "groups" and "group_wakeup_chains" of --by. */
json_t *report_json_groups(struct grouping *g);

#endif
