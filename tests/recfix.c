// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include "recfix.h"

static void name(char *out, const char *comm, int32_t pid)
{
	if (comm)
		snprintf(out, ABICAP_COMM_LEN, "%s", comm);
	else
		snprintf(out, ABICAP_COMM_LEN, "t%d", pid);
}

union abicap_rec recfix_switch(uint64_t ts, uint32_t cpu, int32_t prev,
			       const char *pcomm, uint32_t state, int32_t next,
			       const char *ncomm, uint8_t flags)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw), .cpu = cpu };
	r.sw.prev_pid = r.sw.prev_tgid = prev;
	r.sw.next_pid = r.sw.next_tgid = next;
	name(r.sw.prev_comm, pcomm, prev);
	name(r.sw.next_comm, ncomm, next);
	r.sw.prev_state = state;
	r.sw.flags = flags;
	return r;
}

union abicap_rec recfix_wakeup(unsigned int type, uint64_t ts, int32_t pid,
			       const char *comm, int32_t waker)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.wk.hdr = (struct abicap_hdr){ .ts_ns = ts, .type = (uint16_t)type,
		.size = sizeof(r.wk) };
	r.wk.pid = r.wk.tgid = pid;
	r.wk.waker_pid = r.wk.waker_tgid = waker;
	name(r.wk.comm, comm, pid);
	return r;
}

union abicap_rec recfix_idle(uint64_t ts, uint32_t cpu, uint32_t state)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.pw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type =
		ABICAP_EV_CPU_IDLE, .size = sizeof(r.pw), .cpu = cpu };
	r.pw.state = state;
	r.pw.cpu_id = cpu;
	return r;
}
