/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The capture lifecycle: open the BPF object, configure filters and program
 * variants, load, attach, consume the ring buffer, read the counters, detach.
 */
#ifndef ABICAP_CAPTURE_H
#define ABICAP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abicap.h"
#include "abi/kernel.h"
#include "event/events.h"
#include "event/record.h"
#include "live/capture_cfg.h"

struct contract;

/* Called for each record; a non-zero return stops this poll's consumption. */
typedef int (*capture_cb)(void *ctx, const union abicap_rec *rec);

struct capture;

/*
 * Check privileges and the kernel, load and attach. On failure returns NULL,
 * sets *exit_code (enum abicap_exit) and writes one line to err.
 */
struct capture *capture_open(const struct capture_opts *opts, capture_cb cb,
			     void *ctx, int *exit_code, char *err,
			     size_t errlen);

/* Wait up to timeout_ms for data, then consume all queued records. */
int capture_poll(struct capture *c, int timeout_ms);

/*
 * Detach every program, then consume what is left: counters are final
 * after. 0, or -errno when reading the rest failed (the last records lost).
 */
int capture_stop(struct capture *c);

void capture_close(struct capture *c);

/* The name of the program loaded for ev (the variant chosen), or NULL. */
const char *capture_program_name(const struct capture *c, unsigned int ev);

/* abicap's BPF object as built into this binary (the skeleton's ELF). */
const void *capture_elf_bytes(size_t *len);

/*
 * The capture's span (CLOCK_MONOTONIC): from the first attach, when events
 * start to flow, to the last detach (capture_stop; 0 before it). -d counts
 * from the start; summaries and trailers report capture_secs().
 */
uint64_t capture_start_ns(const struct capture *c);
uint64_t capture_end_ns(const struct capture *c);
double capture_secs(const struct capture *c); /* to now if not stopped */

int capture_ncpus(const struct capture *c);

/*
 * Kernel counters, summed (cpu < 0) or for one CPU: seen and dropped per
 * event. out has ABICAP_EV_COUNT entries.
 */
int capture_counters(struct capture *c, int cpu, struct abicap_counter *out);

/*
 * The programs' bookkeeping counters summed over CPUs (enum abicap_aux):
 * processes followed and not followed, wakers lost, why aggregated events
 * were lost.
 */
int capture_aux(struct capture *c, uint64_t out[ABICAP_AUX_COUNT]);

/*
 * Runs of the attached programs the kernel skipped because a BPF program
 * was already running on that CPU (bpf_prog_info.recursion_misses): those
 * events are in no count, seen or dropped. Per event, and for the other
 * programs (event/events.h, enum other_tp: a skipped run of the wakelists'
 * may leave a wakeup's waker unknown, or wrong); on[]: the program is
 * attached.
 */
struct capture_misses {
	bool known; /* false: the kernel does not count them (before 5.12) */
	uint64_t ev[ABICAP_EV_COUNT];
	bool on[ABICAP_EV_COUNT];
	uint64_t other[OTHER_TP_COUNT];
	bool other_on[OTHER_TP_COUNT];
	uint64_t total;
};
int capture_misses(struct capture *c, struct capture_misses *out);

/* Records received in user space per event, and records that failed to decode. */
uint64_t capture_received(const struct capture *c, unsigned int ev);
uint64_t capture_bad_records(const struct capture *c);
/* Records lost so far, either transport (cheap: read after every drain). */
uint64_t capture_dropped_total(struct capture *c);
/*
 * Records lost so far on each CPU (the CPU whose event it was) into out[0
 * .. n): the number of CPUs filled (past them, none known), or -1.
 */
int capture_dropped_per_cpu(struct capture *c, uint64_t *out, int n);

/* Aggregation from the kernel's accounting (sched_info), not from events. */
bool capture_kernel_accounting(const struct capture *c);
/* "tp_btf" or "raw_tp": the variant attached for ev; NULL if not attached. */
const char *capture_variant(const struct capture *c, unsigned int ev);
const struct kernel_plan *capture_plan(const struct capture *c);
/* The contract's verdicts for this kernel (kept for the capture file). */
const struct check_result *capture_check(const struct capture *c);

/* The BPF object, for aggregation mode's maps (abicap serve). */
struct bpf_object *capture_object(const struct capture *c);

/*
 * "per-CPU slabs", "per-CPU ring buffers", "ring buffer" (shared) or
 * "perf buffer"
 */
const char *capture_transport(const struct capture *c);
/* Each CPU's buffer in bytes (the shared ring buffer: its whole size). */
size_t capture_buffer_bytes(const struct capture *c);
/* slabs: each CPU's ring buffer for nested programs' records; else 0 */
size_t capture_nest_bytes(const struct capture *c);
/*
 * sched_wakeup's wakers from the wakelists (bpf/waker.bpf.h): no
 * sched_waking program for them
 */
bool capture_wakelist(const struct capture *c);
/*
 * Records handed on out of time order: per-CPU streams whose program held
 * a record longer than MERGE_LAG_NS between its clock and its submit.
 */
uint64_t capture_late(const struct capture *c);

/* Drain threads running now (started so far; 0 after capture_stop's join: still the count). */
int capture_drain_threads(const struct capture *c);
/* auto: how busy the main thread was when it added thread i (0-based), else -1. */
int capture_drain_busy(const struct capture *c, int i);
/* "auto", "fixed" (--drain-threads N, or 0) or "none" (not per-CPU rings). */
const char *capture_drain_mode(const struct capture *c);
/* The most threads auto may add (0 unless auto). */
int capture_drain_max(const struct capture *c);
/*
 * auto: hand the main thread's next group to a new drain thread now (what
 * the rule does past its threshold; busy_pct is noted for the summary), in
 * the thread that polls. 0, -ENOSPC (not auto, or at the most), or -errno.
 */
int capture_drain_add(struct capture *c, int busy_pct);

/* The buffer budget for want bytes (0: the default) and ncpus CPUs. */
size_t capture_budget(size_t want, int ncpus);
/*
 * Each CPU's ring buffer out of budget bytes: the power of two at or below
 * its share, at least a page; -1 and the one-line error if the share is
 * less than a page.
 */
int capture_ring_share(size_t budget, int ncpus, size_t page, size_t *each,
		       char *err, size_t errlen);

/*
 * Run ev's program once through BPF_PROG_TEST_RUN with the given tracepoint
 * arguments (raw_tp variants only: the kernel cannot test-run tp_btf).
 */
int capture_test_run(struct capture *c, unsigned int ev, const uint64_t *args,
		     int nargs);

#endif
