// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "workload.h"

struct pp_thread {
	struct pingpong *pp;
	pthread_barrier_t *ready;
	pthread_barrier_t *done;
	const char *name;
	int rd, wr;
	bool first; /* ping: writes before it reads, and keeps the clock */
	pid_t *tid;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * ping keeps pp->rate: every 64 exchanges it sleeps until the time the
 * next one is due, if that is ahead (a starved exchange catches up).
 */
static void pace(const struct pingpong *pp)
{
	uint64_t due;
	struct timespec ts;

	if (!pp->rate || pp->done_rounds % 64)
		return;
	due = pp->start_ns + (uint64_t)pp->done_rounds * 1000000000ull /
				     (uint64_t)pp->rate;
	ts.tv_sec = (time_t)(due / 1000000000ull);
	ts.tv_nsec = (long)(due % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *pp_main(void *arg)
{
	struct pp_thread *t = arg;
	struct pingpong *pp = t->pp;
	char b = 'x';

	prctl(PR_SET_NAME, t->name);
	*t->tid = gettid();
	pthread_barrier_wait(t->ready);
	if (t->first) {
		if (pp->on_ready)
			pp->on_ready(pp);
		pp->start_ns = now_ns();
	}
	for (;;) {
		if (t->first) {
			/* ping decides when to stop: a zero byte ends pong */
			bool last = (pp->rounds && pp->done_rounds + 1 >= pp->rounds) ||
				    (pp->deadline_ns && !(pp->done_rounds % 256) &&
				     now_ns() >= pp->deadline_ns);

			b = last ? 0 : 'x';
			if (write(t->wr, &b, 1) != 1 || read(t->rd, &b, 1) != 1)
				break;
			pp->done_rounds++;
			if (last)
				break;
			pace(pp);
		} else {
			if (read(t->rd, &b, 1) != 1 || write(t->wr, &b, 1) != 1 ||
			    !b)
				break;
		}
	}
	if (t->first)
		pp->end_ns = now_ns();
	/* neither thread exits (prev_state X) inside the window */
	pthread_barrier_wait(t->done);
	return NULL;
}

/* Threads made with attr run on cpu only (< 0: anywhere); 0 or -errno. */
static int pin_attr(pthread_attr_t *attr, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

int pingpong(struct pingpong *pp)
{
	int a[2], b[2], err = 0;
	pthread_t th[2];
	pthread_attr_t attr;
	pthread_barrier_t ready, done;
	struct pp_thread t[2];

	pp->done_rounds = 0;
	if (pipe(a))
		return -errno;
	if (pipe(b)) {
		err = -errno;
		goto close_a;
	}
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	t[0] = (struct pp_thread){ pp, &ready, &done, "abc_ping", b[0], a[1],
				   true, &pp->ping_tid };
	t[1] = (struct pp_thread){ pp, &ready, &done, "abc_pong", a[0], b[1],
				   false, &pp->pong_tid };
	/*
	 * Pinned from birth: moving a running thread would bring wakeups from
	 * the migration thread into the picture.
	 */
	pthread_attr_init(&attr);
	err = pin_attr(&attr, pp->cpu);
	if (!err)
		err = -pthread_create(&th[0], &attr, pp_main, &t[0]);
	if (!err && pp->apart)
		err = pin_attr(&attr, pp->cpu + 1);
	if (!err) {
		err = -pthread_create(&th[1], &attr, pp_main, &t[1]);
		if (err) {
			pthread_cancel(th[0]);
			pthread_join(th[0], NULL);
		} else {
			pthread_join(th[0], NULL);
			pthread_join(th[1], NULL);
		}
	}
	pthread_attr_destroy(&attr);
	pthread_barrier_destroy(&ready);
	pthread_barrier_destroy(&done);
	close(b[0]);
	close(b[1]);
close_a:
	close(a[0]);
	close(a[1]);
	return err;
}
