// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap script: a capture's records in time order through the reordering
 * window (memory: one window, whatever the file's size), filtered, each a
 * line of user/event/format.c's text or JSON.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "capfile/capmeta.h"
#include "capfile/capwarn.h"
#include "event/cgnames.h"
#include "event/record.h"
#include "lib/cpulist.h"
#include "lib/sbuf.h"
#include "lib/util.h"
#include "view/script.h"

struct script_state {
	const struct script_opts *o;
	struct recfilter f;
	struct capr *r;
	struct cgnames *names;
	size_t ncg; /* cgroup names taken from the reader so far */
	/*
	 * cgroup id -> its name's place in the reader's table (the last one
	 * read): a name goes into names, about 400 bytes, only once a printed
	 * record uses it (2 M names no record used took 1 GB)
	 */
	struct hashtab cg_index;
	FILE *out;
	bool started;
	uint64_t t0, last; /* the first record's time, the latest's */
	struct formatter fm; /* from the first record on */
	bool past_until; /* a record after --until was read */
	/* the task filter met (or none); else a thread whose id was given */
	bool task_seen;
	int32_t thread_of;
	char thread_comm[ABICAP_COMM_LEN];
	unsigned long long written;
	int werr; /* a write error (errno); EPIPE: the reader went away */
	bool oom;
	/* the drop windows (all known at open), the next one to print */
	const struct capfile_drop *drops;
	size_t ndrops, next_drop;
};

/*
 * The cgroup names the reader has found since the last record: indexed; a
 * name already given to a printed record is renamed as the file renames it.
 */
static void take_cgroups(struct script_state *s)
{
	size_t n;
	const struct capfile_cgroup *cg = capr_cgroups(s->r, &n);

	for (; s->ncg < n; s->ncg++) {
		const struct capfile_cgroup *c = &cg[s->ncg];

		if (hashtab_put(&s->cg_index, c->id, s->ncg) < 0 ||
		    (cgnames_cached(s->names, c->id) &&
		     cgnames_set(s->names, c->id, c->path)))
			s->oom = true;
	}
}

/* The name of cgroup id for the record about to be printed. */
static void name_cgroup(struct script_state *s, uint64_t id)
{
	const struct capfile_cgroup *cg;
	uint64_t *i;
	size_t n;

	if (!id || cgnames_cached(s->names, id))
		return;
	i = hashtab_get(&s->cg_index, id);
	if (!i)
		return;
	cg = capr_cgroups(s->r, &n);
	if (cgnames_set(s->names, id, cg[*i].path))
		s->oom = true;
}

static void name_cgroups(struct script_state *s, const union abicap_rec *rec)
{
	uint64_t ids[2];
	size_t n = record_cgroups(rec, ids);

	take_cgroups(s);
	for (size_t i = 0; i < n; i++)
		name_cgroup(s, ids[i]);
}

/*
 * The drop windows that began before `before`, as perf script prints its
 * LOST records: one line each where the loss began, whatever the filters
 * (a lost record's task is not known), if it meets --since/--until.
 */
static void print_losses(struct script_state *s, uint64_t before)
{
	for (; s->next_drop < s->ndrops && !s->werr; s->next_drop++) {
		const struct capfile_drop *d = &s->drops[s->next_drop];
		uint64_t from = d->start_ns > s->t0 ? d->start_ns - s->t0 : 0,
			 to = d->end_ns > s->t0 ? d->end_ns - s->t0 : 0;
		char cpu[16];
		int n;

		if (d->start_ns >= before)
			return;
		if (to < s->o->win.since || from > s->o->win.until)
			continue;
		snprintf(cpu, sizeof(cpu), "%d", d->cpu);
		if (s->o->fmt == FMT_JSON)
			n = fprintf(s->out, "{\"event\":\"lost\",\"ts_ns\":%llu,"
				    "\"end_ns\":%llu,\"cpu\":%s,\"records\":"
				    "%llu}\n", (unsigned long long)d->start_ns,
				    (unsigned long long)d->end_ns, d->cpu < 0 ?
				    "null" : cpu, (unsigned long long)d->count);
		else
			n = fprintf(s->out, "%12.3f %3s LOST              %llu "
				    "records lost while recording, until "
				    "%.3f: %s\n",
				    ((double)d->start_ns - (double)s->t0) / 1e6,
				    d->cpu < 0 ? "-" : cpu,
				    (unsigned long long)d->count,
				    ((double)d->end_ns - (double)s->t0) / 1e6,
				    d->cpu < 0 ? "any task, any CPU" :
				    "any task's events on that CPU");
		if (n < 0)
			s->werr = errno ? errno : EIO;
	}
}

/* Whether the task filter meets a task of the capture; a thread id given as --pid. */
static void note_task(struct script_state *s, const union abicap_rec *rec)
{
	if (recfilter_task(&s->f, rec)) {
		s->task_seen = true;
		return;
	}
	if (s->f.tgid && rec->hdr.type == ABICAP_EV_SCHED_SWITCH &&
	    rec->sw.next_pid == s->f.tgid && rec->sw.next_tgid != s->f.tgid) {
		s->thread_of = rec->sw.next_tgid;
		memcpy(s->thread_comm, rec->sw.next_comm, ABICAP_COMM_LEN);
	}
}

static int script_record(void *ctx, const union abicap_rec *rec)
{
	struct script_state *s = ctx;
	char line[FORMAT_LINE_MAX];
	struct sbuf sb;

	if (!s->started) {
		s->started = true;
		s->t0 = rec->hdr.ts_ns;
		s->fm = (struct formatter){ .fmt = s->o->fmt, .t0_ns = s->t0,
					    .names = s->names };
		if (s->o->fmt == FMT_TEXT &&
		    fprintf(s->out, "%s\n", format_text_header()) < 0) {
			s->werr = errno;
			return 1;
		}
	}
	if (rec->hdr.ts_ns > s->last)
		s->last = rec->hdr.ts_ns;
	if (!s->task_seen)
		note_task(s, rec);
	if (rec->hdr.ts_ns >= s->t0 &&
	    rec->hdr.ts_ns - s->t0 > s->o->win.until) {
		s->past_until = true;
		return 1; /* in time order: nothing later is inside */
	}
	print_losses(s, rec->hdr.ts_ns);
	if (s->werr)
		return 1;
	if (!timewin_has(&s->o->win, s->t0, rec->hdr.ts_ns) ||
	    !recfilter_pass(&s->f, rec))
		return 0;
	name_cgroups(s, rec);
	sb_init(&sb, line, sizeof(line));
	format_record(&sb, &s->fm, rec);
	if (fwrite(line, 1, sb.len, s->out) != sb.len) {
		s->werr = errno ? errno : EIO;
		return 1;
	}
	s->written++;
	return 0;
}

/* -C against the capture's CPU count: 0, or EXIT_USAGE (reported). */
static int script_cpus(struct script_state *s, const struct capmeta *m,
		       uint8_t **set)
{
	char err[ERRMSG_LEN];
	int ncpus = capmeta_ncpus(m);

	*set = NULL;
	if (!s->o->cpulist)
		return 0;
	if (!ncpus)
		ncpus = CAPTURE_MAX_CPUS;
	*set = calloc((size_t)ncpus, 1);
	if (!*set) {
		ab_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (!parse_cpulist(s->o->cpulist, *set, ncpus, err, sizeof(err))) {
		ab_error("-C '%s': give CPUs of the capture (0-%d), e.g. 0,2-3",
			 s->o->cpulist, ncpus - 1);
		return EXIT_USAGE;
	}
	s->f.cpus = *set;
	s->f.ncpus = ncpus;
	return 0;
}

int script_capture(const char *path, const struct script_opts *o, FILE *out,
		   unsigned long long *written)
{
	struct script_state s = { .o = o, .f = o->filter, .out = out,
		.task_seen = !o->filter.tgid && !o->filter.comm[0] };
	char err[ERRMSG_LEN];
	uint64_t late = 0;
	uint8_t *cpus = NULL;
	struct capmeta cm;
	bool damaged;
	int c, ret;

	*written = 0;
	s.r = capr_open(path, err, sizeof(err));
	if (!s.r) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	/* as the others read it; script has always gone on past a bad field */
	capmeta_read(&cm, capr_meta(s.r), err, sizeof(err));
	ret = script_cpus(&s, &cm, &cpus);
	if (ret)
		goto out;
	s.names = cgnames_table();
	if (!s.names) {
		ab_error("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	s.drops = capr_drops(s.r, &s.ndrops);
	c = capr_each(s.r, CAPR_WINDOW_NS, script_record, &s, &late);
	if (s.started)
		print_losses(&s, UINT64_MAX);
	if (!s.werr && fflush(out))
		s.werr = errno;
	*written = s.written;
	if (s.werr == EPIPE) { /* the reader has seen enough (| head) */
		ret = EXIT_OK;
		goto out;
	}
	if (s.werr) {
		ab_error("cannot write the events: %s", strerror(s.werr));
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (c == -ENOMEM || s.oom) {
		ab_error("out of memory reading '%s'", path);
		ret = EXIT_RUNTIME;
		goto out;
	}
	damaged = capwarn_integrity(s.r, path);
	if (!s.task_seen && !s.past_until) { /* read to the end: none there */
		/* the events' filter aside: as report, a task none of it has */
		capwarn_task_missing(path, s.f.tgid, s.f.comm[0] ? s.f.comm :
				     NULL, s.thread_of, s.thread_comm);
		ret = EXIT_USAGE;
		goto out;
	}
	if (s.started && !s.past_until)
		capwarn_window(path, &o->win, s.last - s.t0);
	if (capr_cut_short(s.r))
		ab_warn("'%s' was cut short (no trailer): these are the records "
			"of its complete chunks", path);
	if (late)
		ab_warn("%llu records arrived over a second late (or past the "
			"%u-record window) and were printed out of time order",
			(unsigned long long)late, CAPR_WINDOW_MAX);
	ret = damaged ? EXIT_DAMAGED : EXIT_OK;
out:
	cgnames_free(s.names);
	hashtab_free(&s.cg_index);
	free(cpus);
	capmeta_free(&cm);
	capr_close(s.r);
	return ret;
}
