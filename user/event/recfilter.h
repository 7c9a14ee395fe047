/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Which records of a capture a reader keeps (script): events, a process,
 * a task name, CPUs. Sched records are kept when a task of either side
 * (prev or next, wakee or waker) matches; power events belong to no task
 * and a task filter leaves them out.
 */
#ifndef ABICAP_RECFILTER_H
#define ABICAP_RECFILTER_H

#include <stdbool.h>
#include <stdint.h>
#include "event/record.h"

struct recfilter {
	unsigned int events; /* mask of 1 << enum abicap_event */
	int32_t tgid; /* 0: any */
	char comm[ABICAP_COMM_LEN]; /* "": any */
	const uint8_t *cpus; /* NULL: any; else cpus[cpu] != 0 */
	int ncpus; /* the size of cpus */
};

/* Whether f has a task filter (a process or a name) that r's tasks meet. */
bool recfilter_task(const struct recfilter *f, const union abicap_rec *r);
/* Whether r passes f. */
bool recfilter_pass(const struct recfilter *f, const union abicap_rec *r);

#endif
