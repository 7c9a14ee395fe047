// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <byteswap.h>
#include <stddef.h>
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

/* Swap the field of width w at off, where it is inside the len bytes. */
static void swap_at(unsigned char *p, size_t len, size_t off, size_t w)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (off + w > len)
		return;
	switch (w) {
	case 2:
		memcpy(&v16, p + off, 2);
		v16 = bswap_16(v16);
		memcpy(p + off, &v16, 2);
		break;
	case 4:
		memcpy(&v32, p + off, 4);
		v32 = bswap_32(v32);
		memcpy(p + off, &v32, 4);
		break;
	case 8:
		memcpy(&v64, p + off, 8);
		v64 = bswap_64(v64);
		memcpy(p + off, &v64, 8);
		break;
	}
}

#define SWAP(p, len, type, field) \
	swap_at(p, len, offsetof(type, field), sizeof(((type *)0)->field))

void record_swap(void *rec, size_t len, unsigned int ev)
{
	unsigned char *p = rec;

	SWAP(p, len, struct abicap_hdr, ts_ns);
	SWAP(p, len, struct abicap_hdr, type);
	SWAP(p, len, struct abicap_hdr, size);
	SWAP(p, len, struct abicap_hdr, cpu);
	switch (ev) {
	case ABICAP_EV_SCHED_SWITCH:
		/* prev_pid .. prev_state: seven 32-bit fields in a row */
		for (size_t o = offsetof(struct abicap_switch, prev_pid);
		     o <= offsetof(struct abicap_switch, prev_state); o += 4)
			swap_at(p, len, o, 4);
		SWAP(p, len, struct abicap_switch, prev_cgroup);
		SWAP(p, len, struct abicap_switch, next_cgroup);
		break;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
	case ABICAP_EV_SCHED_WAKING:
		/* pid .. waker_tgid: six 32-bit fields in a row */
		for (size_t o = offsetof(struct abicap_wakeup, pid);
		     o <= offsetof(struct abicap_wakeup, waker_tgid); o += 4)
			swap_at(p, len, o, 4);
		SWAP(p, len, struct abicap_wakeup, cgroup);
		break;
	case ABICAP_EV_CPU_IDLE:
	case ABICAP_EV_CPU_FREQUENCY:
		SWAP(p, len, struct abicap_power, state);
		SWAP(p, len, struct abicap_power, cpu_id);
		break;
	}
}

void record_encode(const void *rec, size_t len, void *out, bool swapped)
{
	memcpy(out, rec, len);
	if (swapped)
		record_swap(out, len, ((const struct abicap_hdr *)rec)->type);
}

enum rec_error record_decode_order(const void *data, size_t len,
				   union abicap_rec *out, bool swapped)
{
	union abicap_rec tmp;
	uint16_t type;
	size_t n = len < sizeof(tmp) ? len : sizeof(tmp);

	if (!swapped)
		return record_decode(data, len, out);
	if (len < sizeof(struct abicap_hdr))
		return REC_SHORT;
	memcpy(&tmp, data, n);
	type = bswap_16(tmp.hdr.type);
	record_swap(&tmp, n, type);
	/*
	 * every size record_decode() takes fits tmp: it answers for the first
	 * n bytes as it would for all len
	 */
	return record_decode(&tmp, n, out);
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
