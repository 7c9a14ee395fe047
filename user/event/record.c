// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include "event/record.h"

size_t record_size(unsigned int ev)
{
	switch (ev) {
	case ABICAP_EV_SCHED_SWITCH:
		return sizeof(struct abicap_switch);
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
	case ABICAP_EV_SCHED_WAKING:
		return sizeof(struct abicap_wakeup);
	case ABICAP_EV_CPU_IDLE:
	case ABICAP_EV_CPU_FREQUENCY:
		return sizeof(struct abicap_power);
	}
	return 0;
}

size_t record_size_v1(unsigned int ev)
{
	switch (ev) {
	case ABICAP_EV_SCHED_SWITCH:
		return ABICAP_SWITCH_V1_SIZE;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
	case ABICAP_EV_SCHED_WAKING:
		return ABICAP_WAKEUP_V1_SIZE;
	}
	return record_size(ev);
}

enum rec_error record_decode(const void *data, size_t len,
			     union abicap_rec *out)
{
	struct abicap_hdr h;
	size_t want;

	if (len < sizeof(h))
		return REC_SHORT;
	memcpy(&h, data, sizeof(h));
	want = record_size(h.type);
	if (!want)
		return REC_BAD_TYPE;
	/* a version 1 record: the fields appended since read as 0 */
	if (h.size != want && h.size != record_size_v1(h.type))
		return REC_BAD_SIZE;
	if (len < h.size)
		return REC_SHORT;
	memset(out, 0, want);
	memcpy(out, data, h.size);
	out->hdr.size = want;
	/* the kernel's comm is NUL-terminated; a damaged record may not be */
	if (h.type == ABICAP_EV_SCHED_SWITCH) {
		out->sw.prev_comm[ABICAP_COMM_LEN - 1] = 0;
		out->sw.next_comm[ABICAP_COMM_LEN - 1] = 0;
	} else if (want == sizeof(struct abicap_wakeup)) {
		out->wk.comm[ABICAP_COMM_LEN - 1] = 0;
	}
	return REC_OK;
}

const char *rec_error_str(enum rec_error e)
{
	switch (e) {
	case REC_OK:
		return "ok";
	case REC_SHORT:
		return "record shorter than its header says";
	case REC_BAD_TYPE:
		return "unknown record type";
	case REC_BAD_SIZE:
		return "record size does not match its type";
	}
	return "unknown error";
}

bool record_cpu_past(const union abicap_rec *r, uint32_t ncpus)
{
	return r->hdr.cpu >= ncpus ||
	       ((r->hdr.type == ABICAP_EV_CPU_IDLE ||
		 r->hdr.type == ABICAP_EV_CPU_FREQUENCY) && r->pw.cpu_id >= ncpus);
}

size_t record_cgroups(const union abicap_rec *r, uint64_t ids[2])
{
	switch (r->hdr.type) {
	case ABICAP_EV_SCHED_SWITCH:
		ids[0] = r->sw.prev_cgroup;
		ids[1] = r->sw.next_cgroup;
		return 2;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
	case ABICAP_EV_SCHED_WAKING:
		ids[0] = r->wk.cgroup;
		return 1;
	default:
		return 0;
	}
}
