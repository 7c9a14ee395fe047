// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap's reader of BPF ring buffers (user/live/ringread.c) against a real
 * ring the kernel writes (tests/kbpf/ringfill.bpf.c, one record a run):
 * every record once, in order, whole, across many wraps; discarded records
 * skipped; the room a pass frees given back to the producer by the pass's
 * end (the consumer position is published in batches); a callback's error
 * stopping the pass with nothing taken twice; the epoll woken.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "live/ringread.h"
#include "harness.h"

#define OBJ "build/tests/kbpf/ringfill.bpf.o"

struct fill {
	struct bpf_object *obj;
	int prog_fd, ring_fd;
	struct {
		__u32 seq, failed;
		__u64 flags;
	} *g; /* the object's .bss, mapped */
};

/* what the callback saw */
struct seen {
	__u32 next; /* the seq expected next */
	unsigned long n, bad;
	unsigned long stop_at; /* fail the record after this many (0: never) */
};

static void fill_open(struct fill *f)
{
	struct bpf_map *bss;
	size_t sz;

	f->obj = bpf_object__open_file(OBJ, NULL);
	cr_assert(f->obj, "cannot open %s: %s", OBJ, strerror(errno));
	cr_assert_eq(bpf_object__load(f->obj), 0, "cannot load %s", OBJ);
	f->prog_fd = bpf_program__fd(
		bpf_object__find_program_by_name(f->obj, "rf_write"));
	f->ring_fd = bpf_map__fd(bpf_object__find_map_by_name(f->obj, "ring"));
	bss = bpf_object__find_map_by_name(f->obj, ".bss");
	cr_assert(bss);
	/* the kernel's .bss (bpf_map__initial_value is libbpf's copy) */
	sz = bpf_map__value_size(bss);
	cr_assert(sz >= sizeof(*f->g));
	f->g = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED,
		    bpf_map__fd(bss), 0);
	cr_assert(f->g != MAP_FAILED, "cannot map .bss: %s", strerror(errno));
}

/* Run the writer n times: the records written (not failed). */
static unsigned long fill_write(struct fill *f, unsigned long n)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	__u32 failed = f->g->failed;

	for (unsigned long i = 0; i < n; i++)
		cr_assert_eq(bpf_prog_test_run_opts(f->prog_fd, &o), 0,
			     "test run: %s", strerror(errno));
	return n - (f->g->failed - failed);
}

static unsigned int size_of(__u32 s)
{
	return s % 3 == 0 ? 16 : s % 3 == 1 ? 40 : 200;
}

/* Records in order: seq after seq, discarded ones (seq % 7 == 3) skipped. */
static int on_rec(void *ctx, void *data, size_t size)
{
	struct seen *w = ctx;
	const unsigned char *b = data;
	__u32 s;

	if (w->stop_at && w->n == w->stop_at)
		return -EIO;
	memcpy(&s, b, sizeof(s));
	while (w->next % 7 == 3)
		w->next++;
	if (s != w->next || size != size_of(s))
		w->bad++;
	for (size_t i = 4; i < size; i++)
		if (b[i] != (unsigned char)(s + i))
			w->bad++;
	w->next = s + 1;
	w->n++;
	return 0;
}

/* The writer loaded, and a reader of its ring calling on_rec with w. */
static struct ringread *fill_reader(struct fill *f, struct seen *w)
{
	struct ringread *r;

	fill_open(f);
	r = ringread_new();
	cr_assert(r, "ringread_new: %s", strerror(errno));
	cr_assert_eq(ringread_add(r, f->ring_fd, on_rec, w), 0);
	return r;
}

/* records of seqs [0, n) that are not discarded */
static unsigned long kept(__u32 n)
{
	unsigned long k = 0;

	for (__u32 s = 0; s < n; s++)
		k += s % 7 != 3;
	return k;
}

/* The ring's consumer (page 0) or producer (page 1) position. */
static unsigned long ring_pos(int fd, int producer)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long *p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd,
				producer * page), v;

	cr_assert(p != MAP_FAILED, "cannot map the ring: %s", strerror(errno));
	v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	munmap(p, page);
	return v;
}

TestSuite(ringread, .init = require_kernel, .timeout = 60);

Test(ringread, every_record_once_in_order_across_wraps)
{
	struct fill f = { 0 };
	struct seen w = { 0 };
	struct ringread *r;
	long total = 0;

	r = fill_reader(&f, &w);
	/* 6,000 records of about 93 bytes through a 16 KiB ring: 30 wraps */
	for (int round = 0; round < 60; round++) {
		cr_assert_eq(fill_write(&f, 100), 100, "the ring was full");
		total += ringread_consume(r);
	}
	cr_expect_eq(w.bad, 0, "%lu records out of order or damaged", w.bad);
	cr_expect_eq(total, (long)kept(6000), "consumed %ld of %lu", total,
		     kept(6000));
	cr_expect_eq(w.n, kept(6000));
	cr_expect_eq(ringread_consume(r), 0, "a record taken twice");
	ringread_free(r);
	bpf_object__close(f.obj);
}

Test(ringread, a_pass_gives_the_producer_its_room_back)
{
	struct fill f = { 0 };
	struct seen w = { 0 };
	struct ringread *r;
	unsigned long written = 0;
	__u32 full_at;

	r = fill_reader(&f, &w);
	/* fill the ring until a reserve fails */
	while (!f.g->failed && written < 100000)
		written += fill_write(&f, 1);
	cr_assert_eq(f.g->failed, 1, "the 16 KiB ring never filled (%lu written, %u failed)", written, f.g->failed);
	full_at = f.g->seq - 1;
	/* the failed run's seq is used: the reader must not wait for it */
	f.g->seq = full_at;
	/* what drain auto reads as the fill: all that is written, unread */
	cr_expect_eq(ringread_unread(r, 0),
		     ring_pos(f.ring_fd, 1) - ring_pos(f.ring_fd, 0));
	cr_expect_gt(ringread_unread(r, 0), 16384 - 256);
	cr_expect_eq(ringread_unread(r, 1), 0, "no second ring");
	cr_expect_eq(ringread_consume(r), (int)kept(full_at));
	cr_expect_eq(ringread_unread(r, 0), 0);
	/* the pass published its position: the whole ring is free again */
	cr_expect_eq(ring_pos(f.ring_fd, 0), ring_pos(f.ring_fd, 1),
		     "consumer position %lu after the pass, producer's %lu",
		     ring_pos(f.ring_fd, 0), ring_pos(f.ring_fd, 1));
	cr_expect_eq(fill_write(&f, 100), 100,
		     "the producer saw no room after a pass (%u failed)",
		     f.g->failed);
	cr_expect_eq(ringread_consume(r), (int)(kept(full_at + 100) -
						kept(full_at)));
	cr_expect_eq(w.bad, 0);
	ringread_free(r);
	bpf_object__close(f.obj);
}

Test(ringread, a_callback_error_stops_the_pass_and_nothing_is_taken_twice)
{
	struct fill f = { 0 };
	struct seen w = { .stop_at = 10 };
	struct ringread *r;

	r = fill_reader(&f, &w);
	cr_assert_eq(fill_write(&f, 40), 40);
	cr_expect_eq(ringread_consume(r), -EIO);
	cr_expect_eq(w.n, 10);
	/* the record that failed is behind the reader: the next pass goes on */
	w.stop_at = 0;
	w.next++;
	cr_expect_eq(ringread_consume(r), (int)kept(40) - 11);
	cr_expect_eq(w.bad, 0, "%lu records out of order", w.bad);
	ringread_free(r);
	bpf_object__close(f.obj);
}

Test(ringread, poll_waits_for_a_wakeup_and_refuses_other_maps)
{
	struct fill f = { 0 };
	struct seen w = { 0 };
	struct ringread *r;
	int arr;

	r = fill_reader(&f, &w);
	cr_expect_eq(ringread_poll(r, 20), 0, "nothing written, yet records");
	f.g->flags = BPF_RB_FORCE_WAKEUP;
	cr_assert_eq(fill_write(&f, 3), 3);
	cr_expect_eq(ringread_poll(r, 1000), 3);
	arr = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	cr_assert(arr >= 0);
	cr_expect_eq(ringread_add(r, arr, on_rec, &w), -EINVAL);
	close(arr);
	ringread_free(r);
	bpf_object__close(f.obj);
}
