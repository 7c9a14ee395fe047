// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The timechart's lanes, filled by the analysis' observer callbacks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "view/timechart.h"

/* The zoom layer's scale: pixels of TC_ZOOM_MIN_NS, fewer than 2^31 of them. */
static void zoom_scale(struct timechart *tc)
{
	uint64_t span = pixscale_end(&tc->sc) - tc->sc.t0;
	uint64_t px = span >> 31 ? (span >> 31) + 1 : 1;

	if (px < TC_ZOOM_MIN_NS)
		px = TC_ZOOM_MIN_NS;
	tc->zsc = (struct pixscale){ .t0 = tc->sc.t0, .px_ns = px,
				     .width = (uint32_t)(span / px + 1) };
	tc->zoom = tc->sc.width && px * 2 <= tc->sc.px_ns;
}

/* Every row of the zoom layer (lanes, then CPUs): NULL past the last. */
static struct pixrow *zrow_at(struct timechart *tc, size_t i)
{
	if (i < tc->nlanes)
		return &tc->lanes[i].zrow;
	i -= tc->nlanes;
	return i < (size_t)tc->ncpus ? &tc->cpus[i].zstate : NULL;
}

/*
 * The zoom layer within its budget: its pixels made twice as long while
 * its runs would take more of the page; none where they would no longer
 * be finer than half a page pixel.
 */
static void zoom_budget(struct timechart *tc)
{
	struct pixrow *r;
	uint64_t runs = 0;

	for (size_t i = 0; (r = zrow_at(tc, i)); i++)
		runs += r->n;
	while (tc->zoom && runs * TC_ZOOM_RUN_BYTES > TC_ZOOM_BUDGET) {
		if (tc->zsc.px_ns * 4 > tc->sc.px_ns) {
			tc->zoom = false;
			tc->zoom_dropped = true;
			for (size_t i = 0; (r = zrow_at(tc, i)); i++)
				pixrow_free(r);
			return;
		}
		tc->zsc.px_ns *= 2;
		tc->zsc.width = tc->zsc.width / 2 + 1;
		runs = 0;
		for (size_t i = 0; (r = zrow_at(tc, i)); i++) {
			pixrow_halve(r);
			runs += r->n;
		}
	}
}

/* [s, e) of kind into a zoom row, the layer's budget looked at now and then. */
static void zoom_add(struct timechart *tc, struct pixrow *r, uint64_t s,
		     uint64_t e, unsigned int kind)
{
	if (!tc->zoom)
		return;
	pixrow_add(r, s, e, kind);
	if (!(++tc->zadds & 4095))
		zoom_budget(tc);
}

struct timechart *tc_new(const struct pixscale *sc, int ncpus,
			 const struct tc_lanes_rule *rule)
{
	struct timechart *tc = calloc(1, sizeof(*tc));

	if (!tc)
		return NULL;
	tc->sc = *sc;
	tc->rule = *rule;
	tc->max_idle = -1;
	tc->cpus = calloc((size_t)ncpus, sizeof(*tc->cpus));
	if (!tc->cpus) {
		free(tc);
		return NULL;
	}
	tc->ncpus = ncpus;
	zoom_scale(tc);
	for (int c = 0; c < ncpus; c++) {
		pixrow_init(&tc->cpus[c].state, &tc->sc);
		pixrow_init(&tc->cpus[c].freq, &tc->sc);
		pixrow_init(&tc->cpus[c].zstate, &tc->zsc);
	}
	/* who ran where: within a budget (a page of 4,096 CPUs would not) */
	for (int c = 0; sc->width && (uint64_t)ncpus * sc->width <= TC_WHO_CELLS &&
			c < ncpus; c++) {
		tc->cpus[c].who = calloc(sc->width, sizeof(*tc->cpus[c].who));
		tc->cpus[c].who_ns = calloc(sc->width, sizeof(*tc->cpus[c].who_ns));
		tc->oom |= !tc->cpus[c].who || !tc->cpus[c].who_ns;
	}
	return tc;
}

/* Task ti ran on c over [a, b) (clipped to the scale): each pixel's longest stint. */
static void who_ran(struct timechart *tc, struct tc_cpu *c, size_t ti,
		    uint64_t a, uint64_t b)
{
	const struct pixscale *sc = &tc->sc;
	uint64_t x;

	if (!c->who || b <= a)
		return;
	for (x = (a - sc->t0) / sc->px_ns; x < sc->width; x++) {
		uint64_t p0 = sc->t0 + x * sc->px_ns;
		uint64_t p1 = p0 > UINT64_MAX - sc->px_ns ? UINT64_MAX :
			      p0 + sc->px_ns;
		uint64_t ns = (b < p1 ? b : p1) - (a > p0 ? a : p0);

		if (ns > c->who_ns[x]) {
			c->who_ns[x] = ns;
			c->who[x] = (uint32_t)ti + 1;
		}
		if (b <= p1)
			break;
	}
}

static uint64_t id_hash(const struct task_id *id)
{
	return hash_u64((uint64_t)(uint32_t)id->tid ^ hash_u64(id->start_ns));
}

struct id_key {
	const struct timechart *tc;
	const struct task_id *id;
};

static bool same_task(void *ctx, uint64_t i)
{
	const struct id_key *k = ctx;
	const struct task_id *a = &k->tc->tasks[i].id;

	return a->tid == k->id->tid && a->start_ns == k->id->start_ns;
}

static void name_seen(struct tc_task *t, const char *comm)
{
	if (!comm || !*comm || !strncmp(t->comm, comm, sizeof(t->comm)))
		return;
	if (!t->first_comm[0])
		memcpy(t->first_comm, t->comm, sizeof(t->comm));
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* Task id's entry (made on first sight), NULL: no memory. */
static struct tc_task *task_of(struct timechart *tc, const struct task_id *id,
			       const char *comm)
{
	struct id_key k = { tc, id };
	uint64_t h = id_hash(id), *i = hashtab_find(&tc->index, h, same_task, &k);
	struct tc_task *t;

	if (i)
		return &tc->tasks[*i];
	if (array_room(&tc->tasks, tc->ntasks, &tc->tasks_cap,
		       sizeof(*tc->tasks), 64) ||
	    hashtab_add(&tc->index, h, tc->ntasks)) {
		tc->oom = true;
		return NULL;
	}
	t = &tc->tasks[tc->ntasks++];
	memset(t, 0, sizeof(*t));
	t->id = *id;
	t->lane = -1;
	snprintf(t->comm, sizeof(t->comm), "%s", comm ? comm : "");
	return t;
}

static int id_cmp(const void *a, const void *b)
{
	const struct task_id *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Whether the rule gives task t a lane (one more lane, if it has none). */
static bool rule_allows(struct timechart *tc, const struct tc_task *t)
{
	const struct tc_lanes_rule *r = &tc->rule;

	if (r->tgid && t->id.tgid != r->tgid)
		return false;
	if (r->only)
		return bsearch(&t->id, r->only, r->nonly, sizeof(*r->only),
			       id_cmp) != NULL;
	return !r->max || tc->nlanes < r->max;
}

/* The lane of task t (made when the rule allows), -1: none. */
static long lane_of(struct timechart *tc, struct tc_task *t)
{
	struct tc_lane *l;

	if (!t)
		return -1;
	if (t->lane >= 0)
		return t->lane;
	if (!rule_allows(tc, t))
		return -1;
	/* the rows point at tc->sc, not into the array: nothing to fix */
	if (array_room(&tc->lanes, tc->nlanes, &tc->lanes_cap,
		       sizeof(*tc->lanes), 64)) {
		tc->oom = true;
		return -1;
	}
	l = &tc->lanes[tc->nlanes];
	memset(l, 0, sizeof(*l));
	l->id = t->id;
	l->task = (size_t)(t - tc->tasks);
	pixrow_init(&l->row, &tc->sc);
	pixrow_init(&l->zrow, &tc->zsc);
	t->lane = (long)tc->nlanes;
	return (long)tc->nlanes++;
}

static void on_task_span(void *ctx, const struct task_span *s)
{
	struct timechart *tc = ctx;
	uint64_t a = s->start_ns, b = s->end_ns; /* clipped: its time in the scale */
	struct tc_task *t;
	long i;

	if (s->id.tid <= 0) /* the idle tasks: the CPU lanes show them */
		return;
	t = task_of(tc, &s->id, s->comm);
	if (!t)
		return;
	name_seen(t, s->comm);
	t->has_interval = true;
	if (s->kind == SPAN_RUNNING) {
		t->run_ns += pixscale_clip(&tc->sc, &a, &b);
		if (s->cpu >= 0 && s->cpu < tc->ncpus &&
		    (size_t)(t - tc->tasks) < UINT32_MAX)
			who_ran(tc, &tc->cpus[s->cpu], (size_t)(t - tc->tasks),
				a, b);
	}
	i = lane_of(tc, t);
	if (i >= 0) {
		pixrow_add(&tc->lanes[i].row, s->start_ns, s->end_ns, s->kind);
		zoom_add(tc, &tc->lanes[i].zrow, s->start_ns, s->end_ns, s->kind);
	}
}

static void on_cpu_span(void *ctx, const struct cpu_span *s)
{
	struct timechart *tc = ctx;
	struct tc_cpu *c;
	unsigned int kind;

	if (s->cpu < 0 || s->cpu >= tc->ncpus) {
		tc->bad_cpu++;
		return;
	}
	c = &tc->cpus[s->cpu];
	switch (s->kind) {
	case CPUSPAN_BUSY:
		kind = TC_CPU_BUSY;
		break;
	case CPUSPAN_IDLE:
		if (s->idle_state < 0) {
			kind = TC_CPU_IDLE_NONE;
			break;
		}
		if (s->idle_state > tc->max_idle)
			tc->max_idle = s->idle_state;
		if (s->idle_state >= TC_IDLE_STATES) {
			c->idle_deeper++;
			kind = PIX_KINDS - 1;
		} else {
			kind = TC_CPU_IDLE0 + (unsigned int)s->idle_state;
		}
		break;
	case CPUSPAN_LOST:
		kind = TC_CPU_LOST;
		break;
	default:
		kind = TC_CPU_UNKNOWN;
		break;
	}
	pixrow_add(&c->state, s->start_ns, s->end_ns, kind);
	zoom_add(tc, &c->zstate, s->start_ns, s->end_ns, kind);
}

static void on_freq_span(void *ctx, const struct freq_span *s)
{
	struct timechart *tc = ctx;
	struct tc_cpu *c;
	int k;

	if (s->cpu < 0 || s->cpu >= tc->ncpus) {
		tc->bad_cpu++;
		return;
	}
	c = &tc->cpus[s->cpu];
	for (k = 0; k < c->nkhz && c->khz[k] != s->khz; k++)
		;
	if (k == c->nkhz) {
		if (c->nkhz < TC_FREQS) {
			c->khz[c->nkhz++] = s->khz;
		} else {
			c->khz_other++;
			k = TC_FREQS - 1;
		}
	}
	pixrow_add(&c->freq, s->start_ns, s->end_ns, (unsigned int)k);
}

static void on_wakeup(void *ctx, const struct wake_ev *w)
{
	struct timechart *tc = ctx;
	const struct pixscale *sc = &tc->sc;
	struct tc_lane *l;
	int32_t from = TC_FROM_UNKNOWN;
	uint32_t x;
	long i;

	if (w->ts < sc->t0 || w->ts >= pixscale_end(sc) ||
	    w->wakee.tid <= 0)
		return;
	tc->wakeups++;
	x = (uint32_t)((w->ts - sc->t0) / sc->px_ns);
	if (w->in_irq && w->cpu >= 0 && w->cpu < tc->ncpus) {
		from = TC_FROM_CPU(w->cpu);
		tc->cpus[w->cpu].irq_wakeups++;
	} else if (w->waker.tid > 0) {
		i = lane_of(tc, task_of(tc, &w->waker, w->waker_comm));
		from = i < 0 ? TC_FROM_UNKNOWN : (int32_t)i;
	}
	i = lane_of(tc, task_of(tc, &w->wakee, w->wakee_comm));
	if (i < 0)
		return;
	l = &tc->lanes[i];
	l->wakeups++;
	if (l->narrows && l->arrows[l->narrows - 1].x == x) {
		l->arrows_merged++;
		tc->arrows_merged++;
		return;
	}
	if (array_room(&l->arrows, l->narrows, &l->arrows_cap,
		       sizeof(*l->arrows), 8)) {
		tc->oom = true;
		return;
	}
	l->arrows[l->narrows++] = (struct tc_arrow){ x, from };
	tc->arrows++;
}

static void on_wait(void *ctx, const struct wait_ev *w)
{
	struct timechart *tc = ctx;
	struct tc_task *t = task_of(tc, &w->id, w->comm);
	uint64_t s = w->start_ns, e = w->end_ns;
	long i;

	if (!t)
		return;
	t->wait_ns += pixscale_clip(&tc->sc, &s, &e);
	i = lane_of(tc, t);
	if (i < 0)
		return;
	tc->lanes[i].waits++;
	tc->lanes[i].wait_ns += w->end_ns - w->start_ns;
}

void tc_observer(struct timechart *tc, struct analysis_observer *o)
{
	*o = (struct analysis_observer){
		.ctx = tc,
		.task_span = on_task_span,
		.cpu_span = on_cpu_span,
		.freq_span = on_freq_span,
		.wakeup = on_wakeup,
		.wait = on_wait,
	};
}

void tc_finish(struct timechart *tc)
{
	struct pixrow *r;

	for (int c = 0; c < tc->ncpus; c++) {
		pixrow_finish(&tc->cpus[c].state);
		pixrow_finish(&tc->cpus[c].freq);
		tc->oom |= tc->cpus[c].state.oom || tc->cpus[c].freq.oom;
	}
	for (size_t i = 0; i < tc->nlanes; i++) {
		struct tc_lane *l = &tc->lanes[i];

		pixrow_finish(&l->row);
		tc->oom |= l->row.oom;
	}
	for (size_t i = 0; tc->zoom && (r = zrow_at(tc, i)); i++) {
		pixrow_finish(r);
		tc->oom |= r->oom;
	}
	zoom_budget(tc);
}

void tc_free(struct timechart *tc)
{
	if (!tc)
		return;
	for (int c = 0; c < tc->ncpus; c++) {
		pixrow_free(&tc->cpus[c].state);
		pixrow_free(&tc->cpus[c].freq);
		pixrow_free(&tc->cpus[c].zstate);
		free(tc->cpus[c].who);
		free(tc->cpus[c].who_ns);
	}
	for (size_t i = 0; i < tc->nlanes; i++) {
		pixrow_free(&tc->lanes[i].row);
		pixrow_free(&tc->lanes[i].zrow);
		free(tc->lanes[i].arrows);
	}
	free(tc->lanes);
	free(tc->tasks);
	hashtab_free(&tc->index);
	free(tc->cpus);
	free(tc);
}

/*
 * The report's rule (analysis_wanted): a task is named by the last name it
 * had; an earlier one (before an exec, or a pid reused unseen) does not
 * choose it.
 */
bool tc_task_shown(const struct tc_task *t, int32_t tgid, const char *comm)
{
	if (tgid && t->id.tgid != tgid)
		return false;
	return !comm || !strncmp(t->comm, comm, sizeof(t->comm));
}

/* Most time on a CPU first, then most waiting, then the earliest. */
static int by_weight(const void *a, const void *b)
{
	const struct tc_task *x = *(const struct tc_task *const *)a;
	const struct tc_task *y = *(const struct tc_task *const *)b;

	if (x->run_ns != y->run_ns)
		return x->run_ns > y->run_ns ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->id.start_ns != y->id.start_ns)
		return x->id.start_ns < y->id.start_ns ? -1 : 1;
	return (x->id.tid > y->id.tid) - (x->id.tid < y->id.tid);
}

int tc_choose(const struct timechart *tc, int32_t tgid, const char *comm,
	      size_t max, struct tc_choice *ch)
{
	const struct tc_task **v;
	size_t n = 0;

	memset(ch, 0, sizeof(*ch));
	ch->all_have_lanes = true;
	v = malloc((tc->ntasks + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < tc->ntasks; i++) {
		const struct tc_task *t = &tc->tasks[i];

		if (!t->has_interval) {
			ch->empty++;
			continue;
		}
		if (!tc_task_shown(t, tgid, comm)) {
			ch->filtered++;
			continue;
		}
		v[n++] = t;
		if (t->lane < 0)
			ch->all_have_lanes = false;
	}
	ch->shown = n;
	if (ch->all_have_lanes && (!max || n <= max)) {
		free(v);
		return 0;
	}
	ch->all_have_lanes = false;
	qsort(v, n, sizeof(*v), by_weight);
	ch->nchosen = max && n > max ? max : n;
	ch->chosen = malloc((ch->nchosen + 1) * sizeof(*ch->chosen));
	if (!ch->chosen) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (i < ch->nchosen) {
			ch->chosen[i] = v[i]->id;
			continue;
		}
		ch->left_out++;
		ch->left_out_run_ns += v[i]->run_ns;
		ch->left_out_wait_ns += v[i]->wait_ns;
	}
	qsort(ch->chosen, ch->nchosen, sizeof(*ch->chosen), id_cmp);
	free(v);
	return 0;
}
