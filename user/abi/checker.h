/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Hold a contract against a kernel's BTF: one verdict per item (tracepoint,
 * argument, struct field, record field), each ok, degraded or broken.
 */
#ifndef ABICAP_CHECKER_H
#define ABICAP_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include "abi/contract.h"
#include "abi/kernel.h"

struct btf;

enum vstatus { V_OK, V_DEGRADED, V_BROKEN };

enum vkind { VK_TRACEPOINT, VK_ARG, VK_FIELD, VK_RECORD };

/*
 * The items the loader decides by, typed: a verdict carries its id, and
 * plan_from_check() looks verdicts up by id, never by their display text.
 * The tracepoint of each captured event is found by its event instead
 * (check_result.tp).
 */
enum citem {
	CI_NONE = -1,
	CI_SWITCH_PREV_STATE, /* sched_switch arg 4 prev_state: the 4-argument program */
	CI_RINGBUF_LOCK, /* bpf_ringbuf.spinlock: ring buffer or perf buffers */
	CI_CGROUPS, /* task_struct.cgroups: cgroup ids */
	CI_CSS_DFL_CGRP, /* css_set.dfl_cgrp */
	CI_CGROUP_KN, /* cgroup.kn */
	CI_KERNFS_ID, /* kernfs_node.id */
	CI_CGROUP_LEVEL, /* cgroup.level: the --cgroup walk */
	CI_CGROUP_SELF, /* cgroup.self */
	CI_CGROUP_PARENT, /* cgroup.self.parent */
	CI_SE_CFS_RQ, /* task_struct.se.cfs_rq: the waker's context on x86 */
	CI_CFS_RQ_RQ, /* cfs_rq.rq */
	CI_RUN_DELAY, /* task_struct.sched_info.run_delay: serve's waits */
	CI_LAST_QUEUED, /* task_struct.sched_info.last_queued */
	CI_PCOUNT, /* task_struct.sched_info.pcount */
	CI_RQ_CLOCK, /* rq.clock */
	CI_SUM_EXEC, /* task_struct.se.sum_exec_runtime: serve's on-CPU time */
	CI_TP_FORK, /* tracepoint sched_process_fork: following children */
	CI_TP_FREE, /* tracepoint sched_process_free: the -p filter */
	CI_TP_CSD_QUEUE, /* tracepoint csd_queue_cpu: wakelists' wakers */
	CI_TP_CSD_ENTRY, /* tracepoint csd_function_entry */
	CI_TP_CSD_EXIT, /* tracepoint csd_function_exit */
	CI_WAKE_ENTRY, /* task_struct.wake_entry: the task of a queued wakeup */
	CI_COUNT
};

/*
 * What a contract must declare for abicap's programs beyond what their
 * CO-RE relocations show (user/abi/contract_deps.c): the kind, scope and
 * name of the item (and an argument's position), the programs that need
 * it (a mask of enum abicap_event bits and the DEP_* bits), and what
 * the loader decides by it.
 */
struct citem_def {
	enum vkind kind;
	const char *scope; /* event (tracepoint, arg) or struct (field) */
	const char *name; /* argument or field path; "tracepoint" */
	int pos; /* VK_ARG: its position, from 1 */
	unsigned int needs; /* needed where any of these is loaded */
	const char *decides;
};

/*
 * Programs beyond the captured events: following forks, forgetting freed
 * pids, the wakers of wakeups queued on wakelists (bpf/waker.bpf.h).
 */
#define DEP_FORK (1u << ABICAP_EV_COUNT)
#define DEP_FREE (1u << (ABICAP_EV_COUNT + 1))
#define DEP_WAKELIST (1u << (ABICAP_EV_COUNT + 2))

const struct citem_def *citem_def(enum citem id);

struct verdict {
	enum vkind kind;
	enum vstatus status;
	char scope[64]; /* event name; struct name for VK_FIELD */
	char item[128]; /* "arg 4 prev_state", "__state", "record prev_comm" */
	char expected[128];
	char actual[160];
	char detail[384]; /* what is lost, the fallback taken, or why it breaks */
	unsigned int events; /* abicap events (1 << ev) this item matters for */
	char event_names[160]; /* every contract event it matters for, comma-separated */
	int id; /* enum citem, or CI_NONE */
	int ev; /* VK_TRACEPOINT, VK_ARG: the captured event (enum abicap_event), or -1 */
};

struct check_result {
	struct verdict *v;
	int n;
	size_t cap;
	int count[3]; /* by enum vstatus */
	bool has_trace_types; /* the BTF has btf_trace_* (5.5+) */
	int at[CI_COUNT]; /* index in v of each typed item, -1: not declared */
	int tp[ABICAP_EV_COUNT]; /* index in v of each event's tracepoint, or -1 */
};

/* Check every item of the contract; 0, or -ENOMEM. */
int contract_check(const struct contract *c, const struct btf *btf,
		   struct check_result *res);
void check_result_free(struct check_result *res);

const char *vstatus_str(enum vstatus s);
const char *vkind_str(enum vkind k);

/* Worst status among the items that matter for the events in mask. */
enum vstatus check_worst(const struct check_result *res, unsigned int mask);

/* The verdict of a typed item; NULL where the contract does not declare it. */
const struct verdict *check_item(const struct check_result *res,
				 enum citem id);

/*
 * Program variants from the verdicts, by typed id: tp_btf where the
 * tracepoint's prototype checked ok, sched_switch's 4-argument program
 * where its prev_state argument checked ok, perf buffers where
 * bpf_ringbuf.spinlock did not, cgroup ids and the waker's context where
 * their fields did. An item the contract does not declare counts as not
 * ok (contract_deps_check() refuses such a contract before). EXIT_OK, or
 * EXIT_USAGE with err (--attach tp_btf on a kernel without btf_trace_*
 * types).
 */
int plan_from_check(const struct check_result *res, unsigned int mask,
		    enum attach_mode mode, struct kernel_plan *plan, char *err,
		    size_t errlen);

#endif
