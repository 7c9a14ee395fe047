/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The reader of BPF ring buffer maps (BPF_MAP_TYPE_RINGBUF): the consumer
 * side of the kernel's protocol (Documentation/bpf/ringbuf.rst), read from
 * the maps' memory, as libbpf's ring_buffer reads it but for one thing:
 * the consumer position is published once per RINGREAD_BATCH of a ring's
 * bytes and at the end of a pass, not after every record. The producer (a
 * BPF program, on another CPU) reads that position at each reserve: written
 * after every record, its cache line moved between the two CPUs for every
 * record written while the consumer drained (issue 36; the gain measured
 * here was within the VM's noise: docs/results.md). The producer sees the room a pass frees at most one
 * batch late; the batch is at most 1/16 of the ring.
 *
 * One pass of ringread_consume() reads each ring's producer position once
 * and takes every record committed up to there (all that was written
 * before the call began, as libbpf's), stopping at a record still being
 * written.
 */
#ifndef LIVE_RINGREAD_H
#define LIVE_RINGREAD_H

#include <stddef.h>
#include <linux/types.h>

/* a record's callback: < 0 stops the pass and is returned */
typedef int (*ringread_fn)(void *ctx, void *data, size_t size);

/* bytes taken between two publications of a ring's consumer position */
#define RINGREAD_BATCH (256u << 10)

struct ringread;

/* An empty reader with its epoll fd; NULL with errno set. */
struct ringread *ringread_new(void);

/* Read ring buffer map_fd too (mapped, in the epoll): 0 or -errno. */
int ringread_add(struct ringread *r, int map_fd, ringread_fn fn, void *ctx);

/*
 * A slab (bpf/slab.bpf.h, bpf/abicap.h: struct abicap_slab_ctl): a CPU's
 * records in memory of bytes bytes (a power of two; chunks of 1 << shift
 * bytes, which no record straddles), its producer's head and the tail this
 * reader writes. Records start with struct abicap_hdr, whose size is the
 * record's (a multiple of 8).
 */
struct ringread_slab {
	const unsigned char *data;
	unsigned long bytes;
	unsigned int shift;
	const __u64 *head;
	__u64 *tail;
};

/*
 * Read slab s too, with ring i (the order added), before the ring's
 * records in each pass, through the ring's callback: 0 or -EINVAL (no ring
 * i, a slab already, or sizes that do not hold).
 */
int ringread_add_slab(struct ringread *r, int i, const struct ringread_slab *s);

/*
 * One pass over every ring: the records handed on (at most INT_MAX), or a
 * callback's negative return (the ring's position kept past that record).
 */
int ringread_consume(struct ringread *r);

/* Wait up to timeout_ms for a ring's wakeup, then one pass: as consume, or -errno. */
int ringread_poll(struct ringread *r, int timeout_ms);

/*
 * Bytes in ring i (the order added; its slab's, where it has one) written
 * and not yet consumed, by the positions the producer sees (read from any
 * thread: drain auto's fill).
 */
unsigned long ringread_unread(const struct ringread *r, int i);

/* The epoll fd: readable when a ring was woken. */
int ringread_epoll_fd(const struct ringread *r);

void ringread_free(struct ringread *r);

#endif
