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

/* The bytes of v, most significant first (a big-endian machine's order). */
static void be(unsigned char *p, uint64_t v, int w)
{
	for (int i = 0; i < w; i++)
		p[i] = v >> (8 * (w - 1 - i));
}

/*
 * A switch as an s390x kernel writes it (every field big-endian) decodes
 * to its values on this host when marked swapped (the path a big-endian
 * abicap takes for a capture file, whose records are little-endian), and
 * encoding it back gives the same bytes.
 */
Test(record, swapped_switch_decodes_and_encodes_back)
{
	unsigned char b[sizeof(struct abicap_switch)] = { 0 }, back[sizeof(b)];
	union abicap_rec r;

	be(b, 0x0102030405060708ull, 8);
	be(b + 8, ABICAP_EV_SCHED_SWITCH, 2);
	be(b + 10, sizeof(b), 2);
	be(b + 12, 3, 4);
	memcpy(b + 16, "prev", 5);
	memcpy(b + 32, "next", 5);
	be(b + offsetof(struct abicap_switch, prev_pid), 4242, 4);
	be(b + offsetof(struct abicap_switch, next_tgid), 77, 4);
	be(b + offsetof(struct abicap_switch, prev_state), 0x100, 4);
	b[offsetof(struct abicap_switch, preempt)] = 1;
	be(b + offsetof(struct abicap_switch, next_cgroup), 0x1122334455ull, 8);
	cr_assert_eq(record_decode_order(b, sizeof(b), &r, true), REC_OK);
	cr_assert_eq(r.hdr.ts_ns, 0x0102030405060708ull);
	cr_assert_eq(r.hdr.type, ABICAP_EV_SCHED_SWITCH);
	cr_assert_eq(r.hdr.cpu, 3);
	cr_assert_str_eq(r.sw.prev_comm, "prev");
	cr_assert_str_eq(r.sw.next_comm, "next");
	cr_assert_eq(r.sw.prev_pid, 4242);
	cr_assert_eq(r.sw.next_tgid, 77);
	cr_assert_eq(r.sw.prev_state, 0x100);
	cr_assert_eq(r.sw.preempt, 1);
	cr_assert_eq(r.sw.next_cgroup, 0x1122334455ull);
	record_encode(&r, sizeof(r.sw), back, true);
	cr_assert_arr_eq(back, b, sizeof(b));
	/* read in the wrong order, the same bytes are no record (a size of 24576) */
	cr_assert_eq(record_decode_order(b, sizeof(b), &r, false), REC_BAD_SIZE);
}

/* Wakeups (version 1 ones too) and power records swap field by field. */
Test(record, swapped_wakeup_and_power_decode)
{
	unsigned char w[ABICAP_WAKEUP_V1_SIZE] = { 0 }, p[24] = { 0 };
	union abicap_rec r;

	be(w + 8, ABICAP_EV_SCHED_WAKING, 2);
	be(w + 10, ABICAP_WAKEUP_V1_SIZE, 2);
	be(w + offsetof(struct abicap_wakeup, pid), 10, 4);
	be(w + offsetof(struct abicap_wakeup, target_cpu), 1, 4);
	be(w + offsetof(struct abicap_wakeup, waker_pid), (uint32_t)-2, 4);
	cr_assert_eq(record_decode_order(w, sizeof(w), &r, true), REC_OK);
	cr_assert_eq(r.wk.pid, 10);
	cr_assert_eq(r.wk.target_cpu, 1);
	cr_assert_eq(r.wk.waker_pid, ABICAP_PID_INTERRUPT);
	cr_assert_eq(r.wk.cgroup, 0);
	be(p + 8, ABICAP_EV_CPU_IDLE, 2);
	be(p + 10, sizeof(p), 2);
	be(p + 16, 0xffffffffu, 4);
	be(p + 20, 1, 4);
	cr_assert_eq(record_decode_order(p, sizeof(p), &r, true), REC_OK);
	cr_assert_eq(r.pw.state, 0xffffffffu);
	cr_assert_eq(r.pw.cpu_id, 1);
	/* a swapped header is still checked: cut short, then too long */
	cr_assert_eq(record_decode_order(p, 20, &r, true), REC_SHORT);
	be(p + 10, 200, 2);
	cr_assert_eq(record_decode_order(p, sizeof(p), &r, true), REC_BAD_SIZE);
}
