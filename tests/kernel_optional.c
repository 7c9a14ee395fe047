// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Optional means optional, tested without booting old kernels: copies of
 * the running kernel's BTF with one contract item removed. Each optional
 * item removed must give "degraded" from check, "loads" from check
 * --object on abicap's own object, and libbpf must agree: abicap's object
 * relocated against the copy (btf_custom_path) loads, through the loader
 * itself and with every program on and every flag that the loader could
 * set turned on (so only the programs' own exists-checks stand between a
 * failed relocation and the verifier). Each required item removed must
 * give "broken", "REJECTED", and libbpf fails to relocate it. The copies
 * keep every other type's id and layout, so the kernel verifies the
 * programs against the same offsets it has.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "abicap.h" /* before the skeleton: its .bss type */
#include "abicap.skel.h"
#include "btf_mutate.h"
#include "harness.h"
#include "live/capture.h"
#include "event/events.h"
#include "lib/bpflog.h"
#include "lib/util.h"

#define ABICAP(...) run_cmd((char *[]){ (char *)abicap_bin(), __VA_ARGS__, NULL })
#define NITEMS(a) (sizeof(a) / sizeof((a)[0]))

TestSuite(optional, .init = scratch_init, .fini = scratch_fini, .timeout = 240);

struct mutation {
	const char *what; /* removed: "struct.member" or "tracepoint()" */
	const char *scope, *item; /* the verdict that names it */
};

static const struct mutation optional_items[] = {
	{ "task_struct.cgroups", "task_struct", "cgroups" },
	{ "css_set.dfl_cgrp", "css_set", "dfl_cgrp" },
	{ "cgroup.kn", "cgroup", "kn" },
	{ "kernfs_node.id", "kernfs_node", "id" },
	{ "cgroup.level", "cgroup", "level" },
	{ "cgroup.self", "cgroup", "self" },
	{ "cgroup_subsys_state.parent", "cgroup", "self.parent" },
	{ "sched_entity.cfs_rq", "task_struct", "se.cfs_rq" },
	{ "cfs_rq.rq", "cfs_rq", "rq" },
	{ "sched_info.run_delay", "task_struct", "sched_info.run_delay" },
	{ "sched_info.pcount", "task_struct", "sched_info.pcount" },
	{ "sched_info.last_queued", "task_struct", "sched_info.last_queued" },
	{ "sched_entity.sum_exec_runtime", "task_struct", "se.sum_exec_runtime" },
	{ "rq.clock", "rq", "clock" },
	{ "bpf_ringbuf.spinlock", "bpf_ringbuf", "spinlock" },
	{ "sched_switch()", "sched_switch", "arg 4 prev_state" },
	{ "trace_event_raw_sched_switch.next_prio", "sched_switch",
	  "record.next_prio" },
	{ "task_struct.wake_entry", "task_struct", "wake_entry" },
	{ "csd_queue_cpu()", "csd_queue_cpu", "arg 4 csd" },
};

static const struct mutation required_items[] = {
	{ "task_struct.pid", "task_struct", "pid" },
	{ "task_struct.tgid", "task_struct", "tgid" },
	{ "task_struct.prio", "task_struct", "prio" },
	{ "task_struct.comm", "task_struct", "comm" },
	{ "task_struct.start_time", "task_struct", "start_time" },
	{ "task_struct.group_leader", "task_struct", "group_leader" },
	{ "task_struct.exit_state", "task_struct", "exit_state" },
	{ "task_struct.__state", "task_struct", "__state" },
	{ "thread_info.cpu", "task_struct", "thread_info.cpu" },
};

/* check --btf's verdict on the item, and how many items it found broken. */
static const char *verdict_of(const char *btf, const struct mutation *m,
			      int *code, int *nbroken)
{
	static char verdict[32];
	struct run r = ABICAP("check", "--btf", (char *)btf, "--format", "json");
	json_t *j = json_loads(r.out, 0, NULL), *it;
	size_t i;

	cr_assert(j, "%s: check --btf: not JSON: %s%s", m->what, r.out, r.err);
	*code = r.code;
	*nbroken = 0;
	verdict[0] = '\0';
	json_array_foreach(json_object_get(j, "items"), i, it) {
		const char *v = json_string_value(json_object_get(it, "verdict"));

		*nbroken += !strcmp(v, "broken");
		if (!strcmp(json_string_value(json_object_get(it, "scope")),
			    m->scope) &&
		    !strcmp(json_string_value(json_object_get(it, "item")),
			    m->item))
			snprintf(verdict, sizeof(verdict), "%s", v);
	}
	json_decref(j);
	return verdict;
}

/*
 * check --object's prediction for abicap's own object on this BTF: the
 * whole object loads (true), or not; *attach_only: every program predicted
 * not to load fails only its attach point (the arguments it reads), no
 * relocation: the loader's choice of variant avoids those.
 */
static bool predicted_to_load(const char *btf, bool *attach_only, char *why,
			      size_t len)
{
	struct run r = ABICAP("check", "--object", "build/abicap.bpf.o", "--btf",
			      (char *)btf, "--format", "json");
	json_t *j = json_loads(r.out, 0, NULL), *k, *p;
	bool loads;
	size_t i;

	cr_assert(j, "check --object: not JSON: %s%s", r.out, r.err);
	k = json_array_get(json_object_get(j, "kernels"), 0);
	cr_assert(k);
	loads = json_is_true(json_object_get(k, "loads"));
	cr_assert_eq(r.code, loads ? 0 : 1, "%s", r.err);
	*attach_only = true;
	why[0] = '\0';
	json_array_foreach(json_object_get(k, "programs"), i, p) {
		if (json_is_true(json_object_get(p, "loads")))
			continue;
		if (json_is_true(json_object_get(p, "attach_ok")))
			*attach_only = false;
		snprintf(why + strlen(why), len - strlen(why), "%s: %s; ",
			 json_string_value(json_object_get(p, "name")),
			 json_string_value(json_object_get(p, "attach_detail")));
	}
	json_decref(j);
	return loads;
}

static char libbpf_log[1 << 16];
static size_t libbpf_log_len;

/* libbpf's warnings (the verifier's verdict and libbpf's reading of it) */
static int keep_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	if (libbpf_log_len < sizeof(libbpf_log) - 1)
		libbpf_log_len += vsnprintf(libbpf_log + libbpf_log_len,
					    sizeof(libbpf_log) - libbpf_log_len,
					    fmt, ap);
	if (libbpf_log_len > sizeof(libbpf_log) - 1)
		libbpf_log_len = sizeof(libbpf_log) - 1;
	return 0;
}

/*
 * libbpf's answer with every program on and every gate the loader could
 * open open: 0 (loaded), or -errno with libbpf's messages in libbpf_log.
 */
static int libbpf_load_all(const char *btf)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = btf);
	struct abicap_bpf *s = abicap_bpf__open_opts(&oo);
	struct bpf_program *p;
	libbpf_print_fn_t old;
	int err;

	cr_assert(s, "cannot open abicap's object: %s", strerror(errno));
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, true);
	s->rodata->cgroup_ids = true;
	s->rodata->cgroup_walk = true;
	s->rodata->filter_cgroup = true;
	s->rodata->aggregate = true;
	s->rodata->agg_kernel = true;
	s->rodata->follow_forks = true;
	s->rodata->pc_where = ABICAP_PC_PERCPU;
	bpf_map__set_max_entries(s->maps.events, 1 << 16);
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
	old = libbpf_set_print(keep_log);
	err = abicap_bpf__load(s);
	libbpf_set_print(old);
	abicap_bpf__destroy(s);
	return err;
}

Test(optional, each_optional_item_removed_degrades_and_loads)
{
	char *btf = scratch_path("mutated.btf"), why[320];

	require_kernel();
	for (size_t i = 0; i < NITEMS(optional_items); i++) {
		const struct mutation *m = &optional_items[i];
		struct capture_opts o = { .events = EVENTS_ALL, .quiet = true,
					  .btf_custom_path = btf };
		const char *v;
		struct capture *c;
		char err[ERRMSG_LEN];
		int code, nbroken, ret;
		bool loads, attach_only;

		btf_write_without("/sys/kernel/btf/vmlinux", btf, m->what);
		v = verdict_of(btf, m, &code, &nbroken);
		cr_assert_str_eq(v, "degraded", "without %s: check says %s %s "
				 "is '%s'", m->what, m->scope, m->item, v);
		cr_assert_eq(code, 0, "without %s: check exit %d", m->what, code);
		cr_assert_eq(nbroken, 0, "without %s", m->what);
		loads = predicted_to_load(btf, &attach_only, why, sizeof(why));
		/*
		 * without sched_switch's 4th argument the 4-argument programs
		 * cannot attach (the loader takes the 3-argument ones); every
		 * other program loads, and any other item removed leaves the
		 * whole object loading
		 */
		if (!strcmp(m->what, "sched_switch()") ||
		    !strcmp(m->what, "csd_queue_cpu()"))
			cr_assert(!loads && attach_only, "without %s: check "
				  "--object: %s", m->what, why);
		else
			cr_assert(loads, "without %s: check --object: %s",
				  m->what, why);
		ret = libbpf_load_all(btf);
		cr_assert_eq(ret, 0, "without %s: libbpf did not load abicap's "
			     "object (%s): %s", m->what, strerror(-ret), libbpf_log);
		/* and the loader itself, with the variants it chooses */
		c = capture_open(&o, NULL, NULL, &code, err, sizeof(err));
		cr_assert(c, "without %s: capture_open: exit %d: %s", m->what,
			  code, err);
		if (!strcmp(m->what, "bpf_ringbuf.spinlock"))
			cr_assert_str_eq(capture_transport(c), "perf buffer");
		else if (!strcmp(m->what, "sched_switch()"))
			cr_assert_not(capture_plan(c)->switch_prev_state);
		/* sched_waking's program keeps the wakers instead */
		else if (strstr(m->what, "wake_entry") ||
			 strstr(m->what, "csd_queue_cpu"))
			cr_assert(!capture_wakelist(c) &&
				  capture_variant(c, ABICAP_EV_SCHED_WAKING),
				  "without %s", m->what);
		else if (!strncmp(m->scope, "cgroup", 6) ||
			 !strcmp(m->what, "task_struct.cgroups") ||
			 !strcmp(m->what, "css_set.dfl_cgrp") ||
			 !strcmp(m->what, "kernfs_node.id"))
			cr_assert_not(capture_plan(c)->cgroup_filter_ok, "%s",
				      m->what);
		/* serve's accounting: the kernel's only where all of it holds */
		if (!capture_plan(c)->cgroup_ok) {
			capture_close(c);
			continue; /* serve is refused: tested elsewhere */
		}
		capture_close(c);
		o.aggregate = true;
		c = capture_open(&o, NULL, NULL, &code, err, sizeof(err));
		cr_assert(c, "without %s: serve's capture_open: exit %d: %s",
			  m->what, code, err);
		cr_assert_eq(capture_kernel_accounting(c),
			     !strstr(m->what, "sched_info.") &&
			     !strstr(m->what, "sum_exec_runtime") &&
			     strcmp(m->what, "rq.clock") &&
			     strcmp(m->what, "sched_entity.cfs_rq") &&
			     strcmp(m->what, "cfs_rq.rq"),
			     "without %s: serve's accounting is %s", m->what,
			     capture_kernel_accounting(c) ? "kernel" : "events");
		capture_close(c);
	}
}

Test(optional, each_required_item_removed_breaks_and_fails_to_relocate)
{
	char *btf = scratch_path("mutated.btf"), why[320];

	require_kernel();
	for (size_t i = 0; i < NITEMS(required_items); i++) {
		const struct mutation *m = &required_items[i];
		const char *v;
		int code, nbroken, ret;
		bool attach_only;

		btf_write_without("/sys/kernel/btf/vmlinux", btf, m->what);
		v = verdict_of(btf, m, &code, &nbroken);
		cr_assert_str_eq(v, "broken", "without %s: check says %s %s is "
				 "'%s'", m->what, m->scope, m->item, v);
		cr_assert_eq(code, 1, "without %s: check exit %d", m->what, code);
		cr_assert_not(predicted_to_load(btf, &attach_only, why,
						sizeof(why)),
			      "without %s: check --object predicts it loads",
			      m->what);
		ret = libbpf_load_all(btf);
		cr_assert_neq(ret, 0, "without %s: libbpf loaded abicap's "
			      "object", m->what);
		cr_assert(strstr(libbpf_log, "failed to resolve CO-RE relocation"),
			  "without %s: libbpf failed otherwise: %s", m->what,
			  libbpf_log);
	}
}
