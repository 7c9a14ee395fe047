/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Hold a contract against a kernel's BTF: one verdict per item (tracepoint,
 * argument, struct field, record field), each ok, degraded or broken.
 */
#ifndef ABICAP_CHECKER_H
#define ABICAP_CHECKER_H

#include <stdbool.h>
#include "abi/contract.h"
#include "abi/kernel.h"

struct btf;

enum vstatus { V_OK, V_DEGRADED, V_BROKEN };

enum vkind { VK_TRACEPOINT, VK_ARG, VK_FIELD, VK_RECORD };

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
};

struct check_result {
	struct verdict *v;
	int n;
	int cap;
	int count[3]; /* by enum vstatus */
	bool has_trace_types; /* the BTF has btf_trace_* (5.5+) */
};

/* Check every item of the contract; 0, or -ENOMEM. */
int contract_check(const struct contract *c, const struct btf *btf,
		   struct check_result *res);
void check_result_free(struct check_result *res);

const char *vstatus_str(enum vstatus s);
const char *vkind_str(enum vkind k);

/* Worst status among the items that matter for the events in mask. */
enum vstatus check_worst(const struct check_result *res, unsigned int mask);

/*
 * Program variants from the verdicts: tp_btf where the tracepoint's
 * prototype checked ok, sched_switch's 4-argument program where its
 * prev_state argument checked ok, perf buffers where bpf_ringbuf.spinlock
 * did not. EXIT_OK, or EXIT_USAGE with err (--attach
 * tp_btf on a kernel without btf_trace_* types).
 */
int plan_from_check(const struct check_result *res, unsigned int mask,
		    enum attach_mode mode, struct kernel_plan *plan, char *err,
		    size_t errlen);

#endif
