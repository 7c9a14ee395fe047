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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "abicap.h"
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

/*
 * Slabs (bpf/slab.bpf.h): a producer here in user space, writing as the
 * programs write (the same room check, the same skip at a chunk's end),
 * records with their seq in ts_ns and bytes derived from it.
 */
struct slabsim {
	unsigned char *data;
	unsigned long bytes;
	unsigned int shift;
	struct abicap_slab_ctl ctl;
};

static bool slab_put(struct slabsim *s, __u32 seq, __u16 size)
{
	unsigned long long chunk = 1ull << s->shift, head = s->ctl.head;
	unsigned long long off = head & (chunk - 1);
	struct abicap_hdr h = { .ts_ns = seq, .size = size };
	unsigned char *p;

	if (off > chunk - ABICAP_SLAB_MAXREC) {
		head += chunk - off;
		off = 0;
	}
	if (head + ABICAP_SLAB_MAXREC -
	    __atomic_load_n(&s->ctl.tail, __ATOMIC_ACQUIRE) > s->bytes)
		return false;
	p = s->data + (head & (s->bytes - 1));
	memcpy(p, &h, sizeof(h));
	for (unsigned int i = sizeof(h); i < size; i++)
		p[i] = (unsigned char)(seq + i);
	__atomic_store_n(&s->ctl.head, head + size, __ATOMIC_RELEASE);
	return true;
}

static unsigned int slab_size_of(__u32 s)
{
	return s % 3 == 0 ? 24 : s % 3 == 1 ? 64 : 96;
}

/* Slab records in order, whole; a damaged one (16 bytes handed on) counted. */
static int on_slab_rec(void *ctx, void *data, size_t size)
{
	struct seen *w = ctx;
	const unsigned char *b = data;
	struct abicap_hdr h;

	memcpy(&h, b, sizeof(h));
	if (size == sizeof(h)) {
		w->bad++;
		return 0;
	}
	if (h.ts_ns != w->next || size != h.size ||
	    size != slab_size_of((__u32)h.ts_ns))
		w->bad++;
	for (size_t i = sizeof(h); i < size; i++)
		if (b[i] != (unsigned char)(h.ts_ns + i))
			w->bad++;
	w->next = (__u32)h.ts_ns + 1;
	w->n++;
	return 0;
}

/* A reader of a slab of 16 KiB in 4 KiB chunks, with ringfill's ring (empty). */
static struct ringread *slab_reader(struct fill *f, struct slabsim *s,
				    struct seen *w)
{
	struct ringread_slab rs;
	struct ringread *r;

	fill_open(f);
	s->bytes = 16384;
	s->shift = 12;
	s->data = aligned_alloc(4096, s->bytes);
	cr_assert(s->data);
	memset(s->data, 0xee, s->bytes);
	rs = (struct ringread_slab){ .data = s->data, .bytes = s->bytes,
				     .shift = s->shift, .head = &s->ctl.head,
				     .tail = &s->ctl.tail };
	r = ringread_new();
	cr_assert(r);
	cr_assert_eq(ringread_add_slab(r, 0, &rs), -EINVAL, "no ring 0 yet");
	cr_assert_eq(ringread_add(r, f->ring_fd, on_slab_rec, w), 0);
	cr_assert_eq(ringread_add_slab(r, 0, &rs), 0);
	cr_assert_eq(ringread_add_slab(r, 0, &rs), -EINVAL, "a second slab");
	return r;
}

Test(ringread, slab_every_record_once_in_order_across_chunks_and_wraps)
{
	struct fill f = { 0 };
	struct slabsim s = { 0 };
	struct seen w = { 0 };
	struct ringread *r = slab_reader(&f, &s, &w);
	unsigned long skipped = 0;
	long total = 0;
	__u32 seq = 0;

	/* 6,000 records of 24-96 bytes through 16 KiB: 24 wraps, 96 chunks */
	for (int round = 0; round < 60; round++) {
		for (int i = 0; i < 100; i++, seq++) {
			unsigned long long before = s.ctl.head;

			cr_assert(slab_put(&s, seq, slab_size_of(seq)),
				  "the slab was full at %u", seq);
			skipped += s.ctl.head - before != slab_size_of(seq);
		}
		cr_expect_eq(ringread_unread(r, 0), s.ctl.head - s.ctl.tail);
		total += ringread_consume(r);
		/* the pass published the tail: all room is the producer's */
		cr_expect_eq(s.ctl.tail, s.ctl.head);
	}
	cr_expect_gt(skipped, 50, "%lu chunk ends skipped", skipped);
	cr_expect_eq(w.bad, 0, "%lu records out of order or damaged", w.bad);
	cr_expect_eq(total, 6000);
	cr_expect_eq(w.n, 6000);
	cr_expect_eq(ringread_consume(r), 0, "a record taken twice");
	ringread_free(r);
	free(s.data);
	bpf_object__close(f.obj);
}

Test(ringread, slab_full_waits_for_the_reader_and_damage_is_handed_on)
{
	struct fill f = { 0 };
	struct slabsim s = { 0 };
	struct seen w = { 0 };
	struct ringread *r = slab_reader(&f, &s, &w);
	__u32 seq = 0;

	while (slab_put(&s, seq, slab_size_of(seq)))
		seq++;
	cr_expect_gt(s.ctl.head, 16384 - 2 * ABICAP_SLAB_MAXREC);
	cr_expect_eq(ringread_consume(r), (int)seq);
	cr_assert(slab_put(&s, seq, slab_size_of(seq)), "no room after a pass");
	seq++;
	/* a size no record has: handed on as a header, the rest unparsed */
	cr_assert(slab_put(&s, seq, 13));
	cr_assert(slab_put(&s, seq + 1, slab_size_of(seq + 1)));
	cr_expect_eq(ringread_consume(r), 1);
	cr_expect_eq(w.bad, 1, "%lu bad", w.bad);
	cr_expect_eq(s.ctl.tail, s.ctl.head, "the reader stopped short");
	ringread_free(r);
	free(s.data);
	bpf_object__close(f.obj);
}
