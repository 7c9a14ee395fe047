// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Capture integrity as invariants, not only "no crash". The target writes
 * one capture it knows (two chunks, drop blocks saying 15 records lost,
 * cgroup names, a trailer); the input is a recipe of damage: blocks
 * doubled, removed, swapped, then bytes flipped, overwritten or the file
 * cut. Whatever the recipe, the reader must:
 *   - never give fewer lost records than the 15 while calling it exact;
 *   - never give a record twice (no more records than were written);
 *   - with blocks doubled, removed or moved (and no byte damaged), say the
 *     file is damaged, and cut short when its trailer is gone, and read
 *     every record of an untouched file;
 * and abicap report must read it without a crash, with a documented exit.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capfile/capfile.h"
#include "fuzz.h"
#include "lib/util.h"

#define RECORDS 12000 /* two chunks of up to 1 MiB */
#define DROPPED 15
#define MAX_BLOCKS 64
#define MAX_OPS 16

static unsigned char *cap; /* the capture as written */
static size_t cap_len, body; /* its size, where its blocks start */
static struct {
	size_t off, len;
} blk[MAX_BLOCKS];
static size_t nblk;

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void write_capture(void)
{
	char path[64], err[ERRMSG_LEN];
	struct capw *w;

	snprintf(path, sizeof(path), "/dev/shm/abicap-fuzz-dmg-%d.abicap",
		 (int)getpid());
	w = capw_open(path, true, "{\"ncpus\":2,\"events\":[\"sched_switch\"]}",
		      err, sizeof(err));
	FUZZ_ASSERT(w);
	FUZZ_ASSERT(!capw_add_cgroup(w, 100, "/a.slice"));
	for (int i = 0; i < RECORDS; i++) {
		union abicap_rec r;

		memset(&r, 0, sizeof(r));
		r.sw.hdr = (struct abicap_hdr){ .ts_ns = 1000 + 10 * i, .type =
			ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw), .cpu = i & 1 };
		r.sw.prev_pid = 10 + i % 5;
		r.sw.next_pid = 10 + (i + 1) % 5;
		r.sw.prev_cgroup = 100 + (i >= RECORDS / 2);
		if (i == RECORDS / 2)
			FUZZ_ASSERT(!capw_add_cgroup(w, 101, "/b.slice"));
		FUZZ_ASSERT(!capw_add(w, &r, r.hdr.size));
		if (i == 5000)
			FUZZ_ASSERT(!capw_add_drop(w, 1000 + 10 * i, 1005 + 10 * i, 3,
						   -1));
		if (i == 8000)
			FUZZ_ASSERT(!capw_add_drop(w, 1000 + 10 * i, 1005 + 10 * i, 5,
						   -1));
		if (i == 11500)
			FUZZ_ASSERT(!capw_add_drop(w, 1000 + 10 * i, 1005 + 10 * i, 7,
						   -1));
	}
	FUZZ_ASSERT(!capw_close(w, "{\"events\":{\"sched_switch\":{\"dropped\":15}}}",
				err, sizeof(err)));
	cap = fuzz_take_file(path, &cap_len);
	FUZZ_ASSERT(le32(cap + 8) == CAPFILE_VERSION);
	body = 16 + le32(cap + 12) + 4;
	for (size_t off = body; off < cap_len; off += blk[nblk++].len) {
		FUZZ_ASSERT(nblk < MAX_BLOCKS && off + 20 <= cap_len);
		blk[nblk].off = off;
		blk[nblk].len = 20 + le32(cap + off + 8);
		/* the writer numbers its blocks in order */
		FUZZ_ASSERT(le32(cap + off + 4) == nblk);
	}
	FUZZ_ASSERT(nblk >= 7);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	write_capture();
	return 0;
}

/*
 * The recipe: the first byte says how many block operations (up to
 * MAX_OPS), each 3 bytes (op, a, b): 0 double block a after block b, 1
 * remove a, 2 swap a and b. The rest, 4 bytes each (op, three bytes of
 * position or value): 0 flip a byte, 1 overwrite 4 bytes, 2 cut the file.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int order[MAX_BLOCKS + MAX_OPS], n = nblk, nops, clean_k = -1;
	size_t pos = 1, mlen;
	bool bytes_changed = false;
	const struct capr_integrity *ig;
	unsigned char *m;
	union abicap_rec rec;
	char err[ERRMSG_LEN];
	const char *file;
	struct capr *r;
	int c;

	if (!size)
		return 0;
	for (int i = 0; i < n; i++)
		order[i] = i;
	nops = data[0] % (MAX_OPS + 1);
	for (int k = 0; k < nops && pos + 3 <= size; k++, pos += 3) {
		int op = data[pos] % 3, a, b;

		if (!n)
			break;
		a = data[pos + 1] % n;
		b = data[pos + 2] % n;
		if (op == 0 && n < MAX_BLOCKS + MAX_OPS) {
			memmove(&order[b + 2], &order[b + 1],
				(n - b - 1) * sizeof(*order));
			order[b + 1] = order[a < b + 1 ? a : a + 1];
			n++;
		} else if (op == 1) {
			memmove(&order[a], &order[a + 1], (n - a - 1) * sizeof(*order));
			n--;
		} else if (op == 2) {
			int t = order[a];

			order[a] = order[b];
			order[b] = t;
		}
	}
	mlen = body;
	for (int i = 0; i < n; i++)
		mlen += blk[order[i]].len;
	m = malloc(mlen);
	FUZZ_ASSERT(m);
	memcpy(m, cap, body);
	mlen = body;
	for (int i = 0; i < n; i++) {
		memcpy(m + mlen, cap + blk[order[i]].off, blk[order[i]].len);
		mlen += blk[order[i]].len;
	}
	/* the blocks as written up to some point: 0..k-1 in order */
	for (clean_k = 0; clean_k < n && order[clean_k] == clean_k; clean_k++)
		;
	if (clean_k < n)
		clean_k = -1;
	for (; pos + 4 <= size; pos += 4) {
		size_t at = ((size_t)data[pos + 1] << 16 | data[pos + 2] << 8 |
			     data[pos + 3]) % (mlen ? mlen : 1);
		int op = data[pos] % 3;

		if (op == 0 && mlen) {
			m[at] ^= data[pos + 3] | 1;
			bytes_changed = true;
		} else if (op == 1 && at + 4 <= mlen) {
			memcpy(m + at, data + pos, 4);
			bytes_changed = true;
		} else if (op == 2) {
			mlen = at;
			bytes_changed = true;
		}
	}
	file = fuzz_file(m, mlen);
	free(m);
	r = capr_open(file, err, sizeof(err));
	if (r) {
		uint64_t records = 0;

		while ((c = capr_next(r, &rec)) == 1)
			records++;
		ig = capr_integrity(r);
		/*
		 * A damaged version 4 header can read as version 1-3 (its version
		 * field flipped to 3: those have no checksums); such a file
		 * ends in -1, "damaged", as capr_next documents for them.
		 */
		FUZZ_ASSERT(c == 0 || (c == -1 && bytes_changed &&
				       capr_version(r) < 4 && capr_damaged(r)));
		FUZZ_ASSERT(records == ig->records_read);
		FUZZ_ASSERT(ig->dropped >= DROPPED || !ig->dropped_exact);
		FUZZ_ASSERT(records <= RECORDS);
		if (!bytes_changed) {
			bool whole = clean_k == (int)nblk;

			/* out of order, doubled or a hole: damaged */
			bool trailer = false;

			for (int i = 0; i < n; i++)
				trailer |= order[i] == (int)nblk - 1;
			FUZZ_ASSERT(capr_damaged(r) == (clean_k < 0));
			/* cut short: no trailer, whatever else is wrong */
			FUZZ_ASSERT(capr_cut_short(r) == !trailer);
			if (whole)
				FUZZ_ASSERT(records == RECORDS &&
					    ig->dropped == DROPPED &&
					    ig->dropped_exact);
		}
		/* an intact trailer is the one written */
		if (ig->trailer == CAPR_TRAILER_INTACT)
			FUZZ_ASSERT(ig->records_expected == RECORDS &&
				    ig->records_exact);
		if (!capr_damaged(r) && !capr_cut_short(r))
			FUZZ_ASSERT(records == RECORDS);
		capr_close(r);
	} else {
		/* only the header refuses a file: a block never does */
		FUZZ_ASSERT(bytes_changed);
	}
	return 0;
}
