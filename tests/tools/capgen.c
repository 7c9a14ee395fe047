// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/capgen KIND N OUT [meta|nometa]: a crafted capture of N records for
 * the report and export cost checks (scripts/bench.sh, tests):
 *   same-ts    every record at the same time, two tasks switching
 *   many-pids  every switch between two tasks never seen before
 *   stride-pids  the same, task ids 1024 apart (hash tables keyed by the
 *              low bits of a product collide)
 *   reverse    times counting down, a second apart
 *   shuffled   times scattered over N seconds
 *   sorted     shuffled's records, written in the order report reads them
 *              (time, CPU, type, bytes): its report is shuffled's, byte
 *              for byte
 * and, for the report's cost with cgroups (scripts/bench.sh report-scaling):
 *   unused-cgroups  N cgroup names (up to 4 M) no record uses, 1000 records
 *   many-cgroups    N switches, each task in a cgroup of its own
 *   cgroup-gaps     N cgroup blocks numbered 0, 2, 4, ... (every other one
 *              missing: a damaged file, report exits 5) and no records
 *   freqs      cpu_frequency records, every one a new frequency
 *   cgroup-waits  N run-queue waits of 200 ns, each of a task in a cgroup
 *              of its own (/m/c0, /m/c1, ...): 4 N records
 * "meta" (default) writes the metadata abicap record does (CPU count,
 * events: report and export stream); "nometa" an empty object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "capfile/capfile.h"
#include "capfile/capsort_ext.h"
#include "lib/util.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

/* A block of the format (capfile.h) numbered seq, by hand: fwrite's result checked at close. */
static void block(FILE *f, const char *tag, uint32_t seq, const void *p,
		  uint32_t len)
{
	unsigned char h[20];

	memcpy(h, tag, 4);
	le32(h + 4, seq);
	le32(h + 8, len);
	le32(h + 12, (uint32_t)crc32(0, p, len));
	le32(h + 16, (uint32_t)crc32(0, h, 16));
	fwrite(h, 1, sizeof(h), f);
	fwrite(p, 1, len, f);
}

/* n one-name cgroup blocks numbered 0, 2, 4, ..., then a trailer. */
static int cgroup_gaps(const char *path, const char *meta, long n)
{
	FILE *f = fopen(path, "wb");
	unsigned char h[16], e[32], t[64];
	uint32_t mlen = (uint32_t)strlen(meta), crc;
	int bad;

	if (!f)
		return 1;
	memcpy(h, "ABICAP\r\n", 8);
	le32(h + 8, CAPFILE_VERSION);
	le32(h + 12, mlen);
	crc = (uint32_t)crc32(crc32(0, h + 8, 8), (const void *)meta, mlen);
	fwrite(h, 1, sizeof(h), f);
	fwrite(meta, 1, mlen, f);
	le32(e, crc);
	fwrite(e, 1, 4, f);
	for (long i = 0; i < n; i++) {
		int plen = snprintf((char *)e + 10, 22, "/g/%ld", i);

		for (int k = 0; k < 8; k++)
			e[k] = (unsigned char)((uint64_t)(i + 2) >> 8 * k);
		e[8] = (unsigned char)plen;
		e[9] = 0;
		block(f, "CGRP", (uint32_t)(2 * i), e, (uint32_t)(10 + plen));
	}
	memset(t, 0, 16);
	memcpy(t + 16, "{}", 2);
	block(f, "TRLR", (uint32_t)(2 * n), t, 18);
	bad = ferror(f);
	return fclose(f) || bad ? 1 : 0;
}

/* One switch on CPU 0 at ts, prev and next each in its own cgroup. */
static int add_switch(struct capw *w, uint64_t ts, int32_t prev, uint32_t state,
		      int32_t next, uint64_t cg)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.sw = (struct abicap_switch){ .hdr = { ts, ABICAP_EV_SCHED_SWITCH,
		sizeof(r.sw), 0 }, .prev_pid = prev, .prev_tgid = prev,
		.next_pid = next, .next_tgid = next, .prev_prio = 120,
		.next_prio = 120, .prev_state = state,
		.prev_cgroup = prev ? cg : 0, .next_cgroup = next ? cg : 0 };
	snprintf(r.sw.prev_comm, sizeof(r.sw.prev_comm), "t%d", prev);
	snprintf(r.sw.next_comm, sizeof(r.sw.next_comm), "t%d", next);
	return capw_add(w, &r, r.hdr.size);
}

/* Task 100 + i in cgroup 10 + i runs, is preempted, waits 200 ns, runs, sleeps. */
static int cgroup_waits(struct capw *w, long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t ts = 1000000000ull + (uint64_t)i * 1000, cg = 10 + (uint64_t)i;
		int32_t a = 100 + (int32_t)i;
		char p[32];

		snprintf(p, sizeof(p), "/m/c%ld", i);
		if (capw_add_cgroup(w, cg, p) ||
		    add_switch(w, ts, 0, 0, a, cg) ||
		    add_switch(w, ts + 100, a, 0, 0, cg) ||
		    add_switch(w, ts + 300, 0, 0, a, cg) ||
		    add_switch(w, ts + 400, a, 1, 0, cg))
			return 1;
	}
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	return capr_rec_cmp(a, b);
}

int main(int argc, char **argv)
{
	static const char meta[] = "{\"ncpus\":2,\"kernel\":\"6.1.0-capgen\","
		"\"events\":[\"sched_switch\",\"sched_wakeup\",\"sched_waking\"]}";
	char err[ERRMSG_LEN];
	union abicap_rec r, *held = NULL;
	struct capw *w;
	uint64_t seed = 88172645463325252ull;
	long n, nrec;
	bool unused;

	/* stride-pids: ids up to 1024 * (2 n + 2) stay below 2^31 */
	if ((argc != 4 && argc != 5) || !parse_long(argv[2], 1, 4000000, &n) ||
	    (n > 1000000 && strcmp(argv[1], "unused-cgroups")) ||
	    (argc == 5 && strcmp(argv[4], "meta") && strcmp(argv[4], "nometa"))) {
		fprintf(stderr, "usage: capgen same-ts|many-pids|stride-pids|"
			"reverse|shuffled|sorted|freqs|unused-cgroups|many-cgroups|"
			"cgroup-gaps|cgroup-waits N OUT [meta|nometa]\n");
		return 2;
	}
	if (!strcmp(argv[1], "cgroup-gaps")) {
		if (cgroup_gaps(argv[3], argc == 5 && !strcmp(argv[4], "nometa") ?
				"{}" : meta, n)) {
			fprintf(stderr, "capgen: cannot write %s\n", argv[3]);
			return 1;
		}
		return 0;
	}
	w = capw_open(argv[3], true, argc == 5 && !strcmp(argv[4], "nometa") ?
		      "{}" : meta, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "capgen: %s\n", err);
		return 1;
	}
	if (!strcmp(argv[1], "cgroup-waits")) {
		if (cgroup_waits(w, n) || capw_close(w, "{}", err, sizeof(err))) {
			fprintf(stderr, "capgen: cannot write %s\n", argv[3]);
			return 1;
		}
		return 0;
	}
	unused = !strcmp(argv[1], "unused-cgroups");
	for (long i = 0; unused && i < n; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/u/%ld", i);
		if (capw_add_cgroup(w, 1000000 + (uint64_t)i, p)) {
			fprintf(stderr, "capgen: out of memory\n");
			return 1;
		}
	}
	nrec = unused ? 1000 : n;
	for (long i = 0; i < nrec; i++) {
		uint64_t ts = 1000000000ull, cg = 0;
		int32_t a = 1000 + (int32_t)(i & 1), b = 1001 - (int32_t)(i & 1);

		if (!strcmp(argv[1], "many-pids")) {
			ts += (uint64_t)i * 1000;
			a = 100 + (int32_t)(2 * i);
			b = a + 1;
		} else if (!strcmp(argv[1], "stride-pids")) {
			ts += (uint64_t)i * 1000;
			a = 1024 * (int32_t)(2 * i + 1);
			b = a + 1024;
		} else if (!strcmp(argv[1], "reverse")) {
			ts += (uint64_t)(n - i) * 1000000000ull;
		} else if (!strcmp(argv[1], "shuffled") ||
			   !strcmp(argv[1], "sorted")) {
			ts += rnd(&seed) % ((uint64_t)n * 1000000000ull);
		} else if (!strcmp(argv[1], "many-cgroups")) {
			char p[32];

			ts += (uint64_t)i * 1000;
			a = 100 + (int32_t)i;
			b = a + 1;
			cg = 10 + (uint64_t)i;
			snprintf(p, sizeof(p), "/m/c%ld", i);
			if (capw_add_cgroup(w, cg, p)) {
				fprintf(stderr, "capgen: out of memory\n");
				return 1;
			}
		} else if (!strcmp(argv[1], "freqs")) {
			memset(&r, 0, sizeof(r));
			r.pw = (struct abicap_power){ .hdr = { ts + (uint64_t)i *
				1000, ABICAP_EV_CPU_FREQUENCY, sizeof(r.pw),
				(uint32_t)(i & 1) }, .state = 100000 + (uint32_t)i,
				.cpu_id = (uint32_t)(i & 1) };
			if (capw_add(w, &r, r.hdr.size)) {
				fprintf(stderr, "capgen: cannot write %s\n", argv[3]);
				return 1;
			}
			continue;
		} else if (strcmp(argv[1], "same-ts") && !unused) {
			fprintf(stderr, "capgen: unknown kind '%s'\n", argv[1]);
			return 2;
		}
		memset(&r, 0, sizeof(r));
		r.sw = (struct abicap_switch){ .hdr = { ts, ABICAP_EV_SCHED_SWITCH,
			sizeof(r.sw), (uint32_t)(i & 1) }, .prev_pid = a,
			.prev_tgid = a, .next_pid = b, .next_tgid = b,
			.prev_prio = 120, .next_prio = 120, .prev_state = 1,
			.prev_cgroup = cg, .next_cgroup = cg ? cg + 1 : 0 };
		snprintf(r.sw.prev_comm, sizeof(r.sw.prev_comm), "t%d", a);
		snprintf(r.sw.next_comm, sizeof(r.sw.next_comm), "t%d", b);
		if (!strcmp(argv[1], "sorted")) {
			if (!held && !(held = calloc((size_t)n, sizeof(*held)))) {
				fprintf(stderr, "capgen: out of memory\n");
				return 1;
			}
			held[i] = r;
		} else if (capw_add(w, &r, r.hdr.size)) {
			fprintf(stderr, "capgen: cannot write %s\n", argv[3]);
			return 1;
		}
	}
	if (held) {
		qsort(held, (size_t)n, sizeof(*held), rec_cmp);
		for (long i = 0; i < n; i++)
			if (capw_add(w, &held[i], held[i].hdr.size)) {
				fprintf(stderr, "capgen: cannot write %s\n",
					argv[3]);
				return 1;
			}
		free(held);
	}
	if (capw_close(w, "{}", err, sizeof(err))) {
		fprintf(stderr, "capgen: %s\n", err);
		return 1;
	}
	return 0;
}
