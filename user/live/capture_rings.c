// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A capture's transport: the shared ring buffer, per-CPU ring buffers
 * (grouped, drained by the main thread or drain threads, merged in time
 * order) or perf buffers; how records reach the capture's callback.
 */
#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include "live/capture_int.h"
#include "live/features.h"
#include "live/privilege.h"
#include "lib/util.h"

/* A record from CPU cpu's buffer (cpu < 0: the shared ring buffer). */
static int take_record(struct capture *c, int cpu, const void *data,
		       size_t size)
{
	union abicap_rec r;

	if (record_decode(data, size, &r) != REC_OK) {
		c->bad++;
		return 0;
	}
	c->received[r.hdr.type]++;
	if (c->merge)
		return recmerge_push(c->merge, cpu >= 0 && cpu < c->ncpus ?
				     cpu : 0, &r);
	return c->cb ? c->cb(c->ctx, &r) : 0;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	return take_record(ctx, -1, data, size);
}

/* one more in a counter only its group's owner writes */
static void owner_inc(uint64_t *n)
{
	__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/* A per-CPU ring's record, in its group's owner (a drain thread or main). */
static int on_sample_cpu(void *ctx, void *data, size_t size)
{
	struct ring_src *src = ctx;
	struct ring_group *g = src->g;
	union abicap_rec r;

	if (record_decode(data, size, &r) != REC_OK) {
		owner_inc(&g->bad);
		return 0;
	}
	owner_inc(&g->received[r.hdr.type]);
	if (g->threaded) {
		drainq_push(g->q, src->cpu - g->first, &r);
		return 0;
	}
	return recmerge_push(g->c->merge, src->cpu, &r);
}

/* A record of a capture closed unstopped: nowhere to go. */
static int from_queue_drop(void *ctx, int src, const union abicap_rec *r)
{
	(void)ctx;
	(void)src;
	(void)r;
	return 0;
}

/* A record a drain thread queued, into the merge (the main thread). */
static int from_queue(void *ctx, int src, const union abicap_rec *r)
{
	struct ring_group *g = ctx;

	return recmerge_push(g->c->merge, g->first + src, r);
}

/* A perf buffer record: a raw sample (our record) or a count of lost ones. */
static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu,
					     struct perf_event_header *e)
{
	struct capture *c = ctx;

	if (e->type == PERF_RECORD_SAMPLE) {
		struct {
			struct perf_event_header h;
			__u32 size;
			char data[];
		} *s = (void *)e;

		take_record(c, cpu, s->data, s->size);
	} else if (e->type == PERF_RECORD_LOST) {
		struct {
			struct perf_event_header h;
			__u64 id;
			__u64 lost;
		} *l = (void *)e;

		c->perf_lost += l->lost;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

/*
 * Per-CPU perf buffers of `pages` pages each. No wakeup per record (libbpf's
 * default): wake the consumer when a buffer is a quarter full; it also
 * drains on its timer.
 */
static struct perf_buffer *open_perfbuf(struct capture *c, size_t pages)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.watermark = 1,
		.wakeup_watermark = pages * sysconf(_SC_PAGESIZE) / 4,
	};

	return perf_buffer__new_raw(bpf_map__fd(c->skel->maps.events_pb), pages,
				    &attr, on_perf_event, c, NULL);
}

size_t capture_budget(size_t want, int ncpus)
{
	size_t dflt = (size_t)RINGBUF_DEFAULT_MB << 20;

	if (want)
		return want;
	if (ncpus > RINGBUF_DEFAULT_MB)
		dflt = (size_t)ncpus << 20;
	return dflt;
}

/* The shared ring buffer: the budget rounded up to a power of two. */
static size_t ringbuf_size(size_t want)
{
	size_t sz = (size_t)sysconf(_SC_PAGESIZE);

	while (sz < want)
		sz <<= 1;
	return sz;
}

int capture_ring_share(size_t budget, int ncpus, size_t page, size_t *each,
		       char *err, size_t errlen)
{
	size_t share = budget / (size_t)(ncpus > 0 ? ncpus : 1), sz = page;

	*each = 0;
	if (share < page) {
		snprintf(err, errlen, "--buffer-size: %zu KiB cannot give each "
			 "of the %d CPUs a ring buffer of a page (%zu KiB): give "
			 "at least %zu MB, or --transport ringbuf (one shared)",
			 budget >> 10, ncpus, page >> 10,
			 ((size_t)ncpus * page + (1 << 20) - 1) >> 20);
		return -1;
	}
	while (sz * 2 <= share && sz * 2 <= ((size_t)RINGBUF_MAX_MB << 20))
		sz <<= 1;
	*each = sz;
	return 0;
}

/* Slabs can work here: x86's store order (bpf/slab.bpf.h), mmap'd arrays. */
static bool slabs_fit(void)
{
#if defined(__x86_64__)
	return feature_mmapable_array() == 1;
#else
	return false;
#endif
}

/*
 * Per-CPU records in slabs (asked for, or auto where they fit): each slab
 * is the CPU's share, in chunks of at most SLAB_CHUNK_MAX; each CPU's ring
 * buffer keeps SLAB_NEST_BYTES (a page at least) for nested records.
 */
static int plan_slabs(struct capture *c, enum transport want, size_t page,
		      char *err, size_t errlen)
{
	c->slab = false;
	if (want != TRANSPORT_SLAB && want != TRANSPORT_AUTO)
		return 0;
	if (!slabs_fit() || c->ncpus > ABICAP_MAX_CPUS) {
		if (want == TRANSPORT_AUTO)
			return 0;
		if (c->ncpus > ABICAP_MAX_CPUS)
			snprintf(err, errlen, "--transport slab: this machine "
				 "has %d possible CPUs, slabs are kept for %d; use "
				 "--transport percpu", c->ncpus, ABICAP_MAX_CPUS);
		else
			snprintf(err, errlen, "--transport slab: %s; use "
				 "--transport percpu", feature_mmapable_array() == 1 ?
				 "slabs need x86-64's store order, and this is "
				 "another architecture" : "this kernel cannot map "
				 "BPF arrays (5.5+)");
		return -1;
	}
	c->slab = true;
	c->slab_shift = 0;
	while ((1ul << (c->slab_shift + 1)) <= c->ring_bytes &&
	       (1ul << (c->slab_shift + 1)) <= SLAB_CHUNK_MAX)
		c->slab_shift++;
	c->nest_bytes = SLAB_NEST_BYTES > page ? SLAB_NEST_BYTES : page;
	return 0;
}

/*
 * The transport: perf buffers where the contract finds the ring buffer's
 * lock unsafe (or asked for); else per-CPU ring buffers where the kernel
 * can hold ring buffers in an array (probed) and the budget gives every
 * CPU a page, the shared ring buffer where asked for or where it cannot
 * (docs/transport.md: what each costs, measured). Sets the buffer size each
 * CPU gets; the streams are merged in time order.
 */
static int choose_transport(struct capture *c, const struct capture_opts *o,
			    size_t budget, char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (c->plan.perfbuf)
		c->transport = TRANSPORT_PERFBUF;
	else if (o->transport == TRANSPORT_RINGBUF || o->aggregate)
		c->transport = TRANSPORT_RINGBUF;
	else if (o->transport == TRANSPORT_PERCPU ||
		 o->transport == TRANSPORT_SLAB)
		c->transport = TRANSPORT_PERCPU;
	else
		c->transport = feature_ringbuf_array() == 1 ?
			       TRANSPORT_PERCPU : TRANSPORT_RINGBUF;
	if (c->transport == TRANSPORT_RINGBUF)
		c->ring_bytes = o->aggregate ? 0 : ringbuf_size(budget);
	if (c->transport == TRANSPORT_PERCPU &&
	    capture_ring_share(budget, c->ncpus, page, &c->ring_bytes, err,
			       errlen))
		return EXIT_USAGE;
	if (c->transport == TRANSPORT_PERCPU &&
	    plan_slabs(c, o->transport, page, err, errlen))
		return EXIT_USAGE;
	/*
	 * The shared ring buffer is in reserve order, not quite time order (a
	 * program reads the clock before it reserves): one stream, sorted too.
	 */
	if (!o->aggregate) {
		c->merge = recmerge_new(c->transport == TRANSPORT_RINGBUF ? 1 :
					c->ncpus, MERGE_LAG_NS, c->cb, c->ctx);
		if (!c->merge) {
			snprintf(err, errlen, "out of memory");
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/* auto: note how full the fullest ring is, before a drain. */
static void note_fill(struct capture *c)
{
	for (int g = 0; g < c->ngroups; g++) {
		for (int i = 0; c->grp[g].rb && i < c->grp[g].n; i++) {
			unsigned long u = ringread_unread(c->grp[g].rb, i);
			int pct = (int)(u * 100 / c->ring_bytes);

			if (pct > c->win_fill)
				c->win_fill = pct;
		}
	}
}

/* Map the slabs, each read with its CPU's ring. */
static int open_slabs(struct capture *c, char *err, size_t errlen)
{
	int fd = bpf_map__fd(c->skel->maps.slabs);

	c->slab_map_len = (size_t)c->ncpus * c->ring_bytes;
	c->slab_map = mmap(NULL, c->slab_map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (c->slab_map == MAP_FAILED) {
		c->slab_map = NULL;
		snprintf(err, errlen, "cannot map the slabs (%zu KiB each, for "
			 "%d CPUs): %s; give a smaller --buffer-size, or "
			 "--transport percpu", c->ring_bytes >> 10, c->ncpus,
			 strerror(errno));
		return EXIT_RUNTIME;
	}
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		struct abicap_slab_ctl *ctl = &c->skel->bss->slab_ctl[cpu];
		struct ringread_slab s = {
			.data = (const unsigned char *)c->slab_map +
				(size_t)cpu * c->ring_bytes,
			.bytes = c->ring_bytes,
			.shift = c->slab_shift,
			.head = &ctl->head,
			.tail = &ctl->tail,
		};
		struct ring_group *g = c->ring_src[cpu].g;
		int e = ringread_add_slab(g->rb, cpu - g->first, &s);

		if (e) {
			snprintf(err, errlen, "cannot read CPU %d's slab: %s",
				 cpu, strerror(-e));
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/*
 * The per-CPU ring buffers: one per possible CPU, in the programs' array,
 * split into groups, each drained by one struct ringread (its epoll).
 * The main thread's epoll holds the groups it drains and notify_fd.
 */
static int open_rings(struct capture *c, char *err, size_t errlen)
{
	int outer = bpf_map__fd(c->skel->maps.events_cpu), e;
	struct epoll_event ev = { .events = EPOLLIN };

	c->ring_fd = malloc(c->ncpus * sizeof(*c->ring_fd));
	c->ring_src = calloc(c->ncpus, sizeof(*c->ring_src));
	c->grp = calloc(c->ngroups, sizeof(*c->grp));
	if (!c->ring_fd || !c->ring_src || !c->grp) {
		snprintf(err, errlen, "out of memory");
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < c->ncpus; i++)
		c->ring_fd[i] = -1;
	for (int g = 0; g < c->ngroups; g++) {
		c->grp[g].c = c;
		drain_group_span(c->ncpus, c->ngroups, g, &c->grp[g].first,
				 &c->grp[g].n);
	}
	for (__u32 cpu = 0; cpu < (__u32)c->ncpus; cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "abicap_rb_cpu", 0,
					0, c->slab ? c->nest_bytes :
						     c->ring_bytes, NULL);
		struct ring_group *g = c->grp;

		while ((int)cpu >= g->first + g->n)
			g++;
		c->ring_src[cpu].c = c;
		c->ring_src[cpu].g = g;
		c->ring_src[cpu].cpu = cpu;
		if (fd < 0) {
			e = errno;
			if (e == EPERM)
				return privilege_denied("the kernel would not "
					"create a ring buffer", err, errlen);
			snprintf(err, errlen, "the kernel would not create the "
				 "ring buffer of CPU %u (%zu KiB each, for %d CPUs): "
				 "%s; give a smaller --buffer-size", cpu,
				 c->ring_bytes >> 10, c->ncpus, strerror(e));
			return EXIT_RUNTIME;
		}
		c->ring_fd[cpu] = fd;
		if (bpf_map_update_elem(outer, &cpu, &fd, BPF_ANY) ||
		    (!g->rb && !(g->rb = ringread_new())) ||
		    (errno = -ringread_add(g->rb, fd, on_sample_cpu,
					   &c->ring_src[cpu]))) {
			snprintf(err, errlen, "cannot set up CPU %u's ring "
				 "buffer: %s", cpu, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	if (c->slab && (e = open_slabs(c, err, errlen)))
		return e;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->epfd < 0 || c->notify_fd < 0 || c->stop_fd < 0)
		goto fail;
	ev.data.u32 = EP_NOTIFY;
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->notify_fd, &ev))
		goto fail;
	for (int g = 0; g < c->ngroups; g++) {
		ev.data.u32 = g;
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD,
			      ringread_epoll_fd(c->grp[g].rb), &ev))
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the consumer's epoll: %s",
		 strerror(errno));
	return EXIT_RUNTIME;
}

/*
 * A records' queue per CPU of a group handed to a drain thread: the most it
 * holds before the thread waits, about the ring's worth of records (a
 * switch record is 96 bytes in the ring), at least 1024.
 */
static size_t queue_max(const struct capture *c)
{
	size_t n = c->ring_bytes / 128;

	return n < 1024 ? 1024 : n;
}

/* Hand group gi to a new drain thread: 0, or -errno (the main keeps it). */
static int hand_over(struct capture *c, int gi)
{
	struct ring_group *g = &c->grp[gi];
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = gi };
	int fd = ringread_epoll_fd(g->rb), e;

	g->q = drainq_new(g->n, queue_max(c), c->notify_fd);
	if (!g->q)
		return -ENOMEM;
	if (epoll_ctl(c->epfd, EPOLL_CTL_DEL, fd, NULL)) {
		e = errno;
		drainq_free(g->q);
		g->q = NULL;
		return -e;
	}
	g->threaded = true;
	g->th = drain_thread_start(g->rb, g->q, c->stop_fd, c->notify_fd);
	if (!g->th) {
		e = errno;
		g->threaded = false;
		drainq_free(g->q);
		g->q = NULL;
		epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev);
		return -e;
	}
	c->nthreads++;
	return 0;
}

/*
 * The groups, from --drain-threads: none (0) one group for the main thread;
 * N: N groups, each its own thread's from the start; auto: the most threads
 * it may add and one more group, the main thread's to the end.
 */
static int plan_drain(struct capture *c, const struct capture_opts *o,
		      char *err, size_t errlen)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	c->drain_want = o->drain_threads;
	c->ngroups = 1;
	if (o->drain_threads > 0 && c->transport != TRANSPORT_PERCPU) {
		snprintf(err, errlen, "--drain-threads %d: drain threads drain "
			 "per-CPU ring buffers, and this capture uses the %s: "
			 "use --drain-threads 0 or auto, or --transport percpu",
			 o->drain_threads, capture_transport(c));
		return EXIT_USAGE;
	}
	if (o->drain_threads > c->ncpus) {
		snprintf(err, errlen, "--drain-threads %d: at most %d here (a "
			 "thread drains at least one CPU's ring buffer, and "
			 "there are %d)", o->drain_threads, c->ncpus, c->ncpus);
		return EXIT_USAGE;
	}
	if (c->transport != TRANSPORT_PERCPU || o->aggregate)
		return 0;
	if (o->drain_threads > 0) {
		c->ngroups = o->drain_threads;
	} else if (o->drain_threads == DRAIN_AUTO) {
		c->drain_max = drain_auto_max(online > 0 ? (int)online : 1,
					      c->ncpus);
		c->ngroups = c->drain_max + 1;
	}
	return 0;
}

/* This thread's CPU time, ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * --drain-threads auto, in the main thread after a drain: at the end of
 * each window, a new thread for the main thread's last group if the main
 * thread was busy past the threshold (drain_should_add).
 */
static void drain_auto(struct capture *c)
{
	uint64_t now, cpu, busy, win;
	int pct, fill, e;

	if (c->drain_want != DRAIN_AUTO || c->nthreads >= c->drain_max)
		return;
	now = mono_ns();
	cpu = thread_cpu_ns();
	if (!c->win_wall) {
		c->win_wall = now;
		c->win_cpu = cpu;
		return;
	}
	win = now - c->win_wall;
	if (win < DRAIN_WINDOW_NS)
		return;
	busy = cpu - c->win_cpu;
	fill = c->win_fill;
	c->win_wall = now;
	c->win_cpu = cpu;
	c->win_fill = 0;
	if (!drain_should_add(busy, win, c->nthreads, c->drain_max))
		return;
	pct = (int)(busy * 100 / win);
	e = capture_drain_add(c, pct);
	if (e) {
		fprintf(stderr, "abicap: warning: cannot start drain thread %d "
			"(the consumer was busy %d%% of the last second): %s\n",
			c->nthreads + 1, pct, strerror(-e));
		c->drain_max = c->nthreads; /* no more tries */
		return;
	}
	fprintf(stderr, "abicap: drain thread %d started: the consumer was "
		"busy %d%% of the last second (the fullest ring %d%% full at a "
		"drain)\n", c->nthreads, pct, fill);
}

int capture_drain_add(struct capture *c, int busy_pct)
{
	int e;

	if (!c->grp || c->drain_want != DRAIN_AUTO ||
	    c->nthreads >= c->drain_max)
		return -ENOSPC;
	/* the main thread's last group: it keeps group 0 to the end */
	e = hand_over(c, c->ngroups - 1 - c->nthreads);
	if (!e)
		c->busy_pct[c->nthreads - 1] = busy_pct;
	return e;
}

/*
 * The per-CPU rings: what the drain threads queued, then the main thread's
 * own groups, into the merge; the time every ring was drained at is the
 * earliest of the main thread's (now, before its drain) and each thread's
 * last complete pass, read before its queue is taken.
 */
static int consume_groups(struct capture *c, uint64_t *drained)
{
	int n, ret = 0;

	for (int g = 0; g < c->ngroups; g++) {
		struct ring_group *gr = &c->grp[g];

		if (gr->threaded) {
			uint64_t d = drain_thread_drained(gr->th);

			if (d < *drained)
				*drained = d;
			n = drain_thread_error(gr->th);
			if (n < 0)
				return n;
		}
	}
	for (int g = 0; g < c->ngroups; g++)
		if (c->grp[g].q)
			ret = drainq_take(c->grp[g].q, from_queue, &c->grp[g])
			      ?: ret;
	for (int g = 0; g < c->ngroups; g++) {
		if (c->grp[g].threaded)
			continue;
		n = ringread_consume(c->grp[g].rb);
		if (n < 0)
			return n;
	}
	return ret;
}

/*
 * Drain every buffer; with per-CPU streams, hand on in time order what no
 * CPU can still precede (all: everything, the programs detached).
 */
static int consume(struct capture *c, bool all)
{
	uint64_t drained = all ? UINT64_MAX : mono_ns();
	int n;

	if (!c->pb && !c->rb && !c->grp)
		return 0; /* aggregation: nothing streams */
	if (c->grp && !all && c->drain_want == DRAIN_AUTO &&
	    c->nthreads < c->drain_max)
		note_fill(c);
	if (c->grp)
		n = consume_groups(c, &drained);
	else
		n = c->pb ? perf_buffer__consume(c->pb) :
			    ringread_consume(c->rb);
	if (n < 0 || !c->merge)
		return n;
	n = recmerge_emit(c->merge, drained);
	if (!all && c->grp)
		drain_auto(c);
	return n < 0 ? n : 0;
}

/* The main thread's epoll: its groups' rings, the threads' notes. */
static int poll_groups(struct capture *c, int timeout_ms)
{
	struct epoll_event ev[8];
	uint64_t v;
	int n = epoll_wait(c->epfd, ev, 8, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++)
		if (ev[i].data.u32 == EP_NOTIFY &&
		    read(c->notify_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
	return 0;
}

int capture_poll(struct capture *c, int timeout_ms)
{
	int n;

	if (!c->pb && !c->rb && !c->grp)
		return poll(NULL, 0, timeout_ms) < 0 && errno != EINTR ? -errno : 0;
	if (c->grp)
		n = poll_groups(c, timeout_ms);
	else
		n = c->pb ? perf_buffer__poll(c->pb, timeout_ms) :
			    ringread_poll(c->rb, timeout_ms);

	if (n < 0 && n != -EINTR)
		return n;
	/* records queued without a wakeup are there too */
	return consume(c, false);
}

/* stop_fd readable: every drain thread's loop ends (never read, so it stays) */
static void wake_stop(struct capture *c)
{
	uint64_t one = 1;

	/* an eventfd's write fails only at a count of 2^64 - 2 */
	if (write(c->stop_fd, &one, sizeof(one)) < 0) {
	}
}

/*
 * End the drain threads: each flushes and ends (taking their queues
 * meanwhile, so none waits for room), then is joined; their groups are
 * the main thread's again. Returns the first error a thread met.
 */
static int stop_threads(struct capture *c)
{
	uint64_t one = 1;
	int ret = 0;

	if (!c->nthreads)
		return 0;
	wake_stop(c);
	for (;;) {
		struct pollfd p = { .fd = c->notify_fd, .events = POLLIN };
		bool running = false;

		for (int g = 0; g < c->ngroups; g++) {
			if (c->grp[g].q)
				drainq_take(c->grp[g].q, from_queue, &c->grp[g]);
			running |= c->grp[g].th && !drain_thread_done(c->grp[g].th);
		}
		if (!running)
			break;
		if (poll(&p, 1, 10) > 0 &&
		    read(c->notify_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			break;
	}
	for (int g = 0; g < c->ngroups; g++) {
		struct ring_group *gr = &c->grp[g];
		int e;

		if (!gr->th)
			continue;
		e = drain_thread_join(gr->th);
		ret = ret ?: e;
		gr->th = NULL;
		gr->threaded = false;
	}
	return ret;
}

int rings_open(struct capture *c, const struct capture_opts *o,
	       size_t rb_bytes, char *err, size_t errlen)
{
	int ret;

	if (o->aggregate) {
		/* no records: user space reads the maps */
	} else if (c->transport == TRANSPORT_PERFBUF) {
		/* the same memory in all, split across CPUs, in pages (a power of two) */
		size_t pages = 1, want = rb_bytes / sysconf(_SC_PAGESIZE) /
					  (c->ncpus > 0 ? c->ncpus : 1);

		while (pages * 2 <= want)
			pages *= 2;
		c->ring_bytes = pages * sysconf(_SC_PAGESIZE);
		c->pb = open_perfbuf(c, pages);
	} else if (c->transport == TRANSPORT_PERCPU) {
		ret = open_rings(c, err, errlen);
		if (ret)
			return ret;
	} else {
		c->rb = ringread_new();
		if (c->rb && (errno = -ringread_add(c->rb,
				bpf_map__fd(c->skel->maps.events),
				on_sample, c))) {
			ringread_free(c->rb);
			c->rb = NULL;
		}
	}
	if (!o->aggregate && !c->rb && !c->pb && !c->grp &&
	    c->transport == TRANSPORT_PERFBUF && errno == EPERM) {
		return privilege_perfbuf_denied(rb_bytes, err, errlen);
	} else if (!o->aggregate && !c->rb && !c->pb && !c->grp) {
		snprintf(err, errlen, "cannot set up the %s: %s",
			 capture_transport(c), strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

int rings_plan(struct capture *c, const struct capture_opts *o, size_t budget,
	       char *err, size_t errlen)
{
	int ret = choose_transport(c, o, budget, err, errlen);

	return ret ? ret : plan_drain(c, o, err, errlen);
}

size_t rings_size(size_t budget)
{
	return ringbuf_size(budget);
}

int rings_hand_over(struct capture *c, int g)
{
	return hand_over(c, g);
}

int rings_stop(struct capture *c)
{
	int ret = c->grp ? stop_threads(c) : 0;

	return consume(c, true) ?: ret;
}

void rings_free(struct capture *c)
{
	if (c->grp) {
		/* a capture closed unstopped: its threads end, unflushed */
		if (c->nthreads)
			wake_stop(c);
		for (int g = 0; g < c->ngroups; g++) {
			/* a thread waiting for room gets it */
			while (c->grp[g].th && !drain_thread_done(c->grp[g].th))
				if (c->grp[g].q)
					drainq_take(c->grp[g].q, from_queue_drop,
						    NULL);
			drain_thread_join(c->grp[g].th);
			drainq_free(c->grp[g].q);
			ringread_free(c->grp[g].rb);
		}
		free(c->grp);
	}
	if (c->epfd >= 0)
		close(c->epfd);
	if (c->notify_fd >= 0)
		close(c->notify_fd);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	ringread_free(c->rb);
	if (c->slab_map)
		munmap(c->slab_map, c->slab_map_len);
	perf_buffer__free(c->pb);
	for (int i = 0; c->ring_fd && i < c->ncpus; i++)
		if (c->ring_fd[i] >= 0)
			close(c->ring_fd[i]);
	free(c->ring_fd);
	free(c->ring_src);
	recmerge_free(c->merge);
}

const char *capture_transport(const struct capture *c)
{
	switch (c->transport) {
	case TRANSPORT_PERFBUF:
		return "perf buffer";
	case TRANSPORT_PERCPU:
		return c->slab ? "per-CPU slabs" : "per-CPU ring buffers";
	default:
		return "ring buffer";
	}
}
