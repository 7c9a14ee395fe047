// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include "event/events.h"

static const struct {
	const char *name;
	const char *group;
} events[ABICAP_EV_COUNT] = {
	[ABICAP_EV_SCHED_SWITCH] = { "sched_switch", "sched" },
	[ABICAP_EV_SCHED_WAKEUP] = { "sched_wakeup", "sched" },
	[ABICAP_EV_SCHED_WAKEUP_NEW] = { "sched_wakeup_new", "sched" },
	[ABICAP_EV_SCHED_WAKING] = { "sched_waking", "sched" },
	[ABICAP_EV_CPU_IDLE] = { "cpu_idle", "power" },
	[ABICAP_EV_CPU_FREQUENCY] = { "cpu_frequency", "power" },
};

const char *event_name(unsigned int ev)
{
	return ev < ABICAP_EV_COUNT ? events[ev].name : NULL;
}

const char *event_group(unsigned int ev)
{
	return ev < ABICAP_EV_COUNT ? events[ev].group : NULL;
}

const char *other_tp_name(unsigned int i)
{
	static const char *const names[OTHER_TP_COUNT] = {
		[OTHER_TP_FORK] = "sched_process_fork",
		[OTHER_TP_FREE] = "sched_process_free",
		[OTHER_TP_CSD_QUEUE] = "csd_queue_cpu",
		[OTHER_TP_CSD_ENTRY] = "csd_function_entry",
		[OTHER_TP_CSD_EXIT] = "csd_function_exit",
	};

	return i < OTHER_TP_COUNT ? names[i] : NULL;
}

int event_by_name(const char *name, size_t len)
{
	for (int i = 0; i < ABICAP_EV_COUNT; i++)
		if (strlen(events[i].name) == len &&
		    !strncmp(events[i].name, name, len))
			return i;
	return -1;
}

bool parse_event_list(const char *list, unsigned int *mask, char *err,
		      size_t errlen)
{
	const char *p = list;
	unsigned int m = 0;

	if (!*list) {
		snprintf(err, errlen, "--events is empty; name one or more of: "
			 "sched_switch,sched_wakeup,sched_wakeup_new,"
			 "sched_waking,cpu_idle,cpu_frequency (or all)");
		return false;
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		int ev = event_by_name(p, len);

		if (len == 3 && !strncmp(p, "all", 3)) {
			m |= EVENTS_ALL;
		} else if (ev < 0) {
			snprintf(err, errlen, "--events: unknown event '%.*s'; "
				 "known: sched_switch,sched_wakeup,"
				 "sched_wakeup_new,sched_waking,cpu_idle,"
				 "cpu_frequency (or all)", (int)len, p);
			return false;
		} else {
			m |= 1u << ev;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*mask = m;
	return true;
}
