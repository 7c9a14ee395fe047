// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/analysis.h"
#include "capfile/capwarn.h"

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

/* false: no memory for the sample (counted in total and lost, not in v) */
static bool lat_add(struct lat *l, uint64_t v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4; /* most tasks wait a few times */
		uint64_t *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv) {
			l->lost++;
			l->total += v;
			if (v > l->max)
				l->max = v;
			return false;
		}
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = v;
	l->sorted = false;
	l->total += v;
	if (v > l->max)
		l->max = v;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t lat_percentile(struct lat *l, double p)
{
	size_t i;

	if (!l->n)
		return 0;
	if (!l->sorted)
		qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	l->sorted = true;
	i = (size_t)(p / 100.0 * (double)(l->n - 1) + 0.5);
	return l->v[i < l->n ? i : l->n - 1];
}

void analysis_init(struct analysis *a, int ncpus)
{
	memset(a, 0, sizeof(*a));
	a->ncpus = ncpus > 0 ? ncpus : 1;
	a->cpus = calloc(a->ncpus, sizeof(*a->cpus));
	for (int i = 0; a->cpus && i < a->ncpus; i++)
		a->cpus[i].state = -1;
}

/*
 * A full 64-bit mix (every input bit reaches the low bits the tables
 * index by): a bare multiply left ids 1024 apart in one cluster.
 */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static size_t slot(const struct analysis *a, int32_t pid)
{
	size_t i = (size_t)mix64((uint32_t)pid) & (a->index_size - 1);

	while (a->index[i] && a->tasks[a->index[i] - 1].pid != pid)
		i = (i + 1) & (a->index_size - 1);
	return i;
}

static bool grow_index(struct analysis *a)
{
	size_t size = a->index_size ? a->index_size * 2 : 1024;
	uint32_t *old = a->index;

	a->index = calloc(size, sizeof(*a->index));
	if (!a->index) {
		a->index = old;
		return false;
	}
	a->index_size = size;
	for (size_t i = 0; i < a->ntasks; i++)
		a->index[slot(a, a->tasks[i].pid)] = i + 1;
	free(old);
	return true;
}

/* The task with this pid (created on first sight); NULL for the idle task. */
static struct task *task(struct analysis *a, int32_t pid, int32_t tgid,
			 const char *comm)
{
	struct task *t;
	size_t i;

	if (pid <= 0)
		return NULL;
	if ((a->ntasks + 1) * 2 > a->index_size && !grow_index(a)) {
		a->oom = true;
		return NULL;
	}
	i = slot(a, pid);
	if (a->index[i]) {
		t = &a->tasks[a->index[i] - 1];
		goto found;
	}
	if (a->ntasks == a->cap) {
		a->oom = true; /* reserve() ran out of memory */
		return NULL;
	}
	t = &a->tasks[a->ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	a->index[i] = a->ntasks;
found:
	if (tgid > 0)
		t->tgid = tgid;
	if (comm)
		memcpy(t->comm, comm, ABICAP_COMM_LEN);
	return t;
}

const struct task *analysis_find(const struct analysis *a, int32_t pid)
{
	size_t i;

	if (pid <= 0 || !a->index_size)
		return NULL;
	i = slot(a, pid);
	return a->index[i] ? &a->tasks[a->index[i] - 1] : NULL;
}

int lat_merge(struct lat *to, const struct lat *from)
{
	if (to->n + from->n > to->cap) {
		size_t cap = to->cap ? to->cap : 64;
		uint64_t *v;

		while (cap < to->n + from->n)
			cap *= 2;
		v = realloc(to->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		to->v = v;
		to->cap = cap;
	}
	if (from->n)
		memcpy(to->v + to->n, from->v, from->n * sizeof(*from->v));
	to->n += from->n;
	to->total += from->total;
	if (from->max > to->max)
		to->max = from->max;
	return 0;
}

void lat_free(struct lat *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool wanted(const struct analysis *a, const struct task *t)
{
	if (!t)
		return false;
	if (a->filter_tgid && t->tgid != a->filter_tgid)
		return false;
	if (a->filter_comm[0] && strcmp(t->comm, a->filter_comm))
		return false;
	return true;
}

static size_t chain_slot(const struct analysis *a, int32_t waker,
			 int32_t wakee)
{
	uint64_t k = (uint64_t)(uint32_t)waker << 32 | (uint32_t)wakee;
	size_t i = (size_t)mix64(k) & (a->chain_index_size - 1);

	while (a->chain_index[i] &&
	       (a->chains[a->chain_index[i] - 1].waker != waker ||
		a->chains[a->chain_index[i] - 1].wakee != wakee))
		i = (i + 1) & (a->chain_index_size - 1);
	return i;
}

static bool grow_chain_index(struct analysis *a)
{
	size_t size = a->chain_index_size ? a->chain_index_size * 2 : 1024;
	uint32_t *old = a->chain_index;

	a->chain_index = calloc(size, sizeof(*a->chain_index));
	if (!a->chain_index) {
		a->chain_index = old;
		return false;
	}
	a->chain_index_size = size;
	for (size_t i = 0; i < a->nchains; i++)
		a->chain_index[chain_slot(a, a->chains[i].waker,
					  a->chains[i].wakee)] = i + 1;
	free(old);
	return true;
}

/* The chain waker -> wakee, created (comms from the tasks) on first sight. */
static struct chain *chain(struct analysis *a, const struct task *waker,
			   const struct task *wakee)
{
	struct chain *c;
	size_t i;

	if ((a->nchains + 1) * 2 > a->chain_index_size &&
	    !grow_chain_index(a)) {
		a->oom = true;
		return NULL;
	}
	i = chain_slot(a, waker->pid, wakee->pid);
	if (a->chain_index[i])
		return &a->chains[a->chain_index[i] - 1];
	if (a->nchains == a->chains_cap) {
		size_t cap = a->chains_cap ? a->chains_cap * 2 : 256;
		struct chain *nc = realloc(a->chains, cap * sizeof(*nc));

		if (!nc) {
			a->oom = true;
			return NULL;
		}
		a->chains = nc;
		a->chains_cap = cap;
	}
	c = &a->chains[a->nchains++];
	memset(c, 0, sizeof(*c));
	c->waker = waker->pid;
	c->wakee = wakee->pid;
	memcpy(c->waker_comm, waker->comm, ABICAP_COMM_LEN);
	memcpy(c->wakee_comm, wakee->comm, ABICAP_COMM_LEN);
	a->chain_index[i] = a->nchains;
	return c;
}

/* The chain waker -> wakee if there is one (no task needed). */
static struct chain *chain_find(struct analysis *a, int32_t waker,
				int32_t wakee)
{
	size_t i;

	if (!a->chain_index_size)
		return NULL;
	i = chain_slot(a, waker, wakee);
	return a->chain_index[i] ? &a->chains[a->chain_index[i] - 1] : NULL;
}

int analysis_set_drops(struct analysis *a, const struct drop_window *d,
		       size_t n)
{
	struct drop_window *v = n ? malloc(n * sizeof(*v)) : NULL;
	size_t k = 0;

	if (n && !v)
		return -ENOMEM;
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
			return -EINVAL;
		}
		v[k++] = d[i];
	}
	free(a->drops);
	a->drops = v;
	a->ndrops = k;
	return 0;
}

/* Some events of [from, to] may be missing: a drop window overlaps it. */
static bool spans_drop(const struct analysis *a, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = a->ndrops;

	/* the first window ending at or after from */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->drops[mid].end_ns < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->ndrops && a->drops[lo].start_ns < to;
}

/* The CPU's time since its last switch: busy, idle, or lost to a drop. */
static void cpu_account(const struct analysis *a, struct cpu_stat *c,
			uint64_t ts)
{
	uint64_t d = ts - c->last_switch_ts;

	if (!c->known)
		return;
	if (spans_drop(a, c->last_switch_ts, ts))
		c->lost_time += d;
	else if (c->idle)
		c->idle_time += d;
	else
		c->busy += d;
}

/* Idle-state residency up to ts, unless a drop window hides part of it. */
static void idle_account(const struct analysis *a, struct cpu_stat *c,
			 uint64_t ts)
{
	if (c->state >= 0 && c->state < MAX_IDLE_STATES &&
	    !spans_drop(a, c->state_enter_ts, ts))
		c->residency[c->state] += ts - c->state_enter_ts;
}

/*
 * Run-queue latency, per task: a wait starts at a wakeup of a task that is
 * not on a CPU (the latest one wins) or at a switch-out still runnable (R,
 * R+); a switch-out blocked (S, D, ...) ends it unmeasured; the switch-in
 * ends and measures it. Only waits whose both ends are in the capture, on
 * a task that passed its filter at both, and that span no drop window are
 * measured; off-CPU intervals likewise.
 */
static void on_switch(struct analysis *a, const struct abicap_switch *s)
{
	uint64_t ts = s->hdr.ts_ns;
	struct task *prev = task(a, s->prev_pid, s->prev_tgid, s->prev_comm);
	struct task *next = task(a, s->next_pid, s->next_tgid, s->next_comm);
	struct cpu_stat *c = s->hdr.cpu < (uint32_t)a->ncpus ?
			     &a->cpus[s->hdr.cpu] : NULL;
	bool prev_ok = !a->switch_flags || (s->flags & ABICAP_SWITCH_PREV_OK);
	bool next_ok = !a->switch_flags || (s->flags & ABICAP_SWITCH_NEXT_OK);

	if (c) {
		cpu_account(a, c, ts);
		c->known = true;
		c->idle = s->next_pid == 0;
		c->last_switch_ts = ts;
	}
	if (prev && s->prev_cgroup)
		prev->cgroup = s->prev_cgroup;
	if (next && s->next_cgroup)
		next->cgroup = s->next_cgroup;
	if (prev) {
		int si = state_index(s->prev_state);

		prev->on_cpu = false;
		prev->followed = prev_ok ? FOLLOW_YES : FOLLOW_NO;
		prev->out_ts = ts;
		prev->out_ok = prev_ok;
		prev->out_state = s->prev_state;
		prev->last_waker_pid = 0;
		/* preempted, or still runnable: back on the run queue now */
		if (si == 0 || si == 9) {
			prev->runnable_ts = ts;
			prev->runnable_by_wakeup = false;
			prev->runnable_ok = prev_ok;
			prev->involuntary += prev_ok;
		} else {
			prev->runnable_ts = 0; /* asleep: a pending wait ends here */
			prev->voluntary += prev_ok;
		}
	}
	if (!next)
		return;
	next->followed = next_ok ? FOLLOW_YES : FOLLOW_NO;
	if (next->out_ts && next->out_ok && next_ok && wanted(a, next)) {
		uint64_t off = ts - next->out_ts;

		if (spans_drop(a, next->out_ts, ts)) {
			a->off_dropped++;
		} else {
			next->off_total += off;
			next->off_by_state[state_index(next->out_state)] += off;
		}
	}
	if (next->runnable_ts && next->runnable_ok && next_ok &&
	    wanted(a, next)) {
		uint64_t lat = ts - next->runnable_ts;
		struct chain *ch;

		if (spans_drop(a, next->runnable_ts, ts)) {
			a->waits_dropped++;
		} else {
			bool ok = lat_add(&next->rq, lat);

			ok &= lat_add(&a->rq, lat);
			if (next->runnable_by_wakeup)
				ok &= lat_add(&next->wake, lat);
			if (!ok)
				a->oom = true;
			ch = next->runnable_by_wakeup && next->last_waker_pid > 0 ?
			     chain_find(a, next->last_waker_pid, next->pid) : NULL;
			if (ch) {
				ch->total_lat += lat;
				ch->measured++;
				if (lat > ch->max_lat)
					ch->max_lat = lat;
			}
		}
	}
	next->on_cpu = true;
	next->out_ts = 0;
	next->runnable_ts = 0;
	next->last_waker_pid = 0;
}

/*
 * sched_waking (with from_waking), sched_wakeup, sched_wakeup_new: waiting
 * to run from now, unless the task is on a CPU (it has not gone to sleep
 * yet: the wakeup only stops it from sleeping).
 */
static void on_wakeup(struct analysis *a, const struct abicap_wakeup *w)
{
	struct task *t = task(a, w->pid, w->tgid, w->comm);
	bool waking = w->hdr.type == ABICAP_EV_SCHED_WAKING;

	if (t && w->cgroup)
		t->cgroup = w->cgroup;
	if (!t || waking != a->from_waking || t->on_cpu)
		return;
	t->runnable_ts = w->hdr.ts_ns;
	t->runnable_by_wakeup = true;
	/* a task seen outside the filter: its switch-in will not be seen */
	t->runnable_ok = t->followed != FOLLOW_NO;
	t->last_waker_pid = w->waker_pid;
	if (w->waker_pid > 0 && t->runnable_ok && wanted(a, t)) {
		struct task *waker = task(a, w->waker_pid, w->waker_tgid, NULL);
		struct chain *c = waker ? chain(a, waker, t) : NULL;

		if (c) {
			c->count++;
			/* the names as of now: a task renames itself after exec */
			memcpy(c->waker_comm, waker->comm, ABICAP_COMM_LEN);
			memcpy(c->wakee_comm, t->comm, ABICAP_COMM_LEN);
		}
	}
}

static void freq_account(struct analysis *a, struct cpu_stat *c, uint64_t ts)
{
	int i;

	if (!c->freq_khz)
		return;
	for (i = 0; i < c->nfreqs && c->freqs[i] != c->freq_khz; i++)
		;
	if (i == c->nfreqs) {
		if (c->nfreqs == c->freqs_cap) {
			int cap = c->freqs_cap ? c->freqs_cap * 2 : 16;
			uint32_t *f = realloc(c->freqs, cap * sizeof(*f));
			uint64_t *t;

			if (f)
				c->freqs = f;
			t = f ? realloc(c->freq_time, cap * sizeof(*t)) : NULL;
			if (!t) {
				a->oom = true;
				return;
			}
			c->freq_time = t;
			c->freqs_cap = cap;
		}
		c->freqs[c->nfreqs] = c->freq_khz;
		c->freq_time[c->nfreqs++] = 0;
	}
	if (!spans_drop(a, c->freq_since, ts))
		c->freq_time[i] += ts - c->freq_since;
}

/*
 * Room for the (at most three) tasks one record can add, made before any
 * task pointer is taken: task pointers then stay valid through the record.
 */
static void reserve(struct analysis *a)
{
	size_t cap;
	struct task *nt;

	if (a->ntasks + 3 <= a->cap)
		return;
	cap = a->cap ? a->cap * 2 : 256;
	nt = realloc(a->tasks, cap * sizeof(*nt));
	if (nt) {
		a->tasks = nt;
		a->cap = cap;
	} else {
		a->oom = true;
	}
}

void analysis_add(struct analysis *a, const union abicap_rec *r)
{
	uint64_t ts = r->hdr.ts_ns;
	struct cpu_stat *c;

	if (capwarn_cpu_past(r, (uint32_t)a->ncpus)) {
		a->bad_cpu++;
		return;
	}
	reserve(a);
	if (!a->records++)
		a->first_ts = ts;
	if (ts > a->last_ts)
		a->last_ts = ts;
	switch (r->hdr.type) {
	case ABICAP_EV_SCHED_SWITCH:
		on_switch(a, &r->sw);
		break;
	case ABICAP_EV_SCHED_WAKEUP_NEW:
		/* a new task's start is not waking-then-wakeup: always here */
		{
			bool w = a->from_waking;

			a->from_waking = false;
			on_wakeup(a, &r->wk);
			a->from_waking = w;
		}
		break;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKING:
		on_wakeup(a, &r->wk);
		break;
	case ABICAP_EV_CPU_IDLE:
		c = &a->cpus[r->pw.cpu_id];
		idle_account(a, c, ts);
		c->state = r->pw.state == UINT32_MAX ? -1 : (int32_t)r->pw.state;
		c->state_enter_ts = ts;
		break;
	case ABICAP_EV_CPU_FREQUENCY:
		c = &a->cpus[r->pw.cpu_id];
		freq_account(a, c, ts);
		c->freq_khz = r->pw.state;
		c->freq_since = ts;
		break;
	}
}

void analysis_finish(struct analysis *a)
{
	for (int i = 0; i < a->ncpus; i++) {
		struct cpu_stat *c = &a->cpus[i];

		cpu_account(a, c, a->last_ts);
		c->last_switch_ts = a->last_ts;
		idle_account(a, c, a->last_ts);
		c->state_enter_ts = a->last_ts;
		freq_account(a, c, a->last_ts);
		c->freq_since = a->last_ts;
	}
}

void analysis_free(struct analysis *a)
{
	for (size_t i = 0; i < a->ntasks; i++) {
		free(a->tasks[i].rq.v);
		free(a->tasks[i].wake.v);
	}
	for (int i = 0; a->cpus && i < a->ncpus; i++) {
		free(a->cpus[i].freqs);
		free(a->cpus[i].freq_time);
	}
	free(a->tasks);
	free(a->index);
	free(a->cpus);
	free(a->chains);
	free(a->chain_index);
	free(a->drops);
	free(a->rq.v);
	memset(a, 0, sizeof(*a));
}
