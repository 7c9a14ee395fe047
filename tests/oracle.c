// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The differential oracle (oracle.h): tracefs session, parser, matcher, reference. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "capfile/capfile.h"
#include "event/events.h"
#include "oracle.h"

#define TRACEFS "/sys/kernel/tracing"

uint64_t orc_tol_ns = ORC_TS_TOL_NS;

struct orc_session {
	char dir[256];
};

static const char *const ev_names[ABICAP_EV_COUNT] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking",
	"cpu_idle", "cpu_frequency",
};
static const char *const ev_paths[ABICAP_EV_COUNT] = {
	"sched/sched_switch", "sched/sched_wakeup", "sched/sched_wakeup_new",
	"sched/sched_waking", "power/cpu_idle", "power/cpu_frequency",
};

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static int put(const char *dir, const char *file, const char *val, char *err,
	       size_t errlen)
{
	char p[512];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		seterr(err, errlen, "oracle: cannot open %s: %s", p, strerror(errno));
		return -1;
	}
	n = write(fd, val, strlen(val));
	if (n != (ssize_t)strlen(val)) {
		seterr(err, errlen, "oracle: cannot write '%s' to %s: %s", val, p,
		       n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void instance_remove(const char *dir)
{
	/* an instance with events enabled cannot be removed: turn them off first */
	put(dir, "tracing_on", "0", NULL, 0);
	put(dir, "events/enable", "0", NULL, 0);
	rmdir(dir);
}

struct orc_session *orc_start(const char *name, unsigned buffer_kb,
			      char *err, size_t errlen)
{
	return orc_start_events(name, buffer_kb, (1u << ABICAP_EV_COUNT) - 1,
				-1, err, errlen);
}

/* tracing_cpumask's text for one CPU: 32-bit hex groups, highest first. */
static void cpumask_of(int cpu, char *out, size_t len)
{
	size_t o = 0;

	for (int g = cpu / 32; g >= 0 && o + 10 < len; g--)
		o += (size_t)snprintf(out + o, len - o, "%s%08x", o ? "," : "",
				      g == cpu / 32 ? 1u << (cpu % 32) : 0u);
}

struct orc_session *orc_start_events(const char *name, unsigned buffer_kb,
				     unsigned int mask, int cpu, char *err,
				     size_t errlen)
{
	char cpus[256];
	struct orc_session *s;
	char kb[32];
	struct stat st;

	if (stat(TRACEFS "/instances", &st) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL)) {
		seterr(err, errlen, "oracle: tracefs is not mounted and mounting it "
		       "at " TRACEFS " failed: %s", strerror(errno));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		seterr(err, errlen, "oracle: out of memory");
		return NULL;
	}
	snprintf(s->dir, sizeof(s->dir), TRACEFS "/instances/%s", name);
	if (mkdir(s->dir, 0700)) {
		seterr(err, errlen, "oracle: cannot create the tracefs instance %s: "
		       "%s (a leftover of a killed test? rmdir it)", s->dir,
		       strerror(errno));
		free(s);
		return NULL;
	}
	snprintf(kb, sizeof(kb), "%u", buffer_kb);
	if (put(s->dir, "tracing_on", "0", err, errlen) ||
	    put(s->dir, "trace_clock", "mono", err, errlen) ||
	    put(s->dir, "buffer_size_kb", kb, err, errlen))
		goto fail;
	if (cpu >= 0) {
		cpumask_of(cpu, cpus, sizeof(cpus));
		if (put(s->dir, "tracing_cpumask", cpus, err, errlen))
			goto fail;
	}
	for (int k = 0; k < ABICAP_EV_COUNT; k++) {
		char p[128];

		snprintf(p, sizeof(p), "events/%s/enable", ev_paths[k]);
		if ((mask & 1u << k) && put(s->dir, p, "1", err, errlen))
			goto fail;
	}
	if (put(s->dir, "tracing_on", "1", err, errlen))
		goto fail;
	return s;
fail:
	instance_remove(s->dir);
	free(s);
	return NULL;
}

void orc_abort(struct orc_session *s)
{
	if (!s)
		return;
	instance_remove(s->dir);
	free(s);
}

/* overrun, commit overrun and dropped events of every CPU's buffer */
static uint64_t instance_losses(const char *dir)
{
	uint64_t lost = 0;

	for (int cpu = 0;; cpu++) {
		char p[512], line[256];
		FILE *f;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%d/stats", dir, cpu);
		f = fopen(p, "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long v;

			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "commit overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				lost += v;
		}
		fclose(f);
	}
	return lost;
}

static int push(struct orc_trace *t, const struct orc_ev *e)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;
		struct orc_ev *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *e;
	return 0;
}

typedef int (*parse_fn)(const char *line, struct orc_ev *e);

/* Every line of f through parse into t; [LOST n EVENTS] lines into t->lost. */
static int read_lines(FILE *f, parse_fn parse, struct orc_trace *t, char *err,
		      size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		struct orc_ev e;
		unsigned long long lost;
		int cpu, r;

		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "CPU:%d [LOST %llu EVENTS]", &cpu, &lost) == 2) {
			t->lost += lost;
			continue;
		}
		r = parse(line, &e);
		if (r < 0 && !t->unparsed++ && getenv("ORACLE_DEBUG"))
			fprintf(stderr, "oracle: does not parse: %s\n", line);
		if (r <= 0)
			continue;
		e.line = strdup(line);
		if (!e.line || push(t, &e)) {
			seterr(err, errlen, "oracle: out of memory at %zu events", t->n);
			free(e.line);
			rc = -1;
			break;
		}
	}
	free(line);
	return rc;
}

#define WAKING_BACK 65536 /* how far back a sched_wakeup's sched_waking is sought */

static void set_wakers(struct orc_trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct orc_ev *e = &t->v[i];

		/* as abicap has it: -2 in interrupt context, -1 not seen */
		e->waker = e->in_irq ? -2 : e->cur_pid;
		if (e->type != ABICAP_EV_SCHED_WAKEUP)
			continue;
		e->waker = -1;
		for (size_t k = i; k-- > 0 && i - k < WAKING_BACK;)
			if (t->v[k].type == ABICAP_EV_SCHED_WAKING &&
			    t->v[k].pid == e->pid) {
				e->waker = t->v[k].waker;
				break;
			}
	}
}

int orc_stop(struct orc_session *s, struct orc_trace *t, char *err,
	     size_t errlen)
{
	char p[512];
	FILE *f;
	int rc;

	memset(t, 0, sizeof(*t));
	if (put(s->dir, "tracing_on", "0", err, errlen)) {
		orc_abort(s);
		return -1;
	}
	snprintf(p, sizeof(p), "%s/trace", s->dir);
	f = fopen(p, "re");
	if (!f) {
		seterr(err, errlen, "oracle: cannot read %s: %s", p, strerror(errno));
		orc_abort(s);
		return -1;
	}
	rc = read_lines(f, orc_parse_line, t, err, errlen);
	fclose(f);
	set_wakers(t);
	t->lost += instance_losses(s->dir);
	orc_abort(s);
	return rc;
}

void orc_trace_free(struct orc_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].line);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* The last occurrence of needle starting in [b, e - strlen(needle)]. */
static const char *rfind(const char *b, const char *e, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = e - n; p >= b; p--)
		if (!memcmp(p, needle, n))
			return p;
	return NULL;
}

static int copy_comm(char *dst, const char *b, const char *e)
{
	if (e < b || e - b > 15)
		return -1;
	memcpy(dst, b, e - b);
	dst[e - b] = 0;
	return 0;
}

static int num(const char *s, const char *e, long long *v)
{
	char buf[32], *end;

	if (e <= s || e - s >= (long)sizeof(buf))
		return -1;
	memcpy(buf, s, e - s);
	buf[e - s] = 0;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return *end || errno ? -1 : 0;
}

/* "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", from the right */
static int parse_switch(const char *b, const char *e, struct orc_ev *ev)
{
	const char *np, *nid, *nc, *ps, *pp, *pid;
	long long v[4];

	if (strncmp(b, "prev_comm=", 10) ||
	    !(np = rfind(b, e, " next_prio=")) || num(np + 11, e, &v[0]) ||
	    !(nid = rfind(b, np, " next_pid=")) || num(nid + 10, np, &v[1]) ||
	    !(nc = rfind(b, nid, " ==> next_comm=")) ||
	    copy_comm(ev->next_comm, nc + 15, nid) ||
	    !(ps = rfind(b, nc, " prev_state=")) || nc - ps - 12 > 15 ||
	    !(pp = rfind(b, ps, " prev_prio=")) || num(pp + 11, ps, &v[2]) ||
	    !(pid = rfind(b, pp, " prev_pid=")) || num(pid + 10, pp, &v[3]) ||
	    copy_comm(ev->prev_comm, b + 10, pid))
		return -1;
	memcpy(ev->prev_state, ps + 12, nc - ps - 12);
	ev->prev_state[nc - ps - 12] = 0;
	ev->next_prio = v[0];
	ev->next_pid = v[1];
	ev->prev_prio = v[2];
	ev->prev_pid = v[3];
	return 0;
}

/* "comm=%s pid=%d prio=%d target_cpu=%03d" */
static int parse_wakeup(const char *b, const char *e, struct orc_ev *ev)
{
	const char *tc, *pr, *pid;
	long long v[3];

	if (strncmp(b, "comm=", 5) ||
	    !(tc = rfind(b, e, " target_cpu=")) || num(tc + 12, e, &v[0]) ||
	    !(pr = rfind(b, tc, " prio=")) || num(pr + 6, tc, &v[1]) ||
	    !(pid = rfind(b, pr, " pid=")) || num(pid + 5, pr, &v[2]) ||
	    copy_comm(ev->comm, b + 5, pid))
		return -1;
	ev->target_cpu = v[0];
	ev->prio = v[1];
	ev->pid = v[2];
	return 0;
}

/* "state=%lu cpu_id=%lu" */
static int parse_power(const char *b, const char *e, struct orc_ev *ev)
{
	const char *ci;
	long long v[2];

	if (strncmp(b, "state=", 6) || !(ci = rfind(b, e, " cpu_id=")) ||
	    num(ci + 8, e, &v[0]) || num(b + 6, ci, &v[1]) ||
	    v[0] < 0 || v[0] > UINT32_MAX || v[1] < 0 || v[1] > UINT32_MAX)
		return -1;
	ev->cpu_id = v[0];
	ev->state = v[1];
	return 0;
}

static int parse_body(struct orc_ev *e, const char *body, const char *end)
{
	int k;

	for (k = 0; k < ABICAP_EV_COUNT; k++) {
		size_t n = strlen(ev_names[k]);

		if (!strncmp(body, ev_names[k], n) && body[n] == ':' &&
		    body[n + 1] == ' ')
			break;
	}
	if (k == ABICAP_EV_COUNT)
		return 0;
	body += strlen(ev_names[k]) + 2;
	e->type = k;
	e->ref_ts = e->ts;
	if (k == ABICAP_EV_SCHED_SWITCH)
		return parse_switch(body, end, e) ? -1 : 1;
	if (k == ABICAP_EV_CPU_IDLE || k == ABICAP_EV_CPU_FREQUENCY)
		return parse_power(body, end, e) ? -1 : 1;
	return parse_wakeup(body, end, e) ? -1 : 1;
}

/* The current task's pid: the digits before the blanks before b ('['), after sep. */
static int header_pid(const char *line, const char *b, char sep,
		      char *comm, size_t commlen)
{
	const char *p = b - 1, *c = line;
	int pid = 0, mul = 1;

	while (p > line && *p == ' ')
		p--;
	while (p > line && *p >= '0' && *p <= '9') {
		pid += (*p - '0') * mul;
		mul *= 10;
		p--;
	}
	if (*p != sep)
		return -1;
	if (comm) {
		while (c < p && *c == ' ')
			c++;
		snprintf(comm, commlen, "%.*s", (int)(p - c), c);
	}
	return pid;
}

/*
 * Header: "%16s-%-7d [%03d] FLAGS %5lu.%06lu: EVENT: ". The task's comm may
 * hold anything, so the header is found at the first " [DDD] " that a
 * flags word and a timestamp follow (longer than any comm).
 */
int orc_parse_line(const char *line, struct orc_ev *e)
{
	const char *b, *body = NULL;
	unsigned long long sec = 0, usec = 0;
	int cpu = -1;

	memset(e, 0, sizeof(*e));
	for (b = strchr(line, '['); b; b = strchr(b + 1, '[')) {
		char flags[16], c1, c2;
		int n = 0;

		if (b == line || b[-1] != ' ')
			continue;
		if (sscanf(b, "[%d%c %15s %llu.%llu%c %n", &cpu, &c1, flags, &sec,
			   &usec, &c2, &n) == 6 && c1 == ']' && c2 == ':' && n > 0 &&
		    usec < 1000000) {
			body = b + n;
			/* irqs-off, need-resched, then the hardirq/softirq/NMI mark */
			e->in_irq = strlen(flags) > 2 && flags[2] != '.';
			e->ctx = strlen(flags) > 2 ? flags[2] : '.';
			break;
		}
	}
	if (!body)
		return 0;
	e->cur_pid = header_pid(line, b, '-', e->cur_comm, sizeof(e->cur_comm));
	if (e->cur_pid < 0)
		return -1;
	e->cpu = cpu;
	e->ts = sec * 1000000000ULL + usec * 1000ULL;
	return parse_body(e, body, line + strlen(line));
}

/*
 * perf script -F comm,tid,cpu,time,event,trace --ns:
 * "%16s %5d [%03d] %lu.%09lu: sched:EVENT: ". No context flags: in_irq
 * is never set, so wakers are only right for unfiltered matching.
 */
int orc_parse_perf_line(const char *line, struct orc_ev *e)
{
	const char *b, *body = NULL;
	unsigned long long sec = 0, nsec = 0;
	int cpu = -1;

	memset(e, 0, sizeof(*e));
	for (b = strchr(line, '['); b; b = strchr(b + 1, '[')) {
		char c1, c2;
		int n = 0;

		if (b == line || b[-1] != ' ')
			continue;
		if (sscanf(b, "[%d%c %llu.%llu%c %n", &cpu, &c1, &sec, &nsec, &c2,
			   &n) == 5 && c1 == ']' && c2 == ':' && n > 0 &&
		    nsec < 1000000000) {
			body = b + n;
			break;
		}
	}
	if (!body)
		return 0;
	while (*body == ' ')
		body++;
	if (strncmp(body, "sched:", 6) && strncmp(body, "power:", 6))
		return 0;
	/* perf prints -1 for a sample it has no task for */
	e->cur_pid = header_pid(line, b, ' ', NULL, 0);
	if (e->cur_pid < 0 && header_pid(line, b, '-', NULL, 0) != 1)
		return -1;
	e->cpu = cpu;
	e->ts = sec * 1000000000ULL + nsec;
	return parse_body(e, body + 6, line + strlen(line));
}

/* As the sched_switch print fmt of 4.14+ kernels prints it. */
void orc_state_str(uint32_t st, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; i < 8; i++)
		if (st & (1u << i))
			o += snprintf(buf + o, o < len ? len - o : 0, "%s%c",
				      o ? "|" : "", letters[i]);
	if (!(st & 0xff))
		o += snprintf(buf + o, o < len ? len - o : 0, "R");
	if (st & ABICAP_STATE_PREEMPTED)
		snprintf(buf + o, o < len ? len - o : 0, "+");
}

void orc_rec_str(const union abicap_rec *r, char *buf, size_t len)
{
	char st[32];
	unsigned long long ts = r->hdr.ts_ns;
	const char *name = r->hdr.type < ABICAP_EV_COUNT ?
		ev_names[r->hdr.type] : "?";

	switch (r->hdr.type) {
	case ABICAP_EV_SCHED_SWITCH:
		orc_state_str(r->sw.prev_state, st, sizeof(st));
		snprintf(buf, len, "[%03u] %llu.%09llu %s: prev_comm=%.16s prev_pid=%d "
			 "prev_prio=%d prev_state=%s (0x%x) ==> next_comm=%.16s "
			 "next_pid=%d next_prio=%d", r->hdr.cpu, ts / 1000000000,
			 ts % 1000000000, name, r->sw.prev_comm, r->sw.prev_pid,
			 r->sw.prev_prio, st, r->sw.prev_state, r->sw.next_comm,
			 r->sw.next_pid, r->sw.next_prio);
		break;
	case ABICAP_EV_CPU_IDLE:
	case ABICAP_EV_CPU_FREQUENCY:
		snprintf(buf, len, "[%03u] %llu.%09llu %s: state=%u cpu_id=%u",
			 r->hdr.cpu, ts / 1000000000, ts % 1000000000, name,
			 r->pw.state, r->pw.cpu_id);
		break;
	default:
		snprintf(buf, len, "[%03u] %llu.%09llu %s: comm=%.16s pid=%d prio=%d "
			 "target_cpu=%03d waker_pid=%d", r->hdr.cpu, ts / 1000000000,
			 ts % 1000000000, name, r->wk.comm, r->wk.pid, r->wk.prio,
			 r->wk.target_cpu, r->wk.waker_pid);
	}
}

/* The events named in a capture's header (a mask; 0 if none is named). */
static unsigned int header_events(struct capr *r)
{
	json_t *meta = json_loads(capr_meta(r), 0, NULL), *v;
	unsigned int mask = 0;
	size_t i;

	json_array_foreach(json_object_get(meta, "events"), i, v) {
		const char *name = json_string_value(v);
		int ev = name ? event_by_name(name, strlen(name)) : -1;

		if (ev >= 0)
			mask |= 1u << ev;
	}
	json_decref(meta);
	return mask;
}

int orc_load_capture(const char *path, union abicap_rec **recs, size_t *n,
		     uint64_t *dropped, unsigned int *events, char *err,
		     size_t errlen)
{
	struct capr *r = capr_open(path, err, errlen);
	json_t *trl, *evs, *v;
	const char *key;
	int rc;

	*recs = NULL;
	*n = 0;
	*dropped = 0;
	*events = 0;
	if (!r)
		return -1;
	*events = header_events(r);
	rc = capr_load(r, recs, n);
	if (rc || capr_damaged(r)) {
		seterr(err, errlen, "oracle: %s does not read back: %s", path,
		       rc == -ENOMEM ? "out of memory" : capr_error(r));
		capr_close(r);
		free(*recs);
		*recs = NULL;
		return -1;
	}
	if (!capr_trailer(r)) {
		seterr(err, errlen, "oracle: %s has no trailer (cut short)", path);
		capr_close(r);
		return -1;
	}
	trl = json_loads(capr_trailer(r), 0, NULL);
	evs = json_object_get(trl, "events");
	json_object_foreach(evs, key, v)
		*dropped += json_integer_value(json_object_get(v, "dropped"));
	/*
	 * and the program runs the kernel skipped (recursion_misses): their
	 * events are lost as surely as those of a full ring (CI's loaded run:
	 * one sched_waking in 84,608 that perf had, with nothing dropped)
	 */
	json_object_foreach(json_object_get(trl, "recursion_misses"), key, v)
		*dropped += json_integer_value(v);
	json_decref(trl);
	capr_close(r);
	return 0;
}

static bool same(const struct orc_ev *o, const union abicap_rec *r)
{
	char st[32];

	if ((int)r->hdr.type != o->type || (int)r->hdr.cpu != o->cpu)
		return false;
	switch (o->type) {
	case ABICAP_EV_SCHED_SWITCH:
		orc_state_str(r->sw.prev_state, st, sizeof(st));
		/*
		 * An exiting task's last switch-out: the state comes from its
		 * exit_state, which its parent may turn from EXIT_ZOMBIE (Z)
		 * to EXIT_DEAD (X) on another CPU between the two probes of
		 * the same tracepoint hit (wait_task_zombie()): both are true.
		 */
		if (!strcmp(o->prev_state, "Z") && !strcmp(st, "X"))
			strcpy(st, "Z");
		return !strncmp(o->prev_comm, r->sw.prev_comm, 16) &&
		       !strncmp(o->next_comm, r->sw.next_comm, 16) &&
		       o->prev_pid == r->sw.prev_pid && o->next_pid == r->sw.next_pid &&
		       o->prev_prio == r->sw.prev_prio &&
		       o->next_prio == r->sw.next_prio && !strcmp(o->prev_state, st);
	case ABICAP_EV_CPU_IDLE:
	case ABICAP_EV_CPU_FREQUENCY:
		return o->state == r->pw.state && o->cpu_id == r->pw.cpu_id;
	default:
		return !strncmp(o->comm, r->wk.comm, 16) && o->pid == r->wk.pid &&
		       o->prio == r->wk.prio && o->target_cpu == r->wk.target_cpu;
	}
}

static bool involves(const struct orc_ev *o, const struct orc_filter *f)
{
	if (f->comm)
		return o->type == ABICAP_EV_SCHED_SWITCH ?
		       !strcmp(o->prev_comm, f->comm) || !strcmp(o->next_comm, f->comm) :
		       o->type != ABICAP_EV_CPU_IDLE &&
		       o->type != ABICAP_EV_CPU_FREQUENCY && !strcmp(o->comm, f->comm);
	for (size_t i = 0; i < f->ntids; i++) {
		int t = f->tids[i];

		/*
		 * both tracefs's times (a task's life from its own events):
		 * exact, else a task that took a pid just freed would count
		 * as the one before it
		 */
		if (f->from && (o->ts < f->from[i] || o->ts > f->until[i]))
			continue;

		if (o->type == ABICAP_EV_SCHED_SWITCH ?
		    o->prev_pid == t || o->next_pid == t :
		    o->type != ABICAP_EV_CPU_IDLE &&
		    o->type != ABICAP_EV_CPU_FREQUENCY &&
		    (o->pid == t || (f->wakers && o->waker == t)))
			return true;
	}
	return false;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * Whether abicap's timestamp ts can be of the same tracepoint call as the
 * oracle's event oi[i] of this CPU. The two probes run one after the other
 * in that call with interrupts off (but for a task's wakeup of itself), so
 * no other event of the CPU comes between them, however long the machine
 * keeps the CPU away in between (a busy host: 1.4 ms seen): ts lies
 * between the oracle's events before and after it on the CPU (1 us more:
 * tracefs prints truncated microseconds). Within orc_tol_ns is accepted
 * too (an interrupt's events between the probes of a wakeup of current).
 */
static bool near(const struct orc_trace *t, const size_t *oi, size_t no,
		 size_t i, uint64_t ts)
{
	const struct orc_ev *o = &t->v[oi[i]];
	uint64_t from = i ? t->v[oi[i - 1]].ts : o->ts;
	uint64_t to = (i + 1 < no ? t->v[oi[i + 1]].ts : o->ts) + 1000;

	return absdiff(o->ts, ts) <= orc_tol_ns || (ts >= from && ts <= to);
}

static bool inner(uint64_t ts, uint64_t t0, uint64_t t1)
{
	return ts >= t0 + orc_tol_ns && ts + orc_tol_ns <= t1;
}

/* abicap's record must have its match: inside the window, not a blind spot */
static bool required(const struct orc_trace *t, const union abicap_rec *r,
		     uint64_t t0, uint64_t t1)
{
	if (t->blind_pid && r->hdr.type != ABICAP_EV_SCHED_SWITCH &&
	    r->hdr.type != ABICAP_EV_CPU_IDLE &&
	    r->hdr.type != ABICAP_EV_CPU_FREQUENCY && r->wk.tgid == t->blind_pid)
		return false;
	return inner(r->hdr.ts_ns, t0, t1);
}

static void first_diff(struct orc_match *m, const struct orc_ev *o,
		       const union abicap_rec *r, const char *why)
{
	char a[400];
	size_t len = strlen(m->first);

	if (!m->first_task[0] && (!o || !o->in_irq || !strstr(why, "tracefs has"))) {
		if (r)
			orc_rec_str(r, a, sizeof(a));
		snprintf(m->first_task, sizeof(m->first_task),
			 "%s\n  tracefs: %s\n  abicap:  %s", why, o ? o->line : "(none)",
			 r ? a : "(none)");
	}
	if (m->ndiffs >= ORC_DIFFS)
		return;
	m->ndiffs++;
	if (r)
		orc_rec_str(r, a, sizeof(a));
	snprintf(m->first + len, sizeof(m->first) - len,
		 "\n%d. %s\n  tracefs: %s\n  abicap:  %s", m->ndiffs, why,
		 o ? o->line : "(none)", r ? a : "(none)");
}

#define LOOKAHEAD 16

/* ORACLE_DEBUG set: both sides around the first difference, on stderr. */
static void dump(const struct orc_trace *t, const size_t *oi, size_t no,
		 size_t i, const union abicap_rec *recs, const size_t *ai,
		 size_t na, size_t j)
{
	char s[400];

	for (size_t k = i > 8 ? i - 8 : 0; k < no && k < i + 8; k++)
		fprintf(stderr, "%s T %s\n", k == i ? ">" : " ", t->v[oi[k]].line);
	for (size_t k = j > 8 ? j - 8 : 0; k < na && k < j + 8; k++) {
		orc_rec_str(&recs[ai[k]], s, sizeof(s));
		fprintf(stderr, "%s A %s\n", k == j ? ">" : " ", s);
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The tasks switched in twice or more and never out (see oracle.h). */
#define ORC_MAX_CPUS 1024

static void find_hidden(const struct orc_trace *t, struct orc_match *m)
{
	int *in = malloc((2 * t->n + 1) * sizeof(*in));
	int *out = malloc((t->n + 1) * sizeof(*out));
	size_t nin = 0, nout = 0;

	int last[ORC_MAX_CPUS] = { 0 };

	if (!in || !out)
		goto done;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].type == ABICAP_EV_SCHED_SWITCH) {
			int c = t->v[i].cpu;

			if (t->v[i].next_pid > 0)
				in[nin++] = t->v[i].next_pid;
			/*
			 * switched in, and the CPU's next switch-out is another
			 * task's: its own switch-out was not traced (counts as
			 * a second switch-in, so one such is enough)
			 */
			if (c >= 0 && c < ORC_MAX_CPUS) {
				if (last[c] > 0 && last[c] != t->v[i].prev_pid)
					in[nin++] = last[c];
				last[c] = t->v[i].next_pid;
			}
			out[nout++] = t->v[i].prev_pid;
		}
	qsort(in, nin, sizeof(*in), cmp_int);
	qsort(out, nout, sizeof(*out), cmp_int);
	for (size_t i = 0; i < nin && m->nhidden < ORC_MAX_HIDDEN;) {
		size_t k = i;

		while (k < nin && in[k] == in[i])
			k++;
		if (k - i >= 2 &&
		    !bsearch(&in[i], out, nout, sizeof(*out), cmp_int))
			m->hidden[m->nhidden++] = in[i];
		i = k;
	}
done:
	free(in);
	free(out);
}

static bool is_hidden(const struct orc_match *m, int pid)
{
	for (int k = 0; k < m->nhidden; k++)
		if (pid == m->hidden[k])
			return true;
	return false;
}

static bool hidden_current(const struct orc_match *m, const struct orc_ev *o)
{
	return is_hidden(m, o->cur_pid);
}

/*
 * The pids tracefs shows as current (an event's header) or switched out,
 * sorted: a task it never shows so ran only while tracefs was blind.
 */
static int *seen_current(const struct orc_trace *t, size_t *n)
{
	int *v = malloc((2 * t->n + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		v[(*n)++] = t->v[i].cur_pid;
		if (t->v[i].type == ABICAP_EV_SCHED_SWITCH)
			v[(*n)++] = t->v[i].prev_pid;
	}
	qsort(v, *n, sizeof(*v), cmp_int);
	return v;
}

/* The task current at abicap's record, where the record says (else -1). */
static int rec_current(const union abicap_rec *r)
{
	if (r->hdr.type == ABICAP_EV_SCHED_SWITCH)
		return r->sw.prev_pid;
	if (r->hdr.type == ABICAP_EV_SCHED_WAKING ||
	    r->hdr.type == ABICAP_EV_SCHED_WAKEUP ||
	    r->hdr.type == ABICAP_EV_SCHED_WAKEUP_NEW)
		return r->wk.waker_pid;
	return -1;
}

/*
 * Whether r fired while a task tracefs never shows was current: tracefs,
 * which lost nothing, was blind to it (the task is then kept as hidden).
 */
static bool unseen_current(const struct orc_trace *t, const int *seen,
			   size_t nseen, struct orc_match *m,
			   const union abicap_rec *r)
{
	int pid = rec_current(r);

	if (t->lost || !seen || pid <= 0 ||
	    bsearch(&pid, seen, nseen, sizeof(*seen), cmp_int))
		return false;
	if (!is_hidden(m, pid) && m->nhidden < ORC_MAX_HIDDEN)
		m->hidden[m->nhidden++] = pid;
	return true;
}

/*
 * A matched wakeup's waker against tracefs's: the task current at its
 * sched_waking (-2 both where that ran in interrupt context). Where either
 * side did not see it (-1), nothing to compare. Where only one side says
 * interrupt (tracefs from its context flags, abicap from preempt_count),
 * that is counted apart: the two readings of the context differ, not the
 * task.
 */
static void compare_waker(const struct orc_trace *t, struct orc_match *m,
			  const struct orc_ev *o, const union abicap_rec *r)
{
	bool irq_differs;
	char *first;

	if ((o->type != ABICAP_EV_SCHED_WAKEUP &&
	     o->type != ABICAP_EV_SCHED_WAKING) ||
	    o->waker == -1 || r->wk.waker_pid == -1 ||
	    (t->no_context && r->wk.waker_pid == -2))
		return;
	m->wakers_compared++;
	if (o->waker == r->wk.waker_pid)
		return;
	irq_differs = (o->waker == -2) != (r->wk.waker_pid == -2);
	if (irq_differs ? m->waker_irq_diffs++ : m->waker_diffs++)
		return;
	first = irq_differs ? m->first_irq_waker : m->first_waker;
	snprintf(first, sizeof(m->first_waker),
		 "%s of %s:%d at %llu: waker %d in tracefs, %d in abicap",
		 o->type == ABICAP_EV_SCHED_WAKEUP ? "sched_wakeup" :
		 "sched_waking", o->comm, o->pid, (unsigned long long)o->ts,
		 o->waker, r->wk.waker_pid);
}

uint64_t orc_match(struct orc_trace *t, const union abicap_rec *recs,
		   size_t nrecs, uint64_t t0, uint64_t t1,
		   const struct orc_filter *f, struct orc_match *m)
{
	uint64_t lo = t0 > orc_tol_ns ? t0 - orc_tol_ns : 0;
	uint64_t hi = t1 + orc_tol_ns, bad = 0;
	size_t *oi = malloc((t->n + 1) * sizeof(*oi));
	size_t *ai = malloc((nrecs + 1) * sizeof(*ai));
	size_t *sw = malloc((t->n + 1) * sizeof(*sw));
	bool *aopt = malloc(nrecs + 1);
	size_t nseen = 0;
	int *seen = seen_current(t, &nseen);
	int maxcpu = -1;

	memset(m, 0, sizeof(*m));
	m->min_delta_ns = INT64_MAX;
	m->max_delta_ns = INT64_MIN;
	if (!oi || !ai || !sw || !aopt) {
		snprintf(m->first, sizeof(m->first), "oracle: out of memory");
		free(oi);
		free(ai);
		free(sw);
		free(aopt);
		free(seen);
		return 1;
	}
	find_hidden(t, m);
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].cpu > maxcpu)
			maxcpu = t->v[i].cpu;
	for (size_t i = 0; i < nrecs; i++)
		if ((int)recs[i].hdr.cpu > maxcpu)
			maxcpu = recs[i].hdr.cpu;
	for (int cpu = 0; cpu <= maxcpu; cpu++) {
		size_t no = 0, na = 0, i = 0, j = 0;

		/* recs are in time order (capr_load); the oracle per CPU is too */
		size_t nsw = 0, q = 0;
		bool blind = false;

		/*
		 * Where the kernel hid the CPU's current task, from a switch to
		 * a hidden task until the CPU's next traced switch, neither its
		 * switch-out nor the events of what runs after it until then
		 * are traced (seen: a hardirq wakeup in the next task, in
		 * tracefs and not to BPF). Only switches must match there; the
		 * rest of either side is matched where it can be (a matched
		 * wakeup is in the run-queue reference) and else counted as
		 * hidden.
		 */
		for (size_t k = 0; k < t->n; k++) {
			struct orc_ev *x = &t->v[k];
			bool in = x->ts >= lo && x->ts <= hi;

			if (x->cpu != cpu)
				continue;
			if (x->type == ABICAP_EV_SCHED_SWITCH) {
				sw[nsw++] = k;
				blind = is_hidden(m, x->next_pid);
			} else {
				x->optional = blind || hidden_current(m, x);
			}
			if (in && (!t->events || (t->events & (1u << x->type))))
				oi[no++] = k;
		}
		blind = false;
		for (size_t k = 0; k < nrecs; k++) {
			const union abicap_rec *r = &recs[k];

			if ((int)r->hdr.cpu != cpu)
				continue;
			for (; q < nsw && t->v[sw[q]].ts < r->hdr.ts_ns; q++)
				blind = is_hidden(m, t->v[sw[q]].next_pid);
			if (r->hdr.ts_ns < lo || r->hdr.ts_ns > hi)
				continue;
			aopt[na] = (r->hdr.type != ABICAP_EV_SCHED_SWITCH && blind) ||
				   unseen_current(t, seen, nseen, m, r);
			ai[na++] = k;
		}
		while (i < no) {
			struct orc_ev *o = &t->v[oi[i]];
			size_t k;

			for (k = j; k < na && k < j + LOOKAHEAD; k++)
				if (same(o, &recs[ai[k]]) &&
				    near(t, oi, no, i, recs[ai[k]].hdr.ts_ns))
					break;
			/*
			 * A match further on in abicap's records makes the ones
			 * before it extra. If abicap's next record matches an
			 * oracle event further on at a smaller cost (fewer
			 * required oracle events passed over), this one is the
			 * missing one instead.
			 */
			if (k > j && k < na && k < j + LOOKAHEAD) {
				size_t l, cost = 0;

				for (l = i; l < no && l < i + 4 * LOOKAHEAD; l++) {
					const struct orc_ev *x = &t->v[oi[l]];

					if (l > i && same(x, &recs[ai[j]]) &&
					    near(t, oi, no, l, recs[ai[j]].hdr.ts_ns))
						break;
					cost += !x->optional && (!f || involves(x, f));
				}
				if (l < no && l < i + 4 * LOOKAHEAD && cost <= k - j)
					k = na; /* o is the one missing */
			}
			/*
			 * An event a filtered capture does not want (ignored
			 * when unmatched) must not take a record that a later
			 * look-alike event (same fields: a task woken twice on
			 * one CPU) matches more closely in time.
			 */
			if (f && k < na && k < j + LOOKAHEAD && !involves(o, f)) {
				uint64_t dk = absdiff(o->ts, recs[ai[k]].hdr.ts_ns);

				for (size_t l = i + 1; l < no && l < i + 4 * LOOKAHEAD; l++)
					if (same(&t->v[oi[l]], &recs[ai[k]]) &&
					    absdiff(t->v[oi[l]].ts,
						    recs[ai[k]].hdr.ts_ns) < dk) {
						k = na;
						break;
					}
			}
			if (k < na && k < j + LOOKAHEAD) {
				const union abicap_rec *r = &recs[ai[k]];
				int64_t d = (int64_t)(r->hdr.ts_ns - o->ts);

				for (; j < k; j++)
					if (aopt[j]) {
						m->hidden_events += inner(recs[ai[j]].hdr.ts_ns, t0, t1);
					} else if (required(t, &recs[ai[j]], t0, t1)) {
						if (!m->oracle_only && !m->abicap_only &&
						    getenv("ORACLE_DEBUG"))
							dump(t, oi, no, i, recs, ai, na, j);
						m->abicap_only++;
						first_diff(m, o, &recs[ai[j]],
							   "abicap has a record tracefs does not");
					}
				j++;
				o->matched = true;
				o->ref_ts = r->hdr.ts_ns;
				if (o->type == ABICAP_EV_SCHED_SWITCH &&
				    !strcmp(o->prev_state, "Z") &&
				    (r->sw.prev_state & 0x10))
					m->exit_races++;
				m->matched[o->type]++;
				compare_waker(t, m, o, r);
				if (d < m->min_delta_ns)
					m->min_delta_ns = d;
				if (d > m->max_delta_ns)
					m->max_delta_ns = d;
				if (absdiff(o->ts, r->hdr.ts_ns) > 10000)
					m->over_10us++;
				if (absdiff(o->ts, r->hdr.ts_ns) > m->max_skew_ns)
					m->max_skew_ns = absdiff(o->ts, r->hdr.ts_ns);
			} else if (inner(o->ts, t0, t1) && (!f || involves(o, f)) &&
				   o->optional) {
				m->hidden_events++;

			} else if (inner(o->ts, t0, t1) && (!f || involves(o, f))) {
				if (!m->oracle_only && !m->abicap_only && getenv("ORACLE_DEBUG"))
					dump(t, oi, no, i, recs, ai, na, j);
				m->oracle_only++;
				m->irq_only += o->in_irq;
				first_diff(m, o, j < na ? &recs[ai[j]] : NULL,
					   "tracefs has an event abicap does not (or it differs)");
			}
			i++;
		}
		for (; j < na; j++)
			if (aopt[j]) {
				m->hidden_events += inner(recs[ai[j]].hdr.ts_ns, t0, t1);
			} else if (required(t, &recs[ai[j]], t0, t1)) {
				m->abicap_only++;
				first_diff(m, NULL, &recs[ai[j]],
					   "abicap has a record tracefs does not");
			}
	}
	bad = m->oracle_only + m->abicap_only;
	free(seen);
	free(oi);
	free(ai);
	free(sw);
	free(aopt);
	return bad;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct orc_ev *x = *(const struct orc_ev *const *)a;
	const struct orc_ev *y = *(const struct orc_ev *const *)b;

	if (x->ref_ts != y->ref_ts)
		return x->ref_ts < y->ref_ts ? -1 : 1;
	return x < y ? -1 : x > y; /* the trace's order */
}

/* nearest rank: the ceil(p/100 * n)-th smallest (p to 0.1) */
static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t pm = (size_t)(p * 10 + 0.5), rank = (pm * n + 999) / 1000;

	return v[(rank ? rank : 1) - 1];
}

void orc_rq_ref(const struct orc_trace *t, int tid, bool from_waking,
		bool matched_only, struct orc_rq *out)
{
	orc_rq_ref_excl(t, tid, from_waking, matched_only, 0, 0, out);
}

void orc_rq_ref_excl(const struct orc_trace *t, int tid, bool from_waking,
		     bool matched_only, uint64_t ex0, uint64_t ex1,
		     struct orc_rq *out)
{
	uint64_t w[1][2] = { { ex0, ex1 } };

	orc_rq_ref_windows(t, tid, from_waking, matched_only, w, ex1 ? 1 : 0,
			   out);
}

/* Whether [s, e] overlaps one of the windows (start, end]. */
static bool in_windows(const uint64_t (*w)[2], size_t n, uint64_t s,
		       uint64_t e)
{
	for (size_t i = 0; i < n; i++)
		if (s <= w[i][1] && e > w[i][0])
			return true;
	return false;
}

void orc_rq_ref_windows(const struct orc_trace *t, int tid, bool from_waking,
			bool matched_only, const uint64_t (*win)[2],
			size_t nwin, struct orc_rq *out)
{
	const struct orc_ev **ev = malloc((t->n + 1) * sizeof(*ev));
	uint64_t *s = malloc((t->n + 1) * sizeof(*s)), start = 0, raced = 0;
	bool on_cpu = false, pending = false;
	size_t n = 0, ns = 0;

	memset(out, 0, sizeof(*out));
	if (!ev || !s)
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		const struct orc_ev *e = &t->v[i];

		if (matched_only && !e->matched)
			continue;
		if ((e->type == ABICAP_EV_SCHED_SWITCH &&
		     (e->prev_pid == tid || e->next_pid == tid)) ||
		    (e->type <= ABICAP_EV_SCHED_WAKING &&
		     e->type != ABICAP_EV_SCHED_SWITCH && e->pid == tid))
			ev[n++] = e;
	}
	qsort(ev, n, sizeof(*ev), cmp_ref);
	for (size_t i = 0; i < n; i++) {
		const struct orc_ev *e = ev[i];

		if (e->type == ABICAP_EV_SCHED_SWITCH && e->prev_pid == tid) {
			on_cpu = false;
			pending = !strcmp(e->prev_state, "R") ||
				  !strcmp(e->prev_state, "R+");
			start = e->ref_ts;
			/* a waking that raced this switch-out asleep woke it */
			if (!pending && raced && strcmp(e->prev_state, "X") &&
			    strcmp(e->prev_state, "Z")) {
				pending = true;
				start = raced;
			}
			raced = 0;
		} else if (e->type == ABICAP_EV_SCHED_SWITCH) {
			if (pending && !in_windows(win, nwin, start, e->ref_ts))
				s[ns++] = e->ref_ts - start;
			pending = false;
			on_cpu = true;
			raced = 0;
		} else if (on_cpu && from_waking &&
			   e->type == ABICAP_EV_SCHED_WAKING) {
			raced = e->ref_ts;
		} else if (!on_cpu && (e->type == ABICAP_EV_SCHED_WAKEUP_NEW ||
			   e->type == (from_waking ? ABICAP_EV_SCHED_WAKING :
				       ABICAP_EV_SCHED_WAKEUP))) {
			pending = true;
			start = e->ref_ts;
		}
	}
	if (ns) {
		qsort(s, ns, sizeof(*s), cmp_u64);
		out->count = ns;
		for (size_t i = 0; i < ns; i++)
			out->total += s[i];
		out->p50 = pct(s, ns, 50);
		out->p99 = pct(s, ns, 99);
		out->max = s[ns - 1];
	}
out:
	free(ev);
	free(s);
}

struct orc_perf {
	pid_t pid;
	char data[512];
	char errs[600];
};

struct orc_perf *orc_perf_start(const char *data, char *err, size_t errlen)
{
	struct orc_perf *p = calloc(1, sizeof(*p));
	struct stat st;
	int i;

	if (!p) {
		seterr(err, errlen, "oracle: out of memory");
		return NULL;
	}
	snprintf(p->data, sizeof(p->data), "%s", data);
	snprintf(p->errs, sizeof(p->errs), "%s.err", data);
	unlink(data);
	p->pid = fork();
	if (p->pid < 0) {
		seterr(err, errlen, "oracle: fork: %s", strerror(errno));
		free(p);
		return NULL;
	}
	if (!p->pid) {
		int fd = open(p->errs, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		/* a test that dies leaves no perf record -a behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp("perf", "perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-a",
		       "-m", "4M", "-e", "sched:sched_switch,sched:sched_wakeup,"
		       "sched:sched_wakeup_new,sched:sched_waking,power:cpu_idle,"
		       "power:cpu_frequency", "-o", p->data, (char *)NULL);
		_exit(127);
	}
	/* perf writes the header once its events are set up and enabled */
	for (i = 0; i < 200 && (stat(p->data, &st) || !st.st_size); i++)
		usleep(25000);
	if (i == 200 || waitpid(p->pid, NULL, WNOHANG)) {
		seterr(err, errlen, "oracle: perf record did not start (see %s)",
		       p->errs);
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		free(p);
		return NULL;
	}
	usleep(300000);
	return p;
}

int orc_perf_stop(struct orc_perf *p, struct orc_trace *t, char *err,
		  size_t errlen)
{
	char cmd[1400], line[512];
	FILE *f;
	int st, rc;

	memset(t, 0, sizeof(*t));
	kill(p->pid, SIGINT);
	waitpid(p->pid, &st, 0);
	/* perf exits with SIGINT's status after writing its file: perf script judges it */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		seterr(err, errlen, "oracle: perf record failed (see %s)", p->errs);
		free(p);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F comm,tid,cpu,time,"
		 "event,trace --ns 2>'%s.script'", p->data, p->data);
	f = popen(cmd, "r");
	if (!f) {
		seterr(err, errlen, "oracle: cannot run perf script: %s",
		       strerror(errno));
		free(p);
		return -1;
	}
	rc = read_lines(f, orc_parse_perf_line, t, err, errlen);
	if (pclose(f) && !rc) {
		seterr(err, errlen, "oracle: perf script failed (see %s.script)",
		       p->data);
		rc = -1;
	}
	set_wakers(t);
	t->blind_pid = p->pid;
	t->no_context = true;
	if (getenv("ORACLE_DEBUG"))
		fprintf(stderr, "oracle: perf is pid %d\n", (int)p->pid);
	/* "Processed N events and lost M chunks!", "N samples (lost)" */
	snprintf(cmd, sizeof(cmd), "%s.script", p->data);
	f = fopen(cmd, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "lost") || strstr(line, "LOST"))
			t->lost++;
	if (f)
		fclose(f);
	free(p);
	return rc;
}
