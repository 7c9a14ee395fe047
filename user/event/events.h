/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The events abicap captures: names, tracepoint groups, --events parsing. */
#ifndef ABICAP_EVENTS_H
#define ABICAP_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include "abicap.h"

#define EVENTS_ALL ((1u << ABICAP_EV_COUNT) - 1)
/*
 * trace's and record's default: all but sched_waking, whose program still
 * runs to keep each wakeup's waker, writing no record (issue 36: a waking
 * record and a wakeup record for every wakeup, the waking program the
 * most expensive); -e all or -e ...,sched_waking writes them
 */
#define EVENTS_DEFAULT (EVENTS_ALL & ~(1u << ABICAP_EV_SCHED_WAKING))

/* "sched_switch", ...; NULL for an out-of-range value */
const char *event_name(unsigned int ev);
/* tracefs group: "sched" or "power" */
const char *event_group(unsigned int ev);
/* -1 if unknown */
int event_by_name(const char *name, size_t len);

/*
 * The tracepoints of abicap's other programs (following forks, forgetting
 * the pid filter's exited processes, the wakelists' wakers of
 * bpf/waker.bpf.h): their runs the kernel skipped are counted beside the
 * events' programs' (recursion_misses), in this order
 */
enum other_tp {
	OTHER_TP_FORK, /* sched_process_fork */
	OTHER_TP_FREE, /* sched_process_free */
	OTHER_TP_CSD_QUEUE, /* csd_queue_cpu */
	OTHER_TP_CSD_ENTRY, /* csd_function_entry */
	OTHER_TP_CSD_EXIT, /* csd_function_exit */
	OTHER_TP_COUNT
};
/* "sched_process_fork", ...; NULL for an out-of-range value */
const char *other_tp_name(unsigned int i);

/*
 * Parse "sched_switch,cpu_idle" (or "all") into a mask of (1 << ev).
 * On error returns false and writes a one-line message to err.
 */
bool parse_event_list(const char *list, unsigned int *mask, char *err,
		      size_t errlen);

#endif
