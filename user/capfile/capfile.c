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
#include "lib/array.h"
#include "capfile/capfile.h"
#include "capfile/capfmt.h"
#include "capfile/capmeta.h"
#include "lib/outfile.h"

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
	uint32_t seq; /* the next block's */
	/*
	 * the first write error: nothing more is written after it, so a block
	 * cut by it stays the file's last and reads as the file cut short
	 */
	int werr;
	uint64_t dropped; /* records lost, as the DROP blocks so far say */
	/* the records' span: first and last time, one past the highest CPU */
	uint64_t first_ns, last_ns;
	uint32_t cpus;
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
	unsigned char hdr[16], crc[4];
	size_t mlen = strlen(meta);

	if (!w || mlen > MAX_META) {
		if (w)
			snprintf(err, errlen, "the capture's metadata is %zu bytes, "
				 "over the %u a capture may hold (a command line "
				 "that long? give a shorter one)", mlen, MAX_META);
		else
			snprintf(err, errlen, "out of memory");
		free(w);
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
	memcpy(hdr, CAPFMT_MAGIC, 8);
	put32(hdr + 8, CAPFILE_VERSION);
	put32(hdr + 12, mlen);
	put32(crc, crc32(crc32(0, hdr + 8, 8), (const unsigned char *)meta, mlen));
	if (write_all(w->fd, hdr, sizeof(hdr)) || write_all(w->fd, meta, mlen) ||
	    write_all(w->fd, crc, sizeof(crc))) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 strerror(errno));
		goto fail;
	}
	w->bytes = sizeof(hdr) + mlen + sizeof(crc);
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

static int flush_names(struct capw *w);

int capw_add_cgroup(struct capw *w, uint64_t id, const char *path)
{
	size_t plen = strnlen(path, CAPFILE_CGROUP_PATH_MAX + 1);
	size_t need = w->names_len + 10 + plen;
	int e;

	if (plen > CAPFILE_CGROUP_PATH_MAX)
		return -ENAMETOOLONG;
	/* a block holds CAPFILE_CHUNK_RAW bytes of names: more go out now */
	if (need > CAPFILE_CHUNK_RAW) {
		e = flush_names(w);
		if (e)
			return e;
		need = 10 + plen;
	}

	e = array_reserve(&w->names, need, &w->names_cap, 1, 4096);
	if (e)
		return e;
	put64(w->names + w->names_len, id);
	w->names[w->names_len + 8] = plen;
	w->names[w->names_len + 9] = plen >> 8;
	memcpy(w->names + w->names_len + 10, path, plen);
	w->names_len = need;
	return 0;
}

/*
 * A block: its header (tag, sequence number, payload length and checksum,
 * the header's own checksum), then the payload, given in two parts.
 */
static int write_block(struct capw *w, const char *tag, const void *a,
		       size_t alen, const void *b, size_t blen)
{
	unsigned char h[BLK_HDR];
	int e;

	if (w->werr)
		return w->werr;
	memcpy(h, tag, 4);
	put32(h + 4, w->seq);
	put32(h + 8, alen + blen);
	/* zlib: crc32(c, NULL, 0) is 0, not c */
	put32(h + 12, blen ? crc32(crc32(0, a, alen), b, blen) :
		      crc32(0, a, alen));
	put32(h + 16, crc32(0, h, 16));
	e = write_all(w->fd, h, sizeof(h));
	if (!e)
		e = write_all(w->fd, a, alen);
	if (!e && blen)
		e = write_all(w->fd, b, blen);
	if (e) {
		w->werr = e;
		return e;
	}
	w->seq++;
	w->bytes += sizeof(h) + alen + blen;
	return 0;
}

/* The cgroup names given since the last block, before the chunk that uses them. */
static int flush_names(struct capw *w)
{
	int e;

	if (!w->names_len)
		return 0;
	e = write_block(w, "CGRP", w->names, w->names_len, NULL, 0);
	if (!e)
		w->names_len = 0;
	return e;
}

static int flush_chunk(struct capw *w)
{
	unsigned char pre[CHNK_PRE];
	size_t z;
	int e;

	e = flush_names(w);
	if (e || !w->nrec)
		return e;
	z = ZSTD_compressCCtx(w->cctx, w->z, MAX_CHUNK_Z, w->raw, w->raw_len, 3);
	if (ZSTD_isError(z))
		return -EIO;
	put64(pre, w->records - w->nrec);
	put64(pre + 8, w->dropped);
	put32(pre + 16, w->raw_len);
	put32(pre + 20, w->nrec);
	e = write_block(w, "CHNK", pre, sizeof(pre), w->z, z);
	if (e)
		return e;
	w->raw_len = 0;
	w->nrec = 0;
	return 0;
}

int capw_add(struct capw *w, const void *rec, size_t len)
{
	struct abicap_hdr h = { 0 };
	int e;

	if (w->raw_len + len > CAPFILE_CHUNK_RAW && (e = flush_chunk(w)))
		return e;
	/* the file's records are little-endian, whatever the host's order */
	record_encode(rec, len, w->raw + w->raw_len, HOST_BIG_ENDIAN);
	w->raw_len += len;
	/* a copy: a record handed over from a byte buffer may be unaligned */
	memcpy(&h, rec, len < sizeof(h) ? len : sizeof(h));
	if (!w->records || h.ts_ns < w->first_ns)
		w->first_ns = h.ts_ns;
	if (h.ts_ns > w->last_ns)
		w->last_ns = h.ts_ns;
	/* as a reader counts them: a CPU past any machine's is none */
	if (h.cpu < CAPTURE_MAX_CPUS && h.cpu >= w->cpus)
		w->cpus = h.cpu + 1;
	w->nrec++;
	w->records++;
	return 0;
}

void capw_span(const struct capw *w, uint64_t *first_ns, uint64_t *last_ns,
	       uint32_t *cpus)
{
	*first_ns = w->first_ns;
	*last_ns = w->last_ns;
	*cpus = w->cpus;
}

int capw_flush(struct capw *w)
{
	return flush_chunk(w);
}

int capw_close(struct capw *w, const char *trailer, char *err, size_t errlen)
{
	unsigned char pre[TRLR_PRE];
	int e = flush_chunk(w);

	put64(pre, w->records);
	put64(pre + 8, w->dropped);
	if (!e && strlen(trailer) > MAX_META)
		e = -EFBIG; /* no reader would take it */
	if (!e)
		e = write_block(w, "TRLR", pre, sizeof(pre), trailer,
				strlen(trailer));
	if (!e && fsync(w->fd))
		e = -errno;
	if (close(w->fd) && !e)
		e = -errno;
	if (e == -EFBIG)
		snprintf(err, errlen, "cannot write the trailer of '%s': over "
			 "%u bytes (what was written before stays readable, cut "
			 "short)", w->path, MAX_META);
	else if (e)
		snprintf(err, errlen, "cannot write '%s': %s (what was written "
			 "before stays readable)", w->path, strerror(-e));
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
		  uint64_t count, int32_t cpu)
{
	unsigned char b[DROP_ENTRY];
	int e;

	put64(b, start_ns);
	put64(b + 8, end_ns);
	put64(b + 16, count);
	put64(b + 24, w->dropped + count);
	put32(b + 32, cpu < 0 ? DROP_ALL_CPUS : (uint32_t)cpu);
	put32(b + 36, 0);
	e = write_block(w, "DROP", b, sizeof(b), NULL, 0);
	if (!e)
		w->dropped += count;
	return e;
}

uint64_t capw_records(const struct capw *w)
{
	return w->records;
}

uint64_t capw_records_written(const struct capw *w)
{
	return w->records - w->nrec;
}

uint64_t capw_bytes(const struct capw *w)
{
	return w->bytes;
}
