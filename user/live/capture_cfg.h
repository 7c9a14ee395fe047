/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a capture is asked for (struct capture_opts) and the limits of its
 * buffers: shared by the capture's lifecycle (capture.c) and its
 * transport (capture_rings.c), and set by the commands.
 */
#ifndef ABICAP_CAPTURE_CFG_H
#define ABICAP_CAPTURE_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abicap.h"
#include "abi/kernel.h"

struct contract;

/* the buffer budget's default: 16 MiB, or 1 MiB per CPU where more */
#define RINGBUF_DEFAULT_MB 16
#define RINGBUF_MAX_MB 2048 /* max_entries is a u32 power of two */
/*
 * Slabs: the largest chunk (an array element; the kernel allocates each
 * whole), and each CPU's ring buffer for nested records beside its slab.
 */
#define SLAB_CHUNK_MAX (1ul << 20)
#define SLAB_NEST_BYTES (64ul << 10)
/*
 * Per-CPU streams: how long a program can take from reading the clock to
 * submitting its record (merge.h); records wait this long for older ones.
 */
#define MERGE_LAG_NS 50000000ull

struct capture_opts {
	unsigned int events; /* mask of 1 << enum abicap_event */
	int32_t pids[ABICAP_MAX_PIDS]; /* tgids; npids == 0: no pid filter */
	int npids;
	int32_t tids[ABICAP_MAX_PIDS]; /* threads; ntids == 0: no tid filter */
	int ntids;
	char comm[ABICAP_COMM_LEN]; /* task name; "": no comm filter */
	const uint8_t *cpus; /* cpus[i] != 0: keep CPU i; NULL: all CPUs */
	int ncpus; /* entries in cpus */
	/*
	 * The buffer budget, all CPUs together (0: capture_budget's default):
	 * the shared ring buffer is it rounded up to a power of two; per-CPU
	 * ring buffers each the power of two at or below its share.
	 */
	size_t ringbuf_bytes;
	enum attach_mode mode;
	enum transport transport;
	/*
	 * Drain threads for the per-CPU ring buffers (drain.h): 0 none (the
	 * main thread drains every ring), N from the start (at most one per
	 * ring), DRAIN_AUTO (-1) added while the main thread is too busy.
	 */
	int drain_threads;
	bool verbose; /* libbpf's log on stderr */
	/*
	 * Use the 3-argument sched_switch program (prev_state read from the
	 * task, as on kernels before 5.18) even where the kernel has 4: lets
	 * the tests exercise the old kernels' path on this one.
	 */
	bool legacy_switch;
	/* checked before anything loads; NULL: the built-in contract */
	const struct contract *contract;
	/* pids[] and every process they fork from now on (record -- COMMAND) */
	bool follow_forks;
	bool quiet; /* no warnings for degraded contract items */
	/* --cgroup: tasks in this cgroup v2 subtree only (0: no filter) */
	uint64_t cgroup_id;
	int cgroup_level; /* its depth, the root's being 0 */
	/* abicap serve: per-cgroup statistics in maps instead of records */
	bool aggregate;
	unsigned int max_cgroups; /* aggregation: cgroups kept, 0: default */
	/* aggregation: what the waits and on-CPU time are measured from */
	enum agg_source {
		AGG_AUTO, /* the kernel's where it keeps them, else events */
		AGG_KERNEL, /* sched_info and the run queue's clocks, or fail */
		AGG_EVENTS, /* sched_wakeup programs and the BPF clock */
	} agg_source;
	/* once attached, keep no capability (privdrop.h): the commands set it */
	bool drop_privileges;
	/*
	 * Tests: check the contract against this BTF and relocate the programs
	 * for it (libbpf's btf_custom_path) instead of the running kernel's.
	 */
	const char *btf_custom_path;
};

#endif
