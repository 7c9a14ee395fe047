// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture's records in one total order, in bounded memory (capsort_ext.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capfile/capmeta.h"
#include "capfile/capsort_ext.h"
#include "lib/array.h"
#include "lib/heap.h"
#include "lib/util.h"

#define REC sizeof(union abicap_rec)
_Static_assert(sizeof(size_t) == sizeof(void *), "permute() reuses ptr");

int capr_rec_cmp(const union abicap_rec *a, const union abicap_rec *b)
{
	size_t len;

	if (a->hdr.ts_ns != b->hdr.ts_ns)
		return a->hdr.ts_ns < b->hdr.ts_ns ? -1 : 1;
	if (a->hdr.cpu != b->hdr.cpu)
		return a->hdr.cpu < b->hdr.cpu ? -1 : 1;
	if (a->hdr.type != b->hdr.type)
		return a->hdr.type < b->hdr.type ? -1 : 1;
	if (a->hdr.size != b->hdr.size)
		return a->hdr.size < b->hdr.size ? -1 : 1;
	len = a->hdr.size < REC ? a->hdr.size : REC;
	return memcmp(a, b, len);
}

struct run {
	uint64_t off, n; /* in records, in the file holding the runs */
};

struct src {
	uint64_t off, left; /* of its run not yet in buf */
	union abicap_rec *buf;
	size_t n, pos, cap;
};

struct capr_ordered {
	union abicap_rec *mem; /* budget records */
	const union abicap_rec **ptr; /* their order */
	size_t budget, fanin, nmem, pos;
	int fd[2]; /* the runs in fd[cur], the next pass into the other */
	int cur;
	uint64_t end[2]; /* records in each file */
	struct run *runs;
	size_t nruns, runs_cap;
	struct src *src; /* the last merge */
	size_t *heap, nheap;
	const char *dir;
	struct capr *rd; /* streamed: the second reading */
	/*
	 * The window as a sorted ring (mem[head], the oldest, on), while the
	 * records come in order or nearly; else (ring false) a min-heap
	 */
	bool ring;
	size_t head;
	union abicap_rec prev; /* the last record read first (note()) */
	bool any;
	struct capr_order_stats st;
	uint64_t tmp_max; /* bytes of temporary file, both passes' at once */
	char err[300];
};

static int cmp_ptr(const void *a, const void *b)
{
	return capr_rec_cmp(*(const union abicap_rec *const *)a,
			    *(const union abicap_rec *const *)b);
}

static int tmp_open(struct capr_ordered *s)
{
	char path[4096];
	int fd = open(s->dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		/* a file system without O_TMPFILE: named for an instant */
		snprintf(path, sizeof(path), "%s/abicap-sort-XXXXXX", s->dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		snprintf(s->err, sizeof(s->err), "cannot create a temporary "
			 "file in %s to sort the capture's records (%s): set "
			 "TMPDIR to a writable directory with room for them",
			 s->dir, strerror(errno));
	return fd;
}

static int io_fail(struct capr_ordered *s, const char *what, int e)
{
	snprintf(s->err, sizeof(s->err), "cannot %s the temporary file in %s "
		 "sorting the capture's records (%s): set TMPDIR to a "
		 "directory with room for them", what, s->dir,
		 e ? strerror(e) : "short transfer");
	return -1;
}

/* n records between p and file f at record at: whole, or -1 (err set). */
static int transfer(struct capr_ordered *s, int f, void *p, size_t n,
		    uint64_t at, bool out)
{
	char *b = p;
	off_t off = (off_t)(at * REC);

	for (size_t left = n * REC; left;) {
		ssize_t k = out ? pwrite(s->fd[f], b, left, off) :
				  pread(s->fd[f], b, left, off);

		if (k <= 0)
			return io_fail(s, out ? "write" : "read", k < 0 ? errno : 0);
		b += k;
		off += k;
		left -= (size_t)k;
	}
	return 0;
}

static int write_at(struct capr_ordered *s, int f, void *p, size_t n)
{
	if ((s->end[0] + s->end[1] + n) * REC > s->tmp_max) {
		snprintf(s->err, sizeof(s->err), "the capture needs more than "
			 "%llu MiB of temporary space to put its records in order "
			 "(%d times its size, and %llu MiB): no capture abicap "
			 "records needs that much (crafted?); ABICAP_SORT_TMP_MB "
			 "sets the bound", (unsigned long long)(s->tmp_max >> 20),
			 CAPR_TMP_RATIO, CAPR_TMP_FLOOR >> 20);
		return -1;
	}
	if (transfer(s, f, p, n, s->end[f], true))
		return -1;
	s->end[f] += n;
	if (s->end[f] * REC > s->st.tmp_bytes)
		s->st.tmp_bytes = s->end[f] * REC;
	return 0;
}

static int read_at(struct capr_ordered *s, int f, void *p, size_t n,
		   uint64_t at)
{
	return transfer(s, f, p, n, at, false);
}

/*
 * mem in the order of ptr, in place (each cycle of the permutation once,
 * through one record's room): ptr becomes indices on the way, then done.
 */
static void permute(struct capr_ordered *s)
{
	size_t *to = (size_t *)s->ptr; /* sizeof(size_t) == sizeof(void *) */
	union abicap_rec tmp;

	for (size_t i = 0; i < s->nmem; i++)
		to[i] = (size_t)(s->ptr[i] - s->mem);
	for (size_t i = 0; i < s->nmem; i++) {
		size_t j = i;

		if (to[i] == i)
			continue;
		tmp = s->mem[i];
		while (to[j] != i) {
			size_t k = to[j];

			s->mem[j] = s->mem[k];
			to[j] = j;
			j = k;
		}
		s->mem[j] = tmp;
		to[j] = j;
	}
}

static void sort_mem(struct capr_ordered *s)
{
	for (size_t i = 0; i < s->nmem; i++)
		s->ptr[i] = &s->mem[i];
	qsort(s->ptr, s->nmem, sizeof(*s->ptr), cmp_ptr);
}

/* The records in mem, sorted, as one more run in fd[0]. */
static int spill(struct capr_ordered *s)
{
	if (s->fd[0] < 0 && (s->fd[0] = tmp_open(s)) < 0)
		return -1;
	if (array_room(&s->runs, s->nruns, &s->runs_cap, sizeof(*s->runs), 64))
		return -ENOMEM;
	sort_mem(s);
	permute(s);
	s->runs[s->nruns++] = (struct run){ s->end[0], s->nmem };
	if (write_at(s, 0, s->mem, s->nmem))
		return -1;
	s->st.runs++;
	s->nmem = 0;
	return 0;
}

static int refill(struct capr_ordered *s, struct src *c)
{
	size_t n = c->left < c->cap ? (size_t)c->left : c->cap;

	if (read_at(s, s->cur, c->buf, n, c->off))
		return -1;
	c->off += n;
	c->left -= n;
	c->n = n;
	c->pos = 0;
	return 0;
}

static bool src_before(const struct src *src, size_t a, size_t b)
{
	return capr_rec_cmp(&src[a].buf[src[a].pos], &src[b].buf[src[b].pos]) < 0;
}

/* Source *x's head comes before *y's (heap_before_fn; ctx the sources). */
static bool src_first(const void *x, const void *y, const void *ctx)
{
	return src_before(ctx, *(const size_t *)x, *(const size_t *)y);
}

/* Set up the merge of runs[from, from + k): buffers carved from mem. */
static int merge_start(struct capr_ordered *s, size_t from, size_t k,
		       size_t per)
{
	s->nheap = 0;
	for (size_t i = 0; i < k; i++) {
		struct src *c = &s->src[i];

		*c = (struct src){ .off = s->runs[from + i].off,
				   .left = s->runs[from + i].n,
				   .buf = s->mem + i * per, .cap = per };
		if (refill(s, c))
			return -1;
		if (c->n)
			s->heap[s->nheap++] = i;
	}
	heap_make(s->heap, s->nheap, sizeof(*s->heap), src_first, s->src);
	return 0;
}

/* The smallest head of the merge: 1 (into out), 0 at its end, -1 I/O. */
static int merge_next(struct capr_ordered *s, union abicap_rec *out)
{
	struct src *c;

	if (!s->nheap)
		return 0;
	c = &s->src[s->heap[0]];
	*out = c->buf[c->pos++];
	if (c->pos == c->n) {
		if (c->left && refill(s, c))
			return -1;
		if (c->pos == c->n) {
			heap_pop(s->heap, &s->nheap, sizeof(*s->heap),
				 src_first, s->src);
			return 1;
		}
	}
	heap_down(s->heap, s->nheap, sizeof(*s->heap), 0, src_first, s->src);
	return 1;
}

/* One pass: every fanin runs of fd[cur] into one run of the other file. */
static int merge_pass(struct capr_ordered *s)
{
	int to = !s->cur;
	size_t per = s->budget / (s->fanin + 1), nout = 0;
	union abicap_rec *obuf = s->mem + s->fanin * per;
	size_t nnew = 0;

	if (s->fd[to] < 0 && (s->fd[to] = tmp_open(s)) < 0)
		return -1;
	if (ftruncate(s->fd[to], 0))
		return io_fail(s, "truncate", errno);
	s->end[to] = 0;
	for (size_t from = 0; from < s->nruns; from += s->fanin) {
		size_t k = s->nruns - from < s->fanin ? s->nruns - from : s->fanin;
		struct run nr = { s->end[to], 0 };
		int c;

		if (merge_start(s, from, k, per))
			return -1;
		while ((c = merge_next(s, &obuf[nout])) == 1) {
			nr.n++;
			if (++nout == per) {
				if (write_at(s, to, obuf, nout))
					return -1;
				nout = 0;
			}
		}
		if (c < 0 || (nout && write_at(s, to, obuf, nout)))
			return -1;
		nout = 0;
		s->runs[nnew++] = nr; /* nnew <= from: not yet read */
	}
	s->nruns = nnew;
	s->cur = to;
	s->st.merge_passes++;
	return 0;
}

/* What a record read tells (counted in the first reading only). */
static void note(struct capr_ordered *s, const union abicap_rec *rec)
{
	if (s->any && capr_rec_cmp(rec, &s->prev) < 0)
		s->st.out_of_order++;
	s->prev = *rec;
	s->any = true;
	if (rec->hdr.cpu < CAPTURE_MAX_CPUS && rec->hdr.cpu >= s->st.ncpus)
		s->st.ncpus = rec->hdr.cpu + 1;
	s->st.waking |= rec->hdr.type == ABICAP_EV_SCHED_WAKING;
	s->st.records++;
}

/* Into mem from rd until the budget: 1 full, else capr_next()'s end (0, -1). */
static int fill(struct capr_ordered *s, struct capr *rd, bool count)
{
	int c;

	while (s->nmem < s->budget) {
		c = capr_next(rd, &s->mem[s->nmem]);
		if (c != 1)
			return c;
		if (count)
			note(s, &s->mem[s->nmem]);
		s->nmem++;
		if (s->nmem > s->st.peak_records)
			s->st.peak_records = s->nmem;
	}
	return 1;
}

/* ---- the window: a min-heap of the budget's records, in place in mem ---- */

static bool rec_before(const void *a, const void *b, const void *ctx)
{
	(void)ctx;
	return capr_rec_cmp(a, b) < 0;
}

static void rec_sift_down(union abicap_rec *h, size_t n, size_t i)
{
	_Static_assert(sizeof(*h) <= HEAP_ELEM_MAX, "the heap's room");
	heap_down(h, n, sizeof(*h), i, rec_before, NULL);
}

static void heapify(struct capr_ordered *s)
{
	heap_make(s->mem, s->nmem, sizeof(*s->mem), rec_before, NULL);
}

/* The window's oldest record: the ring's first, or the heap's root. */
static union abicap_rec *ring_at_or_root(struct capr_ordered *s)
{
	return s->ring ? &s->mem[s->head] : &s->mem[0];
}

/* Places a record may be inserted back into the ring; past it, the heap. */
#define RING_MAX_BACK 64

static union abicap_rec *ring_at(struct capr_ordered *s, size_t i)
{
	return &s->mem[(s->head + i) % s->budget];
}

static void reverse(union abicap_rec *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		union abicap_rec t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

/* The ring's records to mem[0..nmem) (a rotation in place), as a heap. */
static void ring_to_heap(struct capr_ordered *s)
{
	if (s->head) {
		reverse(s->mem, s->head);
		reverse(s->mem + s->head, s->budget - s->head);
		reverse(s->mem, s->budget);
	}
	s->head = 0;
	s->ring = false;
	heapify(s);
}

/*
 * The window's first form: a sorted ring where mem, as read, is in order
 * (a capture of per-CPU rings merged in time order: popping the oldest and
 * appending the newest costs a record's copy, where a heap of 512 Ki
 * records sifts 19 levels), else a heap.
 */
static void window_begin(struct capr_ordered *s)
{
	s->head = 0;
	s->ring = true;
	for (size_t i = 1; i < s->nmem && s->ring; i++)
		s->ring = capr_rec_cmp(&s->mem[i - 1], &s->mem[i]) <= 0;
	if (!s->ring)
		heapify(s);
}

/*
 * in into the sorted ring (room for it), moved back past the few newer
 * than it; false if more than RING_MAX_BACK are (the ring is left as it
 * was).
 */
static bool ring_insert(struct capr_ordered *s, const union abicap_rec *in)
{
	size_t pos = s->nmem;

	while (pos > 0 && capr_rec_cmp(ring_at(s, pos - 1), in) > 0) {
		if (s->nmem - pos >= RING_MAX_BACK)
			return false;
		pos--;
	}
	for (size_t i = s->nmem; i > pos; i--)
		*ring_at(s, i) = *ring_at(s, i - 1);
	*ring_at(s, pos) = *in;
	s->nmem++;
	return true;
}

/*
 * The smallest of the window and in (in: a record just read, NULL at the
 * end) into out; in takes the smallest's place. The same steps on the
 * same records give the same sequence, whatever the heap's layout.
 */
static void window_step(struct capr_ordered *s, const union abicap_rec *in,
			union abicap_rec *out)
{
	if (in && (!s->nmem || capr_rec_cmp(in, ring_at_or_root(s)) <= 0)) {
		*out = *in;
		return;
	}
	if (s->ring) {
		union abicap_rec oldest = *ring_at(s, 0);

		s->head = (s->head + 1) % s->budget;
		s->nmem--;
		if (!in || ring_insert(s, in)) {
			*out = oldest;
			return;
		}
		/* too far out of order for the ring: the heap from here on */
		s->head = (s->head + s->budget - 1) % s->budget;
		*ring_at(s, 0) = oldest;
		s->nmem++;
		ring_to_heap(s);
	}
	*out = s->mem[0];
	s->mem[0] = in ? *in : s->mem[--s->nmem];
	rec_sift_down(s->mem, s->nmem, 0);
}

/*
 * The window's first reading: whether it gives the total order, every
 * record it passes on no later than any read after (1), or not (0: then
 * the rest is only counted). r is read to its end; *rc its end.
 */
static int window_exact(struct capr_ordered *s, struct capr *r,
			const union abicap_rec *first, int *rc)
{
	union abicap_rec in = *first, out, last;
	bool passed = false, exact = true;
	int c = 1;

	window_begin(s);
	for (;;) {
		if (exact && passed && capr_rec_cmp(&in, &last) < 0)
			exact = false; /* older than one passed on */
		if (exact) {
			window_step(s, &in, &out);
			last = out;
			passed = true;
		}
		c = capr_next(r, &in);
		if (c != 1)
			break;
		note(s, &in);
	}
	*rc = c < 0 ? -1 : 0;
	return exact;
}

/* The rest of rd (mem full, more to come: *extra) through sorted runs, merged. */
static int external(struct capr_ordered *s, struct capr *rd, bool count,
		    const union abicap_rec *extra, int *rc)
{
	int c;

	if ((c = spill(s)))
		return c;
	s->mem[s->nmem++] = *extra;
	while ((c = fill(s, rd, count)) == 1)
		if ((c = spill(s)))
			return c;
	*rc = c < 0 ? -1 : 0;
	if (s->nmem && (c = spill(s)))
		return c;
	free(s->ptr);
	s->ptr = NULL;
	while (s->nruns > s->fanin)
		if (merge_pass(s))
			return -1;
	return merge_start(s, 0, s->nruns, s->budget / s->nruns);
}

/* Another reader of the file, for a second reading. */
static struct capr *reopen(struct capr_ordered *s, const char *path)
{
	char e[256];
	struct capr *r = capr_open(path, e, sizeof(e));

	if (!r)
		snprintf(s->err, sizeof(s->err), "cannot read '%s' again to "
			 "order its records: %s", path, e);
	return r;
}

/* The temporary file's bound: the caller's, ABICAP_SORT_TMP_MB, or from the file's size. */
static uint64_t tmp_bound(const struct capr *r, const struct capr_order_opts *o)
{
	const char *e = getenv("ABICAP_SORT_TMP_MB");
	uint64_t by_size = capr_size(r) > UINT64_MAX / CAPR_TMP_RATIO ?
			   UINT64_MAX : capr_size(r) * CAPR_TMP_RATIO;
	long mb;

	if (o && o->tmp_max)
		return o->tmp_max;
	if (e && parse_long(e, 1, 1L << 30, &mb))
		return (uint64_t)mb << 20;
	return by_size > CAPR_TMP_FLOOR ? by_size : CAPR_TMP_FLOOR;
}

struct capr_ordered *capr_ordered_open(struct capr *r,
				       const struct capr_order_opts *o,
				       int *rc, char *err, size_t errlen)
{
	struct capr_ordered *s = calloc(1, sizeof(*s));
	union abicap_rec extra;
	struct capr *again = NULL;
	int c, rc2;

	if (!s)
		goto oom;
	s->fd[0] = s->fd[1] = -1;
	s->fanin = o && o->fanin >= 2 ? o->fanin : CAPR_ORDER_FANIN;
	s->budget = o && o->budget ? o->budget : CAPR_ORDER_BUDGET;
	if (s->budget < 2 * (s->fanin + 1))
		s->budget = 2 * (s->fanin + 1);
	s->tmp_max = tmp_bound(r, o);
	s->dir = o && o->tmpdir ? o->tmpdir : getenv("TMPDIR");
	if (!s->dir || !*s->dir)
		s->dir = "/tmp";
	s->mem = malloc(s->budget * REC);
	s->ptr = malloc(s->budget * sizeof(*s->ptr));
	s->src = calloc(s->fanin, sizeof(*s->src));
	s->heap = calloc(s->fanin, sizeof(*s->heap));
	if (!s->mem || !s->ptr || !s->src || !s->heap)
		goto oom;
	c = fill(s, r, true);
	if (c == 1 && (c = capr_next(r, &extra)) == 1)
		note(s, &extra);
	if (c != 1) { /* all in memory */
		*rc = c < 0 ? -1 : 0;
		sort_mem(s);
		return s;
	}
	if (!o || !o->path) {
		c = external(s, r, true, &extra, rc);
	} else if (window_exact(s, r, &extra, rc)) {
		/* in order but for what the window mends: read again through it */
		if (!(s->rd = reopen(s, o->path)))
			goto fail;
		free(s->ptr);
		s->ptr = NULL;
		s->nmem = 0;
		c = fill(s, s->rd, false);
		window_begin(s);
		s->st.streamed = true;
		return s;
	} else {
		/* out of order past the window: sorted from a second reading */
		if (!(again = reopen(s, o->path)))
			goto fail;
		s->nmem = 0;
		c = fill(s, again, false);
		if (c == 1 && (c = capr_next(again, &extra)) == 1)
			c = external(s, again, false, &extra, &rc2);
		else if (c != 1) /* fewer than the first time: sort what is there */
			sort_mem(s), c = 0;
		capr_close(again);
	}
	if (c == -ENOMEM)
		goto oom;
	if (c)
		goto fail;
	return s;
oom:
	snprintf(err, errlen, "out of memory sorting the capture's records");
	capr_ordered_close(s);
	return NULL;
fail:
	snprintf(err, errlen, "%s", s->err);
	capr_ordered_close(s);
	return NULL;
}

int capr_next_ordered(struct capr_ordered *s, union abicap_rec *out)
{
	if (s->st.streamed) {
		union abicap_rec in;
		int c = s->rd ? capr_next(s->rd, &in) : 0;

		if (c != 1 && s->rd) {
			capr_close(s->rd);
			s->rd = NULL;
		}
		if (c != 1 && !s->nmem)
			return 0;
		window_step(s, c == 1 ? &in : NULL, out);
		return 1;
	}
	if (s->ptr) {
		if (s->pos == s->nmem)
			return 0;
		*out = *s->ptr[s->pos++];
		return 1;
	}
	return merge_next(s, out);
}

const struct capr_order_stats *capr_ordered_stats(const struct capr_ordered *s)
{
	return &s->st;
}

const char *capr_ordered_error(const struct capr_ordered *s)
{
	return s->err;
}

void capr_ordered_close(struct capr_ordered *s)
{
	if (!s)
		return;
	for (int i = 0; i < 2; i++)
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	free(s->mem);
	free(s->ptr);
	free(s->runs);
	free(s->src);
	free(s->heap);
	capr_close(s->rd);
	free(s);
}
