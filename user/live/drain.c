// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Drain threads and their queues (drain.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "lib/array.h"
#include "lib/util.h"
#include "live/drain.h"
#include "live/ringread.h"

bool drain_should_add(uint64_t busy_ns, uint64_t window_ns, int threads,
		      int max)
{
	if (!window_ns || threads >= max)
		return false;
	/* busy over DRAIN_BUSY_PCT % of the window (no overflow below 5 years) */
	return busy_ns * 100 > window_ns * DRAIN_BUSY_PCT;
}

int drain_auto_max(int online, int rings)
{
	int max = online - 1;

	if (max < 1)
		max = 1;
	if (max > DRAIN_AUTO_MAX)
		max = DRAIN_AUTO_MAX;
	/* the main thread keeps a group: no more threads than rings - 1 */
	if (max > rings - 1)
		max = rings - 1 > 0 ? rings - 1 : 0;
	return max;
}

void drain_group_span(int nrings, int ngroups, int g, int *first, int *n)
{
	int each = nrings / ngroups, more = nrings % ngroups;

	*n = each + (g < more);
	*first = g * each + (g < more ? g : more);
}

/* A source's records: v[0..n), cap allocated. */
struct srcbuf {
	union abicap_rec *v;
	size_t n, cap;
};

#define STAGE 128

struct drainq {
	int nsrc;
	size_t max;
	int notify_fd;
	pthread_mutex_t lock;
	pthread_cond_t room;
	struct srcbuf *q; /* under lock */
	struct srcbuf *spare; /* the consumer's */
	uint64_t waits; /* under lock */
	bool told; /* under lock: records flushed since the consumer's last take */
	/* the producer's stage */
	int nstage;
	int stage_src[STAGE];
	union abicap_rec stage[STAGE];
};

static bool buf_grow(struct srcbuf *b, size_t want)
{
	union abicap_rec *v;
	size_t cap = array_grown(b->cap, want, STAGE, SIZE_MAX / sizeof(*v));

	if (!cap)
		return false;
	if (cap == b->cap)
		return true;
	v = realloc(b->v, cap * sizeof(*v));
	if (!v)
		return false;
	b->v = v;
	b->cap = cap;
	return true;
}

struct drainq *drainq_new(int nsrc, size_t max_per_src, int notify_fd)
{
	struct drainq *q = calloc(1, sizeof(*q));

	if (!q || nsrc <= 0)
		goto fail;
	q->nsrc = nsrc;
	q->max = max_per_src ? max_per_src : 1;
	q->notify_fd = notify_fd;
	q->q = calloc(nsrc, sizeof(*q->q));
	q->spare = calloc(nsrc, sizeof(*q->spare));
	if (!q->q || !q->spare)
		goto fail;
	for (int s = 0; s < nsrc; s++)
		if (!buf_grow(&q->q[s], 1) || !buf_grow(&q->spare[s], 1))
			goto fail;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->room, NULL);
	return q;
fail:
	if (q && q->q && q->spare)
		for (int s = 0; s < nsrc; s++) {
			free(q->q[s].v);
			free(q->spare[s].v);
		}
	if (q) {
		free(q->q);
		free(q->spare);
	}
	free(q);
	return NULL;
}

void drainq_free(struct drainq *q)
{
	if (!q)
		return;
	for (int s = 0; s < q->nsrc; s++) {
		free(q->q[s].v);
		free(q->spare[s].v);
	}
	free(q->q);
	free(q->spare);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->room);
	free(q);
}

static void notify(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* an eventfd at its maximum count is readable already */
	}
}

bool drainq_flush(struct drainq *q)
{
	bool news;

	if (!q->nstage)
		return false;
	pthread_mutex_lock(&q->lock);
	news = !q->told;
	q->told = true;
	for (int i = 0; i < q->nstage; i++) {
		struct srcbuf *b = &q->q[q->stage_src[i]];

		/* full, or no memory to grow: wait for the consumer */
		while (b->n >= q->max || (b->n == b->cap &&
					  !buf_grow(b, b->n + 1))) {
			q->waits++;
			notify(q->notify_fd);
			pthread_cond_wait(&q->room, &q->lock);
		}
		b->v[b->n++] = q->stage[i];
	}
	pthread_mutex_unlock(&q->lock);
	q->nstage = 0;
	if (news)
		notify(q->notify_fd);
	return news;
}

void drainq_push(struct drainq *q, int src, const union abicap_rec *r)
{
	if (q->nstage == STAGE)
		drainq_flush(q);
	q->stage_src[q->nstage] = src;
	q->stage[q->nstage++] = *r;
}

int drainq_take(struct drainq *q, drainq_fn fn, void *ctx)
{
	bool any = false;
	int ret = 0;

	pthread_mutex_lock(&q->lock);
	q->told = false;
	for (int s = 0; s < q->nsrc; s++) {
		struct srcbuf t = q->q[s];

		if (!t.n)
			continue;
		q->q[s] = q->spare[s];
		q->spare[s] = t;
		any = true;
	}
	if (any)
		pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
	for (int s = 0; any && s < q->nsrc; s++) {
		struct srcbuf *b = &q->spare[s];

		for (size_t i = 0; i < b->n; i++) {
			int r = fn(ctx, s, &b->v[i]);

			if (r && !ret)
				ret = r;
		}
		b->n = 0;
	}
	return ret;
}

uint64_t drainq_waits(const struct drainq *q)
{
	uint64_t n;

	pthread_mutex_lock((pthread_mutex_t *)&q->lock);
	n = q->waits;
	pthread_mutex_unlock((pthread_mutex_t *)&q->lock);
	return n;
}

struct drain_thread {
	pthread_t th;
	struct ringread *rb;
	struct drainq *q;
	int epfd, notify_fd;
	uint64_t drained; /* atomic: release by the thread, acquire by the reader */
	bool done; /* atomic */
	int err; /* atomic: ringread_consume's first error */
};

static void *drain_main(void *arg)
{
	struct drain_thread *t = arg;
	struct epoll_event ev[2];
	bool stop = false;

	while (!stop) {
		uint64_t t0 = mono_ns();
		int n = ringread_consume(t->rb);

		if (n < 0 && !t->err)
			__atomic_store_n(&t->err, n, __ATOMIC_RELAXED);
		/* what the pass took is queued before the time is published */
		drainq_flush(t->q);
		__atomic_store_n(&t->drained, t0, __ATOMIC_RELEASE);
		n = epoll_wait(t->epfd, ev, 2, 100);
		for (int i = 0; i < n; i++)
			stop |= ev[i].data.u32 == 1;
	}
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	notify(t->notify_fd);
	return NULL;
}

struct drain_thread *drain_thread_start(struct ringread *rb,
					struct drainq *q, int stop_fd,
					int notify_fd)
{
	struct drain_thread *t = calloc(1, sizeof(*t));
	struct epoll_event ring = { .events = EPOLLIN | EPOLLET, .data.u32 = 0 };
	struct epoll_event stop = { .events = EPOLLIN, .data.u32 = 1 };
	sigset_t all, old;
	int e;

	if (!t)
		return NULL;
	t->rb = rb;
	t->q = q;
	t->notify_fd = notify_fd;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0 ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, ringread_epoll_fd(rb), &ring) ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, stop_fd, &stop))
		goto fail;
	/* signals are the main thread's: it stops the loop (runloop.h) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&t->th, NULL, drain_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* top -H, ps -L: which threads are abicap's drain threads */
	if (!e)
		pthread_setname_np(t->th, "abicap-drain");
	if (e) {
		errno = e;
		goto fail;
	}
	return t;
fail:
	e = errno;
	if (t->epfd >= 0)
		close(t->epfd);
	free(t);
	errno = e;
	return NULL;
}

uint64_t drain_thread_drained(const struct drain_thread *t)
{
	return __atomic_load_n(&t->drained, __ATOMIC_ACQUIRE);
}

int drain_thread_error(const struct drain_thread *t)
{
	return __atomic_load_n(&t->err, __ATOMIC_RELAXED);
}

bool drain_thread_done(const struct drain_thread *t)
{
	return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
}

int drain_thread_join(struct drain_thread *t)
{
	int err;

	if (!t)
		return 0;
	pthread_join(t->th, NULL);
	close(t->epfd);
	err = t->err;
	free(t);
	return err;
}
