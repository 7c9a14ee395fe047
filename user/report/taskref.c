// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A task as the tables name it. */
#include <stdio.h>
#include "event/record.h"
#include "lib/escape.h"
#include "report/taskref.h"

const char *taskref_text(char *buf, size_t len, const char *comm, int32_t tid)
{
	snprintf(buf, len, "%s:%d", text_escaped(comm, ABICAP_COMM_LEN), tid);
	return buf;
}

json_t *taskref_json(const struct task_id *id, const char *comm)
{
	json_t *o = json_object();

	json_object_set_new(o, "tid", json_integer(id->tid));
	json_object_set_new(o, "tgid", json_integer(id->tgid));
	json_object_set_new(o, "comm", json_escaped(comm, ABICAP_COMM_LEN));
	return o;
}
