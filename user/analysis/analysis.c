// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "analysis/analysis.h"

const char *const state_names[10] = { "R", "S", "D", "T", "t", "X", "Z", "P",
				      "I", "R+" };

int state_index(uint32_t st)
{
	if (st & ABICAP_STATE_PREEMPTED)
		return 9;
	for (int i = 0; i < 8; i++)
		if (st & (1u << i))
			return i + 1;
	return 0;
}

static uint32_t lat_bucket(uint64_t v)
{
	int e;

	if (v < (2u << LAT_SUB_BITS))
		return (uint32_t)v;
	e = 63 - __builtin_clzll(v); /* >= LAT_SUB_BITS + 1 */
	return (uint32_t)((e - LAT_SUB_BITS + 1) << LAT_SUB_BITS) +
	       (uint32_t)((v >> (e - LAT_SUB_BITS)) & ((1u << LAT_SUB_BITS) - 1));
}

/* The middle of bucket b's values. */
static uint64_t lat_middle(uint32_t b)
{
	uint32_t e, sub = b & ((1u << LAT_SUB_BITS) - 1);
	uint64_t lo, width;

	if (b < (2u << LAT_SUB_BITS))
		return b;
	e = (b >> LAT_SUB_BITS) + LAT_SUB_BITS - 1;
	width = 1ull << (e - LAT_SUB_BITS);
	lo = ((1ull << LAT_SUB_BITS) + sub) << (e - LAT_SUB_BITS);
	return lo + (width - 1) / 2;
}

/* The bin of bucket b in l (made if need be); NULL: no memory. */
static struct hbin *lat_bin(struct lat *l, uint32_t b)
{
	uint32_t lo = 0, hi = l->nb;

	/* the common case: the last bin, or a new last one */
	if (l->nb && l->b[l->nb - 1].bucket <= b)
		lo = l->b[l->nb - 1].bucket == b ? l->nb - 1 : l->nb;
	else
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (l->b[mid].bucket < b)
				lo = mid + 1;
			else
				hi = mid;
		}
	if (lo < l->nb && l->b[lo].bucket == b)
		return &l->b[lo];
	if (array_room(&l->b, l->nb, &l->cap, sizeof(*l->b), 4))
		return NULL;
	memmove(&l->b[lo + 1], &l->b[lo], (l->nb - lo) * sizeof(*l->b));
	l->nb++;
	l->b[lo] = (struct hbin){ 0, b };
	return &l->b[lo];
}

bool lat_add(struct lat *l, uint64_t v)
{
	struct hbin *h = lat_bin(l, lat_bucket(v));

	if (!l->n || v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
	l->n++;
	l->total += v;
	if (!h)
		return false;
	h->count++;
	return true;
}

uint64_t lat_percentile(const struct lat *l, double p)
{
	uint64_t pm, rank, seen = 0, v;

	if (!l->n)
		return 0;
	pm = p <= 0 ? 0 : p >= 100 ? 1000 : (uint64_t)(p * 10 + 0.5);
	/* ceil(pm * n / 1000) without overflow, at least 1 */
	rank = l->n / 1000 * pm + ((l->n % 1000) * pm + 999) / 1000;
	if (!rank)
		rank = 1;
	if (rank >= l->n)
		return l->max;
	if (rank == 1)
		return l->min;
	for (uint32_t i = 0; i < l->nb; i++) {
		seen += l->b[i].count;
		if (seen >= rank) {
			v = lat_middle(l->b[i].bucket);
			return v < l->min ? l->min : v > l->max ? l->max : v;
		}
	}
	return l->max; /* bins short of n: out of memory */
}

/* The latest task of pid (its current incarnation), NULL if never seen. */
static struct task *task_of(const struct analysis *a, int32_t pid)
{
	uint64_t *v = hashtab_get(&a->index, (uint32_t)pid);

	return v ? &a->tasks[*v] : NULL;
}

void analysis_init(struct analysis *a, int ncpus)
{
	memset(a, 0, sizeof(*a));
	a->ncpus = ncpus > 0 ? ncpus : 1;
	a->cpus = calloc(a->ncpus, sizeof(*a->cpus));
	for (int i = 0; a->cpus && i < a->ncpus; i++) {
		a->cpus[i].state = -1;
		a->cpus[i].span_state = -1;
	}
	a->win_until = UINT64_MAX;
}

void analysis_observe(struct analysis *a, const struct analysis_observer *o)
{
	a->obs = *o;
}

void analysis_set_window(struct analysis *a, uint64_t since_ns,
			 uint64_t until_ns)
{
	a->win_since = since_ns;
	a->win_until = until_ns;
}

uint64_t analysis_span(const struct analysis *a, uint64_t *from, uint64_t *to)
{
	uint64_t f = a->first_ts > a->win_since ? a->first_ts : a->win_since;
	uint64_t t = a->last_ts < a->win_until ? a->last_ts : a->win_until;

	if (!a->records || t < f)
		f = t = 0;
	if (from)
		*from = f;
	if (to)
		*to = t;
	return t - f;
}

bool analysis_trustworthy(const struct analysis *a)
{
	return !a->oom && !a->order_errors && !a->negative;
}

const char *task_comm(const struct task *t)
{
	return t->comm[0] ? t->comm : "(unknown)";
}

/*
 * [*from, *to] cut to the window; false if nothing of it is inside, or if
 * it ends before it starts (counted: never a figure).
 */
static bool clip(struct analysis *a, uint64_t *from, uint64_t *to)
{
	if (*to < *from) {
		a->negative++;
		return false;
	}
	if (*from < a->win_since)
		*from = a->win_since;
	if (*to > a->win_until)
		*to = a->win_until;
	return *from <= *to && !(*from == *to && (*from < a->win_since ||
						  *to > a->win_until));
}

/* The length of [from, to] inside the window, 0 if none or negative. */
static uint64_t clipped(struct analysis *a, uint64_t from, uint64_t to)
{
	return clip(a, &from, &to) ? to - from : 0;
}

static bool in_window(const struct analysis *a, uint64_t ts)
{
	return ts >= a->win_since && ts <= a->win_until;
}

static struct task_id tid_of(const struct task *t)
{
	if (!t)
		return (struct task_id){ .tid = -1, .tgid = -1 };
	return (struct task_id){ t->pid, t->tgid, t->start_ns };
}

static uint32_t task_ref(const struct analysis *a, const struct task *t)
{
	return t ? (uint32_t)(t - a->tasks) + 1 : 0;
}

/* Off CPU in state: an idle kernel thread (I) waiting for work sleeps. */
static enum span_kind off_kind(uint32_t state)
{
	int si = state_index(state);

	return si == 1 || si == 8 ? SPAN_SLEEP : si == 2 ? SPAN_BLOCKED :
	       SPAN_OFF_OTHER;
}

/*
 * The task's current phase ends at ts: its span to the observers, its
 * runtime; cpu: RUNQUEUE ended by a switch-in there (else -1).
 */
static void close_phase(struct analysis *a, struct task *t, uint64_t ts,
			int32_t cpu)
{
	struct task_span sp = { .id = tid_of(t), .comm = task_comm(t),
				.prev_state = t->out_state, .cpu = -1,
				.start_ns = t->span_ts, .end_ns = ts };

	switch (t->phase) {
	case PH_RUN:
		sp.kind = SPAN_RUNNING;
		sp.cpu = t->cpu;
		break;
	case PH_RQ:
		sp.kind = SPAN_RUNQUEUE;
		sp.cpu = cpu;
		break;
	case PH_OFF:
		sp.kind = off_kind(t->out_state);
		break;
	case PH_UNKNOWN:
		if (t->why == UNK_NEW)
			return; /* before its first record: not a span */
		sp.kind = SPAN_UNKNOWN;
		break;
	default:
		return;
	}
	if (!clip(a, &sp.start_ns, &sp.end_ns) || sp.start_ns == sp.end_ns)
		return;
	/* a filtered capture: only a run whose both ends passed the filter */
	if (t->phase == PH_RUN && t->run_ok)
		t->runtime += sp.end_ns - sp.start_ns;
	if (t->phase == PH_UNKNOWN && t->why == UNK_HIDDEN && !a->task_filtered)
		t->unknown_ns += sp.end_ns - sp.start_ns;
	if (a->obs.task_span)
		a->obs.task_span(a->obs.ctx, &sp);
}

static void set_phase(struct analysis *a, struct task *t, enum phase ph,
		      uint64_t ts, int32_t cpu)
{
	close_phase(a, t, ts, cpu);
	t->phase = ph;
	t->since = t->span_ts = ts;
}

/*
 * The task's state is not known from ts on: what it was doing ended
 * unseen, an off-CPU interval or wait under way is not measured.
 */
static void forget(struct analysis *a, struct task *t, uint64_t ts,
		   enum unknown_why why)
{
	if (t->phase == PH_DEAD || (t->phase == PH_UNKNOWN && t->why == UNK_NEW))
		return;
	if (ts < t->span_ts)
		ts = t->span_ts;
	if (t->phase != PH_UNKNOWN) {
		set_phase(a, t, PH_UNKNOWN, ts, -1);
		t->why = why;
		if (why == UNK_HIDDEN && !a->task_filtered)
			t->hidden++;
	}
	t->gap = true;
	t->off_known = false;
	t->wait_chain = 0;
}

int analysis_set_drops(struct analysis *a, const struct drop_window *d,
		       size_t n)
{
	struct drop_window *v = n ? malloc(n * sizeof(*v)) : NULL,
			   *all = n ? malloc(n * sizeof(*all)) : NULL;
	size_t k = 0;

	if (n && (!v || !all)) {
		free(v);
		free(all);
		return -ENOMEM;
	}
	a->cpu_drop_longest = 0;
	for (size_t i = 0; i < n; i++) {
		all[i] = d[i];
		if (d[i].end_ns > d[i].start_ns &&
		    d[i].end_ns - d[i].start_ns > a->cpu_drop_longest)
			a->cpu_drop_longest = d[i].end_ns - d[i].start_ns;
	}
	for (size_t i = 0; i < n; i++) {
		/* in time order (the recorder writes them so); merge overlaps */
		if (k && d[i].start_ns <= v[k - 1].end_ns) {
			if (d[i].end_ns > v[k - 1].end_ns)
				v[k - 1].end_ns = d[i].end_ns;
			v[k - 1].count += d[i].count;
			continue;
		}
		if (k && d[i].start_ns < v[k - 1].start_ns) {
			free(v);
			free(all);
			return -EINVAL;
		}
		v[k++] = d[i];
		v[k - 1].cpu = -1;
	}
	free(a->drops);
	free(a->cpu_drops);
	a->drops = v;
	a->ndrops = k;
	a->cpu_drops = all;
	a->ncpu_drops = n;
	return 0;
}

/* The first of v's n windows whose end (by_end) or start is at or after t. */
static size_t first_window(const struct drop_window *v, size_t n, uint64_t t,
			   bool by_end)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((by_end ? v[mid].end_ns : v[mid].start_ns) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The first drop window overlapping [from, to] (some of its events may be
 * missing), NULL if none.
 */
static const struct drop_window *drop_in(const struct analysis *a,
					 uint64_t from, uint64_t to)
{
	size_t lo = first_window(a->drops, a->ndrops, from, true);

	return lo < a->ndrops && a->drops[lo].start_ns < to ? &a->drops[lo] :
	       NULL;
}

/*
 * Whether cpu's own records (its switches, its idle and frequency events)
 * may lack some in [from, to]: a window of its own, or of any CPU.
 */
static bool spans_drop(const struct analysis *a, int cpu, uint64_t from,
		       uint64_t to)
{
	uint64_t lo_start = from > a->cpu_drop_longest ?
			    from - a->cpu_drop_longest : 0;
	/* none starting before lo_start reaches from */
	size_t lo = first_window(a->cpu_drops, a->ncpu_drops, lo_start, false);

	for (; lo < a->ncpu_drops && a->cpu_drops[lo].start_ns < to; lo++) {
		const struct drop_window *d = &a->cpu_drops[lo];

		if (d->end_ns >= from && (d->cpu < 0 || d->cpu == cpu))
			return true;
	}
	return false;
}

/* A record of t at ts: a drop window since its last one makes it unknown. */
static void settle(struct analysis *a, struct task *t, uint64_t ts)
{
	const struct drop_window *d = t->last_ts ? drop_in(a, t->last_ts, ts) :
				      NULL;

	if (d)
		forget(a, t, d->start_ns > t->last_ts ? d->start_ns : t->last_ts,
		       UNK_DROP);
	t->last_ts = ts;
}

static struct task *new_task(struct analysis *a, int32_t pid, uint64_t ts)
{
	struct task *t;

	/* full: reserve() ran out of memory; the pid's index now names it */
	if (a->ntasks == a->cap ||
	    hashtab_put(&a->index, (uint32_t)pid, a->ntasks) < 0) {
		a->oom = true;
		return NULL;
	}
	t = &a->tasks[a->ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->start_ns = ts;
	t->cpu = -1;
	return t;
}

/*
 * The task with this pid at ts (created on first sight, and again when
 * the pid is reused: after its task's exit switch, or at a
 * sched_wakeup_new, fresh); NULL for the idle task.
 */
static struct task *task_at(struct analysis *a, int32_t pid, int32_t tgid,
			    const char *comm, uint64_t ts, bool fresh)
{
	struct task *t;

	if (pid <= 0)
		return NULL;
	t = task_of(a, pid);
	if (!t) {
		t = new_task(a, pid, ts);
	} else if (t->phase == PH_DEAD || fresh) {
		a->pid_reuses++;
		t = new_task(a, pid, ts);
	}
	if (!t)
		return NULL;
	settle(a, t, ts);
	if (tgid > 0)
		t->tgid = tgid;
	if (comm && comm[0] && strncmp(t->comm, comm, ABICAP_COMM_LEN)) {
		/* renamed (exec): its spans so far had the old name */
		if (t->comm[0]) {
			close_phase(a, t, ts, -1);
			t->span_ts = ts;
		}
		memcpy(t->comm, comm, ABICAP_COMM_LEN);
	}
	return t;
}

const struct task *analysis_find(const struct analysis *a, int32_t pid)
{
	return pid > 0 ? task_of(a, pid) : NULL;
}

int lat_merge(struct lat *to, const struct lat *from)
{
	int ret = 0;

	for (uint32_t i = 0; i < from->nb; i++) {
		struct hbin *h = lat_bin(to, from->b[i].bucket);

		if (h)
			h->count += from->b[i].count;
		else
			ret = -ENOMEM;
	}
	if (from->n && (!to->n || from->min < to->min))
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->n += from->n;
	to->total += from->total;
	return ret;
}

void lat_free(struct lat *l)
{
	free(l->b);
	memset(l, 0, sizeof(*l));
}

const struct task_res *task_res(const struct task *t)
{
	static const struct task_res none;

	return t->res ? t->res : &none;
}

/* t's results, made on first need; NULL: no memory (counted). */
static struct task_res *res_of(struct analysis *a, struct task *t)
{
	if (!t->res && !(t->res = calloc(1, sizeof(*t->res))))
		a->oom = true;
	return t->res;
}

bool analysis_wanted(const struct analysis *a, const struct task *t)
{
	if (!t)
		return false;
	if (a->filter_tgid && t->tgid != a->filter_tgid)
		return false;
	if (a->filter_comm[0] && strcmp(t->comm, a->filter_comm))
		return false;
	return true;
}

/* The chain waker -> wakee (tasks, across pid reuse), made on first sight. */
static struct chain *chain(struct analysis *a, const struct task *waker,
			   const struct task *wakee)
{
	uint64_t key = (uint64_t)task_ref(a, waker) << 32 | task_ref(a, wakee);
	uint64_t *v = hashtab_get(&a->chain_index, key);
	struct chain *c;

	if (v)
		return &a->chains[*v];
	if (array_room(&a->chains, a->nchains, &a->chains_cap,
		       sizeof(*a->chains), 256)) {
		a->oom = true;
		return NULL;
	}
	if (hashtab_put(&a->chain_index, key, a->nchains) < 0) {
		a->oom = true;
		return NULL;
	}
	c = &a->chains[a->nchains++];
	memset(c, 0, sizeof(*c));
	c->waker = waker->pid;
	c->wakee = wakee->pid;
	c->waker_task = task_ref(a, waker);
	c->wakee_task = task_ref(a, wakee);
	return c;
}

static void emit_cpu(struct analysis *a, int cpu, enum cpu_kind kind,
		     int32_t state, uint64_t from, uint64_t to)
{
	struct cpu_span sp = { cpu, kind, kind == CPUSPAN_IDLE ? state : -1,
			       from, to };

	if (a->obs.cpu_span && clip(a, &sp.start_ns, &sp.end_ns))
		a->obs.cpu_span(a->obs.ctx, &sp);
}

/*
 * The CPU's time since it was last booked, to ts: lost if a drop window
 * overlaps it, unknown before its first switch or if a switch the kernel
 * hid ended it (gap), else busy or idle.
 */
static void cpu_account(struct analysis *a, int cpu, uint64_t ts, bool gap)
{
	struct cpu_stat *c = &a->cpus[cpu];
	uint64_t d = clipped(a, c->acct_ts, ts);
	enum cpu_kind kind;

	if (ts < c->acct_ts)
		return; /* counted by clipped(): never a figure */
	if (!c->known) {
		kind = CPUSPAN_UNKNOWN;
	} else if (spans_drop(a, cpu, c->acct_ts, ts)) {
		kind = CPUSPAN_LOST;
	} else if (gap) {
		kind = CPUSPAN_UNKNOWN;
		c->hidden_gaps++;
	} else {
		kind = c->idle ? CPUSPAN_IDLE : CPUSPAN_BUSY;
	}
	switch (kind) {
	case CPUSPAN_UNKNOWN:
		c->unknown_time += d;
		break;
	case CPUSPAN_LOST:
		c->lost_time += d;
		break;
	case CPUSPAN_IDLE:
		c->idle_time += d;
		break;
	case CPUSPAN_BUSY:
		c->busy += d;
		break;
	}
	if (ts > c->acct_ts)
		emit_cpu(a, cpu, kind, c->span_state, c->acct_ts, ts);
	c->acct_ts = ts;
}

/* Idle-state residency up to ts, unless a drop window hides part of it. */
static void idle_account(struct analysis *a, struct cpu_stat *c, uint64_t ts)
{
	if (c->state >= 0 && c->state < MAX_IDLE_STATES &&
	    !spans_drop(a, (int)(c - a->cpus), c->state_enter_ts, ts))
		c->residency[c->state] += clipped(a, c->state_enter_ts, ts);
}

/* A measured wait of t ending at ts on cpu; holder: the task switched out. */
static void measure_wait(struct analysis *a, struct task *t, uint64_t ts,
			 int32_t cpu, const struct task *holder,
			 uint64_t holder_in)
{
	uint64_t lat = ts - t->rq_ts;
	struct chain *ch = t->wait_chain ? &a->chains[t->wait_chain - 1] : NULL;
	bool ok;

	if (ts < t->rq_ts) {
		a->negative++;
		return;
	}
	if (!in_window(a, ts) || !res_of(a, t))
		return;
	ok = lat_add(&t->res->rq, lat);
	ok &= lat_add(&a->rq, lat);
	if (t->rq_wakeup)
		ok &= lat_add(&t->res->wake, lat);
	if (!ok)
		a->oom = true;
	{
		uint64_t u = lat / 1000;
		int b = 0;

		while (u >> b && b < 39)
			b++;
		a->rq_log2us[b]++;
	}
	if (ch && t->rq_wakeup) {
		ch->total_lat += lat;
		ch->measured++;
		if (lat > ch->max_lat)
			ch->max_lat = lat;
	}
	if (a->obs.wait) {
		uint64_t hs = holder_in > t->rq_ts ? holder_in : t->rq_ts;
		struct wait_ev w = {
			.id = tid_of(t), .comm = task_comm(t), .cpu = cpu,
			.start_ns = t->rq_ts, .end_ns = ts,
			.after_wakeup = t->rq_wakeup, .holder = tid_of(holder),
			.holder_comm = holder ? task_comm(holder) : "(idle)",
			.holder_run_ns = holder && holder_in <= ts ? ts - hs : 0,
			.holder_run_known = !holder || holder_in <= ts,
		};

		a->obs.wait(a->obs.ctx, &w);
	}
}

/*
 * t (now PH_RQ) waits from ts after a wakeup by waker (NULL: not a task):
 * its wait, and the wakeup chain it counts in.
 */
static void start_wait(struct analysis *a, struct task *t, uint64_t ts,
		       struct task *waker)
{
	struct chain *c = NULL;

	t->rq_ts = ts;
	t->rq_wakeup = true;
	/* a task seen outside the filter: its switch-in will not be seen */
	t->rq_ok = t->followed != FOLLOW_NO;
	t->wait_chain = 0;
	if (waker && t->rq_ok && analysis_wanted(a, t) && in_window(a, ts))
		c = chain(a, waker, t);
	if (c) {
		c->count++;
		/* the names as of now: a task renames itself after exec */
		snprintf(c->waker_comm, sizeof(c->waker_comm), "%s",
			 task_comm(waker));
		snprintf(c->wakee_comm, sizeof(c->wakee_comm), "%s",
			 task_comm(t));
		t->wait_chain = (uint32_t)(c - a->chains) + 1;
	}
}

/* The task t switches out of cpu at ts in prev_state. */
static void switch_out(struct analysis *a, struct task *t, int cpu,
		       uint64_t ts, uint32_t prev_state, bool ok)
{
	int si = state_index(prev_state);

	if (t->phase != PH_RUN || t->cpu != cpu)
		/* its switch-in here was not seen (hidden, or lost) */
		forget(a, t, t->since, UNK_HIDDEN);
	t->run_ok &= ok;
	t->followed = ok ? FOLLOW_YES : FOLLOW_NO;
	t->off_ts = ts;
	t->off_known = true;
	t->off_ok = ok;
	t->out_state = prev_state;
	t->gap = false;
	t->wait_chain = 0;
	if (si == 0 || si == 9) {
		/* preempted, or still runnable: back on the run queue now */
		set_phase(a, t, PH_RQ, ts, -1);
		t->rq_ts = ts;
		t->rq_wakeup = false;
		t->rq_ok = ok;
		t->involuntary += ok;
	} else if (t->raced_ts && si != 5 && si != 6) {
		/* a sched_waking raced its switch-out: it woke the task */
		set_phase(a, t, PH_RQ, ts, -1);
		start_wait(a, t, t->raced_ts, t->raced_waker ?
			   &a->tasks[t->raced_waker - 1] : NULL);
		t->voluntary += ok;
	} else {
		set_phase(a, t, si == 5 || si == 6 ? PH_DEAD : PH_OFF, ts, -1);
		t->voluntary += ok;
	}
	t->raced_ts = 0;
	t->raced_waker = 0;
}

/*
 * t switches in on cpu at ts: a wait it was in ends measured, so does its
 * off-CPU interval; what was not seen of them is counted left out.
 */
static void switch_in(struct analysis *a, struct task *t, int cpu,
		      uint64_t ts, bool ok, const struct task *holder,
		      uint64_t holder_in)
{
	bool want = ok && analysis_wanted(a, t);

	if (t->phase == PH_RUN)
		/* running elsewhere: its switch-out there was not seen */
		forget(a, t, t->since, UNK_HIDDEN);
	t->followed = ok ? FOLLOW_YES : FOLLOW_NO;
	if (t->off_known && t->off_ok && want) {
		uint64_t off = clipped(a, t->off_ts, ts);

		if (off && res_of(a, t)) {
			t->off_total += off;
			t->res->off_by_state[state_index(t->out_state)] += off;
		}
	} else if (t->gap && want) {
		a->off_dropped++;
	}
	if (t->phase == PH_RQ && t->rq_ok && want)
		measure_wait(a, t, ts, cpu, holder, holder_in);
	else if (t->phase != PH_RQ && t->gap && want)
		a->waits_dropped++;
	set_phase(a, t, PH_RUN, ts, cpu);
	t->run_ok = ok;
	t->raced_ts = 0;
	t->raced_waker = 0;
	t->cpu = cpu;
	t->off_known = false;
	t->gap = false;
	t->wait_chain = 0;
}

/*
 * Run-queue latency, per task: a wait starts at a wakeup of a task that is
 * not on a CPU (the latest one wins) or at a switch-out still runnable (R,
 * R+); a switch-out blocked (S, D, ...) ends it unmeasured; the switch-in
 * ends and measures it. Only waits whose both ends are in the capture, on
 * a task that passed its filter at both, and of which nothing was lost
 * (docs/analysis.md) are measured; off-CPU intervals likewise.
 */
static void on_switch(struct analysis *a, const struct abicap_switch *s)
{
	uint64_t ts = s->hdr.ts_ns;
	int cpu = (int)s->hdr.cpu;
	struct cpu_stat *c = &a->cpus[cpu];
	struct task *prev = task_at(a, s->prev_pid, s->prev_tgid, s->prev_comm,
				    ts, false);
	struct task *next = task_at(a, s->next_pid, s->next_tgid, s->next_comm,
				    ts, false);
	bool prev_ok = !a->switch_flags || (s->flags & ABICAP_SWITCH_PREV_OK);
	bool next_ok = !a->switch_flags || (s->flags & ABICAP_SWITCH_NEXT_OK);
	/* a switch out of a task that was not the one switched in here */
	bool gap = c->known && s->prev_pid != c->cur_pid;
	struct task *was = c->cur_task ? &a->tasks[c->cur_task - 1] : NULL;
	/* (UINT64_MAX: its switch-in here was not seen, its run is unknown) */
	uint64_t prev_in = prev && prev->phase == PH_RUN && prev->cpu == cpu ?
			   prev->since : UINT64_MAX;

	if (gap && was && was != prev && was->phase == PH_RUN &&
	    was->cpu == cpu)
		/* switched out unseen, at some time since its switch-in */
		forget(a, was, was->since, UNK_HIDDEN);
	/* a hidden switch ended idle: idle up to its last cpu_idle exit */
	if (gap && c->idle && c->idle_exit_ts > c->acct_ts &&
	    c->idle_exit_ts <= ts)
		cpu_account(a, cpu, c->idle_exit_ts, false);
	cpu_account(a, cpu, ts, gap);
	c->known = true;
	c->idle = s->next_pid == 0;
	c->cur_pid = s->next_pid;
	c->span_state = c->idle ? c->state : -1;
	if (prev && s->prev_cgroup)
		prev->cgroup = s->prev_cgroup;
	if (next && s->next_cgroup)
		next->cgroup = s->next_cgroup;
	if (prev)
		switch_out(a, prev, cpu, ts, s->prev_state, prev_ok);
	if (next)
		switch_in(a, next, cpu, ts, next_ok, prev, prev_in);
	c->cur_task = task_ref(a, next);
}

/*
 * sched_waking (with from_waking), sched_wakeup, sched_wakeup_new: waiting
 * to run from now, unless the task is on a CPU (it has not gone to sleep
 * yet: the wakeup only stops it from sleeping).
 */
static void on_wakeup(struct analysis *a, const struct abicap_wakeup *w,
		      bool is_new)
{
	uint64_t ts = w->hdr.ts_ns;
	struct task *t = task_at(a, w->pid, w->tgid, w->comm, ts, is_new);
	struct task *waker;
	uint32_t ti;

	if (!t)
		return;
	ti = task_ref(a, t);
	if (w->cgroup)
		t->cgroup = w->cgroup;
	waker = task_at(a, w->waker_pid, w->waker_tgid, NULL, ts, false);
	t = &a->tasks[ti - 1]; /* (tasks do not move within a record) */
	if (a->obs.wakeup && in_window(a, ts)) {
		struct wake_ev e = {
			.ts = ts, .cpu = (int32_t)w->hdr.cpu,
			.target_cpu = w->target_cpu,
			.in_irq = w->waker_pid == ABICAP_PID_INTERRUPT,
			.is_new = is_new, .waker = tid_of(waker),
			.waker_comm = waker ? task_comm(waker) :
				      w->waker_pid == ABICAP_PID_INTERRUPT ?
				      "(interrupt)" : "(unknown)",
			.wakee = tid_of(t), .wakee_comm = task_comm(t),
		};

		a->obs.wakeup(a->obs.ctx, &e);
	}
	if (t->phase == PH_RUN) {
		/* only stops it from sleeping, unless it raced its switch-out */
		if (a->from_waking && !is_new) {
			t->raced_ts = ts;
			t->raced_waker = task_ref(a, waker);
		}
		return;
	}
	set_phase(a, t, PH_RQ, ts, -1);
	start_wait(a, t, ts, waker);
}

/* The position of khz in c->freqs, added on first sight; -1: no memory. */
static int freq_pos(struct cpu_stat *c, uint32_t khz)
{
	uint64_t *v = hashtab_get(&c->freq_index, khz);

	if (v)
		return (int)*v;
	/* two arrays, one room: the second's capacity follows the first's */
	if (array_room(&c->freqs, c->nfreqs, &c->freqs_cap, sizeof(*c->freqs),
		       16) ||
	    array_reserve(&c->freq_time, c->freqs_cap, &c->freq_time_cap,
			  sizeof(*c->freq_time), 16))
		return -1;
	if (hashtab_put(&c->freq_index, khz, (uint64_t)c->nfreqs) < 0)
		return -1;
	c->freqs[c->nfreqs] = khz;
	c->freq_time[c->nfreqs] = 0;
	return c->nfreqs++;
}

static void freq_account(struct analysis *a, int cpu, uint64_t ts)
{
	struct cpu_stat *c = &a->cpus[cpu];
	int i;

	if (!c->freq_khz || spans_drop(a, cpu, c->freq_since, ts))
		return;
	i = freq_pos(c, c->freq_khz);
	if (i < 0) {
		a->oom = true;
		return;
	}
	c->freq_time[i] += clipped(a, c->freq_since, ts);
	if (a->obs.freq_span && ts > c->freq_since) {
		struct freq_span sp = { cpu, c->freq_khz, c->freq_since, ts };

		if (clip(a, &sp.start_ns, &sp.end_ns))
			a->obs.freq_span(a->obs.ctx, &sp);
	}
}

/*
 * The tasks one record can add: three, and two again for pid reuse.
 * Their room is made before any task pointer is taken: task pointers then
 * stay valid through the record.
 */
#define TASKS_PER_RECORD 5
static void reserve(struct analysis *a)
{
	if (array_reserve(&a->tasks, a->ntasks + TASKS_PER_RECORD, &a->cap,
			  sizeof(*a->tasks), 256))
		a->oom = true;
}

/*
 * A record earlier than one already fed: left out and counted; the tasks
 * and the CPU it names are not known until seen again (an interval is
 * never taken across it).
 */
static void out_of_order(struct analysis *a, const union abicap_rec *r)
{
	int32_t pids[2] = { 0, 0 };
	struct cpu_stat *c;

	a->order_errors++;
	switch (r->hdr.type) {
	case ABICAP_EV_SCHED_SWITCH:
		pids[0] = r->sw.prev_pid;
		pids[1] = r->sw.next_pid;
		c = &a->cpus[r->hdr.cpu];
		c->known = false;
		c->cur_task = 0;
		break;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKING:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
		pids[0] = r->wk.pid;
		break;
	case ABICAP_EV_CPU_IDLE:
		c = &a->cpus[r->pw.cpu_id];
		idle_account(a, c, a->last_ts);
		c->state = -1;
		c->span_state = -1;
		break;
	case ABICAP_EV_CPU_FREQUENCY:
		freq_account(a, (int)r->pw.cpu_id, a->last_ts);
		a->cpus[r->pw.cpu_id].freq_khz = 0;
		break;
	}
	for (int i = 0; i < 2; i++) {
		struct task *t = (struct task *)analysis_find(a, pids[i]);

		if (t)
			forget(a, t, t->last_ts, UNK_ORDER);
	}
}

/*
 * A cpu_idle record comes from the CPU's idle task: where a task was
 * believed current there, a switch the kernel hid put the idle task on
 * before ts (issue 37: 935 ms in an idle state were booked busy after a
 * hidden thread's switch-in). That task's run since its switch-in, and
 * the CPU's time since it was booked, are unknown; from ts it is idle.
 */
static void idle_proves_idle(struct analysis *a, int cpu, uint64_t ts)
{
	struct cpu_stat *c = &a->cpus[cpu];
	struct task *was = c->cur_task ? &a->tasks[c->cur_task - 1] : NULL;

	if (!c->known || c->idle)
		return;
	if (was && was->phase == PH_RUN && was->cpu == cpu)
		forget(a, was, was->since, UNK_HIDDEN);
	cpu_account(a, cpu, ts, true);
	c->idle = true;
	c->cur_pid = 0;
	c->cur_task = 0;
	c->span_state = c->state;
}

void analysis_add(struct analysis *a, const union abicap_rec *r)
{
	uint64_t ts = r->hdr.ts_ns;
	struct cpu_stat *c;

	if (record_cpu_past(r, (uint32_t)a->ncpus)) {
		a->bad_cpu++;
		return;
	}
	if (!a->records++) {
		a->first_ts = a->last_ts = ts;
		for (int i = 0; i < a->ncpus; i++)
			a->cpus[i].acct_ts = ts;
	}
	if (ts < a->last_ts) {
		out_of_order(a, r);
		return;
	}
	reserve(a);
	a->last_ts = ts;
	switch (r->hdr.type) {
	case ABICAP_EV_SCHED_SWITCH:
		on_switch(a, &r->sw);
		break;
	case ABICAP_EV_SCHED_WAKEUP_NEW:
		/* a new task's start is not waking-then-wakeup: always here */
		on_wakeup(a, &r->wk, true);
		break;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKING:
		if ((r->hdr.type == ABICAP_EV_SCHED_WAKING) == a->from_waking)
			on_wakeup(a, &r->wk, false);
		break;
	case ABICAP_EV_CPU_IDLE:
		c = &a->cpus[r->pw.cpu_id];
		if (r->pw.cpu_id == r->hdr.cpu)
			idle_proves_idle(a, (int)r->hdr.cpu, ts);
		idle_account(a, c, ts);
		c->state = r->pw.state == UINT32_MAX ? -1 : (int32_t)r->pw.state;
		if (c->state < 0)
			c->idle_exit_ts = ts;
		if (c->idle && c->state >= 0)
			c->span_state = c->state;
		c->state_enter_ts = ts;
		if (a->obs.idle)
			a->obs.idle(a->obs.ctx, &(struct idle_ev){ .ts = ts,
				    .cpu = (int32_t)r->pw.cpu_id,
				    .state = c->state });
		break;
	case ABICAP_EV_CPU_FREQUENCY:
		c = &a->cpus[r->pw.cpu_id];
		freq_account(a, (int)r->pw.cpu_id, ts);
		c->freq_khz = r->pw.state;
		c->freq_since = ts;
		break;
	}
}

void analysis_finish(struct analysis *a)
{
	for (int i = 0; i < a->ncpus; i++) {
		struct cpu_stat *c = &a->cpus[i];

		cpu_account(a, i, a->last_ts, false);
		idle_account(a, c, a->last_ts);
		c->state_enter_ts = a->last_ts;
		freq_account(a, i, a->last_ts);
		c->freq_since = a->last_ts;
	}
	/* the spans still open end with the capture */
	for (size_t i = 0; i < a->ntasks; i++) {
		struct task *t = &a->tasks[i];

		if (t->phase != PH_UNKNOWN && t->phase != PH_DEAD &&
		    t->last_ts && drop_in(a, t->last_ts, a->last_ts))
			settle(a, t, a->last_ts);
		set_phase(a, t, t->phase, a->last_ts, -1);
	}
}

void analysis_free(struct analysis *a)
{
	for (size_t i = 0; i < a->ntasks; i++) {
		if (a->tasks[i].res) {
			lat_free(&a->tasks[i].res->rq);
			lat_free(&a->tasks[i].res->wake);
			free(a->tasks[i].res);
		}
	}
	for (int i = 0; a->cpus && i < a->ncpus; i++) {
		free(a->cpus[i].freqs);
		free(a->cpus[i].freq_time);
		hashtab_free(&a->cpus[i].freq_index);
	}
	free(a->tasks);
	hashtab_free(&a->index);
	free(a->cpus);
	free(a->chains);
	hashtab_free(&a->chain_index);
	free(a->drops);
	free(a->cpu_drops);
	lat_free(&a->rq);
	memset(a, 0, sizeof(*a));
}
