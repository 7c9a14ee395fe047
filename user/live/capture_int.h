/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Inside a capture (live/capture.c: programs, loading, attaching, the
 * counters; live/capture_rings.c: the transport that brings records to
 * user space, its rings, drain threads and merge; live/wakelist.c:
 * sched_wakeup's wakers from the wakelists). Only those include it.
 */
#ifndef ABICAP_CAPTURE_INT_H
#define ABICAP_CAPTURE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "abicap.h" /* before the skeleton: its .bss type */
#include "abicap.skel.h"
#include "live/capture.h"
#include "live/drain.h"
#include "live/merge.h"
#include "live/pcount.h"
#include "live/ringread.h"
#include "abi/checker.h"

/*
 * A group of per-CPU ring buffers drained together (one struct ringread):
 * by the main thread, or by a drain thread of its own (drain.h).
 */
struct ring_group {
	struct capture *c;
	struct ringread *rb;
	int first, n; /* its rings: CPUs first .. first + n - 1 */
	/*
	 * A drain thread owns it: set before the thread starts, cleared once
	 * it is joined. Its records then go through q.
	 */
	bool threaded;
	struct drainq *q;
	struct drain_thread *th;
	/* written by the group's owner only (relaxed atomics: read anywhere) */
	uint64_t received[ABICAP_EV_COUNT];
	uint64_t bad;
};

/* One CPU's ring buffer, for its records' place in the merge. */
struct ring_src {
	struct capture *c;
	struct ring_group *g;
	int cpu;
};

/* The wakelists' three programs (live/wakelist.c), as enum other_tp orders them. */
enum wl_prog { WL_QUEUE, WL_ENTRY, WL_EXIT, WL_PROGS };

/* the main thread's epoll: a group's data.u32 is its index; the threads': */
#define EP_NOTIFY UINT32_MAX

struct capture {
	struct abicap_bpf *skel;
	enum transport transport; /* RINGBUF, PERCPU or PERFBUF */
	struct ringread *rb;
	struct perf_buffer *pb;
	int *ring_fd; /* per-CPU ring buffers (ncpus), -1: none */
	struct ring_src *ring_src;
	/* per-CPU ring buffers: their groups, and the drain threads (drain.h) */
	struct ring_group *grp;
	int ngroups;
	int epfd; /* the main thread's epoll: its groups and notify_fd */
	int notify_fd; /* eventfd: a drain thread queued records */
	int stop_fd; /* eventfd: the drain threads end */
	int drain_want; /* --drain-threads: DRAIN_AUTO, 0 or N */
	int drain_max; /* auto: the most threads it may add */
	int nthreads; /* drain threads started */
	int busy_pct[DRAIN_AUTO_MAX]; /* auto: the main thread's busy % at each start */
	uint64_t win_wall, win_cpu; /* auto: the window's start, wall and CPU time */
	int win_fill; /* auto: the fullest a ring was at a drain, %, this window */
	size_t ring_bytes; /* each ring buffer's size (perf buffer: each CPU's; slabs: each slab's) */
	/*
	 * slabs (bpf/slab.bpf.h): each CPU's records in its slab of ring_bytes,
	 * chunks of 1 << slab_shift; its ring buffer (nest_bytes) holds the
	 * records of programs nested on the CPU and carries the wakeups
	 */
	bool slab;
	unsigned int slab_shift;
	size_t nest_bytes;
	void *slab_map; /* every slab, mapped (slab_map_len) */
	size_t slab_map_len;
	/* per-CPU streams merged in time order (per-CPU rings, perf buffers) */
	struct recmerge *merge;
	uint64_t perf_lost; /* PERF_RECORD_LOST: already counted as dropped */
	struct bpf_program *prog[ABICAP_EV_COUNT]; /* chosen variant */
	struct bpf_link *link[ABICAP_EV_COUNT];
	struct bpf_program *fork_prog; /* following children */
	struct bpf_link *fork_link;
	struct bpf_program *free_prog; /* forgetting freed processes (-p) */
	struct bpf_link *free_link;
	/* sched_wakeup's wakers from the wakelists (live/wakelist.c) */
	bool wakelist;
	__u64 ttwu_fn;
	struct bpf_link *wl_link[WL_PROGS]; /* by enum wl_prog */
	struct check_result check; /* the contract's verdicts */
	struct kernel_plan plan;
	bool tstore; /* the waker in task storage (the *_ts programs) */
	struct pcount pc; /* where preempt_count is, how it is read */
	bool kernel_agg; /* serve from sched_info and the run queue's clocks */
	capture_cb cb;
	void *ctx;
	int ncpus;
	uint64_t received[ABICAP_EV_COUNT];
	uint64_t bad;
	uint64_t start_ns; /* the first attach: events flow from here */
	uint64_t end_ns; /* the last detach (capture_stop) */
};

/*
 * The transport (capture_rings.c). rings_plan: choose it and the drain
 * threads for a budget; rings_size: the shared ring's size for it;
 * rings_open: open it once the object is loaded (EXIT_* on failure, err
 * set); rings_hand_over: give group g to a drain thread (-errno);
 * rings_stop: end the threads and take every record left; rings_free:
 * everything the transport holds.
 */
int rings_plan(struct capture *c, const struct capture_opts *o, size_t budget,
	       char *err, size_t errlen);
size_t rings_size(size_t budget);
int rings_open(struct capture *c, const struct capture_opts *o,
	       size_t rb_bytes, char *err, size_t errlen);
int rings_hand_over(struct capture *c, int g);
int rings_stop(struct capture *c);
void rings_free(struct capture *c);

/* live/wakelist.c */
struct contract;
unsigned int wakelist_needs(const struct contract *con,
			    const struct capture_opts *o, unsigned int load);
void wakelist_choose(struct capture *c, const struct capture_opts *o,
		     unsigned int *load);
void wakelist_configure(struct capture *c);
/* p[WL_PROGS]: the three programs where the capture uses them, else NULL */
void wakelist_programs(const struct capture *c,
		       struct bpf_program *p[WL_PROGS]);
int wakelist_attach_marks(struct capture *c, char *err, size_t errlen);
int wakelist_attach_queue(struct capture *c, char *err, size_t errlen);
void wakelist_detach(struct capture *c);

#endif
