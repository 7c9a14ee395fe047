/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * How bpf/abicap.bpf.c's programs hand a record over (docs/transport.md):
 * reserve() finds it room in the CPU's slab (bpf/slab.bpf.h), the CPU's
 * ring buffer (events_cpu), the shared one (events) or the program's stack
 * (the perf buffer); submit() commits it and wakes the consumer now and
 * then. Included by bpf/abicap.bpf.c after its maps, its loader's flags and
 * lose_record().
 */
#ifndef ABICAP_TRANSPORT_BPF_H
#define ABICAP_TRANSPORT_BPF_H

#include "slab.bpf.h"

/*
 * Reserve a record (c: the event's counter, for submit()). With the ring
 * buffer or a slab a full buffer counts as dropped here (*slab: the record
 * is in the CPU's slab, else in a ring buffer); the perf buffer transport
 * builds the record in stack, the caller's room of size bytes (zeroed:
 * bpf_perf_event_output copies all of it), never in a per-CPU slot that a
 * program nested on the CPU would overwrite.
 */
static __always_inline void *reserve(enum abicap_event ev, __u32 size,
				     __u32 cpu, __u64 ts, void *stack,
				     struct abicap_counter *c, bool *lost,
				     bool *slab)
{
	struct abicap_hdr *h = NULL;
	bool full = false;

	*slab = false;
	if (use_perfbuf) {
		__builtin_memset(stack, 0, size);
		h = stack;
	} else {
		if (use_slab) {
			h = slab_reserve(cpu, &full);
			*slab = h != NULL;
			if (!h && !full)
				count_aux(ABICAP_AUX_SLAB_NESTED);
		}
		if (!h && !full && use_percpu_rb) {
			void *rb = bpf_map_lookup_elem(&events_cpu, &cpu);

			h = rb ? bpf_ringbuf_reserve(rb, size, 0) : NULL;
		} else if (!h && !full) {
			h = bpf_ringbuf_reserve(&events, size, 0);
		}
		if (!h) {
			lose_record(c, lost, cpu);
			return NULL;
		}
		/* no offset from h computed before the check (the verifier) */
		barrier_var(h);
	}
	h->ts_ns = ts;
	h->type = ev;
	h->size = size;
	h->cpu = cpu;
	return h;
}

/*
 * Wake CPU cpu's consumer: slabs have no wakeup of their own, so an empty
 * record is reserved and discarded in the CPU's ring buffer (the reader
 * skips it).
 */
static __always_inline void slab_wake(__u32 cpu)
{
	void *rb = bpf_map_lookup_elem(&events_cpu, &cpu);
	void *w = rb ? bpf_ringbuf_reserve(rb, 8, 0) : NULL;

	if (w)
		bpf_ringbuf_discard(w, BPF_RB_FORCE_WAKEUP);
}

/*
 * Ring buffer and slab: no wakeup per record; the event's per-CPU count,
 * already at hand, says when to wake the consumer (cheaper than
 * bpf_ringbuf_query() per record). Perf buffer: a failed output (the CPU's
 * buffer is full) counts as dropped. slab: reserve()'s.
 */
static __always_inline void submit(void *ctx, void *rec, __u32 size,
				   struct abicap_counter *cnt, bool *lost,
				   bool slab, __u32 cpu)
{
	bool wake = !cnt || !(cnt->seen & wakeup_mask);

	if (use_perfbuf) {
		if (bpf_perf_event_output(ctx, &events_pb, BPF_F_CURRENT_CPU,
					  rec, size))
			lose_record(cnt, lost, cpu);
		return;
	}
	if (use_slab && slab) {
		slab_commit(cpu, size);
		if (wake)
			slab_wake(cpu);
		return;
	}
	bpf_ringbuf_submit(rec, wake ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

#endif
