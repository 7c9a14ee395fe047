// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A capture file as a Perfetto trace: loaded, or where it is large read
 * once through a bounded window of records, written through the Perfetto
 * writer.
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capfile/capfile.h"
#include "capfile/capmeta.h"
#include "capfile/capwarn.h"
#include "report/perfetto.h"
#include "report/perfetto_export.h"
#include "lib/duration.h"
#include "lib/outfile.h"
#include "lib/util.h"

/* bytes written at a time: a trace takes about 46 bytes an event */
#define EXPORT_WRITE_BUF ((size_t)1 << 20)

/* Captures with more records than this stream (96 MiB loaded). */
#define EXPORT_LOAD_MAX ((size_t)1 << 20)

/*
 * The trace at most EXPORT_OUT_RATIO times the capture's size, and
 * EXPORT_OUT_FLOOR (issue 37: a 92 KB capture of one record repeated in 500
 * chunks made a 158 MB trace); a real capture's is 5-25 times its size.
 * ABICAP_EXPORT_MAX_MB sets it.
 */
#define EXPORT_OUT_RATIO 128
#define EXPORT_OUT_FLOOR (64ull << 20)

static uint64_t out_bound(uint64_t cap_size)
{
	const char *e = getenv("ABICAP_EXPORT_MAX_MB");
	uint64_t by_size = cap_size > UINT64_MAX / EXPORT_OUT_RATIO ? UINT64_MAX :
			   cap_size * EXPORT_OUT_RATIO;
	long mb;

	if (e && parse_long(e, 1, 1L << 30, &mb))
		return (uint64_t)mb << 20;
	return by_size > EXPORT_OUT_FLOOR ? by_size : EXPORT_OUT_FLOOR;
}

/* Captures larger than this stream; ABICAP_EXPORT_STREAM_MB sets it (MiB). */
static long long stream_bytes(void)
{
	const char *e = getenv("ABICAP_EXPORT_STREAM_MB");
	long mb;

	if (!e || !parse_long(e, 0, 1 << 20, &mb))
		mb = 64;
	return (long long)mb << 20;
}

/* What an export wrote and left out, for the closing lines. */
struct export_stats {
	size_t n; /* records read */
	uint64_t late; /* streamed: passed on out of time order */
	uint64_t bad_cpu; /* naming a CPU past the capture's count */
	uint64_t fed; /* records inside the window */
	uint64_t first, last; /* the first record's time, the latest's */
	uint64_t out_max; /* the trace's bytes at most (out_bound) */
	bool too_big; /* stopped there */
	const struct timewin *win; /* what is exported (--since/--until) */
};

struct streaming {
	struct perfetto *p;
	struct export_stats *st;
	FILE *out, *spill; /* what the trace takes so far (spill: NULL) */
	bool started;
	uint64_t t0; /* the first record's time: the window counts from it */
};

/* An event into the trace if it lies inside the export's window. */
static int window_event(struct streaming *s, const union abicap_rec *rec)
{
	if (!s->started) {
		s->started = true;
		s->t0 = s->st->first = s->st->last = rec->hdr.ts_ns;
	}
	if (rec->hdr.ts_ns > s->st->last)
		s->st->last = rec->hdr.ts_ns;
	if (!timewin_has(s->st->win, s->t0, rec->hdr.ts_ns))
		return 0;
	s->st->fed++;
	if (!(s->st->fed & 4095) &&
	    (uint64_t)ftello(s->out) + (s->spill ? (uint64_t)ftello(s->spill) :
					0) > s->st->out_max) {
		s->st->too_big = true;
		return 1; /* nothing more: the trace is not kept */
	}
	return perfetto_event(s->p, rec);
}

/* Every thread named in the process tree, the window's events after it. */
static int add_record(void *ctx, const union abicap_rec *rec)
{
	struct streaming *s = ctx;

	s->st->n++;
	perfetto_thread(s->p, rec);
	return window_event(s, rec);
}

/* The capture's drop windows, marked in the trace: 0 or -ENOMEM. */
static int export_losses(struct perfetto *p, struct capr *r)
{
	size_t n;
	const struct capfile_drop *d = capr_drops(r, &n);

	return perfetto_losses(p, d, n);
}

/*
 * Where the event bundles wait for the process tree: an unnamed file in
 * the trace's directory (the file system that takes the trace, where the
 * kernel can copy it back), else one in $TMPDIR. NULL with errno.
 */
static FILE *spill_open(const char *outp)
{
	char *dup = strdup(outp);
	int fd = dup ? open(dirname(dup), O_TMPFILE | O_RDWR | O_CLOEXEC,
			    0600) : -1;
	FILE *f;

	free(dup);
	if (fd < 0) {
		f = tmpfile();
		if (f)
			setvbuf(f, NULL, _IOFBF, EXPORT_WRITE_BUF);
		return f;
	}
	f = fdopen(fd, "w+b");
	if (!f)
		close(fd);
	else
		setvbuf(f, NULL, _IOFBF, EXPORT_WRITE_BUF);
	return f;
}

/*
 * In one pass that holds no more than a reordering window: each record in
 * time order noted (the threads) and encoded, its bundle held in a spill
 * file until the process tree, which comes first, is complete (the bytes
 * of a two-pass export). The one place a large export reads records. As
 * capr_load() returns; *werr: a write error (-errno).
 */
static int export_stream(const char *outp, struct capr *r, FILE *out,
			 int ncpus, const struct perfetto_uts *uts,
			 struct export_stats *st, int *werr)
{
	struct streaming s = { .st = st, .out = out };
	FILE *spill = spill_open(outp);
	int c;

	if (!spill) {
		*werr = -errno;
		return 0;
	}
	s.p = perfetto_new(out, ncpus);
	if (!s.p || export_losses(s.p, r)) {
		if (s.p)
			*werr = perfetto_finish(s.p);
		fclose(spill);
		return -ENOMEM;
	}
	perfetto_system(s.p, uts);
	perfetto_spill(s.p, spill);
	s.spill = spill;
	c = capr_each(r, CAPR_WINDOW_NS, add_record, &s, &st->late);
	st->bad_cpu = perfetto_bad_cpu(s.p);
	*werr = perfetto_finish(s.p);
	fclose(spill);
	return c;
}

/* Loaded records (sorted): 0 or -errno. */
static int export_loaded(FILE *out, struct capr *r, const union abicap_rec *recs,
			 int ncpus, const struct perfetto_uts *uts,
			 struct export_stats *st)
{
	struct perfetto *p = perfetto_new(out, ncpus);
	struct streaming s = { .p = p, .st = st, .out = out };

	if (!p)
		return -ENOMEM;
	if (export_losses(p, r)) {
		perfetto_finish(p);
		return -ENOMEM;
	}
	perfetto_system(p, uts);
	for (size_t i = 0; i < st->n; i++)
		perfetto_thread(p, &recs[i]);
	perfetto_tree(p);
	for (size_t i = 0; i < st->n && !st->too_big; i++)
		window_event(&s, &recs[i]);
	st->bad_cpu = perfetto_bad_cpu(p);
	return perfetto_finish(p);
}

/* A non-empty string, or NULL. */
static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* The capturing kernel's uname from the metadata: "kernel" and "uname". */
static void meta_uts(const struct capmeta *m, struct perfetto_uts *u)
{
	u->release = nonempty(m->kernel);
	u->sysname = nonempty(m->sysname);
	u->version = nonempty(m->version);
	u->machine = nonempty(m->machine);
}

/* Where the trace shows the capture's losses, if it lost any. */
static void note_losses(struct capr *r, const char *outp)
{
	size_t n;
	const struct capfile_drop *d = capr_drops(r, &n);
	uint64_t lost = 0;

	for (size_t i = 0; i < n; i++)
		lost += d[i].count;
	if (n)
		ab_note("%llu record%s lost in %zu window%s: marked in %s on "
			"the track 'abicap losses'", (unsigned long long)lost,
			lost == 1 ? "" : "s", n, n == 1 ? "" : "s", outp);
}

/* export_perfetto_fd, of what lies inside win. */
static int export_fd(const char *cap, int fd, const char *outp,
		     const struct timewin *win)
{
	struct perfetto_uts uts;
	struct export_stats st = { .win = win };
	char err[ERRMSG_LEN];
	union abicap_rec *recs = NULL;
	struct capr *r;
	struct capmeta cm;
	FILE *out = NULL;
	int ncpus;
	struct stat sb;
	bool streamed, damaged;
	int c, werr = 0, ret = EXIT_OK;

	capmeta_init(&cm);
	r = capr_open(cap, err, sizeof(err));
	if (!r) {
		ab_error("%s", err);
		ret = EXIT_USAGE;
		goto out;
	}
	/* as the others read it; export has always gone on past a bad field */
	capmeta_read(&cm, capr_meta(r), err, sizeof(err));
	st.out_max = out_bound(capr_size(r));
	out = fdopen(fd, "wb");
	if (!out) {
		ab_error("cannot write '%s': %s", outp, strerror(errno));
		ret = EXIT_RUNTIME;
		goto out;
	}
	fd = -1;
	setvbuf(out, NULL, _IOFBF, EXPORT_WRITE_BUF);
	meta_uts(&cm, &uts);
	if (!uts.release)
		ab_warn("'%s' names no kernel release: Perfetto will decode "
			"sched_switch prev_state as on Linux 4.4 (R+ shown as "
			"W, I as K)", cap);
	/*
	 * Loading holds every record (and sorts them all): a capture over
	 * 64 MiB (ABICAP_EXPORT_STREAM_MB), or over EXPORT_LOAD_MAX records
	 * (a small file can hold millions: they compress well; the count is
	 * known at open from version 4 on, else found by trying), streams
	 * in one pass instead, in a bounded window.
	 */
	ncpus = capmeta_ncpus(&cm);
	streamed = (!stat(cap, &sb) && sb.st_size > stream_bytes()) ||
		   capr_integrity(r)->records_expected > EXPORT_LOAD_MAX;
	if (!streamed) {
		c = capr_load_max(r, &recs, &st.n, EXPORT_LOAD_MAX);
		if (c == -E2BIG) {
			streamed = true;
			capr_close(r);
			capmeta_init(&cm);
	r = capr_open(cap, err, sizeof(err));
			if (!r) {
				ab_error("%s", err);
				ret = EXIT_RUNTIME;
				goto out;
			}
		}
	}
	/* no CPU count to trust: every CPU a record may name */
	if (streamed)
		c = export_stream(outp, r, out, ncpus ? ncpus : CAPTURE_MAX_CPUS,
				  &uts, &st, &werr);
	if (c == -ENOMEM) {
		ab_error("out of memory reading '%s'", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	damaged = capwarn_integrity(r, cap);
	if (c >= 0 && capr_cut_short(r))
		ab_warn("'%s' was cut short: exporting the %zu records of its "
			"complete chunks", cap, st.n);
	c = streamed ? werr :
	    export_loaded(out, r, recs, capmeta_ncpus_of(&cm, recs, st.n), &uts, &st);
	if (fclose(out) && !c)
		c = -errno;
	out = NULL;
	if (st.too_big) {
		ab_error("'%s': its trace would pass %llu MiB (%d times the "
			 "capture's size, and %llu MiB): no capture abicap records "
			 "makes that much (crafted?); export a part of it with "
			 "--since/--until, or set ABICAP_EXPORT_MAX_MB", cap,
			 (unsigned long long)(st.out_max >> 20), EXPORT_OUT_RATIO,
			 EXPORT_OUT_FLOOR >> 20);
		ret = EXIT_USAGE;
		goto out;
	}
	if (c) {
		ab_error("cannot write '%s': %s", outp, strerror(-c));
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (st.late)
		ab_warn("%llu records arrived over a second late (or past the "
			"%u-record window) and were exported out of time order",
			(unsigned long long)st.late, CAPR_WINDOW_MAX);
	capwarn_bad_cpu(st.bad_cpu, ncpus ? ncpus : CAPTURE_MAX_CPUS);
	if (st.n)
		capwarn_window(cap, win, st.last - st.first);
	ab_note("wrote %llu events to %s",
		(unsigned long long)(st.fed - st.bad_cpu), outp);
	note_losses(r, outp);
	if (damaged)
		ret = EXIT_DAMAGED;
out:
	if (out)
		fclose(out);
	if (fd >= 0)
		close(fd);
	free(recs);
	capmeta_free(&cm);
	capr_close(r);
	return ret;
}

int export_perfetto_fd(const char *cap, int fd, const char *outp)
{
	return export_fd(cap, fd, outp, &TIMEWIN_ALL);
}

/*
 * export_fd on a duplicate of of's descriptor (the export closes its
 * stream): of->fd stays open for outfile_commit to fsync before the
 * rename.
 */
static int dup_fd(const char *cap, struct outfile *of,
		  const struct timewin *win)
{
	int fd = fcntl(of->fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0) {
		ab_error("cannot write '%s': %s", of->path, strerror(errno));
		return EXIT_RUNTIME;
	}
	return export_fd(cap, fd, of->path, win);
}

int export_dup_fd(const char *cap, struct outfile *of)
{
	return dup_fd(cap, of, &TIMEWIN_ALL);
}

int export_perfetto(const char *cap, const char *outp, bool force)
{
	return export_perfetto_window(cap, outp, force, &TIMEWIN_ALL);
}

int export_perfetto_window(const char *cap, const char *outp, bool force,
			   const struct timewin *win)
{
	char err[ERRMSG_LEN];
	struct outfile of;
	int ret = outfile_distinct(outp, cap, "the capture", err, sizeof(err));

	if (!ret)
		ret = outfile_open(&of, outp, force, err, sizeof(err));
	if (ret) {
		ab_error("%s", err);
		return ret;
	}
	ret = dup_fd(cap, &of, win);
	/* a damaged capture's trace is complete for every part read intact */
	if ((!ret || ret == EXIT_DAMAGED) && outfile_commit(&of, err, sizeof(err))) {
		ab_error("%s", err);
		ret = EXIT_RUNTIME;
	}
	/* a failed export leaves nothing half-written, the old file as it was */
	outfile_abort(&of, false);
	return ret;
}
