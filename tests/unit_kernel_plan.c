// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Program-variant choice from a kernel's BTF, on BTFs built here with libbpf's
 * writer: the running kernel's shape, a pre-5.18 one, 5.18-rc1's, one
 * without a tracepoint, one from before btf_trace_* types existed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "events.h"
#include "kernel.h"
#include "util.h"

enum sw_shape { SW_NONE, SW_3ARG, SW_4ARG, SW_518RC1 };

struct fake {
	struct btf *btf;
	int u32, boolean, task_ptr, void_ptr;
};

/* typedef void (*btf_trace_<name>)(void *, args...) */
static void add_tp(struct fake *f, const char *name, const int *args, int n)
{
	char tn[64];
	int proto = btf__add_func_proto(f->btf, 0);

	cr_assert_gt(proto, 0);
	cr_assert_eq(btf__add_func_param(f->btf, "__data", f->void_ptr), 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(btf__add_func_param(f->btf, "", args[i]), 0);
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	cr_assert_gt(btf__add_typedef(f->btf, tn, btf__add_ptr(f->btf, proto)),
		     0);
}

static struct btf *fake_kernel(enum sw_shape sw, bool with_frequency)
{
	struct fake f = { .btf = btf__new_empty() };

	cr_assert(f.btf);
	f.u32 = btf__add_int(f.btf, "unsigned int", 4, 0);
	f.boolean = btf__add_int(f.btf, "_Bool", 1, BTF_INT_BOOL);
	f.task_ptr = btf__add_ptr(f.btf, btf__add_struct(f.btf, "task_struct", 0));
	f.void_ptr = btf__add_ptr(f.btf, 0);
	if (sw == SW_NONE)
		return f.btf; /* before Linux 5.5: no btf_trace_* at all */
	if (sw == SW_3ARG)
		add_tp(&f, "sched_switch",
		       (int[]){ f.boolean, f.task_ptr, f.task_ptr }, 3);
	else if (sw == SW_4ARG)
		add_tp(&f, "sched_switch",
		       (int[]){ f.boolean, f.task_ptr, f.task_ptr, f.u32 }, 4);
	else
		add_tp(&f, "sched_switch",
		       (int[]){ f.boolean, f.u32, f.task_ptr, f.task_ptr }, 4);
	add_tp(&f, "sched_wakeup", (int[]){ f.task_ptr }, 1);
	add_tp(&f, "sched_wakeup_new", (int[]){ f.task_ptr }, 1);
	add_tp(&f, "sched_waking", (int[]){ f.task_ptr }, 1);
	add_tp(&f, "cpu_idle", (int[]){ f.u32, f.u32 }, 2);
	if (with_frequency)
		add_tp(&f, "cpu_frequency", (int[]){ f.u32, f.u32 }, 2);
	return f.btf;
}

static char err[ERRMSG_LEN];

Test(kernel_plan, modern_kernel_gets_tp_btf_and_4_args)
{
	struct btf *b = fake_kernel(SW_4ARG, true);
	struct kernel_plan p;

	cr_assert_eq(kernel_plan(b, EVENTS_ALL, ATTACH_AUTO, &p, err,
				 sizeof(err)), EXIT_OK, "%s", err);
	cr_assert(p.switch_prev_state);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		cr_assert(p.tp_btf[ev], "%s", event_name(ev));
	cr_assert_eq(kernel_plan(b, EVENTS_ALL, ATTACH_RAW_TP, &p, err,
				 sizeof(err)), EXIT_OK);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		cr_assert_not(p.tp_btf[ev]);
	cr_assert(p.switch_prev_state);
	btf__free(b);
}

Test(kernel_plan, pre_5_18_kernel_gets_3_args)
{
	struct btf *b = fake_kernel(SW_3ARG, true);
	struct kernel_plan p;

	cr_assert_eq(kernel_plan(b, EVENTS_ALL, ATTACH_AUTO, &p, err,
				 sizeof(err)), EXIT_OK, "%s", err);
	cr_assert_not(p.switch_prev_state);
	cr_assert(p.tp_btf[ABICAP_EV_SCHED_SWITCH]);
	btf__free(b);
}

Test(kernel_plan, linux_5_18_rc1_prototype_is_refused)
{
	struct btf *b = fake_kernel(SW_518RC1, true);
	struct kernel_plan p;

	cr_assert_eq(kernel_plan(b, EVENTS_ALL, ATTACH_AUTO, &p, err,
				 sizeof(err)), EXIT_KERNEL);
	cr_assert(strstr(err, "sched:sched_switch has a prototype abicap does "
			 "not know"), "%s", err);
	/* without sched_switch the rest still works */
	cr_assert_eq(kernel_plan(b, EVENTS_ALL & ~1u, ATTACH_AUTO, &p, err,
				 sizeof(err)), EXIT_OK, "%s", err);
	btf__free(b);
}

Test(kernel_plan, missing_tracepoint_is_named)
{
	struct btf *b = fake_kernel(SW_4ARG, false);
	struct kernel_plan p;

	cr_assert_eq(kernel_plan(b, EVENTS_ALL, ATTACH_AUTO, &p, err,
				 sizeof(err)), EXIT_KERNEL);
	cr_assert(strstr(err, "tracepoint power:cpu_frequency does not exist"),
		  "%s", err);
	cr_assert(strstr(err, "--events"), "%s", err);
	cr_assert_eq(kernel_plan(b, EVENTS_ALL & ~(1u << ABICAP_EV_CPU_FREQUENCY),
				 ATTACH_AUTO, &p, err, sizeof(err)), EXIT_OK);
	btf__free(b);
}

Test(kernel_plan, kernel_before_btf_trace_types_gets_raw_tp)
{
	struct btf *b = fake_kernel(SW_NONE, true);
	struct kernel_plan p;

	cr_assert_eq(kernel_plan(b, EVENTS_ALL, ATTACH_AUTO, &p, err,
				 sizeof(err)), EXIT_OK, "%s", err);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		cr_assert_not(p.tp_btf[ev]);
	cr_assert_not(p.switch_prev_state);
	cr_assert_eq(kernel_plan(b, EVENTS_ALL, ATTACH_TP_BTF, &p, err,
				 sizeof(err)), EXIT_USAGE);
	cr_assert(strstr(err, "use --attach raw_tp"), "%s", err);
	btf__free(b);
}
