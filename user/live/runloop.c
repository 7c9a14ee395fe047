// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "event/events.h"
#include "live/drain.h"
#include "live/runloop.h"
#include "lib/util.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

void loop_install_signals(void)
{
	/* SA_RESTART: a signal must not fail a write with EINTR */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	/* every signal whose default would end abicap without its trailer */
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2,
				     SIGALRM };

	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a file over ulimit -f: the write fails with EFBIG, reported */
	signal(SIGXFSZ, SIG_IGN);
}

int loop_stop_signal(void)
{
	return stop_signal;
}

uint64_t capture_received_total(const struct capture *c)
{
	uint64_t n = 0;

	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		n += capture_received(c, ev);
	return n;
}

static uint64_t total_dropped(struct capture *c)
{
	struct abicap_counter sum[ABICAP_EV_COUNT];
	uint64_t d = 0;

	if (capture_counters(c, -1, sum))
		return 0;
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		d += sum[ev].dropped;
	return d;
}

/*
 * What the programs could not do (enum abicap_aux): one line each, and the
 * processes followed when there are any (summary: the full picture).
 */
void warn_aux(struct capture *c, bool summary)
{
	uint64_t a[ABICAP_AUX_COUNT];

	if (capture_aux(c, a)) {
		ab_warn("cannot read the kernel's bookkeeping counters: %s",
			strerror(errno));
		return;
	}
	if (summary && (a[ABICAP_AUX_FOLLOW_ADDED] || a[ABICAP_AUX_FOLLOW_REMOVED]))
		fprintf(stderr, "  followed processes: %llu added, %llu gone\n",
			(unsigned long long)a[ABICAP_AUX_FOLLOW_ADDED],
			(unsigned long long)a[ABICAP_AUX_FOLLOW_REMOVED]);
	if (a[ABICAP_AUX_FOLLOW_FAILED])
		ab_warn("%llu new processes of the command were NOT followed: "
			"the in-kernel pid filter (%d processes) was full; their "
			"events are missing", (unsigned long long)
			a[ABICAP_AUX_FOLLOW_FAILED], ABICAP_PID_FILTER_MAX);
	if (a[ABICAP_AUX_WAKER_LOST])
		ab_warn("%llu wakeups name no waker (waker_pid -1): it could not "
			"be kept, or the wakeup was queued on a CPU's wakelist "
			"before the capture saw it",
			(unsigned long long)a[ABICAP_AUX_WAKER_LOST]);
	if (a[ABICAP_AUX_IRQ_UNKNOWN])
		ab_warn("%llu wakings whose context (task or interrupt) could "
			"not be read: kept by the task filter on the wakee's "
			"account only", (unsigned long long)a[ABICAP_AUX_IRQ_UNKNOWN]);
	if (a[ABICAP_AUX_CG_MAP_FULL])
		ab_warn("%llu cgroup statistics updates lost: the cgroup map was "
			"full (raise --max-cgroups)",
			(unsigned long long)a[ABICAP_AUX_CG_MAP_FULL]);
	if (a[ABICAP_AUX_QUEUE_LOST])
		ab_warn("%llu run-queue waits not measured: their start could "
			"not be kept", (unsigned long long)a[ABICAP_AUX_QUEUE_LOST]);
	if (a[ABICAP_AUX_SUMS_BACK])
		ab_warn("%llu switches not counted: a task's scheduler sums "
			"(run_delay, pcount, sum_exec_runtime) were below what "
			"abicap kept of them", (unsigned long long)
			a[ABICAP_AUX_SUMS_BACK]);
	if (a[ABICAP_AUX_IDLE_STATE_BIG])
		ab_warn("%llu idle periods not counted: idle state %d or higher "
			"(abicap keeps %d per CPU)",
			(unsigned long long)a[ABICAP_AUX_IDLE_STATE_BIG],
			ABICAP_IDLE_STATES, ABICAP_IDLE_STATES);
	if (a[ABICAP_AUX_CPU_ID_BIG])
		ab_warn("%llu cpu_frequency events not kept: cpu_id %d or higher "
			"(abicap keeps %d CPUs)",
			(unsigned long long)a[ABICAP_AUX_CPU_ID_BIG],
			ABICAP_MAX_CPUS, ABICAP_MAX_CPUS);
}

void misses_text(const struct capture_misses *m, char *buf, size_t len)
{
	if (m->known)
		snprintf(buf, len, "%llu", (unsigned long long)m->total);
	else
		snprintf(buf, len, "unknown (the kernel counts none before 5.12)");
}

void warn_misses(const struct capture_misses *m)
{
	char list[512] = "";
	size_t n = 0;

	if (!m->total)
		return;
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		if (m->ev[ev] && n < sizeof(list))
			n += snprintf(list + n, sizeof(list) - n, "%s%s %llu",
				      n ? ", " : "", event_name(ev),
				      (unsigned long long)m->ev[ev]);
	for (unsigned int i = 0; i < OTHER_TP_COUNT; i++)
		if (m->other[i] && n < sizeof(list))
			n += snprintf(list + n, sizeof(list) - n, "%s%s %llu",
				      n ? ", " : "", other_tp_name(i),
				      (unsigned long long)m->other[i]);
	ab_warn("%llu program runs skipped by the kernel, the program already "
		"running on that CPU (%s): those events are in no count%s",
		(unsigned long long)m->total, list,
		m->other[OTHER_TP_CSD_QUEUE] || m->other[OTHER_TP_CSD_ENTRY] ||
		m->other[OTHER_TP_CSD_EXIT] ? ", and a wakeup whose wakelist "
		"program was skipped may name no waker or a wrong one" : "");
}

/* The drain threads (per-CPU rings only): how many, and why. */
static void drain_line(const struct capture *c)
{
	const char *mode = capture_drain_mode(c);
	int n = capture_drain_threads(c);

	if (!strcmp(mode, "none"))
		return;
	fprintf(stderr, "  drain threads: %d", n);
	if (!strcmp(mode, "fixed")) {
		fprintf(stderr, " (--drain-threads %d)\n", n);
		return;
	}
	if (!n) {
		fprintf(stderr, " (auto, up to %d: the consumer was never busy "
			"over %d%% of a second)\n", capture_drain_max(c),
			DRAIN_BUSY_PCT);
		return;
	}
	fprintf(stderr, " (auto, up to %d: started with the consumer busy",
		capture_drain_max(c));
	for (int i = 0; i < n; i++)
		fprintf(stderr, "%s %d%%", i ? "," : "", capture_drain_busy(c, i));
	fprintf(stderr, ")\n");
}

void print_summary(struct capture *c, unsigned int mask, double secs)
{
	struct abicap_counter sum[ABICAP_EV_COUNT], per[ABICAP_EV_COUNT];
	uint64_t seen = 0, rcvd = 0, drop = 0, unaccounted = 0;
	uint64_t aux[ABICAP_AUX_COUNT];
	int ncpus = capture_ncpus(c);
	struct capture_misses ms;
	char missed[64] = "unknown";

	if (capture_counters(c, -1, sum)) {
		ab_warn("cannot read the kernel's event counters: %s",
			strerror(errno));
		return;
	}
	if (capture_misses(c, &ms)) {
		ab_warn("cannot read the programs' recursion_misses: %s",
			strerror(errno));
		memset(&ms, 0, sizeof(ms));
	} else {
		misses_text(&ms, missed, sizeof(missed));
	}
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		seen += sum[ev].seen;
		drop += sum[ev].dropped;
		rcvd += capture_received(c, ev);
	}
	fprintf(stderr, "abicap: %.2f s: %llu events seen, %llu received, "
		"%llu dropped, %s missed\n", secs, (unsigned long long)seen,
		(unsigned long long)rcvd, (unsigned long long)drop, missed);
	fprintf(stderr, "  %-17s %10s %10s %10s %10s  %s\n", "EVENT", "SEEN",
		"RECEIVED", "DROPPED", "MISSED", "PROGRAM");
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		uint64_t r = capture_received(c, ev);

		if (!(mask & (1u << ev))) {
			/* sched_waking's program run for the wakers alone */
			if (capture_variant(c, ev))
				fprintf(stderr, "  %-17s %10s %10s %10s %10llu  %s "
					"(wakers only: -e %s writes records)\n",
					event_name(ev), "-", "-", "-",
					(unsigned long long)ms.ev[ev],
					capture_variant(c, ev), event_name(ev));
			continue;
		}
		fprintf(stderr, "  %-17s %10llu %10llu %10llu %10llu  %s%s\n",
			event_name(ev), (unsigned long long)sum[ev].seen,
			(unsigned long long)r,
			(unsigned long long)sum[ev].dropped,
			(unsigned long long)ms.ev[ev], capture_variant(c, ev),
			ev == ABICAP_EV_SCHED_SWITCH ?
				(capture_plan(c)->switch_prev_state ?
					 " (4 args)" : " (3 args)") : "");
		if (sum[ev].seen != r + sum[ev].dropped)
			unaccounted += sum[ev].seen - r - sum[ev].dropped;
	}
	if (capture_wakelist(c) && !capture_aux(c, aux))
		fprintf(stderr, "  wakers: sched_wakeup's context, %llu from "
			"wakelists (csd_queue_cpu); no sched_waking program "
			"for them\n",
			(unsigned long long)aux[ABICAP_AUX_WAKELIST_KEPT]);
	fprintf(stderr, "  transport: %s (%zu KiB%s", capture_transport(c),
		capture_buffer_bytes(c) >> 10,
		strcmp(capture_transport(c), "ring buffer") ? " each" : "");
	if (capture_nest_bytes(c) && !capture_aux(c, aux))
		fprintf(stderr, "; %llu records of programs nested on their "
			"CPU through its ring buffer of %zu KiB",
			(unsigned long long)aux[ABICAP_AUX_SLAB_NESTED],
			capture_nest_bytes(c) >> 10);
	fprintf(stderr, ")\n");
	drain_line(c);
	fprintf(stderr, "  dropped per CPU:");
	for (int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t d = 0;

		if (capture_counters(c, cpu, per))
			break;
		for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
			d += per[ev].dropped;
		fprintf(stderr, "%s cpu%d %llu", cpu ? "," : "", cpu,
			(unsigned long long)d);
	}
	fprintf(stderr, "\n");
	if (unaccounted)
		ab_warn("%llu events were counted in the kernel but neither "
			"received nor dropped", (unsigned long long)unaccounted);
	if (capture_bad_records(c))
		ab_warn("%llu records could not be decoded",
			(unsigned long long)capture_bad_records(c));
	if (capture_late(c))
		ab_warn("%llu records were handed on out of time order: their "
			"programs held them over %llu ms between the clock and "
			"the buffer", (unsigned long long)capture_late(c),
			MERGE_LAG_NS / 1000000);
	warn_aux(c, true);
	warn_misses(&ms);
}


/*
 * n events dropped in the last secs: the ways out, and the load average
 * when it is above one a CPU (a reader starved of CPU time drops as a
 * small buffer does).
 */
static void warn_dropped(struct capture *c, uint64_t n, double secs)
{
	char load[112] = "";
	double avg;
	FILE *f = fopen("/proc/loadavg", "re");

	if (f && fscanf(f, "%lf", &avg) == 1 && avg > capture_ncpus(c))
		snprintf(load, sizeof(load), ", or run abicap at a higher "
			 "priority (nice -n -10: the load average is %.1f on "
			 "%d CPUs)", avg, capture_ncpus(c));
	if (f)
		fclose(f);
	ab_warn("%llu events dropped in the last %.1f s (buffer full): raise "
		"--buffer-size or narrow --events/-p/-C%s",
		(unsigned long long)n, secs, load);
}

int run_loop(struct capture *c, struct loop_opts *o)
{
	uint64_t deadline = 0, next_check, last_drop = 0, d;
	int ret;

	if (o->duration > 0)
		deadline = capture_start_ns(c) + (uint64_t)(o->duration * 1e9);
	next_check = mono_ns() + 1000000000ull;
	while (!stop_signal && !(o->done && o->done(o->ctx))) {
		uint64_t now = mono_ns();
		int timeout = 100;

		/* wake for the deadline itself: -d is the capture's length */
		if (deadline && deadline - now < 100000000ull)
			timeout = now >= deadline ? 0 :
				  (int)((deadline - now + 999999) / 1000000);
		ret = capture_poll(c, timeout);
		if (ret < 0) {
			ab_error("reading the ring buffer failed: %s",
				 strerror(-ret));
			return EXIT_RUNTIME;
		}
		if (o->flush)
			o->flush(o->ctx);
		if (o->child && waitpid(o->child, &o->child_status, WNOHANG) ==
				o->child) {
			o->child_exited = true;
			break;
		}
		now = mono_ns();
		if (now >= next_check) {
			d = total_dropped(c);
			if (d > last_drop)
				warn_dropped(c, d - last_drop, 1.0);
			last_drop = d;
			next_check = now + 1000000000ull;
		}
		if (deadline && now >= deadline)
			break;
	}
	/* the run's last part, or all of a run shorter than a second */
	if (!(o->done && o->done(o->ctx)) && (d = total_dropped(c)) > last_drop)
		warn_dropped(c, d - last_drop, (double)(mono_ns() -
			     (next_check - 1000000000ull)) / 1e9);
	return EXIT_OK;
}
