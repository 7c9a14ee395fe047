/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A task as the tables name it: "comm:tid" in text, {tid, tgid, comm} in JSON. */
#ifndef ABICAP_TASKREF_H
#define ABICAP_TASKREF_H

#include <jansson.h>
#include <stddef.h>
#include "analysis/observe.h"

/* "comm:tid", the name escaped for a terminal, into buf. */
const char *taskref_text(char *buf, size_t len, const char *comm, int32_t tid);
/* {"tid", "tgid", "comm"} (the name escaped as trace's JSON escapes it). */
json_t *taskref_json(const struct task_id *id, const char *comm);

#endif
