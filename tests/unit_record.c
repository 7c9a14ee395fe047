// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Decoding of ring-buffer records. */
#include <criterion/criterion.h>
#include <string.h>
#include "event/record.h"

Test(record, sizes_are_fixed)
{
	/* the layout is ABI between bpf/ and user space: record format 2 */
	cr_assert_eq(sizeof(struct abicap_hdr), 16);
	cr_assert_eq(sizeof(struct abicap_switch), 96);
	cr_assert_eq(sizeof(struct abicap_wakeup), 64);
	cr_assert_eq(sizeof(struct abicap_power), 24);
	cr_assert_eq(record_size(ABICAP_EV_SCHED_SWITCH), 96);
	cr_assert_eq(record_size(ABICAP_EV_SCHED_WAKING), 64);
	/* format 1 was a prefix of format 2 */
	cr_assert_eq(record_size_v1(ABICAP_EV_SCHED_SWITCH), 80);
	cr_assert_eq(record_size_v1(ABICAP_EV_SCHED_WAKEUP_NEW), 56);
	cr_assert_eq(record_size_v1(ABICAP_EV_CPU_IDLE), 24);
	cr_assert_eq(record_size(ABICAP_EV_CPU_FREQUENCY), 24);
	cr_assert_eq(record_size(ABICAP_EV_COUNT), 0);
}

Test(record, decodes_valid_switch)
{
	struct abicap_switch s = {
		.hdr = { .ts_ns = 42, .type = ABICAP_EV_SCHED_SWITCH,
			 .size = sizeof(s), .cpu = 3 },
		.prev_comm = "prev",
		.next_comm = "next",
		.prev_pid = 5,
		.next_pid = 6,
		.prev_state = 1,
	};
	union abicap_rec r;

	cr_assert_eq(record_decode(&s, sizeof(s), &r), REC_OK);
	cr_assert_eq(r.hdr.ts_ns, 42);
	cr_assert_eq(r.hdr.cpu, 3);
	cr_assert_str_eq(r.sw.prev_comm, "prev");
	cr_assert_str_eq(r.sw.next_comm, "next");
	cr_assert_eq(r.sw.prev_pid, 5);
	cr_assert_eq(r.sw.next_pid, 6);
	cr_assert_eq(r.sw.prev_state, 1);
}

/* A version 1 record (before the cgroup ids) reads with its new fields 0. */
Test(record, decodes_version_1_records)
{
	struct abicap_switch s = {
		.hdr = { .ts_ns = 7, .type = ABICAP_EV_SCHED_SWITCH, .size = 80 },
		.prev_pid = 5,
		.prev_cgroup = 99, /* beyond the 80 bytes: not read */
		.next_cgroup = 98,
	};
	struct abicap_wakeup w = {
		.hdr = { .type = ABICAP_EV_SCHED_WAKEUP, .size = 56 },
		.pid = 9,
		.cgroup = 97,
	};
	union abicap_rec r;

	cr_assert_eq(record_decode(&s, 80, &r), REC_OK);
	cr_assert_eq(r.sw.prev_pid, 5);
	cr_assert_eq(r.hdr.size, sizeof(struct abicap_switch));
	cr_assert_eq(r.sw.prev_cgroup, 0);
	cr_assert_eq(r.sw.next_cgroup, 0);
	cr_assert_eq(record_decode(&w, 56, &r), REC_OK);
	cr_assert_eq(r.wk.pid, 9);
	cr_assert_eq(r.wk.cgroup, 0);
	/* a size between the two layouts is damage */
	s.hdr.size = 88;
	cr_assert_eq(record_decode(&s, sizeof(s), &r), REC_BAD_SIZE);
	s.hdr.size = 80;
	cr_assert_eq(record_decode(&s, 79, &r), REC_SHORT);
}

Test(record, rejects_damaged_records)
{
	struct abicap_power p = {
		.hdr = { .type = ABICAP_EV_CPU_IDLE, .size = sizeof(p) },
	};
	union abicap_rec r;

	cr_assert_eq(record_decode(&p, 8, &r), REC_SHORT);
	cr_assert_eq(record_decode(&p, sizeof(p) - 1, &r), REC_SHORT);
	p.hdr.size = sizeof(p) + 8;
	cr_assert_eq(record_decode(&p, sizeof(p), &r), REC_BAD_SIZE);
	p.hdr.size = sizeof(p);
	p.hdr.type = 77;
	cr_assert_eq(record_decode(&p, sizeof(p), &r), REC_BAD_TYPE);
	/* a switch record's type with a power record's size */
	p.hdr.type = ABICAP_EV_SCHED_SWITCH;
	cr_assert_eq(record_decode(&p, sizeof(p), &r), REC_BAD_SIZE);
	cr_assert_str_eq(rec_error_str(REC_BAD_TYPE), "unknown record type");
}

Test(record, unterminated_comm_is_cut)
{
	struct abicap_wakeup w = {
		.hdr = { .type = ABICAP_EV_SCHED_WAKEUP, .size = sizeof(w) },
	};
	union abicap_rec r;

	memset(w.comm, 'A', sizeof(w.comm));
	cr_assert_eq(record_decode(&w, sizeof(w), &r), REC_OK);
	cr_assert_eq(strlen(r.wk.comm), ABICAP_COMM_LEN - 1);
}
