// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "capfile.h"
#include "outfile.h"

static const char MAGIC[8] = { 'A', 'B', 'I', 'C', 'A', 'P', '\r', '\n' };
#define MAX_META (1u << 20)
#define MAX_CHUNK_Z (ZSTD_COMPRESSBOUND(CAPFILE_CHUNK_RAW) + 4096)

struct capw {
	int fd;
	char *path;
	struct outfile *of; /* capw_open's: committed by capw_close */
	unsigned char *raw; /* the chunk being filled */
	size_t raw_len;
	uint32_t nrec;
	unsigned char *z;
	ZSTD_CCtx *cctx;
	uint64_t records, bytes;
	unsigned char *names; /* cgroup names for the next CGRP block */
	size_t names_len, names_cap;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

struct capw *capw_open(const char *path, bool force, const char *meta,
		       char *err, size_t errlen)
{
	struct outfile *of = malloc(sizeof(*of));
	struct capw *w;

	if (!of) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (outfile_open(of, path, force, err, errlen)) {
		free(of);
		return NULL;
	}
	w = capw_fdopen(of->fd, path, meta, err, errlen);
	of->fd = -1; /* the writer's now */
	if (!w) {
		outfile_abort(of, false);
		free(of);
		return NULL;
	}
	w->of = of;
	return w;
}

struct capw *capw_fdopen(int fd, const char *path, const char *meta,
			 char *err, size_t errlen)
{
	struct capw *w = calloc(1, sizeof(*w));
	unsigned char hdr[16];
	size_t mlen = strlen(meta);

	if (!w) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	w->fd = fd;
	w->path = strdup(path);
	w->raw = malloc(CAPFILE_CHUNK_RAW);
	w->z = malloc(MAX_CHUNK_Z);
	w->cctx = ZSTD_createCCtx();
	if (!w->path || !w->raw || !w->z || !w->cctx) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memcpy(hdr, MAGIC, 8);
	put32(hdr + 8, CAPFILE_VERSION);
	put32(hdr + 12, mlen);
	if (write_all(w->fd, hdr, sizeof(hdr)) || write_all(w->fd, meta, mlen)) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 strerror(errno));
		goto fail;
	}
	w->bytes = sizeof(hdr) + mlen;
	return w;
fail:
	close(w->fd);
	ZSTD_freeCCtx(w->cctx);
	free(w->raw);
	free(w->z);
	free(w->path);
	free(w);
	return NULL;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

int capw_add_cgroup(struct capw *w, uint64_t id, const char *path)
{
	size_t plen = strnlen(path, CAPFILE_CGROUP_PATH_MAX);
	size_t need = w->names_len + 10 + plen;

	if (need > w->names_cap) {
		size_t cap = w->names_cap ? w->names_cap * 2 : 4096;
		unsigned char *n;

		while (cap < need)
			cap *= 2;
		n = realloc(w->names, cap);
		if (!n)
			return -ENOMEM;
		w->names = n;
		w->names_cap = cap;
	}
	put64(w->names + w->names_len, id);
	w->names[w->names_len + 8] = plen;
	w->names[w->names_len + 9] = plen >> 8;
	memcpy(w->names + w->names_len + 10, path, plen);
	w->names_len = need;
	return 0;
}

/* The cgroup names given since the last block, before the chunk that uses them. */
static int flush_names(struct capw *w)
{
	unsigned char hdr[12];
	int e;

	if (!w->names_len)
		return 0;
	memcpy(hdr, "CGRP", 4);
	put32(hdr + 4, w->names_len);
	put32(hdr + 8, crc32(0, w->names, w->names_len));
	e = write_all(w->fd, hdr, sizeof(hdr));
	if (!e)
		e = write_all(w->fd, w->names, w->names_len);
	if (e)
		return e;
	w->bytes += sizeof(hdr) + w->names_len;
	w->names_len = 0;
	return 0;
}

static int flush_chunk(struct capw *w)
{
	unsigned char hdr[20];
	size_t z;
	int e;

	e = flush_names(w);
	if (e || !w->nrec)
		return e;
	z = ZSTD_compressCCtx(w->cctx, w->z, MAX_CHUNK_Z, w->raw, w->raw_len, 3);
	if (ZSTD_isError(z))
		return -EIO;
	memcpy(hdr, "CHNK", 4);
	put32(hdr + 4, z);
	put32(hdr + 8, w->raw_len);
	put32(hdr + 12, w->nrec);
	put32(hdr + 16, crc32(0, w->z, z));
	e = write_all(w->fd, hdr, sizeof(hdr));
	if (!e)
		e = write_all(w->fd, w->z, z);
	if (e)
		return e;
	w->bytes += sizeof(hdr) + z;
	w->raw_len = 0;
	w->nrec = 0;
	return 0;
}

int capw_add(struct capw *w, const void *rec, size_t len)
{
	int e;

	if (w->raw_len + len > CAPFILE_CHUNK_RAW && (e = flush_chunk(w)))
		return e;
	memcpy(w->raw + w->raw_len, rec, len);
	w->raw_len += len;
	w->nrec++;
	w->records++;
	return 0;
}

int capw_close(struct capw *w, const char *trailer, char *err, size_t errlen)
{
	unsigned char hdr[8];
	int e = flush_chunk(w);
	size_t tlen = strlen(trailer);

	memcpy(hdr, "TRLR", 4);
	put32(hdr + 4, tlen);
	if (!e)
		e = write_all(w->fd, hdr, sizeof(hdr));
	if (!e)
		e = write_all(w->fd, trailer, tlen);
	if (!e && fsync(w->fd))
		e = -errno;
	if (close(w->fd) && !e)
		e = -errno;
	if (e)
		snprintf(err, errlen, "cannot write '%s': %s (what was written "
			 "before stays readable)", w->path, strerror(-e));
	else
		w->bytes += sizeof(hdr) + tlen;
	if (w->of && e)
		outfile_abort(w->of, true);
	else if (w->of && outfile_commit(w->of, err, errlen))
		e = -EIO;
	free(w->of);
	ZSTD_freeCCtx(w->cctx);
	free(w->raw);
	free(w->z);
	free(w->path);
	free(w->names);
	free(w);
	return e;
}

int capw_add_drop(struct capw *w, uint64_t start_ns, uint64_t end_ns,
		  uint64_t count)
{
	unsigned char b[12 + 24];
	int e;

	memcpy(b, "DROP", 4);
	put32(b + 4, 24);
	put64(b + 12, start_ns);
	put64(b + 20, end_ns);
	put64(b + 28, count);
	put32(b + 8, crc32(0, b + 12, 24));
	e = write_all(w->fd, b, sizeof(b));
	if (!e)
		w->bytes += sizeof(b);
	return e;
}

uint64_t capw_records(const struct capw *w)
{
	return w->records;
}

uint64_t capw_bytes(const struct capw *w)
{
	return w->bytes;
}

struct capr {
	FILE *f;
	char *meta;
	char *trailer;
	unsigned char *z, *raw;
	size_t raw_len, pos;
	bool end;
	char error[256];
	struct capfile_cgroup *cg; /* from the CGRP blocks read so far */
	size_t ncg, cg_cap;
	unsigned int version;
	struct capfile_drop *drops;
	size_t ndrops, drops_cap;
	bool drops_scanned; /* all of them found at open */
};

static int add_drop(struct capr *r, const unsigned char *p)
{
	if (r->ndrops == r->drops_cap) {
		size_t cap = r->drops_cap ? r->drops_cap * 2 : 64;
		struct capfile_drop *d = realloc(r->drops, cap * sizeof(*d));

		if (!d)
			return -1;
		r->drops = d;
		r->drops_cap = cap;
	}
	r->drops[r->ndrops++] = (struct capfile_drop){ .start_ns = get64(p),
		.end_ns = get64(p + 8), .count = get64(p + 16) };
	return 0;
}

/*
 * A DROP block after its 8-byte header (in buf, up to CAPFILE_CHUNK_RAW):
 * 1 read (kept when keep), 0 cut short, -1 damaged (r->error says why).
 */
static int read_drops(struct capr *r, uint32_t len, unsigned char *buf,
		      bool keep)
{
	unsigned char crc[4];

	if (len % 24 || len > CAPFILE_CHUNK_RAW) {
		snprintf(r->error, sizeof(r->error), "a drop block is damaged "
			 "(size out of range)");
		return -1;
	}
	if (fread(crc, 1, 4, r->f) != 4 || fread(buf, 1, len, r->f) != len)
		return 0;
	if (crc32(0, buf, len) != get32(crc)) {
		snprintf(r->error, sizeof(r->error), "a drop block fails its "
			 "checksum");
		return -1;
	}
	for (uint32_t off = 0; keep && off < len; off += 24)
		if (add_drop(r, buf + off)) {
			snprintf(r->error, sizeof(r->error), "out of memory");
			return -1;
		}
	return 1;
}

/*
 * Every DROP block of the file, skipping over the rest, then back to where
 * the records start. Stops quietly at anything odd: reading the records
 * reports it there.
 */
static void scan_drops(struct capr *r)
{
	long start = ftell(r->f);
	unsigned char h[20];

	if (start < 0)
		return;
	for (;;) {
		uint32_t len;

		if (fread(h, 1, 8, r->f) != 8)
			break;
		len = get32(h + 4);
		if (!memcmp(h, "CHNK", 4)) {
			if (fread(h + 8, 1, 12, r->f) != 12 || len > MAX_CHUNK_Z ||
			    fseek(r->f, len, SEEK_CUR))
				break;
		} else if (!memcmp(h, "CGRP", 4)) {
			if (len > CAPFILE_CHUNK_RAW ||
			    fseek(r->f, 4 + (long)len, SEEK_CUR))
				break;
		} else if (!memcmp(h, "DROP", 4)) {
			if (read_drops(r, len, r->raw, true) <= 0)
				break;
		} else {
			break;
		}
	}
	r->error[0] = 0;
	clearerr(r->f);
	if (!fseek(r->f, start, SEEK_SET))
		r->drops_scanned = true;
	else
		r->ndrops = 0; /* read them with the records instead */
}

struct capr *capr_open(const char *path, char *err, size_t errlen)
{
	struct capr *r = calloc(1, sizeof(*r));
	unsigned char hdr[16];
	uint32_t ver, mlen;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->f = fopen(path, "rb");
	if (!r->f) {
		snprintf(err, errlen, "cannot open capture '%s': %s", path,
			 strerror(errno));
		free(r);
		return NULL;
	}
	if (fread(hdr, 1, sizeof(hdr), r->f) != sizeof(hdr) ||
	    memcmp(hdr, MAGIC, 8)) {
		snprintf(err, errlen, "'%s' is not an abicap capture file "
			 "(record one with abicap record -o FILE)", path);
		goto fail;
	}
	ver = get32(hdr + 8);
	mlen = get32(hdr + 12);
	if (ver < 1 || ver > CAPFILE_VERSION) {
		snprintf(err, errlen, "'%s' is capture format version %u; this "
			 "abicap reads versions 1 to %d (a newer abicap wrote it)",
			 path, ver, CAPFILE_VERSION);
		goto fail;
	}
	if (mlen > MAX_META || !(r->meta = calloc(1, mlen + 1)) ||
	    fread(r->meta, 1, mlen, r->f) != mlen) {
		snprintf(err, errlen, "'%s': the header is cut short or damaged",
			 path);
		goto fail;
	}
	r->z = malloc(MAX_CHUNK_Z);
	r->raw = malloc(CAPFILE_CHUNK_RAW);
	if (!r->z || !r->raw) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	r->version = ver;
	if (ver >= 3)
		scan_drops(r);
	return r;
fail:
	capr_close(r);
	return NULL;
}

static int add_name(struct capr *r, uint64_t id, const unsigned char *p,
		    size_t len)
{
	struct capfile_cgroup *c;

	if (r->ncg == r->cg_cap) {
		size_t cap = r->cg_cap ? r->cg_cap * 2 : 64;

		c = realloc(r->cg, cap * sizeof(*c));
		if (!c)
			return -1;
		r->cg = c;
		r->cg_cap = cap;
	}
	c = &r->cg[r->ncg];
	c->id = id;
	c->path = malloc(len + 1);
	if (!c->path)
		return -1;
	memcpy(c->path, p, len);
	c->path[len] = 0;
	r->ncg++;
	return 0;
}

/* A CGRP block (its 8-byte header read): 1 read, 0 cut short, -1 damaged. */
static int read_names(struct capr *r, uint32_t len)
{
	unsigned char crc[4], *b;
	size_t off = 0;
	int ret = 1;

	if (len > CAPFILE_CHUNK_RAW) {
		snprintf(r->error, sizeof(r->error), "a cgroup block is damaged "
			 "(size out of range)");
		return -1;
	}
	if (fread(crc, 1, 4, r->f) != 4 || fread(r->raw, 1, len, r->f) != len)
		return 0;
	b = r->raw;
	if (crc32(0, b, len) != get32(crc)) {
		snprintf(r->error, sizeof(r->error), "a cgroup block fails its "
			 "checksum");
		return -1;
	}
	while (ret > 0 && off < len) {
		size_t plen;

		if (len - off < 10 ||
		    (plen = b[off + 8] | b[off + 9] << 8) > len - off - 10) {
			snprintf(r->error, sizeof(r->error), "a cgroup block is "
				 "damaged (an entry overruns it)");
			return -1;
		}
		if (add_name(r, get64(b + off), b + off + 10, plen)) {
			snprintf(r->error, sizeof(r->error), "out of memory");
			return -1;
		}
		off += 10 + plen;
	}
	return ret;
}

/* Read the next chunk or the trailer: 1 chunk, 0 end, -1 damaged. */
static int next_chunk(struct capr *r)
{
	unsigned char h[20];
	uint32_t zlen, raw_len, crc;
	size_t n;
	int c;

again:
	n = fread(h, 1, 8, r->f);
	if (n == 0)
		return 0;
	if (n == 8 && !memcmp(h, "CGRP", 4)) {
		c = read_names(r, get32(h + 4));
		if (c <= 0)
			return c;
		goto again;
	}
	if (n == 8 && !memcmp(h, "DROP", 4)) {
		c = read_drops(r, get32(h + 4), r->raw, !r->drops_scanned);
		if (c <= 0)
			return c;
		goto again;
	}
	if (n == 8 && !memcmp(h, "TRLR", 4)) {
		uint32_t tlen = get32(h + 4);

		if (tlen > MAX_META || !(r->trailer = calloc(1, tlen + 1)) ||
		    fread(r->trailer, 1, tlen, r->f) != tlen) {
			free(r->trailer);
			r->trailer = NULL;
		}
		return 0;
	}
	if (n == 8 && memcmp(h, "CHNK", 4)) {
		snprintf(r->error, sizeof(r->error), "a block that is neither a "
			 "chunk, cgroup names, drops nor the trailer: the file "
			 "is damaged");
		return -1;
	}
	if (n != 8 || fread(h + 8, 1, 12, r->f) != 12)
		return 0; /* a chunk header cut short: the end of what is there */
	zlen = get32(h + 4);
	raw_len = get32(h + 8);
	crc = get32(h + 16);
	if (zlen > MAX_CHUNK_Z || raw_len > CAPFILE_CHUNK_RAW) {
		snprintf(r->error, sizeof(r->error), "a chunk header is damaged "
			 "(sizes out of range)");
		return -1;
	}
	if (fread(r->z, 1, zlen, r->f) != zlen)
		return 0; /* cut short inside the chunk */
	if (crc32(0, r->z, zlen) != crc) {
		snprintf(r->error, sizeof(r->error), "a chunk fails its checksum");
		return -1;
	}
	n = ZSTD_decompress(r->raw, CAPFILE_CHUNK_RAW, r->z, zlen);
	if (ZSTD_isError(n) || n != raw_len) {
		snprintf(r->error, sizeof(r->error), "a chunk does not "
			 "decompress");
		return -1;
	}
	r->raw_len = n;
	r->pos = 0;
	return 1;
}

int capr_next(struct capr *r, union abicap_rec *out)
{
	struct abicap_hdr h;
	int c;

	while (!r->end && r->pos + sizeof(h) > r->raw_len) {
		c = next_chunk(r);
		if (c < 0) {
			r->end = true;
			return -1;
		}
		if (!c)
			r->end = true;
	}
	if (r->end)
		return 0;
	memcpy(&h, r->raw + r->pos, sizeof(h));
	if (record_decode(r->raw + r->pos, r->raw_len - r->pos, out) != REC_OK) {
		snprintf(r->error, sizeof(r->error), "a record in a chunk is "
			 "damaged");
		r->end = true;
		return -1;
	}
	r->pos += h.size;
	return 1;
}

const char *capr_meta(const struct capr *r)
{
	return r->meta;
}

const char *capr_trailer(const struct capr *r)
{
	return r->trailer;
}

bool capr_cut_short(const struct capr *r)
{
	return r->end && !r->trailer && !r->error[0];
}

const char *capr_error(const struct capr *r)
{
	return r->error;
}

void capr_close(struct capr *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->meta);
	free(r->trailer);
	free(r->z);
	free(r->raw);
	for (size_t i = 0; i < r->ncg; i++)
		free(r->cg[i].path);
	free(r->cg);
	free(r->drops);
	free(r);
}

const struct capfile_drop *capr_drops(const struct capr *r, size_t *n)
{
	*n = r->ndrops;
	return r->drops;
}

unsigned int capr_version(const struct capr *r)
{
	return r->version;
}

const struct capfile_cgroup *capr_cgroups(const struct capr *r, size_t *n)
{
	*n = r->ncg;
	return r->cg;
}

static int cmp_ts(const void *a, const void *b)
{
	const union abicap_rec *x = a, *y = b;

	return x->hdr.ts_ns < y->hdr.ts_ns ? -1 : x->hdr.ts_ns > y->hdr.ts_ns;
}

/*
 * Records come out of one ring buffer almost in time order (a record's time
 * is taken before its slot is reserved, so CPUs interleave by a few places):
 * an insertion sort moves the few that are out of place, in one pass. Past a
 * budget of n moves, false: the order is not nearly sorted, use qsort.
 */
static bool sort_nearly_sorted(union abicap_rec *v, size_t n)
{
	size_t moves = 0;

	for (size_t i = 1; i < n; i++) {
		union abicap_rec tmp;
		size_t j = i;

		if (v[i].hdr.ts_ns >= v[i - 1].hdr.ts_ns)
			continue;
		while (j > 0 && v[j - 1].hdr.ts_ns > v[i].hdr.ts_ns)
			j--;
		moves += i - j;
		if (moves > n)
			return false;
		tmp = v[i];
		memmove(&v[j + 1], &v[j], (i - j) * sizeof(*v));
		v[j] = tmp;
	}
	return true;
}

int capr_load(struct capr *r, union abicap_rec **recs, size_t *n)
{
	return capr_load_max(r, recs, n, SIZE_MAX);
}

int capr_load_max(struct capr *r, union abicap_rec **recs, size_t *n,
		  size_t max)
{
	size_t cap = 0;
	int c;

	*recs = NULL;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			union abicap_rec *nr;

			cap = cap ? cap * 2 : 65536;
			if (cap > max)
				cap = max + 1; /* room to see one too many */
			nr = realloc(*recs, cap * sizeof(**recs));
			if (!nr) {
				free(*recs);
				*recs = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*recs = nr;
		}
		c = capr_next(r, &(*recs)[*n]);
		if (c != 1)
			break;
		if (++(*n) > max) {
			free(*recs);
			*recs = NULL;
			*n = 0;
			return -E2BIG;
		}
	}
	if (!sort_nearly_sorted(*recs, *n))
		qsort(*recs, *n, sizeof(**recs), cmp_ts);
	return c < 0 ? -1 : 0;
}

/* The window of capr_each(): a binary min-heap on (time, order read). */
struct held {
	union abicap_rec rec;
	uint64_t seq;
};

static bool held_before(const struct held *a, const struct held *b)
{
	return a->rec.hdr.ts_ns < b->rec.hdr.ts_ns ||
	       (a->rec.hdr.ts_ns == b->rec.hdr.ts_ns && a->seq < b->seq);
}

static void heap_up(struct held *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		struct held t;

		if (!held_before(&h[i], &h[p]))
			break;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

static void heap_down(struct held *h, size_t n)
{
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct held t;

		if (l < n && held_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && held_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Pass the oldest held record on: false when cb says stop. */
static bool pass_oldest(struct held *h, size_t *n, uint64_t *passed,
			capr_cb cb, void *ctx)
{
	int stop;

	*passed = h[0].rec.hdr.ts_ns;
	stop = cb(ctx, &h[0].rec);
	h[0] = h[--(*n)];
	heap_down(h, *n);
	return !stop;
}

int capr_each_window(struct capr *r, struct capr_window *w, capr_cb cb,
		     void *ctx)
{
	size_t max = w->max ? w->max : CAPR_WINDOW_MAX;
	struct held *h = NULL;
	size_t n = 0, cap = 0;
	uint64_t seq = 0, newest = 0, passed = 0;
	bool go = true;
	int c;

	w->late = 0;
	w->peak = 0;
	for (;;) {
		/* full: the oldest goes on, whatever the times */
		if (n == max && !pass_oldest(h, &n, &passed, cb, ctx)) {
			go = false;
			c = 0;
			break;
		}
		if (n == cap) {
			struct held *nh;

			cap = cap ? cap * 2 : 4096;
			if (cap > max)
				cap = max;
			nh = realloc(h, cap * sizeof(*h));
			if (!nh) {
				free(h);
				return -ENOMEM;
			}
			h = nh;
		}
		c = capr_next(r, &h[n].rec);
		if (c != 1)
			break;
		h[n].seq = seq++;
		if (h[n].rec.hdr.ts_ns > newest)
			newest = h[n].rec.hdr.ts_ns;
		if (passed && h[n].rec.hdr.ts_ns < passed)
			w->late++; /* older than one passed on: on as it is */
		heap_up(h, n++);
		if (n > w->peak)
			w->peak = n;
		/* pass on what no record to come should precede */
		while (go && n && h[0].rec.hdr.ts_ns + w->ns < newest)
			go = pass_oldest(h, &n, &passed, cb, ctx);
		if (!go)
			break;
	}
	while (go && n)
		go = pass_oldest(h, &n, &passed, cb, ctx);
	free(h);
	return c < 0 ? -1 : 0;
}

int capr_each(struct capr *r, uint64_t window_ns, capr_cb cb, void *ctx,
	      uint64_t *late)
{
	struct capr_window w = { .ns = window_ns };
	int ret = capr_each_window(r, &w, cb, ctx);

	*late = w.late;
	return ret;
}
