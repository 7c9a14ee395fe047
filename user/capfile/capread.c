// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reading a capture file (capfile.h): the header, then its blocks. A
 * version 4 file is walked once at open, checking every block's checksums
 * and sequence number (what is damaged, missing, doubled or out of place,
 * the drop windows, the trailer), then again for the records, skipping
 * what the first walk skipped. Versions 1-3 read as they always did: up to
 * the first damaged block.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
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
#include "capfile/seqset.h"

struct capr {
	FILE *f;
	uint64_t size; /* at open */
	char *meta;
	char *trailer;
	bool trailer_bad; /* not a JSON object: damage, and not handed out */
	unsigned char *z, *raw;
	size_t raw_len, pos;
	bool end;
	char error[256];
	struct capfile_cgroup *cg; /* from the CGRP blocks read so far */
	size_t ncg, cg_cap;
	/* their paths, packed in blocks (a malloc each cost 2.5 times more) */
	struct name_block {
		struct name_block *next;
		size_t used;
		char data[];
	} *names;
	unsigned int version;
	struct capfile_drop *drops;
	size_t ndrops, drops_cap;
	bool drops_scanned; /* all of them found at open */
	/* version 4 */
	unsigned char *blk; /* a block's payload */
	uint64_t start, off; /* the first block's offset, the next one's */
	struct seqset seen; /* the blocks read intact */
	bool any; /* a block read yet */
	uint32_t max_seq; /* the highest sequence number read */
	uint32_t chunk_seq; /* the chunk whose records are being read */
	uint64_t chunk_off;
	struct capr_integrity ig;
};

enum { T_CGRP, T_DROP, T_CHNK, T_TRLR, NTAGS };
static const char TAG[NTAGS][5] = { "CGRP", "DROP", "CHNK", "TRLR" };
static const char *const PART[NTAGS] = { "cgroup block", "drop block", "chunk",
					 "trailer" };
static const uint32_t LEN_MIN[NTAGS] = { 10, DROP_ENTRY_V4, CHNK_PRE, TRLR_PRE };
static const uint32_t LEN_MAX[NTAGS] = { CAPFILE_CHUNK_RAW, CAPFILE_CHUNK_RAW,
					 BLK_MAX, MAX_META + TRLR_PRE };

struct blk {
	uint64_t off;
	uint32_t seq, len;
	int tag;
};

typedef unsigned long long ull;

/* A problem found, with the byte where its part starts. */
__attribute__((format(printf, 3, 4)))
static void note(struct capr *r, uint64_t off, const char *fmt, ...)
{
	struct capr_integrity *ig = &r->ig;
	va_list ap;

	if (ig->nproblems < CAPR_PROBLEMS_KEPT) {
		ig->problem[ig->nproblems].offset = off;
		va_start(ap, fmt);
		vsnprintf(ig->problem[ig->nproblems].what,
			  sizeof(ig->problem[0].what), fmt, ap);
		va_end(ap);
	}
	ig->nproblems++;
}

static int pread_full(struct capr *r, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fileno(r->f), p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* A block header whose own checksum holds, with a length its tag allows. */
static bool blk_header(const unsigned char *h, struct blk *b)
{
	int t = 0;

	while (t < NTAGS && memcmp(h, TAG[t], 4))
		t++;
	if (t == NTAGS || crc32(0, h, 16) != get32(h + 16))
		return false;
	b->tag = t;
	b->seq = get32(h + 4);
	b->len = get32(h + 8);
	return b->len >= LEN_MIN[t] && b->len <= LEN_MAX[t];
}

/* The next intact block header from byte from on: its offset, or the size. */
static uint64_t resync(struct capr *r, uint64_t from)
{
	const size_t win = 65536; /* in r->raw, free between chunks */
	uint64_t p = from;

	while (p + BLK_HDR <= r->size) {
		size_t n = r->size - p < win ? r->size - p : win;
		struct blk b;

		if (pread_full(r, r->raw, n, p))
			return r->size;
		for (size_t i = 0; i + BLK_HDR <= n; i++)
			if ((r->raw[i] == 'C' || r->raw[i] == 'D' ||
			     r->raw[i] == 'T') && blk_header(r->raw + i, &b))
				return p + i;
		p += n - BLK_HDR + 1;
	}
	return r->size;
}

/* What the walk at open gathers besides r->ig. */
struct scan {
	bool cut; /* the file ends inside a block */
	bool damage_at_end; /* the last bytes are a damaged part */
	bool trailer_damaged; /* a trailer failing its checksum */
	bool have_trailer, trailer_seq_known;
	uint32_t trailer_seq;
	uint64_t trailer_off, trailer_records, trailer_dropped;
	bool have_carrier; /* a block saying how many were lost so far */
	uint32_t carrier_seq;
	uint64_t dropped_max; /* the most any block says were lost */
	uint64_t chunk_end; /* the most records any chunk says came before its end */
	struct seqset bad; /* damaged blocks whose header said their number */
	struct gap {
		uint32_t from, to; /* missing when a block came: from..to */
		uint64_t off; /* where that block is */
	} *gaps;
	size_t ngaps, gaps_cap;
};

static void note_gap(struct scan *sc, uint32_t from, uint32_t to, uint64_t off)
{
	if (array_room(&sc->gaps, sc->ngaps, &sc->gaps_cap, sizeof(*sc->gaps),
		       16))
		return; /* still counted as missing, only not placed */
	sc->gaps[sc->ngaps++] = (struct gap){ from, to, off };
}

/*
 * The next block that is intact and not read before, its payload in
 * r->blk: 1, 0 at the end, -ENOMEM. What is skipped is noted when sc (the
 * walk at open); the walk for the records skips the same.
 */
static int walk(struct capr *r, struct blk *b, struct scan *sc)
{
	unsigned char h[BLK_HDR];
	int c;

	for (;;) {
		uint64_t at = r->off;

		if (at >= r->size)
			return 0;
		if (r->size - at < BLK_HDR || pread_full(r, h, BLK_HDR, at)) {
			if (sc)
				sc->cut = true;
			r->off = r->size;
			return 0;
		}
		if (!blk_header(h, b)) {
			uint64_t next = resync(r, at + 1);

			if (sc) {
				note(r, at, "bytes %llu to %llu are no intact "
				     "block (a damaged block header, or bytes "
				     "that never were one): skipped%s", (ull)at,
				     (ull)next - 1, next == r->size ?
				     " to the end of the file" : "");
				r->ig.damaged++;
				r->ig.skipped_bytes += next - at;
				sc->damage_at_end = next == r->size;
			}
			r->off = next;
			continue;
		}
		b->off = at;
		if (b->len > r->size - at - BLK_HDR ||
		    pread_full(r, r->blk, b->len, at + BLK_HDR)) {
			/* its header intact: the file ends inside it */
			if (sc)
				sc->cut = true;
			r->off = r->size;
			return 0;
		}
		r->off = at + BLK_HDR + b->len;
		if (crc32(0, r->blk, b->len) != get32(h + 12)) {
			if (sc) {
				note(r, at, "%s #%u at byte %llu (%u bytes) fails "
				     "its checksum: skipped", PART[b->tag], b->seq,
				     (ull)at, b->len);
				r->ig.damaged++;
				r->ig.skipped_bytes += BLK_HDR + b->len;
				sc->damage_at_end = r->off == r->size;
				if (b->tag == T_TRLR) {
					sc->trailer_damaged = true;
					sc->trailer_seq_known = true;
					sc->trailer_seq = b->seq;
				} else if (seqset_add(&sc->bad, b->seq) < 0) {
					return -ENOMEM;
				}
			}
			continue;
		}
		c = seqset_add(&r->seen, b->seq);
		if (c < 0)
			return -ENOMEM;
		if (!c) {
			if (sc) {
				note(r, at, "%s #%u at byte %llu is a duplicate of "
				     "one read before: skipped", PART[b->tag],
				     b->seq, (ull)at);
				r->ig.duplicated++;
				r->ig.skipped_bytes += BLK_HDR + b->len;
			}
			continue;
		}
		if (sc && r->any && b->seq < r->max_seq) {
			note(r, at, "%s #%u at byte %llu is out of order (it "
			     "comes after #%u): read where it is", PART[b->tag],
			     b->seq, (ull)at, r->max_seq);
			r->ig.reordered++;
		}
		if (sc && b->seq > (r->any ? r->max_seq + 1 : 0))
			note_gap(sc, r->any ? r->max_seq + 1 : 0, b->seq - 1, at);
		if (!r->any || b->seq > r->max_seq)
			r->max_seq = b->seq;
		r->any = true;
		if (sc) {
			r->ig.parts++;
			sc->damage_at_end = false;
		}
		return 1;
	}
}

/* A drop entry of the file's version (the CPU from format 5): 0, -1 no memory. */
static int add_drop(struct capr *r, const unsigned char *p)
{
	uint32_t cpu = r->version >= 5 ? get32(p + 32) : DROP_ALL_CPUS;

	if (array_room(&r->drops, r->ndrops, &r->drops_cap, sizeof(*r->drops),
		       64))
		return -1;
	r->drops[r->ndrops++] = (struct capfile_drop){ .start_ns = get64(p),
		.end_ns = get64(p + 8), .count = get64(p + 16),
		.cpu = cpu < CAPTURE_MAX_CPUS ? (int32_t)cpu : -1 };
	return 0;
}

/* A block that says how many records were lost before it. */
static void carrier(struct scan *sc, uint32_t seq, uint64_t dropped)
{
	if (!sc->have_carrier || seq > sc->carrier_seq) {
		sc->have_carrier = true;
		sc->carrier_seq = seq;
	}
	if (dropped > sc->dropped_max)
		sc->dropped_max = dropped;
}

/* Whether text (a header's metadata, a trailer) is one JSON object. */
static bool json_object_text(const char *text)
{
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	bool ok = json_is_object(j);

	json_decref(j);
	return ok;
}

/*
 * A trailer whose checksums hold but whose text is not a JSON object
 * (altered, or written by something else): damage, named once, its counts
 * not handed out (capr_trailer NULL); the file is not cut short.
 */
static void trailer_text_check(struct capr *r, uint64_t off)
{
	if (json_object_text(r->trailer))
		return;
	note(r, off, "the trailer at byte %llu is not a JSON object: its "
	     "counts are not used", (ull)off);
	r->ig.damaged++;
	r->trailer_bad = true;
}

static uint32_t drop_entry(const struct capr *r)
{
	return r->version >= 5 ? DROP_ENTRY : DROP_ENTRY_V4;
}

/* Format 5: every entry's CPU one a capture can have, or all; its pad 0. */
static bool cpus_ok(const struct capr *r, const unsigned char *p, uint32_t len)
{
	for (uint32_t off = 0; r->version >= 5 && off < len; off += DROP_ENTRY) {
		uint32_t cpu = get32(p + off + 32);

		if ((cpu >= CAPTURE_MAX_CPUS && cpu != DROP_ALL_CPUS) ||
		    get32(p + off + 36))
			return false;
	}
	return true;
}

static int scan_block(struct capr *r, const struct blk *b, struct scan *sc)
{
	const unsigned char *p = r->blk;

	switch (b->tag) {
	case T_DROP:
		if (b->len % drop_entry(r) || !cpus_ok(r, p, b->len)) {
			note(r, b->off, "drop block #%u at byte %llu is malformed "
			     "(%u bytes, not whole entries, or a CPU no capture "
			     "has): left out", b->seq, (ull)b->off, b->len);
			r->ig.damaged++;
			return 0;
		}
		for (uint32_t off = 0; off < b->len; off += drop_entry(r)) {
			if (add_drop(r, p + off))
				return -ENOMEM;
			carrier(sc, b->seq, get64(p + off + 24));
		}
		break;
	case T_CHNK:
		if (get64(p) + get32(p + 20) > sc->chunk_end)
			sc->chunk_end = get64(p) + get32(p + 20);
		carrier(sc, b->seq, get64(p + 8));
		break;
	case T_TRLR:
		if (sc->have_trailer) {
			note(r, b->off, "a second trailer (#%u) at byte %llu: "
			     "left out", b->seq, (ull)b->off);
			r->ig.damaged++;
			break;
		}
		r->trailer = calloc(1, b->len - TRLR_PRE + 1);
		if (!r->trailer)
			return -ENOMEM;
		memcpy(r->trailer, p + TRLR_PRE, b->len - TRLR_PRE);
		sc->have_trailer = true;
		sc->trailer_seq = b->seq;
		sc->trailer_off = b->off;
		sc->trailer_records = get64(p);
		sc->trailer_dropped = get64(p + 8);
		trailer_text_check(r, b->off);
		break;
	}
	return 0;
}

/* Of the damaged blocks with a known number below end, those never read intact. */
static uint64_t bad_not_seen(struct capr *r, const struct scan *sc,
			     uint64_t end)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sc->bad.n; i++)
		for (uint64_t s = sc->bad.run[i].lo;
		     s <= sc->bad.run[i].hi && s < end; s++)
			n += !seqset_has(&r->seen, s);
	return n;
}

/*
 * The trailer's totals against what the file holds (issue 23: a trailer
 * with valid checksums claiming 10^12 records beside 3 was believed). The
 * writer puts the last chunk and drop block just before the trailer, with
 * the same running totals: in a file with nothing missing or damaged they
 * are equal, and anywhere the chunks read prove a floor. A mismatch is
 * damage, the chunks' count is reported, and drops never lower.
 */
static void trailer_check(struct capr *r, const struct scan *sc)
{
	struct capr_integrity *ig = &r->ig;
	bool whole = !ig->missing && !ig->damaged;

	if (sc->trailer_records < sc->chunk_end ||
	    (whole && sc->trailer_records != sc->chunk_end)) {
		note(r, sc->trailer_off, "the trailer counts %llu records, the "
		     "chunks %llu: the file is inconsistent (altered?), the "
		     "chunks' count is reported", (ull)sc->trailer_records,
		     (ull)sc->chunk_end);
		ig->damaged++;
		ig->records_expected = sc->chunk_end;
		ig->records_exact = false;
	}
	if (whole && sc->trailer_dropped > sc->dropped_max) {
		note(r, sc->trailer_off, "the trailer counts %llu records lost, "
		     "the drop blocks and chunks %llu: the file is inconsistent "
		     "(altered?), the larger is reported",
		     (ull)sc->trailer_dropped, (ull)sc->dropped_max);
		ig->damaged++;
		ig->dropped_exact = false;
	}
}

/* From what the walk found: what is missing, the trailer, records and drops. */
static void scan_verdict(struct capr *r, struct scan *sc)
{
	struct capr_integrity *ig = &r->ig;
	uint64_t total = r->any ? (uint64_t)r->max_seq + 1 : 0;

	if (sc->have_trailer) {
		uint64_t after = seqset_count_below(&r->seen, total) -
				 seqset_count_below(&r->seen,
						    (uint64_t)sc->trailer_seq + 1);

		total = (uint64_t)sc->trailer_seq + 1;
		ig->trailer = r->trailer_bad ? CAPR_TRAILER_DAMAGED :
			      CAPR_TRAILER_INTACT;
		ig->records_expected = sc->trailer_records;
		ig->records_exact = true;
		ig->dropped = sc->trailer_dropped;
		ig->dropped_exact = true;
		if (sc->dropped_max > sc->trailer_dropped) {
			note(r, sc->trailer_off, "the trailer counts %llu records "
			     "lost, the drop blocks and chunks %llu: the file "
			     "is inconsistent, the larger is reported",
			     (ull)sc->trailer_dropped, (ull)sc->dropped_max);
			ig->damaged++;
			ig->dropped = sc->dropped_max;
			ig->dropped_exact = false;
		}
		if (after) {
			note(r, sc->trailer_off, "%llu parts are numbered after "
			     "the trailer (#%u): the file was altered",
			     (ull)after, sc->trailer_seq);
			ig->reordered += after;
		}
	} else {
		if (sc->trailer_seq_known && sc->trailer_seq >= total)
			total = (uint64_t)sc->trailer_seq + 1;
		ig->trailer = sc->trailer_damaged || sc->damage_at_end ?
			      CAPR_TRAILER_DAMAGED : CAPR_TRAILER_MISSING;
		ig->records_expected = sc->chunk_end;
		ig->dropped = sc->dropped_max;
		/*
		 * The trailer damaged but numbered, and the block before it
		 * read, which says how many were lost before the trailer
		 */
		ig->dropped_exact = sc->trailer_seq_known && sc->have_carrier &&
			sc->carrier_seq + 1 == sc->trailer_seq &&
			seqset_count_below(&r->seen, sc->trailer_seq) ==
			sc->trailer_seq;
	}
	ig->missing = total - seqset_count_below(&r->seen, total) -
		      bad_not_seen(r, sc, total);
	for (size_t i = 0; ig->missing && i < sc->ngaps; i++) {
		uint64_t from = sc->gaps[i].from, to = (uint64_t)sc->gaps[i].to + 1;
		uint64_t n = to - from, found;

		/* what came later (out of order, or damaged) is not missing */
		found = seqset_count_below(&r->seen, to) -
			seqset_count_below(&r->seen, from) +
			seqset_count_below(&sc->bad, to) -
			seqset_count_below(&sc->bad, from);
		n = found < n ? n - found : 0;
		if (n)
			note(r, sc->gaps[i].off, "%llu parts (#%u to #%u) are "
			     "missing before byte %llu", (ull)n, sc->gaps[i].from,
			     sc->gaps[i].to, (ull)sc->gaps[i].off);
	}
	if (ig->trailer == CAPR_TRAILER_DAMAGED && !sc->trailer_damaged &&
	    !r->trailer_bad)
		note(r, r->size, "no intact trailer: the end of the file is "
		     "damaged");
	if (sc->have_trailer)
		trailer_check(r, sc);
}

/* Every block once at open: r->ig, the drop windows, the trailer. */
static int scan_v4(struct capr *r)
{
	struct scan sc = { 0 };
	struct blk b;
	int c;

	r->ig.verified = true;
	while ((c = walk(r, &b, &sc)) == 1)
		if ((c = scan_block(r, &b, &sc)) < 0)
			break;
	if (!c)
		scan_verdict(r, &sc);
	seqset_clear(&sc.bad);
	free(sc.gaps);
	seqset_clear(&r->seen);
	r->any = false;
	r->max_seq = 0;
	r->off = r->start;
	r->drops_scanned = true;
	return c;
}

/*
 * A DROP block of versions 1-3 after its 8-byte header (in buf, up to
 * CAPFILE_CHUNK_RAW): 1 read (kept when keep), 0 cut short, -1 damaged
 * (r->error says why).
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
 * Every DROP block of a version 3 file, skipping over the rest, then back
 * to where the records start. Stops quietly at anything odd: reading the
 * records reports it there.
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

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISDIR(m) ? "a directory" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The file, if it is a regular one: a FIFO would block, a device never end. */
static FILE *open_regular(const char *path, uint64_t *size, char *err,
			  size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		int e = errno;

		if ((e == EACCES || e == EPERM) && !stat(path, &st)) {
			char who[32] = "root";

			if (st.st_uid)
				snprintf(who, sizeof(who), "uid %u",
					 (unsigned int)st.st_uid);
			snprintf(err, errlen, "cannot open capture '%s': %s (it "
				 "belongs to %s, mode %04o): %s, or sudo chown "
				 "$USER '%s'", path, strerror(e), who,
				 (unsigned int)(st.st_mode & 07777), st.st_uid ?
				 "ask its owner" : "record under sudo into a "
				 "directory you own (the file is then yours)",
				 path);
		}
		else
			snprintf(err, errlen, "cannot open capture '%s': %s%s",
				 path, strerror(e), e == EACCES ? " (a directory "
				 "on its path is not open to you)" : "");
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file (%s): give a "
			 "capture file (abicap record -o FILE); to read one "
			 "from a pipe, save it to a file first", path,
			 file_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open capture '%s': %s", path,
			 strerror(errno));
		close(fd);
		return NULL;
	}
	*size = st.st_size;
	return f;
}

/* Not a capture, a later format, or a damaged header: 0 or -1 with err. */
static int check_header(const char *path, const unsigned char *hdr, size_t n,
			char *err, size_t errlen)
{
	uint32_t ver = n >= 12 ? get32(hdr + 8) : 0;

	if (n >= 8 && !memcmp(hdr, CAPFMT_MAGIC, 8)) {
		if (n < 16) {
			snprintf(err, errlen, "'%s': the header is cut short "
				 "(%zu bytes): not readable", path, n);
			return -1;
		}
		if (ver >= 1 && ver <= CAPFILE_VERSION)
			return 0;
		if (ver > CAPFILE_VERSION && ver <= CAPFMT_VERSION_PLAUSIBLE)
			snprintf(err, errlen, "'%s' is capture format version %u; "
				 "this abicap reads versions 1 to %d (a newer "
				 "abicap wrote it: read it with that one)", path,
				 ver, CAPFILE_VERSION);
		else
			snprintf(err, errlen, "'%s': the header is damaged (its "
				 "version field is %u, which no abicap writes): "
				 "not readable", path, ver);
		return -1;
	}
	if (n >= 6 && !memcmp(hdr, CAPFMT_MAGIC, 6))
		snprintf(err, errlen, "'%s': the header is damaged (its first "
			 "8 bytes are not \"ABICAP\\r\\n\": copied in text "
			 "mode?): not readable", path);
	else
		snprintf(err, errlen, "'%s' is not an abicap capture file "
			 "(record one with abicap record -o FILE)", path);
	return -1;
}

struct capr *capr_open(const char *path, char *err, size_t errlen)
{
	struct capr *r = calloc(1, sizeof(*r));
	unsigned char hdr[16], crc[4];
	uint32_t mlen;
	size_t n;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->f = open_regular(path, &r->size, err, errlen);
	if (!r->f) {
		free(r);
		return NULL;
	}
	n = fread(hdr, 1, sizeof(hdr), r->f);
	if (check_header(path, hdr, n, err, errlen))
		goto fail;
	r->version = get32(hdr + 8);
	mlen = get32(hdr + 12);
	if (mlen > MAX_META || !(r->meta = calloc(1, mlen + 1)) ||
	    fread(r->meta, 1, mlen, r->f) != mlen ||
	    (r->version >= 4 && fread(crc, 1, 4, r->f) != 4)) {
		snprintf(err, errlen, "'%s': the header is cut short or damaged "
			 "(metadata of %u bytes): not readable", path, mlen);
		goto fail;
	}
	if (r->version >= 4 &&
	    crc32(crc32(0, hdr + 8, 8), (unsigned char *)r->meta, mlen) !=
	    get32(crc)) {
		snprintf(err, errlen, "'%s': the header is damaged (its "
			 "checksum does not match: the metadata cannot be "
			 "trusted): not readable", path);
		goto fail;
	}
	/* every reader needs it: one refusal for all of them */
	if (!json_object_text(r->meta)) {
		snprintf(err, errlen, "'%s': the header's metadata is not a JSON "
			 "object: the file is damaged or was not written by "
			 "abicap (not readable)", path);
		goto fail;
	}
	r->raw = malloc(CAPFILE_CHUNK_RAW);
	if (r->version >= 4)
		r->blk = malloc(BLK_MAX);
	else
		r->z = malloc(MAX_CHUNK_Z);
	if (!r->raw || !(r->blk || r->z)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	r->ig.trailer = CAPR_TRAILER_MISSING;
	if (r->version >= 4) {
		r->start = r->off = 16 + (uint64_t)mlen + 4;
		if (scan_v4(r)) {
			snprintf(err, errlen, "out of memory reading '%s'", path);
			goto fail;
		}
	} else if (r->version == 3) {
		scan_drops(r);
	}
	return r;
fail:
	capr_close(r);
	return NULL;
}

/* A block of paths: 256 KiB, room for the longest (a u16 length). */
#define NAME_BLOCK ((size_t)256 << 10)

static int add_name(struct capr *r, uint64_t id, const unsigned char *p,
		    size_t len)
{
	struct capfile_cgroup *c;

	if (array_room(&r->cg, r->ncg, &r->cg_cap, sizeof(*r->cg), 64))
		return -1;
	c = &r->cg[r->ncg];
	c->id = id;
	if (!r->names || r->names->used + len + 1 > NAME_BLOCK) {
		struct name_block *b = malloc(sizeof(*b) + NAME_BLOCK);

		if (!b)
			return -1;
		b->next = r->names;
		b->used = 0;
		r->names = b;
	}
	c->path = r->names->data + r->names->used;
	r->names->used += len + 1;
	memcpy(c->path, p, len);
	c->path[len] = 0;
	r->ncg++;
	return 0;
}

/*
 * The entries of a cgroup block: NULL if well-formed, else what is wrong.
 * Id 0 is no cgroup (the root's is 1; 0 is what a record without one says).
 */
static const char *names_malformed(const unsigned char *b, size_t len)
{
	for (size_t off = 0, plen; off < len; off += 10 + plen) {
		if (len - off < 10 ||
		    (plen = b[off + 8] | b[off + 9] << 8) > len - off - 10)
			return "an entry overruns it";
		if (!get64(b + off))
			return "it names cgroup id 0, which no cgroup has";
	}
	return NULL;
}

static int add_names(struct capr *r, const unsigned char *b, size_t len)
{
	for (size_t off = 0, plen; off < len; off += 10 + plen) {
		plen = b[off + 8] | b[off + 9] << 8;
		if (add_name(r, get64(b + off), b + off + 10, plen))
			return -1;
	}
	return 0;
}

/* A CGRP block of versions 2-3 (its 8-byte header read): 1 read, 0 cut short, -1 damaged. */
static int read_names(struct capr *r, uint32_t len)
{
	unsigned char crc[4];
	const char *bad;

	if (len > CAPFILE_CHUNK_RAW) {
		snprintf(r->error, sizeof(r->error), "a cgroup block is damaged "
			 "(size out of range)");
		return -1;
	}
	if (fread(crc, 1, 4, r->f) != 4 || fread(r->raw, 1, len, r->f) != len)
		return 0;
	if (crc32(0, r->raw, len) != get32(crc)) {
		snprintf(r->error, sizeof(r->error), "a cgroup block fails its "
			 "checksum");
		return -1;
	}
	bad = names_malformed(r->raw, len);
	if (bad) {
		snprintf(r->error, sizeof(r->error), "a cgroup block is "
			 "damaged (%s)", bad);
		return -1;
	}
	if (add_names(r, r->raw, len)) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		return -1;
	}
	return 1;
}

/* Versions 1-3: the next chunk or the trailer: 1 chunk, 0 end, -1 damaged. */
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

/* Version 4: the next chunk's records into r->raw: 1, 0 at the end, -1 no memory. */
static int next_chunk_v4(struct capr *r)
{
	struct blk b;
	const char *bad;
	size_t n;
	int c;

	while ((c = walk(r, &b, NULL)) == 1) {
		if (b.tag == T_CGRP) {
			bad = names_malformed(r->blk, b.len);
			if (bad) {
				note(r, b.off, "cgroup block #%u at byte %llu is "
				     "malformed (%s): left out", b.seq,
				     (ull)b.off, bad);
				r->ig.damaged++;
			} else if (add_names(r, r->blk, b.len)) {
				break;
			}
			continue;
		}
		if (b.tag != T_CHNK)
			continue;
		n = ZSTD_decompress(r->raw, CAPFILE_CHUNK_RAW, r->blk + CHNK_PRE,
				    b.len - CHNK_PRE);
		if (ZSTD_isError(n) || n != get32(r->blk + 16)) {
			note(r, b.off, "chunk #%u at byte %llu does not "
			     "decompress: its %u records are left out", b.seq,
			     (ull)b.off, get32(r->blk + 20));
			r->ig.damaged++;
			continue;
		}
		r->raw_len = n;
		r->pos = 0;
		r->chunk_seq = b.seq;
		r->chunk_off = b.off;
		return 1;
	}
	if (c)
		snprintf(r->error, sizeof(r->error), "out of memory");
	return c ? -1 : 0;
}

int capr_next(struct capr *r, union abicap_rec *out)
{
	const size_t hlen = sizeof(struct abicap_hdr);
	size_t size_at = offsetof(struct abicap_hdr, size);
	int c;

	for (;;) {
		while (!r->end && r->pos + hlen > r->raw_len) {
			c = r->version >= 4 ? next_chunk_v4(r) : next_chunk(r);
			if (c < 0) {
				r->end = true;
				if (r->version < 4) {
					note(r, ftell(r->f), "%s", r->error);
					r->ig.damaged++;
				}
				return -1;
			}
			if (!c)
				r->end = true;
		}
		if (r->end) {
			if (r->version < 4 && r->trailer &&
			    r->ig.trailer == CAPR_TRAILER_MISSING) {
				trailer_text_check(r, ftell(r->f));
				r->ig.trailer = r->trailer_bad ?
					CAPR_TRAILER_DAMAGED : CAPR_TRAILER_INTACT;
			}
			return 0;
		}
		/* little-endian in the file (capfile.h) */
		if (record_decode_order(r->raw + r->pos, r->raw_len - r->pos,
					out, HOST_BIG_ENDIAN) == REC_OK)
			break;
		if (r->version < 4) {
			snprintf(r->error, sizeof(r->error), "a record in a "
				 "chunk is damaged");
			note(r, ftell(r->f), "%s", r->error);
			r->ig.damaged++;
			r->end = true;
			return -1;
		}
		note(r, r->chunk_off, "a record in chunk #%u at byte %llu is "
		     "damaged: the rest of the chunk is left out", r->chunk_seq,
		     (ull)r->chunk_off);
		r->ig.damaged++;
		r->pos = r->raw_len;
	}
	/* the record's own size: a version 1 record is shorter than out's */
	r->pos += get16(r->raw + r->pos + size_at);
	r->ig.records_read++;
	return 1;
}

uint64_t capr_size(const struct capr *r)
{
	return r->size;
}

const char *capr_meta(const struct capr *r)
{
	return r->meta;
}

const char *capr_trailer(const struct capr *r)
{
	return r->trailer_bad ? NULL : r->trailer;
}

bool capr_cut_short(const struct capr *r)
{
	if (r->version >= 4)
		return r->end && r->ig.trailer == CAPR_TRAILER_MISSING;
	return r->end && !r->trailer && !r->error[0];
}

const char *capr_error(const struct capr *r)
{
	if (!r->error[0] && r->ig.nproblems)
		return r->ig.problem[0].what;
	return r->error;
}

const struct capr_integrity *capr_integrity(const struct capr *r)
{
	return &r->ig;
}

bool capr_damaged(const struct capr *r)
{
	const struct capr_integrity *ig = &r->ig;

	return ig->damaged || ig->duplicated || ig->reordered || ig->missing ||
	       ig->trailer == CAPR_TRAILER_DAMAGED;
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
	free(r->blk);
	while (r->names) {
		struct name_block *b = r->names;

		r->names = b->next;
		free(b);
	}
	free(r->cg);
	free(r->drops);
	seqset_clear(&r->seen);
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
