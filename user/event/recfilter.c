// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Which records a reader keeps: events, a process, a name, CPUs. */
#include <string.h>
#include "event/recfilter.h"

static bool comm_is(const char *comm, const char *want)
{
	return !strncmp(comm, want, ABICAP_COMM_LEN);
}

static bool task_pass(const struct recfilter *f, const union abicap_rec *r)
{
	bool tgid = !f->tgid, comm = !f->comm[0];

	switch (r->hdr.type) {
	case ABICAP_EV_SCHED_SWITCH:
		if (f->tgid)
			tgid = r->sw.prev_tgid == f->tgid ||
			       r->sw.next_tgid == f->tgid;
		if (f->comm[0])
			comm = comm_is(r->sw.prev_comm, f->comm) ||
			       comm_is(r->sw.next_comm, f->comm);
		return tgid && comm;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
	case ABICAP_EV_SCHED_WAKING:
		if (f->tgid)
			tgid = r->wk.tgid == f->tgid ||
			       r->wk.waker_tgid == f->tgid;
		if (f->comm[0]) /* the record names the wakee only */
			comm = comm_is(r->wk.comm, f->comm);
		return tgid && comm;
	default:
		return !f->tgid && !f->comm[0];
	}
}

bool recfilter_task(const struct recfilter *f, const union abicap_rec *r)
{
	return (f->tgid || f->comm[0]) && r->hdr.type < ABICAP_EV_CPU_IDLE &&
	       task_pass(f, r);
}

bool recfilter_pass(const struct recfilter *f, const union abicap_rec *r)
{
	if (r->hdr.type >= ABICAP_EV_COUNT ||
	    !(f->events & (1u << r->hdr.type)))
		return false;
	if (f->cpus && (r->hdr.cpu >= (uint32_t)f->ncpus ||
			!f->cpus[r->hdr.cpu]))
		return false;
	return task_pass(f, r);
}
