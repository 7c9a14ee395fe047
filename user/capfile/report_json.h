/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The report as a JSON document. */
#ifndef ABICAP_REPORT_JSON_H
#define ABICAP_REPORT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include "analysis/analysis.h"
#include "capfile/capinfo.h"
#include "capfile/report_group.h"
#include "event/cgnames.h"

/* The report of a (path), metadata meta; NULL: no memory. */
json_t *report_json(struct analysis *a, const char *path, json_t *meta,
		    bool cut, struct cgnames *names, const struct capinfo *ci);

/* The "groups" and "group_wakeup_chains" of --by. */
json_t *report_json_groups(struct grouping *g);

#endif
