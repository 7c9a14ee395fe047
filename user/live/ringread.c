// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The reader of BPF ring buffer maps (ringread.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "abicap.h"
#include "live/ringread.h"

struct ring {
	ringread_fn fn;
	void *ctx;
	unsigned long *cons_pos; /* the consumer page, ours to write */
	const unsigned long *prod_pos; /* the producer page, then the data twice */
	const unsigned char *data;
	unsigned long mask; /* the data's size - 1 (a power of 2) */
	unsigned long cons; /* our position: the kernel never moves it */
	unsigned long batch;
	size_t map_len;
	int fd;
	struct ringread_slab slab; /* data NULL: none */
	__u64 slab_pos; /* our position in it */
};

struct ringread {
	struct ring *rings;
	struct epoll_event *ev;
	int n, epfd;
	size_t page;
};

struct ringread *ringread_new(void)
{
	struct ringread *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		int e = errno;

		free(r);
		errno = e;
		return NULL;
	}
	return r;
}

/* Map ring g's positions and data (the data twice: a record never wraps). */
static int map_ring(struct ringread *r, struct ring *g, unsigned long size)
{
	void *p;

	if (size > (SIZE_MAX - r->page) / 2)
		return -E2BIG;
	p = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	g->cons_pos = p;
	g->map_len = r->page + 2 * size;
	p = mmap(NULL, g->map_len, PROT_READ, MAP_SHARED, g->fd,
		 (off_t)r->page);
	if (p == MAP_FAILED) {
		int e = errno;

		munmap(g->cons_pos, r->page);
		return -e;
	}
	g->prod_pos = p;
	g->data = (const unsigned char *)p + r->page;
	g->mask = size - 1;
	g->cons = __atomic_load_n(g->cons_pos, __ATOMIC_ACQUIRE);
	g->batch = size / 16 < RINGREAD_BATCH ? size / 16 : RINGREAD_BATCH;
	return 0;
}

int ringread_add(struct ringread *r, int map_fd, ringread_fn fn, void *ctx)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct epoll_event e = { .events = EPOLLIN };
	struct ring *rings;
	struct epoll_event *ev;
	struct ring *g;
	int err;

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_RINGBUF || !info.max_entries ||
	    (info.max_entries & (info.max_entries - 1)))
		return -EINVAL;
	rings = realloc(r->rings, (r->n + 1) * sizeof(*rings));
	if (!rings)
		return -ENOMEM;
	r->rings = rings;
	ev = realloc(r->ev, (r->n + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	r->ev = ev;
	g = &r->rings[r->n];
	memset(g, 0, sizeof(*g));
	g->fn = fn;
	g->ctx = ctx;
	g->fd = map_fd;
	err = map_ring(r, g, info.max_entries);
	if (err)
		return err;
	e.data.u32 = (__u32)r->n;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, map_fd, &e)) {
		err = -errno;
		munmap(g->cons_pos, r->page);
		munmap((void *)g->prod_pos, g->map_len);
		return err;
	}
	r->n++;
	return 0;
}

/* One pass over ring g: records handed on, or a callback's error. */
static long consume_ring(struct ring *g)
{
	unsigned long prod = __atomic_load_n(g->prod_pos, __ATOMIC_ACQUIRE);
	unsigned long told = g->cons;
	long n = 0;
	int err = 0;

	while (g->cons < prod) {
		const unsigned char *h = g->data + (g->cons & g->mask);
		__u32 len = __atomic_load_n((const __u32 *)h, __ATOMIC_ACQUIRE);
		__u32 size = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		g->cons += (size + BPF_RINGBUF_HDR_SZ + 7) & ~7u;
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			err = g->fn(g->ctx, (void *)(h + BPF_RINGBUF_HDR_SZ),
				    size);
			if (err < 0)
				break;
			n++;
		}
		if (g->cons - told >= g->batch) {
			__atomic_store_n(g->cons_pos, g->cons,
					 __ATOMIC_RELEASE);
			told = g->cons;
		}
	}
	if (told != g->cons)
		__atomic_store_n(g->cons_pos, g->cons, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}

int ringread_add_slab(struct ringread *r, int i, const struct ringread_slab *s)
{
	struct ring *g;

	if (i < 0 || i >= r->n || !s->data || s->shift >= 8 * sizeof(long) ||
	    (1ul << s->shift) < ABICAP_SLAB_MAXREC || s->bytes < (1ul << s->shift) ||
	    (s->bytes & (s->bytes - 1)) || r->rings[i].slab.data)
		return -EINVAL;
	g = &r->rings[i];
	g->slab = *s;
	g->slab_pos = __atomic_load_n(s->tail, __ATOMIC_ACQUIRE);
	return 0;
}

/*
 * One pass over ring g's slab, up to the head read at its start: records
 * handed on, or a callback's error. A size no record has (the slab
 * damaged) is handed on as it is, for the callback to count, and the pass
 * goes on from the head: nothing after it can be parsed.
 */
static long consume_slab(struct ring *g)
{
	const struct ringread_slab *s = &g->slab;
	__u64 head = __atomic_load_n(s->head, __ATOMIC_ACQUIRE);
	__u64 pos = g->slab_pos, told = pos;
	unsigned long chunk = 1ul << s->shift, batch = s->bytes / 16;
	long n = 0;
	int err = 0;

	while (pos < head) {
		unsigned long off = pos & (chunk - 1);
		const unsigned char *p = s->data + (pos & (s->bytes - 1));
		__u16 size;

		if (off > chunk - ABICAP_SLAB_MAXREC) {
			pos += chunk - off;
			continue;
		}
		memcpy(&size, p + offsetof(struct abicap_hdr, size),
		       sizeof(size));
		if (size < sizeof(struct abicap_hdr) ||
		    size > ABICAP_SLAB_MAXREC || (size & 7) ||
		    head - pos < size) {
			err = g->fn(g->ctx, (void *)p, sizeof(struct abicap_hdr));
			pos = head;
			break;
		}
		pos += size;
		err = g->fn(g->ctx, (void *)p, size);
		if (err < 0)
			break;
		n++;
		if (pos - told >= batch) {
			__atomic_store_n(s->tail, pos, __ATOMIC_RELEASE);
			told = pos;
		}
	}
	g->slab_pos = pos;
	if (told != pos)
		__atomic_store_n(s->tail, pos, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}

/* Pass over rings (all, or the woken ones in ev[0..nev)). */
static int consume_some(struct ringread *r, int nev)
{
	long total = 0;

	for (int i = 0; i < (nev < 0 ? r->n : nev); i++) {
		struct ring *g = &r->rings[nev < 0 ? i : (int)r->ev[i].data.u32];
		long n = g->slab.data ? consume_slab(g) : 0;

		if (n >= 0) {
			long m = consume_ring(g);

			n = m < 0 ? m : n + m;
		}

		if (n < 0)
			return (int)n;
		total += n;
		if (total > INT_MAX)
			total = INT_MAX;
	}
	return (int)total;
}

int ringread_consume(struct ringread *r)
{
	return consume_some(r, -1);
}

int ringread_poll(struct ringread *r, int timeout_ms)
{
	struct epoll_event none;
	int n = epoll_wait(r->epfd, r->n ? r->ev : &none, r->n ? r->n : 1,
			   timeout_ms);

	if (n < 0)
		return -errno;
	return consume_some(r, n);
}

unsigned long ringread_unread(const struct ringread *r, int i)
{
	const struct ring *g;
	unsigned long k, p;

	if (i < 0 || i >= r->n)
		return 0;
	g = &r->rings[i];
	if (g->slab.data) {
		__u64 h = __atomic_load_n(g->slab.head, __ATOMIC_ACQUIRE);
		__u64 t = __atomic_load_n(g->slab.tail, __ATOMIC_ACQUIRE);

		return h > t ? (unsigned long)(h - t) : 0;
	}
	k = __atomic_load_n(g->cons_pos, __ATOMIC_ACQUIRE);
	p = __atomic_load_n(g->prod_pos, __ATOMIC_ACQUIRE);

	return p > k ? p - k : 0;
}

int ringread_epoll_fd(const struct ringread *r)
{
	return r->epfd;
}

void ringread_free(struct ringread *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n; i++) {
		munmap(r->rings[i].cons_pos, r->page);
		munmap((void *)r->rings[i].prod_pos, r->rings[i].map_len);
	}
	close(r->epfd);
	free(r->rings);
	free(r->ev);
	free(r);
}
