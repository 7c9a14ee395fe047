// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The timechart's lanes, filled by the analysis' observer callbacks. */
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "view/timechart.h"

struct timechart *tc_new(const struct pixscale *sc, int ncpus)
{
	struct timechart *tc = calloc(1, sizeof(*tc));

	if (!tc)
		return NULL;
	tc->sc = *sc;
	tc->max_idle = -1;
	tc->cpus = calloc((size_t)ncpus, sizeof(*tc->cpus));
	if (!tc->cpus) {
		free(tc);
		return NULL;
	}
	tc->ncpus = ncpus;
	for (int c = 0; c < ncpus; c++) {
		pixrow_init(&tc->cpus[c].state, &tc->sc);
		pixrow_init(&tc->cpus[c].freq, &tc->sc);
	}
	return tc;
}

static uint64_t id_hash(const struct task_id *id)
{
	return hash_u64((uint64_t)(uint32_t)id->tid ^ hash_u64(id->start_ns));
}

struct id_key {
	const struct timechart *tc;
	const struct task_id *id;
};

static bool same_lane(void *ctx, uint64_t i)
{
	const struct id_key *k = ctx;
	const struct task_id *a = &k->tc->lanes[i].id;

	return a->tid == k->id->tid && a->start_ns == k->id->start_ns;
}

/* The lane of task id (made on first sight), -1: no memory. */
static long lane_of(struct timechart *tc, const struct task_id *id,
		    const char *comm)
{
	struct id_key k = { tc, id };
	uint64_t h = id_hash(id), *i = hashtab_find(&tc->index, h, same_lane, &k);
	struct tc_lane *l;

	if (i)
		return (long)*i;
	/* the rows point at tc->sc, not into the array: nothing to fix */
	if (array_room(&tc->lanes, tc->nlanes, &tc->lanes_cap,
		       sizeof(*tc->lanes), 64) ||
	    hashtab_add(&tc->index, h, tc->nlanes))
		goto oom;
	l = &tc->lanes[tc->nlanes];
	memset(l, 0, sizeof(*l));
	l->id = *id;
	snprintf(l->comm, sizeof(l->comm), "%s", comm ? comm : "");
	pixrow_init(&l->row, &tc->sc);
	return (long)tc->nlanes++;
oom:
	tc->oom = true;
	return -1;
}

static void name_seen(struct tc_lane *l, const char *comm)
{
	if (!comm || !*comm || !strncmp(l->comm, comm, sizeof(l->comm)))
		return;
	if (!l->first_comm[0])
		memcpy(l->first_comm, l->comm, sizeof(l->comm));
	snprintf(l->comm, sizeof(l->comm), "%s", comm);
}

static void on_task_span(void *ctx, const struct task_span *s)
{
	struct timechart *tc = ctx;
	long i;

	if (s->id.tid <= 0) /* the idle tasks: the CPU lanes show them */
		return;
	i = lane_of(tc, &s->id, s->comm);
	if (i < 0)
		return;
	name_seen(&tc->lanes[i], s->comm);
	pixrow_add(&tc->lanes[i].row, s->start_ns, s->end_ns, s->kind);
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

	if (w->ts < sc->t0 || w->ts >= sc->t0 + sc->px_ns * sc->width ||
	    w->wakee.tid <= 0)
		return;
	tc->wakeups++;
	x = (uint32_t)((w->ts - sc->t0) / sc->px_ns);
	if (w->in_irq && w->cpu >= 0 && w->cpu < tc->ncpus) {
		from = TC_FROM_CPU(w->cpu);
		tc->cpus[w->cpu].irq_wakeups++;
	} else if (w->waker.tid > 0) {
		i = lane_of(tc, &w->waker, w->waker_comm);
		from = i < 0 ? TC_FROM_UNKNOWN : (int32_t)i;
	}
	i = lane_of(tc, &w->wakee, w->wakee_comm);
	if (i < 0)
		return;
	l = &tc->lanes[i];
	l->wakeups++;
	if (l->narrows && l->arrows[l->narrows - 1].x == x) {
		l->arrows_merged++;
		tc->arrows_merged++;
		return;
	}
	if (l->narrows == l->arrows_cap) {
		size_t cap = l->arrows_cap ? l->arrows_cap * 2 : 8;
		struct tc_arrow *v = realloc(l->arrows, cap * sizeof(*v));

		if (!v) {
			tc->oom = true;
			return;
		}
		l->arrows = v;
		l->arrows_cap = cap;
	}
	l->arrows[l->narrows++] = (struct tc_arrow){ x, from };
	tc->arrows++;
}

static void on_wait(void *ctx, const struct wait_ev *w)
{
	struct timechart *tc = ctx;
	long i = lane_of(tc, &w->id, w->comm);

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
	for (int c = 0; c < tc->ncpus; c++) {
		pixrow_finish(&tc->cpus[c].state);
		pixrow_finish(&tc->cpus[c].freq);
		tc->oom |= tc->cpus[c].state.oom || tc->cpus[c].freq.oom;
	}
	for (size_t i = 0; i < tc->nlanes; i++) {
		pixrow_finish(&tc->lanes[i].row);
		tc->oom |= tc->lanes[i].row.oom;
	}
}

void tc_free(struct timechart *tc)
{
	if (!tc)
		return;
	for (int c = 0; c < tc->ncpus; c++) {
		pixrow_free(&tc->cpus[c].state);
		pixrow_free(&tc->cpus[c].freq);
	}
	for (size_t i = 0; i < tc->nlanes; i++) {
		pixrow_free(&tc->lanes[i].row);
		free(tc->lanes[i].arrows);
	}
	free(tc->lanes);
	hashtab_free(&tc->index);
	free(tc->cpus);
	free(tc);
}
