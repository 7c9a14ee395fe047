// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The analysis (user/analysis/) fed arbitrary record sequences: the input
 * is a few header bytes (CPU count, --from-waking, drop windows) and then 8
 * bytes per record (type, time step forward or back, CPU, tasks, state,
 * name). Invariants (issue 21, docs/analysis.md), in the order fed and
 * sorted by a total order (time, CPU, type, bytes):
 *   - no interval negative or longer than the capture: every span the
 *     observers get and every figure lies inside it;
 *   - per CPU, busy + idle + lost + unknown = the span;
 *   - a task's off-CPU states sum to its off-CPU total;
 *   - every percentile inside [min, max];
 *   - sorted, no record is out of order, and any permutation of the
 *     records, sorted again, gives the same figures.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "fuzz.h"

#define MAX_RECS 4096

struct bounds {
	uint64_t lo, hi; /* the capture, once known: spans are checked after */
	uint64_t spans;
	bool bad;
	int ncpus; /* the analysis' */
	uint64_t idle_ts; /* the last idle change's time */
};

static void check_span(struct bounds *b, uint64_t s, uint64_t e)
{
	b->spans++;
	if (s > e)
		b->bad = true;
}

static void on_task(void *ctx, const struct task_span *sp)
{
	check_span(ctx, sp->start_ns, sp->end_ns);
	FUZZ_ASSERT(sp->comm && sp->comm[0]);
}

static void on_cpu(void *ctx, const struct cpu_span *sp)
{
	check_span(ctx, sp->start_ns, sp->end_ns);
}

static void on_freq(void *ctx, const struct freq_span *sp)
{
	check_span(ctx, sp->start_ns, sp->end_ns);
}

static void on_wake(void *ctx, const struct wake_ev *w)
{
	(void)ctx;
	FUZZ_ASSERT(w->waker_comm && w->waker_comm[0]);
	FUZZ_ASSERT(w->wakee_comm && w->wakee_comm[0]);
}

/* observe.h: in time order, on a CPU of the capture, a state or -1 */
static void on_idle(void *ctx, const struct idle_ev *e)
{
	struct bounds *b = ctx;

	FUZZ_ASSERT(e->cpu >= 0 && e->cpu < b->ncpus);
	FUZZ_ASSERT(e->ts >= b->idle_ts);
	FUZZ_ASSERT(e->state >= -1);
	b->idle_ts = e->ts;
}

static void on_wait(void *ctx, const struct wait_ev *w)
{
	check_span(ctx, w->start_ns, w->end_ns);
	FUZZ_ASSERT(w->holder_run_ns <= w->end_ns - w->start_ns);
}

static const uint32_t states[] = { 0, 0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40,
				   0x80, ABICAP_STATE_PREEMPTED };

/* The records of the input; *ncpus, *waking, the drop windows. */
static size_t decode(const uint8_t *d, size_t size, union abicap_rec *v,
		     int *ncpus, bool *waking, struct drop_window *dw,
		     size_t *nd)
{
	uint64_t ts = 1000000;
	size_t n = 0, p;

	if (size < 2)
		return 0;
	*ncpus = 1 + (d[0] & 3);
	*waking = d[0] & 4;
	*nd = (d[1] & 3);
	p = 2;
	for (size_t i = 0; i < *nd; i++, p += 4) {
		if (p + 4 > size)
			return 0;
		dw[i].start_ns = ts + (uint64_t)(d[p] | d[p + 1] << 8) * 100;
		dw[i].end_ns = dw[i].start_ns + (uint64_t)(d[p + 2] | d[p + 3] << 8);
		dw[i].count = 1;
	}
	for (; p + 8 <= size && n < MAX_RECS; p += 8) {
		const uint8_t *b = &d[p];
		union abicap_rec *r = &v[n++];
		uint32_t cpu = b[3] % (*ncpus + (b[3] >= 250));

		if (b[2] & 0x80 && ts > (uint64_t)b[1] * 100)
			ts -= (uint64_t)b[1] * 100; /* back in time */
		else
			ts += (uint64_t)b[1] * (b[2] & 0x40 ? 1000 : 10);
		memset(r, 0, sizeof(*r));
		r->hdr.ts_ns = ts;
		r->hdr.cpu = cpu;
		switch (b[0] % 7) {
		case 0:
		case 1:
		case 2:
			r->hdr.type = ABICAP_EV_SCHED_SWITCH;
			r->hdr.size = sizeof(r->sw);
			r->sw.prev_pid = r->sw.prev_tgid = b[4] % 8 ? 100 + b[4] % 8 : 0;
			r->sw.next_pid = r->sw.next_tgid = b[5] % 8 ? 100 + b[5] % 8 : 0;
			r->sw.prev_state = states[b[6] % 10];
			r->sw.flags = (b[6] >> 4) & 3;
			snprintf(r->sw.prev_comm, sizeof(r->sw.prev_comm), "p%d",
				 b[7] & 3);
			snprintf(r->sw.next_comm, sizeof(r->sw.next_comm), "n%d",
				 (b[7] >> 2) & 3);
			break;
		case 3:
		case 4:
		case 5:
			r->hdr.type = b[0] % 7 == 3 ? ABICAP_EV_SCHED_WAKEUP :
				      b[0] % 7 == 4 ? ABICAP_EV_SCHED_WAKING :
				      ABICAP_EV_SCHED_WAKEUP_NEW;
			r->hdr.size = sizeof(r->wk);
			r->wk.pid = r->wk.tgid = 100 + b[4] % 8;
			r->wk.waker_pid = b[5] % 8 ? 100 + b[5] % 8 :
					  b[5] & 8 ? ABICAP_PID_INTERRUPT :
					  ABICAP_PID_UNKNOWN;
			r->wk.target_cpu = (int32_t)cpu;
			if (b[7] & 1)
				snprintf(r->wk.comm, sizeof(r->wk.comm), "w%d",
					 (b[7] >> 1) & 3);
			break;
		default:
			r->hdr.type = b[0] & 0x80 ? ABICAP_EV_CPU_FREQUENCY :
				      ABICAP_EV_CPU_IDLE;
			r->hdr.size = sizeof(r->pw);
			r->pw.cpu_id = b[4] % (*ncpus + (b[4] >= 250));
			r->pw.state = b[6] == 255 ? UINT32_MAX : b[6] % 20;
			if (r->hdr.type == ABICAP_EV_CPU_FREQUENCY)
				r->pw.state = 100000 + b[6] * 1000u;
			break;
		}
	}
	return n;
}

static int rec_cmp(const void *x, const void *y)
{
	const union abicap_rec *p = x, *q = y;

	if (p->hdr.ts_ns != q->hdr.ts_ns)
		return p->hdr.ts_ns < q->hdr.ts_ns ? -1 : 1;
	if (p->hdr.cpu != q->hdr.cpu)
		return p->hdr.cpu < q->hdr.cpu ? -1 : 1;
	if (p->hdr.type != q->hdr.type)
		return p->hdr.type < q->hdr.type ? -1 : 1;
	return memcmp(p, q, sizeof(*p));
}

/* Feed, check every invariant; the figures' fingerprint. */
static uint64_t run(const union abicap_rec *v, size_t n, int ncpus,
		    bool waking, const struct drop_window *dw, size_t nd,
		    bool sorted)
{
	struct bounds b = { .ncpus = ncpus };
	struct analysis_observer o = { .ctx = &b, .task_span = on_task,
		.cpu_span = on_cpu, .freq_span = on_freq, .wakeup = on_wake,
		.wait = on_wait, .idle = on_idle };
	struct analysis a;
	uint64_t span, fp = 1469598103934665603ull;

	analysis_init(&a, ncpus);
	a.from_waking = waking;
	analysis_observe(&a, &o);
	if (analysis_set_drops(&a, dw, nd)) {
		analysis_free(&a);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		analysis_add(&a, &v[i]);
	analysis_finish(&a);
	span = analysis_span(&a, NULL, NULL);
	FUZZ_ASSERT(!b.bad);
	FUZZ_ASSERT(a.negative == 0);
	if (sorted)
		FUZZ_ASSERT(a.order_errors == 0);
#define MIX(x) (fp = (fp ^ (uint64_t)(x)) * 1099511628211ull)
	for (int c = 0; c < a.ncpus; c++) {
		const struct cpu_stat *s = &a.cpus[c];

		FUZZ_ASSERT(s->busy + s->idle_time + s->lost_time +
			    s->unknown_time == span);
		for (int k = 0; k < MAX_IDLE_STATES; k++)
			FUZZ_ASSERT(s->residency[k] <= span);
		MIX(s->busy);
		MIX(s->idle_time);
		MIX(s->lost_time);
		MIX(s->unknown_time);
		MIX(s->hidden_gaps);
	}
	for (size_t i = 0; i < a.ntasks; i++) {
		const struct task *t = &a.tasks[i];
		const struct task_res *r = task_res(t);
		uint64_t sum = 0;

		for (int k = 0; k < 10; k++)
			sum += r->off_by_state[k];
		FUZZ_ASSERT(sum == t->off_total);
		FUZZ_ASSERT(t->off_total <= span && t->runtime <= span);
		FUZZ_ASSERT(r->rq.max <= span && r->rq.total <= r->rq.n * span);
		for (int p = 0; r->rq.n && p <= 1000; p += 5) {
			uint64_t q = lat_percentile(&r->rq, p / 10.0);

			FUZZ_ASSERT(q >= r->rq.min && q <= r->rq.max);
		}
		MIX(t->pid);
		MIX(t->start_ns);
		MIX(t->off_total);
		MIX(t->runtime);
		MIX(r->rq.n);
		MIX(r->rq.total);
		MIX(t->voluntary);
		MIX(t->involuntary);
	}
	MIX(a.waits_dropped);
	MIX(a.off_dropped);
	MIX(a.nchains);
	MIX(b.spans);
#undef MIX
	analysis_free(&a);
	return fp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union abicap_rec v[MAX_RECS], w[MAX_RECS];
	struct drop_window dw[3];
	size_t nd = 0, n;
	int ncpus = 1;
	bool waking = false;
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ size;

	n = decode(data, size, v, &ncpus, &waking, dw, &nd);
	if (!n)
		return 0;
	run(v, n, ncpus, waking, dw, nd, false); /* as it came */
	memcpy(w, v, n * sizeof(*v));
	qsort(v, n, sizeof(*v), rec_cmp);
	for (size_t i = n - 1; i > 0; i--) { /* w: a permutation */
		size_t j;
		union abicap_rec t;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		j = seed % (i + 1);
		t = w[i];
		w[i] = w[j];
		w[j] = t;
	}
	qsort(w, n, sizeof(*w), rec_cmp);
	FUZZ_ASSERT(run(v, n, ncpus, waking, dw, nd, true) ==
		    run(w, n, ncpus, waking, dw, nd, true));
	return 0;
}
