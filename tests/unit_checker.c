// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The built-in contract against kernels built with libbpf's BTF writer:
 * exact verdicts for a modern kernel, a 5.10-era one, 5.18-rc1, a kernel
 * with a required field removed or retyped, one with a record field
 * appended, one without a tracepoint, one before btf_trace_* types.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "abi/checker.h"
#include "abi/contract.h"
#include "abi/contract_deps.h"
#include "event/events.h"
#include "lib/util.h"

static struct contract *con;
static struct check_result res;
static char err[ERRMSG_LEN];

static void check(const struct kfix *k)
{
	struct btf *b = kfix_build(k);

	con = contract_default(err, sizeof(err));
	cr_assert(con, "%s", err);
	cr_assert_eq(contract_check(con, b, &res), 0);
	btf__free(b);
}

static void done(void)
{
	check_result_free(&res);
	contract_free(con);
}

static const struct verdict *find(const char *scope, const char *item)
{
	for (int i = 0; i < res.n; i++)
		if (!strcmp(res.v[i].scope, scope) && !strcmp(res.v[i].item, item))
			return &res.v[i];
	cr_assert_fail("no verdict for %s %s", scope, item);
	return NULL;
}

static void expect(const char *scope, const char *item, enum vstatus s,
		   const char *detail_has)
{
	const struct verdict *v = find(scope, item);

	cr_assert_eq(v->status, s, "%s %s: %s, expected %s (%s)", scope, item,
		     vstatus_str(v->status), vstatus_str(s), v->detail);
	if (detail_has)
		cr_assert(strstr(v->detail, detail_has), "%s %s: '%s' lacks '%s'",
			  scope, item, v->detail, detail_has);
}

#define EVENTS_BUT(ev) (EVENTS_ALL & ~(1u << (ev)))

/* No cgroups in task_struct: attribution degraded, serve and --cgroup refused. */
Test(checker, kernel_without_cgroups_is_degraded, .fini = done)
{
	struct kernel_plan p;

	check(&(struct kfix){ .no_cgroups = true });
	cr_assert_eq(res.count[V_BROKEN], 0);
	cr_assert_eq(res.count[V_DEGRADED], 1);
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_AUTO, &p, err,
				     sizeof(err)), EXIT_OK);
	cr_assert_not(p.cgroup_ok);
	cr_assert_not(p.cgroup_filter_ok);
	for (int i = 0; i < res.n; i++)
		if (res.v[i].status == V_DEGRADED)
			cr_assert(strstr(res.v[i].detail, "--cgroup and abicap serve "
					 "are refused"), "%s", res.v[i].detail);
}

Test(checker, modern_kernel_is_all_ok, .fini = done)
{
	struct kernel_plan p;

	check(&(struct kfix){ 0 });
	cr_assert_eq(res.count[V_BROKEN], 0);
	cr_assert_eq(res.count[V_DEGRADED], 0);
	/*
	 * 8 tracepoints, 14 args, 13 record fields (3 records), 9 task
	 * fields, 2 run queue fields, 5 of the kernel's accounting (serve),
	 * 7 cgroup fields, the ring buffer's lock; the wakelists' wakers: 3
	 * tracepoints, 8 args, task_struct.wake_entry
	 */
	cr_assert_eq(res.n, 8 + 14 + 7 + 4 + 2 + 9 + 2 + 5 + 7 + 1 + 12,
		     "%d items", res.n);
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_AUTO, &p, err,
				     sizeof(err)), EXIT_OK);
	cr_assert(p.switch_prev_state);
	cr_assert(p.cgroup_ok);
	cr_assert(p.cgroup_filter_ok);
	cr_assert(p.kernel_agg_ok);
	cr_assert(p.wakelist_ok);
	cr_assert_not(p.perfbuf);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		cr_assert(p.tp_btf[ev]);
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_RAW_TP, &p, err,
				     sizeof(err)), EXIT_OK);
	cr_assert_not(p.tp_btf[ABICAP_EV_SCHED_SWITCH]);
	/* the wakers' slots are read by the tp_btf sched_wakeup only */
	cr_assert_not(p.wakelist_ok);
	cr_assert(p.switch_prev_state);
}

Test(checker, linux_5_10_is_degraded_not_broken, .fini = done)
{
	struct kernel_plan p;
	const struct verdict *v;

	check(&KFIX_5_10);
	cr_assert_eq(res.count[V_BROKEN], 0);
	expect("task_struct", "__state", V_DEGRADED,
	       "this kernel has task_struct.state (s64)");
	v = find("task_struct", "__state");
	cr_assert_str_eq(v->actual, "state: s64 (long int)");
	expect("task_struct", "thread_info.cpu", V_DEGRADED,
	       "this kernel has task_struct.cpu (u32)");
	expect("sched_switch", "arg 4 prev_state", V_DEGRADED,
	       "fallback: prev_state read from task_struct");
	expect("sched_wakeup", "record.target_cpu", V_DEGRADED, "moved");
	expect("sched_wakeup", "record.success", V_DEGRADED,
	       "trace_event_raw_sched_wakeup_template.success inserted before "
	       "the end: breaks the append-only rule");
	v = find("sched_wakeup", "record.success");
	cr_assert_str_eq(v->event_names, "sched_wakeup,sched_wakeup_new,sched_waking");
	/* before 6.3: no csd_* tracepoints, sched_waking's program instead */
	expect("csd_queue_cpu", "tracepoint", V_DEGRADED,
	       "optional, since 6.3 tracepoint csd:csd_queue_cpu missing; "
	       "fallback: sched_waking's program keeps the waker");
	expect("csd_function_entry", "tracepoint", V_DEGRADED, "fallback");
	expect("csd_function_exit", "tracepoint", V_DEGRADED, "fallback");
	cr_assert_eq(res.count[V_DEGRADED], 8);
	cr_assert_eq(check_worst(&res, EVENTS_ALL), V_DEGRADED);
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_AUTO, &p, err,
				     sizeof(err)), EXIT_OK);
	cr_assert_not(p.switch_prev_state); /* the 3-argument program */
	cr_assert(p.tp_btf[ABICAP_EV_SCHED_SWITCH]);
	cr_assert_not(p.wakelist_ok);
}

Test(checker, linux_5_18_rc1_prototype_breaks_prev, .fini = done)
{
	const struct verdict *v;

	check(&(struct kfix){ .sw = SW_518RC1 });
	expect("sched_switch", "arg 2 prev", V_BROKEN, "moved or retyped");
	v = find("sched_switch", "arg 2 prev");
	cr_assert_str_eq(v->expected, "struct task_struct *");
	cr_assert_str_eq(v->actual, "u32 (unsigned int)");
	expect("sched_switch", "arg 3 next", V_OK, NULL);
	expect("sched_switch", "arg 4 prev_state", V_DEGRADED, "not read");
	cr_assert_eq(res.count[V_BROKEN], 1);
	cr_assert_eq(check_worst(&res, EVENTS_ALL), V_BROKEN);
	/* the other events are untouched */
	cr_assert_eq(check_worst(&res, EVENTS_BUT(ABICAP_EV_SCHED_SWITCH)), V_OK);
}

Test(checker, required_field_removed_is_broken, .fini = done)
{
	const struct verdict *v;

	check(&(struct kfix){ .no_prio = true });
	expect("task_struct", "prio", V_BROKEN, "task_struct.prio not found");
	v = find("task_struct", "prio");
	cr_assert_str_eq(v->actual, "missing");
	cr_assert(strstr(v->detail, "lost: prev_prio, next_prio, prio"));
	cr_assert_eq(res.count[V_BROKEN], 1);
	/* prio feeds every sched event, not the power ones */
	cr_assert_eq(check_worst(&res, 1u << ABICAP_EV_CPU_IDLE), V_OK);
	cr_assert_eq(check_worst(&res, 1u << ABICAP_EV_SCHED_WAKING), V_BROKEN);
}

Test(checker, required_field_retyped_is_broken, .fini = done)
{
	const struct verdict *v;

	check(&(struct kfix){ .tgid_u64 = true });
	expect("task_struct", "tgid", V_BROKEN, "has another type");
	v = find("task_struct", "tgid");
	cr_assert_str_eq(v->expected, "s32");
	cr_assert_str_eq(v->actual, "u64 (long unsigned int)");
	cr_assert_eq(res.count[V_BROKEN], 1);
}

Test(checker, appended_record_field_is_compatible, .fini = done)
{
	const struct verdict *v;

	check(&(struct kfix){ .switch_appended = true });
	cr_assert_eq(res.count[V_BROKEN] + res.count[V_DEGRADED], 0);
	expect("sched_switch", "record.next_flags", V_OK, NULL);
	v = find("sched_switch", "record.next_flags");
	cr_assert(strstr(v->detail, "appended at the end: compatible"));
	cr_assert_str_eq(v->actual, "u32 at 7");
}

Test(checker, missing_tracepoint_is_broken_for_that_event, .fini = done)
{
	const struct verdict *v;

	check(&(struct kfix){ .no_cpu_frequency = true });
	expect("cpu_frequency", "tracepoint", V_BROKEN,
	       "no tracepoint power:cpu_frequency");
	v = find("cpu_frequency", "tracepoint");
	cr_assert_str_eq(v->actual, "missing");
	cr_assert_eq(res.count[V_BROKEN], 1);
	cr_assert_eq(check_worst(&res, EVENTS_BUT(ABICAP_EV_CPU_FREQUENCY)), V_OK);
}

Test(checker, kernel_before_btf_trace_types_gets_raw_tp, .fini = done)
{
	struct kernel_plan p;

	check(&(struct kfix){ .sw = SW_3ARG, .no_trace_types = true });
	cr_assert_eq(res.count[V_BROKEN], 0);
	expect("sched_switch", "tracepoint", V_DEGRADED, "predates btf_trace_*");
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_AUTO, &p, err,
				     sizeof(err)), EXIT_OK);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		cr_assert_not(p.tp_btf[ev]);
	cr_assert_not(p.switch_prev_state);
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_TP_BTF, &p, err,
				     sizeof(err)), EXIT_USAGE);
	cr_assert(strstr(err, "use --attach raw_tp"), "%s", err);
}

static enum vstatus ringbuf_lock(enum rb_lock l, struct kernel_plan *p)
{
	enum vstatus st;

	check(&(struct kfix){ .rb_lock = l });
	st = find("bpf_ringbuf", "spinlock")->status;
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_AUTO, p, err,
				     sizeof(err)), EXIT_OK);
	return st;
}

/* The ring buffer's lock: a sleeping rt_mutex means perf buffers instead. */
Test(checker, ringbuf_lock_chooses_the_transport, .fini = done)
{
	struct kernel_plan p;

	cr_assert_eq(ringbuf_lock(RB_SPINLOCK_RT, &p), V_DEGRADED);
	cr_assert(p.perfbuf);
	expect("bpf_ringbuf", "spinlock", V_DEGRADED,
	       "bpf_ringbuf.spinlock is struct spinlock, but this kernel lacks "
	       "spinlock.rlock, which makes it safe; fallback: the perf buffer "
	       "transport");
	cr_assert_eq(res.count[V_BROKEN], 0);
	/* it matters for every event */
	cr_assert_eq(check_worst(&res, 1u << ABICAP_EV_CPU_IDLE), V_DEGRADED);
	done();
	cr_assert_eq(ringbuf_lock(RB_SPINLOCK, &p), V_OK);
	cr_assert_not(p.perfbuf);
	expect("bpf_ringbuf", "spinlock", V_OK, "serves as well here: this "
	       "kernel has spinlock.rlock");
	done();
	cr_assert_eq(ringbuf_lock(RB_RQSPINLOCK, &p), V_OK);
	cr_assert_not(p.perfbuf);
	done();
	/* ppc64el, s390x 7.2: no queued spinlocks, rqspinlock_t is a test-and-set lock */
	cr_assert_eq(ringbuf_lock(RB_RQSPINLOCK_TAS, &p), V_OK);
	cr_assert_not(p.perfbuf);
	expect("bpf_ringbuf", "spinlock", V_OK, "struct rqspinlock");
	cr_assert_eq(res.count[V_DEGRADED] + res.count[V_BROKEN], 0);
	done();
	cr_assert_eq(ringbuf_lock(RB_RAW, &p), V_OK);
	cr_assert_not(p.perfbuf);
}

/*
 * riscv64: task_struct.thread_info.cpu is an int. libbpf relocates a CO-RE
 * field read across integer signedness of the same size, and the verifier
 * sees the same 4-byte load: not broken, and the detail says how it reads.
 */
Test(checker, cpu_of_the_other_signedness_is_ok, .fini = done)
{
	const struct verdict *v;

	check(&(struct kfix){ .cpu_signed = true });
	expect("task_struct", "thread_info.cpu", V_OK, "other signedness");
	v = find("task_struct", "thread_info.cpu");
	cr_assert_str_eq(v->actual, "s32 (int)");
	cr_assert(strstr(v->detail, "read it as u32"), "%s", v->detail);
	cr_assert_eq(res.count[V_DEGRADED] + res.count[V_BROKEN], 0);
	done();
	/* a 5.10-era riscv64: the alternative task_struct.cpu, also an int */
	check(&(struct kfix){ .old_cpu = true, .cpu_signed = true });
	expect("task_struct", "thread_info.cpu", V_DEGRADED,
	       "this kernel has task_struct.cpu (u32)");
	v = find("task_struct", "thread_info.cpu");
	cr_assert(strstr(v->detail, "other signedness"), "%s", v->detail);
	cr_assert_eq(res.count[V_BROKEN], 0);
}

/* The built-in contract, edited: JSON text with `drop` applied. */
static struct contract *edited_contract(void (*drop)(json_t *))
{
	size_t len;
	const char *text = contract_default_text(&len);
	json_t *j = json_loadb(text, len, 0, NULL);
	struct contract *c;
	char *out;

	cr_assert(j);
	drop(j);
	out = json_dumps(j, 0);
	c = contract_parse(out, strlen(out), "trim.json", err, sizeof(err));
	cr_assert(c, "%s", err);
	free(out);
	json_decref(j);
	return c;
}

static json_t *event_of(json_t *j, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(j, "events"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")), name))
			return e;
	cr_assert_fail("no event %s", name);
	return NULL;
}

static void drop_field(json_t *j, const char *sname, const char *field)
{
	json_t *fields = json_object_get(j, "fields"), *f;
	size_t i;

	json_array_foreach(fields, i, f)
		if (!strcmp(json_string_value(json_object_get(f, "struct")), sname) &&
		    !strcmp(json_string_value(json_object_get(f, "field")), field)) {
			json_array_remove(fields, i);
			return;
		}
	cr_assert_fail("no field %s.%s", sname, field);
}

static void drop_prev_state(json_t *j)
{
	json_array_remove(json_object_get(event_of(j, "sched_switch"), "args"), 3);
}

static void drop_ringbuf(json_t *j)
{
	drop_field(j, "bpf_ringbuf", "spinlock");
}

static void drop_prio(json_t *j)
{
	drop_field(j, "task_struct", "prio");
}

static void drop_cfs_rq(json_t *j)
{
	drop_field(j, "cfs_rq", "rq");
}

/* An event, and its name from the event lists of the fields naming it. */
static void drop_event(json_t *j, const char *name)
{
	json_t *evs = json_object_get(j, "events"), *e;
	size_t i;

	json_array_foreach(evs, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")), name))
			break;
	cr_assert_lt(i, json_array_size(evs));
	json_array_remove(evs, i);
	json_array_foreach(json_object_get(j, "fields"), i, e) {
		json_t *names = json_object_get(e, "events"), *n;
		size_t k;

		json_array_foreach(names, k, n)
			if (!strcmp(json_string_value(n), name)) {
				json_array_remove(names, k);
				break;
			}
	}
}

static void drop_cpu_idle(json_t *j)
{
	drop_event(j, "cpu_idle");
}

static void drop_wake_entry(json_t *j)
{
	drop_field(j, "task_struct", "wake_entry");
}

/* a contract from before the wakelists' wakers */
static void drop_csd(json_t *j)
{
	drop_wake_entry(j);
	drop_event(j, "csd_queue_cpu");
	drop_event(j, "csd_function_entry");
	drop_event(j, "csd_function_exit");
}

static void drop_pid_event(json_t *j)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(j, "fields"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "field")), "pid"))
			json_array_remove(json_object_get(f, "events"), 0);
}

static struct core_object own;

static void open_own(void)
{
	cr_assert_eq(core_object_open("build/abicap.bpf.o", &own, err,
				      sizeof(err)), 0, "%s", err);
}

static void close_own(void)
{
	core_object_close(&own);
}

#define ALL_PROGRAMS (EVENTS_ALL | DEP_FORK | DEP_FREE | DEP_WAKELIST)

/* Refused for the programs of `needs`, with err naming `names`. */
static void refused(void (*drop)(json_t *), unsigned int needs,
		    const char *names)
{
	struct contract *c = edited_contract(drop);

	err[0] = '\0';
	cr_assert_eq(contract_deps_check(c, &own, needs, err, sizeof(err)), -1,
		     "a contract without %s passed", names);
	cr_assert(strstr(err, names), "'%s' lacks '%s'", err, names);
	cr_assert(strstr(err, "abicap contract show"), "%s", err);
	cr_assert_null(strchr(err, '\n'));
	contract_free(c);
}

/*
 * A contract fails closed: every item abicap's own programs depend on must
 * be declared (the built-in contract hid sched_process_free's reads of pid
 * and tgid), and a contract that omits one is refused, naming it.
 */
Test(checker, contract_missing_a_dependency_is_refused, .init = open_own,
     .fini = close_own)
{
	struct contract *c = contract_default(err, sizeof(err));

	cr_assert(c);
	cr_assert_eq(contract_deps_declared(c), ALL_PROGRAMS);
	cr_assert_eq(contract_deps_check(c, &own, ALL_PROGRAMS, err,
					 sizeof(err)), 0, "%s", err);
	contract_free(c);
	refused(drop_prev_state, ALL_PROGRAMS, "sched_switch arg 4 prev_state");
	refused(drop_ringbuf, 1u << ABICAP_EV_CPU_IDLE, "bpf_ringbuf.spinlock");
	refused(drop_prio, ALL_PROGRAMS, "task_struct.prio");
	refused(drop_cfs_rq, ALL_PROGRAMS, "cfs_rq.rq");
	refused(drop_cpu_idle, ALL_PROGRAMS, "the tracepoint cpu_idle");
	refused(drop_pid_event, ALL_PROGRAMS,
		"task_struct.pid does not list the event sched_switch");
	refused(drop_wake_entry, ALL_PROGRAMS, "task_struct.wake_entry");
	/* a contract without the wakelists' items: sched_waking's wakers */
	c = edited_contract(drop_csd);
	cr_assert_eq(contract_deps_declared(c), ALL_PROGRAMS & ~DEP_WAKELIST);
	cr_assert_eq(contract_deps_check(c, &own, ALL_PROGRAMS & ~DEP_WAKELIST,
					 err, sizeof(err)), 0, "%s", err);
	contract_free(c);
	/* sched_switch's argument matters only where sched_switch is loaded */
	c = edited_contract(drop_prev_state);
	cr_assert_eq(contract_deps_check(c, &own, 1u << ABICAP_EV_CPU_IDLE, err,
					 sizeof(err)), 0, "%s", err);
	contract_free(c);
}

/*
 * The loader decides by typed ids: an item the contract does not declare
 * is not ok (perf buffers, not a ring buffer whose lock nobody checked;
 * the 3-argument program), and each decision's verdict is found by id.
 */
Test(checker, variants_come_from_typed_items, .fini = done)
{
	struct kernel_plan p;
	struct btf *b = kfix_build(&(struct kfix){ 0 });
	const struct verdict *v;

	con = edited_contract(drop_ringbuf);
	cr_assert_eq(contract_check(con, b, &res), 0);
	btf__free(b);
	cr_assert_null(check_item(&res, CI_RINGBUF_LOCK));
	cr_assert_eq(plan_from_check(&res, EVENTS_ALL, ATTACH_AUTO, &p, err,
				     sizeof(err)), EXIT_OK);
	cr_assert(p.perfbuf, "an undeclared ring buffer lock kept the ring buffer");
	cr_assert(p.switch_prev_state);
	v = check_item(&res, CI_SWITCH_PREV_STATE);
	cr_assert(v);
	cr_assert_str_eq(v->item, "arg 4 prev_state");
	cr_assert_eq(v->ev, ABICAP_EV_SCHED_SWITCH);
	cr_assert_str_eq(check_item(&res, CI_CFS_RQ_RQ)->scope, "cfs_rq");
	cr_assert_str_eq(check_item(&res, CI_TP_FREE)->scope, "sched_process_free");
	cr_assert(p.rq_ok);
	cr_assert(p.free_ok && p.fork_ok);
}
