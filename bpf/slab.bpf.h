/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The slab transport's producer side (bpf/abicap.h: struct abicap_slab_ctl;
 * docs/transport.md). A CPU's records go into its slab, a part of one
 * BPF_F_MMAPABLE array that user space maps and reads, with no ring buffer
 * helper: the reserve is a few loads and stores to lines only the CPU
 * writes, where bpf_ringbuf_reserve() and submit take the ring's lock with
 * interrupts off, read the consumer's line and exchange the record's
 * header (issue 36: 290 against 170 ns a sched_switch record here).
 *
 * The commit is a plain store of head after the record's stores: user space
 * on another CPU sees the record before the head only where stores are not
 * reordered (x86's TSO); the loader uses slabs on x86-64 only. A program
 * that finds the slab busy runs nested in one that is writing to it (an
 * interrupt's wakeup during cpu_frequency): it writes into the CPU's ring
 * buffer instead, and the merge puts its record in time order.
 */
#ifndef ABICAP_SLAB_BPF_H
#define ABICAP_SLAB_BPF_H

/* records in slabs (the loader: x86-64, the per-CPU transport) */
const volatile bool use_slab = false;
/* each chunk (an element of slabs) is 1 << slab_chunk_shift bytes */
const volatile __u32 slab_chunk_shift = 12;
/* each CPU's slab is 1 << slab_chunks_log chunks, CPU c's from c << it */
const volatile __u32 slab_chunks_log = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 4096); /* the loader: a chunk's bytes */
	__uint(max_entries, 1); /* the loader: chunks per CPU x CPUs */
} slabs SEC(".maps");

struct abicap_slab_ctl slab_ctl[ABICAP_MAX_CPUS] = {};

/*
 * Room for a record in CPU cpu's slab: NULL where the slab is busy (the
 * caller writes into the ring buffer) or full (*full set). The record is
 * made visible by slab_commit(), which must follow on every path.
 */
static __always_inline void *slab_reserve(__u32 cpu, bool *full)
{
	__u64 chunk = 1ull << slab_chunk_shift, head, tail;
	struct abicap_slab_ctl *s;
	__u32 key;
	__u64 off;
	void *p;

	if (cpu >= ABICAP_MAX_CPUS)
		return NULL;
	s = &slab_ctl[cpu];
	if (s->busy)
		return NULL;
	s->busy = 1;
	barrier();
	head = s->head;
	off = head & (chunk - 1);
	if (off > chunk - ABICAP_SLAB_MAXREC) {
		/* the chunk's rest stays unused: the reader skips it too */
		head += chunk - off;
		off = 0;
	}
	tail = *(volatile __u64 *)&s->tail;
	if (head + ABICAP_SLAB_MAXREC - tail >
	    (chunk << slab_chunks_log))
		goto full;
	key = (cpu << slab_chunks_log) |
	      (__u32)((head >> slab_chunk_shift) &
		      ((1u << slab_chunks_log) - 1));
	p = bpf_map_lookup_elem(&slabs, &key);
	if (!p)
		goto full;
	/* a skip is published now: the reader may pass it, never the record */
	s->head = head;
	barrier_var(off);
	if (off > chunk - ABICAP_SLAB_MAXREC)
		goto full;
	return p + off;
full:
	*full = true;
	barrier();
	s->busy = 0;
	return NULL;
}

/* The record of size bytes slab_reserve() gave on CPU cpu is written. */
static __always_inline void slab_commit(__u32 cpu, __u32 size)
{
	struct abicap_slab_ctl *s = &slab_ctl[cpu & (ABICAP_MAX_CPUS - 1)];

	barrier();
	*(volatile __u64 *)&s->head = s->head + size;
	barrier();
	s->busy = 0;
}

#endif
