// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Where the time of abicap's sched_switch program goes (scripts/bench.sh):
 * variants of a copy of on_switch() in bpf/abicap.bpf.c (the tp_btf,
 * 4-argument one, no filters), each with a part taken out or changed, and
 * each with its own ring buffer so that variants loaded together do not
 * share a lock. build/bpfstats loads the ones asked for, drains their rings
 * and reports bpf_stats' run time per event of each.
 *
 *   sw_full     the copy: counter lookup, reserve 96 bytes, two comms,
 *               the fields, ringbuf_query, submit
 *   sw_noquery  without bpf_ringbuf_query (always BPF_RB_NO_WAKEUP)
 *   sw_nocount  without the counters lookup and increments
 *   sw_nocomm   without the two 16-byte comm copies
 *   sw_small    a 32-byte record (no comms, no tgids), counter and query kept
 *   sw_rbonly   reserve 96 bytes, fill the header, submit: nothing else
 *   sw_fields   everything but the ring buffer (the record built in a
 *               per-CPU array)
 *   sw_ktime    bpf_ktime_get_ns() and the CPU id only
 *   sw_lean     the full record, but drops counted only when they happen
 *               (seen = received + dropped needs no count per event) and
 *               the consumer woken when bits 10-18 of the time are zero
 *               (about one record in 512) instead of asking the ring how
 *               full it is
 *   sw_lean32   sw_lean with the 32-byte record
 *   sw_batch    sw_lean's record built in a per-CPU batch of 8, the batch
 *               sent with one bpf_ringbuf_output when full (one ring
 *               buffer reservation per 8 events)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
/* the headers of bpf/abicap.bpf.c, all of them: the copies cannot drift */
#include "abicap.h"
#include "core_fixes.bpf.h"
#include "cgroup.bpf.h"
#include "task_read.bpf.h"
#include "task_state.h"
#include "bench.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

RING(rb_full);
RING(rb_noquery);
RING(rb_nocount);
RING(rb_nocomm);
RING(rb_small);
RING(rb_rbonly);
RING(rb_lean);
RING(rb_lean32);
RING(rb_batch);

#define BATCH 8
struct batch {
	__u32 n;
	__u32 pad;
	struct abicap_switch rec[BATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct batch);
} batches SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct abicap_switch);
} scratch SEC(".maps");

/* a sched_switch record without comms or tgids */
struct small_switch {
	struct abicap_hdr hdr;
	__s32 prev_pid;
	__s32 next_pid;
	__u16 prev_state;
	__u8 preempt;
	__u8 next_prio; /* task prio 0..139 fits */
	__u32 pad;
};

enum {
	F_COUNT = 1, /* counters lookup, seen++ */
	F_COMM = 2, /* the two comm copies */
	F_QUERY = 4, /* bpf_ringbuf_query to decide the wakeup */
	F_RING = 8, /* reserve/submit (else the per-CPU scratch) */
	F_FIELDS = 16, /* pids, tgids, prios, state */
	F_SMALL = 32, /* the 32-byte record */
	F_LEAN = 64, /* count drops only; wake on about 1 record in 512 */
};

static __always_inline int sw(void *ctx, void *ring, unsigned int f,
			      bool preempt, struct task_struct *prev,
			      struct task_struct *next, unsigned int prev_state)
{
	__u64 ts = bpf_ktime_get_ns(), flags = BPF_RB_NO_WAKEUP, avail;
	__u32 cpu = bpf_get_smp_processor_id(), key = 0;
	__u32 size = (f & F_SMALL) ? sizeof(struct small_switch) :
				     sizeof(struct abicap_switch);
	struct abicap_counter *c = NULL;
	struct abicap_switch *e;

	if (f & F_COUNT) {
		c = bpf_map_lookup_elem(&counters, &key);
		if (c)
			c->seen++;
	}
	if (f & F_RING)
		e = bpf_ringbuf_reserve(ring, size, 0);
	else
		e = bpf_map_lookup_elem(&scratch, &key);
	if (!e) {
		if (f & F_LEAN)
			c = bpf_map_lookup_elem(&counters, &key);
		if (c)
			c->dropped++;
		return 0;
	}
	e->hdr.ts_ns = ts;
	e->hdr.type = ABICAP_EV_SCHED_SWITCH;
	e->hdr.size = size;
	e->hdr.cpu = cpu;
	if (f & F_SMALL) {
		struct small_switch *s = (void *)e;

		s->prev_pid = prev->pid;
		s->next_pid = next->pid;
		s->prev_state = abicap_report_state(preempt, prev_state,
						    prev->exit_state);
		s->preempt = preempt;
		s->next_prio = next->prio;
		s->pad = 0;
	} else {
		if (f & F_COMM) {
			task_comm(e->prev_comm, prev, true);
			task_comm(e->next_comm, next, true);
		}
		if (f & F_FIELDS)
			fill_fields(e, preempt, prev, next, prev_state);
	}
	if (!(f & F_RING))
		return 0;
	/* about one record in 512: the time's bits 10-18 all zero */
	if ((f & F_LEAN) && !((ts >> 10) & 511))
		flags = BPF_RB_FORCE_WAKEUP;
	if (f & F_QUERY) {
		avail = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA);
		if (avail >= wakeup_bytes && avail < wakeup_bytes + size + 8)
			flags = BPF_RB_FORCE_WAKEUP;
	}
	bpf_ringbuf_submit(e, flags);
	return 0;
}

#define VARIANT(name, ring, f)                                               \
	SEC("tp_btf/sched_switch")                                           \
	int BPF_PROG(name, bool preempt, struct task_struct *prev,           \
		     struct task_struct *next, unsigned int prev_state)      \
	{                                                                    \
		return sw(ctx, ring, f, preempt, prev, next, prev_state);    \
	}

#define ALL (F_COUNT | F_COMM | F_QUERY | F_RING | F_FIELDS)
VARIANT(sw_full, &rb_full, ALL)
VARIANT(sw_noquery, &rb_noquery, ALL & ~F_QUERY)
VARIANT(sw_nocount, &rb_nocount, ALL & ~F_COUNT)
VARIANT(sw_nocomm, &rb_nocomm, ALL & ~F_COMM)
VARIANT(sw_small, &rb_small, F_COUNT | F_QUERY | F_RING | F_SMALL)
VARIANT(sw_rbonly, &rb_rbonly, F_RING)
VARIANT(sw_fields, NULL, ALL & ~(F_RING | F_QUERY))
VARIANT(sw_lean, &rb_lean, F_LEAN | F_COMM | F_RING | F_FIELDS)
VARIANT(sw_lean32, &rb_lean32, F_LEAN | F_RING | F_SMALL)

SEC("tp_btf/sched_switch")
int BPF_PROG(sw_batch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 ts = bpf_ktime_get_ns();
	__u32 key = 0, i;
	struct batch *b = bpf_map_lookup_elem(&batches, &key);
	struct abicap_switch *e;
	struct abicap_counter *c;

	if (!b)
		return 0;
	i = b->n;
	if (i >= BATCH)
		i = 0;
	e = &b->rec[i];
	e->hdr.ts_ns = ts;
	e->hdr.type = ABICAP_EV_SCHED_SWITCH;
	e->hdr.size = sizeof(*e);
	e->hdr.cpu = bpf_get_smp_processor_id();
	task_comm(e->prev_comm, prev, true);
	task_comm(e->next_comm, next, true);
	fill_fields(e, preempt, prev, next, prev_state);
	b->n = i + 1;
	if (b->n < BATCH)
		return 0;
	b->n = 0;
	if (bpf_ringbuf_output(&rb_batch, b->rec, sizeof(b->rec),
			       !((ts >> 10) & 63) ? BPF_RB_FORCE_WAKEUP :
			       BPF_RB_NO_WAKEUP)) {
		c = bpf_map_lookup_elem(&counters, &key);
		if (c)
			c->dropped += BATCH;
	}
	return 0;
}

/* written so that the calls are kept (a racy global is fine here) */
__u64 sink;

SEC("tp_btf/sched_switch")
int BPF_PROG(sw_ktime)
{
	sink = bpf_ktime_get_ns() + bpf_get_smp_processor_id();
	return 0;
}
