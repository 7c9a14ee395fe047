// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "live/capture_int.h"
#include "live/cgslots.h"
#include "live/contract_gate.h"
#include "live/drain.h"
#include "live/features.h"
#include "live/merge.h"
#include "live/pcount.h"
#include "abi/btf_util.h"
#include "abi/checker.h"
#include "lib/bpflog.h"
#include "abi/contract.h"
#include "event/events.h"
#include "live/privdrop.h"
#include "live/privilege.h"
#include "lib/util.h"

/* Each event's program variants: attach type, sched_switch's argument count, task storage. */
enum variant {
	VAR_TP_BTF, /* sched_switch: the 4-argument program */
	VAR_TP_BTF_3, /* sched_switch: the 3-argument program (before 5.18) */
	VAR_TP_BTF_TS, /* the waker and wait in task storage (see use_task_storage) */
	VAR_TP_BTF_3_TS,
	VAR_TP_BTF_TS_PC, /* preempt_count by a plain load (live/pcount.c) */
	VAR_RAW_TP,
	VAR_RAW_TP_3,
	VAR_COUNT
};

/* The skeleton's programs by event and variant (NULL: no such variant). */
static void variant_table(const struct abicap_bpf *s,
			  struct bpf_program *t[ABICAP_EV_COUNT][VAR_COUNT])
{
#define WAKEUP_VARIANTS(ev, name)                                              \
	t[ev][VAR_TP_BTF] = s->progs.tp_btf_##name;                            \
	t[ev][VAR_TP_BTF_TS] = s->progs.tp_btf_##name##_ts;                    \
	t[ev][VAR_RAW_TP] = s->progs.raw_tp_##name
#define POWER_VARIANTS(ev, name)                                               \
	t[ev][VAR_TP_BTF] = s->progs.tp_btf_##name;                            \
	t[ev][VAR_RAW_TP] = s->progs.raw_tp_##name

	memset(t, 0, sizeof(struct bpf_program *) * ABICAP_EV_COUNT * VAR_COUNT);
	t[ABICAP_EV_SCHED_SWITCH][VAR_TP_BTF] = s->progs.tp_btf_sched_switch;
	t[ABICAP_EV_SCHED_SWITCH][VAR_TP_BTF_3] = s->progs.tp_btf_sched_switch_3;
	t[ABICAP_EV_SCHED_SWITCH][VAR_TP_BTF_TS] = s->progs.tp_btf_sched_switch_ts;
	t[ABICAP_EV_SCHED_SWITCH][VAR_TP_BTF_3_TS] =
		s->progs.tp_btf_sched_switch_3_ts;
	t[ABICAP_EV_SCHED_SWITCH][VAR_RAW_TP] = s->progs.raw_tp_sched_switch;
	t[ABICAP_EV_SCHED_SWITCH][VAR_RAW_TP_3] = s->progs.raw_tp_sched_switch_3;
	WAKEUP_VARIANTS(ABICAP_EV_SCHED_WAKEUP, sched_wakeup);
	WAKEUP_VARIANTS(ABICAP_EV_SCHED_WAKEUP_NEW, sched_wakeup_new);
	WAKEUP_VARIANTS(ABICAP_EV_SCHED_WAKING, sched_waking);
	t[ABICAP_EV_SCHED_WAKEUP][VAR_TP_BTF_TS_PC] =
		s->progs.tp_btf_sched_wakeup_ts_pc;
	t[ABICAP_EV_SCHED_WAKING][VAR_TP_BTF_TS_PC] =
		s->progs.tp_btf_sched_waking_ts_pc;
	POWER_VARIANTS(ABICAP_EV_CPU_IDLE, cpu_idle);
	POWER_VARIANTS(ABICAP_EV_CPU_FREQUENCY, cpu_frequency);
#undef WAKEUP_VARIANTS
#undef POWER_VARIANTS
}

/*
 * The variant the plan chose for ev (tstore: the sched programs' *_ts;
 * plain: sched_wakeup's and sched_waking's *_ts_pc).
 */
static enum variant variant_of(const struct kernel_plan *p, bool tstore,
			       bool plain, unsigned int ev)
{
	bool three = ev == ABICAP_EV_SCHED_SWITCH && !p->switch_prev_state;

	if (!p->tp_btf[ev])
		return three ? VAR_RAW_TP_3 : VAR_RAW_TP;
	if (tstore && plain && (ev == ABICAP_EV_SCHED_WAKEUP ||
				ev == ABICAP_EV_SCHED_WAKING))
		return VAR_TP_BTF_TS_PC;
	if (tstore && ev <= ABICAP_EV_SCHED_WAKING)
		return three ? VAR_TP_BTF_3_TS : VAR_TP_BTF_TS;
	return three ? VAR_TP_BTF_3 : VAR_TP_BTF;
}

/*
 * The sched programs keep what they note per task (sched_waking's waker for
 * sched_wakeup; in aggregation, when a task began to wait) in the task's
 * own storage where every one of them is a tp_btf program (trusted task
 * pointers) and the kernel has task storage safe to use from tracing
 * programs; in hashes by pid elsewhere.
 * The map type is probed. Its safety is a version check, the one left:
 * tracing programs may use task storage since 5.13, but its recursion
 * guard's per-CPU counter was not updated IRQ-safely before "bpf: Use
 * this_cpu_{inc|dec|inc_return} for bpf_task_storage_busy" (6.1,
 * backported to 6.0.3 and other stable lines): a fix inside a function,
 * which neither a probe nor the kernel's BTF can see. 6.0 is the line
 * chosen when task storage was adopted; the kernel matrix has none near it
 * (5.10: no task storage for tracing; 6.1 and later).
 */
static bool use_task_storage(const struct kernel_plan *p, unsigned int load)
{
	for (unsigned int ev = 0; ev <= ABICAP_EV_SCHED_WAKING; ev++)
		if ((load & (1u << ev)) && !p->tp_btf[ev])
			return false;
	if (kernel_older_than(6, 0))
		return false;
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1;
}

/*
 * Records between wakeups, per event and CPU, less one: a power of two such
 * that every event of every CPU writing to the ring (writers: all of them
 * for the shared one, 1 for a CPU's own) at that count fills an eighth of it.
 */
static __u64 wakeup_mask(size_t rb_bytes, int writers)
{
	size_t per = rb_bytes / 8 / ((writers > 0 ? writers : 1) * ABICAP_EV_COUNT *
				     sizeof(struct abicap_switch));
	__u64 n = 1;

	while (n * 2 <= per && n < 4096)
		n *= 2;
	return n - 1;
}

#define TASK_FILTERED(o) ((o)->npids || (o)->ntids)

/*
 * Aggregation from the kernel's own accounting (bpf/abicap.bpf.c,
 * agg_switch_kernel) where every piece of it holds: the tp_btf
 * sched_switch program with task storage, the contract's sched_info and
 * run queue items, and a scheduler that keeps sched_info (probed). Asked
 * for (--accounting kernel) and missing: exit 1 naming the piece.
 */
static int kernel_accounting(struct capture *c, const struct capture_opts *o,
			     char *err, size_t errlen)
{
	const char *why = NULL;

	if (!c->plan.tp_btf[ABICAP_EV_SCHED_SWITCH])
		why = "the tp_btf sched_switch program is not used (--attach "
		      "raw_tp, or the kernel has no BTF for it)";
	else if (!c->tstore)
		why = "task storage is not usable from tracing programs here "
		      "(Linux 6.0+)";
	else if (!c->plan.kernel_agg_ok)
		why = "the contract's items task_struct.sched_info.run_delay, "
		      ".last_queued, .pcount, .se.sum_exec_runtime, "
		      ".se.cfs_rq, "
		      "cfs_rq.rq or rq.clock do not all hold";
	else if (feature_sched_info() != 1)
		why = "the scheduler keeps no sched_info (CONFIG_SCHED_INFO; "
		      "before 5.14 also schedstats or delay accounting)";
	c->kernel_agg = !why;
	if (why && o->agg_source == AGG_KERNEL) {
		snprintf(err, errlen, "--accounting kernel: %s; use "
			 "--accounting events", why);
		return EXIT_KERNEL;
	}
	return 0;
}

/* The slabs' array: each CPU's slab in chunks where used, else one page. */
static void configure_slabs(struct capture *c)
{
	struct abicap_bpf__rodata *ro = c->skel->rodata;
	size_t chunk = c->slab ? 1ul << c->slab_shift :
				 (size_t)sysconf(_SC_PAGESIZE);
	__u32 log = 0;

	while (c->slab && ((size_t)1 << log) * chunk < c->ring_bytes)
		log++;
	ro->use_slab = c->slab;
	ro->slab_chunk_shift = c->slab ? c->slab_shift : 12;
	ro->slab_chunks_log = log;
	bpf_map__set_value_size(c->skel->maps.slabs, chunk);
	bpf_map__set_max_entries(c->skel->maps.slabs,
				 c->slab ? (__u32)c->ncpus << log : 1);
	if (feature_mmapable_array() != 1)
		bpf_map__set_map_flags(c->skel->maps.slabs, 0);
}

static void configure(struct capture *c, const struct capture_opts *o,
		      size_t rb_bytes)
{
	struct abicap_bpf__rodata *ro = c->skel->rodata;

	ro->events_mask = o->events;
	ro->filter_pids = o->npids > 0;
	ro->filter_tids = o->ntids > 0;
	ro->filter_comm = o->comm[0] != 0;
	memcpy((char *)ro->comm_filter, o->comm, ABICAP_COMM_LEN);
	ro->filter_cpus = o->cpus != NULL;
	for (int i = 0; o->cpus && i < o->ncpus && i < ABICAP_MAX_CPUS; i++)
		ro->cpu_allowed[i] = o->cpus[i] ? 1 : 0;
	ro->wakeup_mask = c->transport == TRANSPORT_PERCPU ?
			  wakeup_mask(c->ring_bytes, 1) :
			  wakeup_mask(rb_bytes, c->ncpus);
	ro->use_perfbuf = c->transport == TRANSPORT_PERFBUF;
	ro->use_percpu_rb = c->transport == TRANSPORT_PERCPU;
	configure_slabs(c);
	ro->follow_forks = o->follow_forks;
	ro->filter_cgroup = o->cgroup_id != 0;
	ro->cgroup_filter_id = o->cgroup_id;
	ro->cgroup_filter_level = o->cgroup_level;
	ro->aggregate = o->aggregate;
	ro->stream = !o->aggregate;
	ro->agg_kernel = c->kernel_agg;
	/* serve's slots where user space can map their owners (5.5+) */
	ro->cg_slots_n = o->aggregate && feature_mmapable_array() == 1 ?
			 cg_slots_for(o->max_cgroups) : 0;
	if (!ro->cg_slots_n)
		bpf_map__set_map_flags(c->skel->maps.cg_owner, 0);
	/* tasks born from here on: every wait of theirs is in the statistics */
	ro->agg_since_ns = mono_ns();
	ro->pc_where = c->pc.where;
	ro->pc_off = c->pc.off;
	/* the cgroup reads, where the contract's cgroup items hold */
	ro->cgroup_ids = c->plan.cgroup_ok;
	ro->cgroup_walk = c->plan.cgroup_filter_ok;
	if (ro->pc_where == ABICAP_PC_NONE && TASK_FILTERED(o) && !o->quiet)
		ab_warn("this kernel's BTF does not say where preempt_count is: "
			"wakeups are kept by the task filter on the wakee's "
			"account only, never on the waker's");
	/* unused but for the shared ring buffer, yet created: keep it small */
	bpf_map__set_max_entries(c->skel->maps.events,
				 c->transport != TRANSPORT_RINGBUF ||
				 o->aggregate ? (size_t)sysconf(_SC_PAGESIZE) :
				 rb_bytes);
	/* the per-CPU rings' array: a slot per possible CPU where used */
	bpf_map__set_max_entries(c->skel->maps.events_cpu,
				 c->transport == TRANSPORT_PERCPU &&
				 !o->aggregate ? c->ncpus : 1);
	/* the aggregation maps take room only where they are used */
	bpf_map__set_max_entries(c->skel->maps.cg_stats, !o->aggregate ? 1 :
				 o->max_cgroups ? o->max_cgroups :
						  ABICAP_MAX_CGROUPS_DEFAULT);
	bpf_map__set_max_entries(c->skel->maps.cg_owner, o->aggregate ?
				 cg_slots_for(o->max_cgroups) : 1);
	bpf_map__set_max_entries(c->skel->maps.cg_slots, o->aggregate ?
				 cg_slots_for(o->max_cgroups) : 1);
	if (!o->aggregate) {
		bpf_map__set_max_entries(c->skel->maps.queued_at, 1);
		bpf_map__set_max_entries(c->skel->maps.cpu_freq, 1);
		bpf_map__set_max_entries(c->skel->maps.idle_stats, 1);
	}
}

static int fill_pid_filter(struct capture *c, const struct capture_opts *o)
{
	int fd = bpf_map__fd(c->skel->maps.pid_filter);
	__u64 any = 0; /* the pid the user gave, whatever process it is */
	__u8 one = 1;

	for (int i = 0; i < o->npids; i++)
		if (bpf_map_update_elem(fd, &o->pids[i], &any, BPF_ANY))
			return -errno;
	fd = bpf_map__fd(c->skel->maps.tid_filter);
	for (int i = 0; i < o->ntids; i++)
		if (bpf_map_update_elem(fd, &o->tids[i], &one, BPF_ANY))
			return -errno;
	return 0;
}

static int attach_all(struct capture *c, char *err, size_t errlen)
{
	/* sched_waking first: sched_wakeup finds its wakers from the start */
	static const unsigned int order[ABICAP_EV_COUNT] = {
		ABICAP_EV_SCHED_WAKING, ABICAP_EV_SCHED_WAKEUP,
		ABICAP_EV_SCHED_SWITCH, ABICAP_EV_SCHED_WAKEUP_NEW,
		ABICAP_EV_CPU_IDLE, ABICAP_EV_CPU_FREQUENCY,
	};

	for (unsigned int i = 0; i < ABICAP_EV_COUNT; i++) {
		unsigned int ev = order[i];

		if (!c->prog[ev])
			continue;
		c->link[ev] = bpf_program__attach(c->prog[ev]);
		if (!c->link[ev]) {
			int e = errno;

			snprintf(err, errlen, "cannot attach to tracepoint %s:%s "
				 "(%s): %s%s", event_group(ev), event_name(ev),
				 c->plan.tp_btf[ev] ? "tp_btf" : "raw_tp", strerror(e),
				 e == ENOENT ? "; the kernel does not have it: "
				 "leave it out with --events" :
				 " (run with -v for libbpf's log)");
			return e == ENOENT ? EXIT_KERNEL : EXIT_RUNTIME;
		}
	}
	return EXIT_OK;
}

/* Print a degraded item as one warning line. */
static void warn_degraded(const struct verdict *v)
{
	ab_warn("contract: %s %s degraded: %s", v->scope, v->item, v->detail);
}

/*
 * Hold the contract against the running kernel for the events to load:
 * refuse on a broken item, warn on degraded ones, and choose the program
 * variants from the verdicts.
 */
static int check_kernel(const struct capture_opts *o, unsigned int load,
			struct kernel_plan *plan, struct check_result *kept,
			char *err, size_t errlen)
{
	struct contract *own = NULL;
	const struct contract *con = o->contract;
	struct check_result res;
	const struct verdict *first = NULL;
	struct btf *btf;
	const void *obj;
	size_t len;
	int nbroken = 0, ret;

	if (!con) {
		con = own = contract_default(err, errlen);
		if (!con)
			return EXIT_RUNTIME;
	}
	/* fail closed: the contract declares all the programs depend on */
	obj = capture_elf_bytes(&len);
	ret = contract_gate(con, obj, len, load |
			    (o->follow_forks ? DEP_FORK : 0) |
			    (o->npids ? DEP_FREE : 0) |
			    wakelist_needs(con, o, load), err, errlen);
	if (ret) {
		contract_free(own);
		return ret;
	}
	btf = o->btf_custom_path ? btf__parse(o->btf_custom_path, NULL) :
				   btf__load_vmlinux_btf();
	if (!btf && o->btf_custom_path) {
		snprintf(err, errlen, "cannot read the BTF %s: %s",
			 o->btf_custom_path, strerror(errno));
		contract_free(own);
		return EXIT_USAGE;
	}
	if (!btf) {
		snprintf(err, errlen, "this kernel (%s) has no BTF "
			 "(/sys/kernel/btf/vmlinux): abicap needs a kernel built "
			 "with CONFIG_DEBUG_INFO_BTF=y", kernel_release());
		contract_free(own);
		return EXIT_KERNEL;
	}
	ret = contract_check(con, btf, &res);
	btf__free(btf);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		contract_free(own);
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < res.n; i++) {
		const struct verdict *v = &res.v[i];

		if (!(v->events & load))
			continue;
		if (v->status == V_BROKEN && !nbroken++)
			first = v;
		else if (v->status == V_DEGRADED && !o->quiet)
			warn_degraded(v);
	}
	if (nbroken) {
		snprintf(err, errlen, "this kernel (%s) breaks the ABI contract "
			 "'%s', nothing attached: %s %s: expected %s, kernel has "
			 "%s (%s)%s%s", kernel_release(), con->name, first->scope,
			 first->item, first->expected, first->actual,
			 first->detail, first->kind == VK_TRACEPOINT ?
			 "; leave it out with --events" : "", nbroken > 1 ?
			 "; more broken items: run abicap check" : "");
		ret = EXIT_KERNEL;
	} else {
		ret = plan_from_check(&res, load, o->mode, plan, err, errlen);
	}
	if (!ret && (o->aggregate || o->cgroup_id) && !plan->cgroup_ok) {
		snprintf(err, errlen, "%s needs cgroup ids, and the contract's "
			 "cgroup items do not hold on this kernel (run abicap "
			 "check)", o->aggregate ? "abicap serve" : "--cgroup");
		ret = EXIT_KERNEL;
	} else if (!ret && o->cgroup_id && !plan->cgroup_filter_ok) {
		snprintf(err, errlen, "--cgroup needs cgroup.level and "
			 "cgroup.self.parent, which do not hold on this kernel "
			 "(run abicap check)");
		ret = EXIT_KERNEL;
	}
	if (!ret && o->npids && !plan->free_ok) {
		snprintf(err, errlen, "cannot filter by process: the contract's "
			 "sched_process_free items do not hold on this kernel, and "
			 "without them a reused pid would be taken for the process "
			 "(run abicap check)");
		ret = EXIT_KERNEL;
	}
	if (!ret && o->follow_forks && !plan->fork_ok) {
		snprintf(err, errlen, "cannot follow the command's children: the "
			 "contract's sched_process_fork items do not hold on this "
			 "kernel (run abicap check)");
		ret = EXIT_KERNEL;
	}
	*kept = res;
	contract_free(own);
	return ret;
}

/* A map the kernel would not create: what it was, and the fix. */
static int map_error(const struct capture *c, const struct bpf_map *m, int e,
		     char *err, size_t errlen)
{
	unsigned int n = bpf_map__max_entries(m);
	bool mib = n >= (1u << 20);
	char size[64], what[160];

	if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF)
		snprintf(size, sizeof(size), "a %u %s ring buffer",
			 n >> (mib ? 20 : 10), mib ? "MiB" : "KiB");
	else
		snprintf(size, sizeof(size), "%u entries of %u bytes", n,
			 bpf_map__value_size(m));
	snprintf(what, sizeof(what), "the kernel would not create the BPF "
		 "map '%s'", bpf_map__name(m));
	if (e == EPERM)
		return privilege_denied(what, err, errlen);
	snprintf(err, errlen, "%s (%s): %s%s", what, size, strerror(e),
		 m == c->skel->maps.events || m == c->skel->maps.events_pb ?
		 "; give a smaller --buffer-size" : "");
	return EXIT_RUNTIME;
}

/*
 * What failed when the object did not load: the fd limit, a map the
 * kernel would not create (the ring buffer is the one that can be too
 * big), or a program (the verifier says why: libbpf's log, bpflog.h).
 * The exit code, and in err what was refused and the fix.
 */
static int load_error(const struct capture *c, int e, char *err, size_t errlen)
{
	const struct bpflog_failure *f = bpflog_failure();
	struct bpf_map *m;
	struct rlimit rl;

	if (e == EMFILE || e == ENFILE) {
		if (e == EMFILE && !getrlimit(RLIMIT_NOFILE, &rl))
			snprintf(err, errlen, "out of file descriptors loading the "
				 "BPF object (the limit, ulimit -n, is %llu): raise "
				 "it, e.g. ulimit -n 1024",
				 (unsigned long long)rl.rlim_cur);
		else
			snprintf(err, errlen, "out of file descriptors loading the "
				 "BPF object (the system's limit, fs.file-max): "
				 "close some, or raise it");
		return EXIT_RUNTIME;
	}
	bpf_object__for_each_map(m, c->skel->obj)
		if (f->map[0] && !strcmp(bpf_map__name(m), f->map))
			return map_error(c, m, e, err, errlen);
	if (e == EPERM)
		return privilege_denied("the kernel refused to load the BPF "
					"programs", err, errlen);
	/* 6.13+ with the JIT off: "program requires BPF JIT compiler ..." */
	if (strstr(f->why, "requires BPF JIT") && feature_jit_enabled() == 0) {
		snprintf(err, errlen, "the BPF JIT is off (sysctl "
			 "net.core.bpf_jit_enable is 0) and this kernel runs "
			 "abicap's program '%s' only compiled: turn it on with "
			 "'sysctl net.core.bpf_jit_enable=1'", f->prog);
		return EXIT_KERNEL;
	}
	if (f->prog[0])
		snprintf(err, errlen, "the kernel refused to load the BPF "
			 "program '%s': %s: %s (run with -v for the verifier's "
			 "whole log)", f->prog, strerror(e),
			 f->why[0] ? f->why : "the verifier gave no reason");
	else
		snprintf(err, errlen, "the kernel refused to load the BPF "
			 "programs: %s (run with -v for the verifier's log)",
			 strerror(e));
	return EXIT_RUNTIME;
}

/* Turn on each event's chosen program (and the fork and free ones asked for). */
static int choose_programs(struct capture *c, const struct capture_opts *o,
			   unsigned int load, char *err, size_t errlen)
{
	struct bpf_program *table[ABICAP_EV_COUNT][VAR_COUNT];

	variant_table(c->skel, table);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		if (!(load & (1u << ev)))
			continue;
		c->prog[ev] = table[ev][variant_of(&c->plan, c->tstore,
						   c->pc.plain, ev)];
		if (!c->prog[ev]) {
			snprintf(err, errlen, "internal error: no %s program "
				 "for %s in the BPF object", c->plan.tp_btf[ev] ?
				 "tp_btf" : "raw_tp", event_name(ev));
			return EXIT_RUNTIME;
		}
		bpf_program__set_autoload(c->prog[ev], true);
	}
	if (o->follow_forks) {
		c->fork_prog = c->plan.fork_tp_btf ?
			c->skel->progs.tp_btf_sched_process_fork :
			c->skel->progs.raw_tp_sched_process_fork;
		bpf_program__set_autoload(c->fork_prog, true);
	}
	if (o->npids) {
		c->free_prog = c->plan.free_tp_btf ?
			c->skel->progs.tp_btf_sched_process_free :
			c->skel->progs.raw_tp_sched_process_free;
		bpf_program__set_autoload(c->free_prog, true);
	}
	return 0;
}

struct capture *capture_open(const struct capture_opts *o, capture_cb cb,
			     void *ctx, int *exit_code, char *err,
			     size_t errlen)
{
	struct capture *c;
	unsigned int load;
	size_t budget, rb_bytes;
	int ret;

	set_libbpf_verbose(o->verbose);
	*exit_code = privilege_check(err, errlen);
	if (*exit_code)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		*exit_code = EXIT_RUNTIME;
		return NULL;
	}
	c->cb = cb;
	c->ctx = ctx;
	c->epfd = c->notify_fd = c->stop_fd = -1;
	c->ncpus = libbpf_num_possible_cpus();
	budget = capture_budget(o->ringbuf_bytes, c->ncpus);
	rb_bytes = rings_size(budget);
	/* sched_waking's program also feeds sched_wakeup's waker (records only) */
	load = o->events;
	if ((load & (1u << ABICAP_EV_SCHED_WAKEUP)) && !o->aggregate)
		load |= 1u << ABICAP_EV_SCHED_WAKING;
	ret = check_kernel(o, load, &c->plan, &c->check, err, errlen);
	if (ret)
		goto fail;
	wakelist_choose(c, o, &load);
	if (o->legacy_switch)
		c->plan.switch_prev_state = false;
	if (o->transport != TRANSPORT_AUTO)
		c->plan.perfbuf = o->transport == TRANSPORT_PERFBUF;
	ret = rings_plan(c, o, budget, err, errlen);
	if (ret)
		goto fail;

	ret = EXIT_RUNTIME;
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo,
			    .btf_custom_path = o->btf_custom_path);

		c->skel = abicap_bpf__open_opts(&oo);
	}
	if (!c->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s",
			 strerror(errno));
		goto fail;
	}
	/* every program is off by default (SEC("?...")): turn on the chosen */
	c->tstore = use_task_storage(&c->plan, load);
	if (c->tstore) {
		/* only where task storage cannot be created */
		bpf_map__set_max_entries(c->skel->maps.wakers, 1024);
		bpf_map__set_max_entries(c->skel->maps.queued_at, 1);
	} else {
		bpf_map__set_autocreate(c->skel->maps.task_notes, false);
	}
	/*
	 * serve from the kernel's own accounting where it can: then the
	 * scheduler's sched_info holds every wait, and no wakeup program runs
	 */
	if (o->aggregate && o->agg_source != AGG_EVENTS) {
		ret = kernel_accounting(c, o, err, errlen);
		if (ret)
			goto fail;
	}
	if (c->kernel_agg)
		load &= ~((1u << ABICAP_EV_SCHED_WAKEUP) |
			  (1u << ABICAP_EV_SCHED_WAKEUP_NEW));
	pcount_plan(&c->pc, c->plan.rq_ok, c->tstore);
	ret = choose_programs(c, o, load, err, errlen);
	if (ret)
		goto fail;
	configure(c, o, rb_bytes);
	wakelist_configure(c);
	bpflog_reset();
	if (abicap_bpf__load(c->skel)) {
		ret = load_error(c, errno, err, errlen);
		goto fail;
	}
	if (feature_cpu_id_check(-1, err, errlen)) {
		ret = EXIT_KERNEL;
		goto fail;
	}
	if (fill_pid_filter(c, o)) {
		snprintf(err, errlen, "cannot set the pid filter: %s",
			 strerror(errno));
		goto fail;
	}
	ret = rings_open(c, o, rb_bytes, err, errlen);
	if (ret)
		goto fail;
	c->start_ns = mono_ns();
	if (c->fork_prog) {
		/* before the others: no child may fork unseen once events flow */
		c->fork_link = bpf_program__attach(c->fork_prog);
		if (!c->fork_link) {
			snprintf(err, errlen, "cannot attach to sched:sched_process_fork: "
				 "%s", strerror(errno));
			ret = EXIT_RUNTIME;
			goto fail;
		}
	}
	if (c->free_prog) {
		c->free_link = bpf_program__attach(c->free_prog);
		if (!c->free_link) {
			snprintf(err, errlen, "cannot attach to sched:sched_process_free: "
				 "%s", strerror(errno));
			ret = EXIT_RUNTIME;
			goto fail;
		}
	}
	ret = wakelist_attach_marks(c, err, errlen);
	if (!ret)
		ret = attach_all(c, err, errlen);
	if (!ret)
		ret = wakelist_attach_queue(c, err, errlen);
	if (!ret && o->drop_privileges)
		ret = privdrop_after_attach(err, errlen);
	/*
	 * --drain-threads N: every group its thread's from the start, once
	 * the capabilities are dropped (they are per thread: a thread made
	 * before would keep them all). Records wait in the rings till then.
	 */
	for (int g = 0; !ret && c->grp && g < c->ngroups &&
	     o->drain_threads > 0; g++) {
		int e = rings_hand_over(c, g);

		if (e) {
			snprintf(err, errlen, "cannot start drain thread %d: %s",
				 g + 1, strerror(-e));
			ret = EXIT_RUNTIME;
		}
	}
	if (ret)
		goto fail;
	*exit_code = EXIT_OK;
	return c;
fail:
	/* a step that succeeded left ret 0: the failure after it is runtime's */
	*exit_code = ret ? ret : EXIT_RUNTIME;
	capture_close(c);
	return NULL;
}

int capture_stop(struct capture *c)
{
	wakelist_detach(c);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		bpf_link__destroy(c->link[ev]);
		c->link[ev] = NULL;
	}
	bpf_link__destroy(c->fork_link);
	c->fork_link = NULL;
	bpf_link__destroy(c->free_link);
	c->free_link = NULL;
	if (!c->end_ns)
		c->end_ns = mono_ns();
	return rings_stop(c);
}

void capture_close(struct capture *c)
{
	if (!c)
		return;
	wakelist_detach(c);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		bpf_link__destroy(c->link[ev]);
	bpf_link__destroy(c->fork_link);
	bpf_link__destroy(c->free_link);
	check_result_free(&c->check);
	rings_free(c);
	abicap_bpf__destroy(c->skel);
	free(c);
}

uint64_t capture_start_ns(const struct capture *c)
{
	return c->start_ns;
}

uint64_t capture_end_ns(const struct capture *c)
{
	return c->end_ns;
}

double capture_secs(const struct capture *c)
{
	return ((c->end_ns ? c->end_ns : mono_ns()) - c->start_ns) / 1e9;
}

int capture_ncpus(const struct capture *c)
{
	return c->ncpus;
}

int capture_counters(struct capture *c, int cpu, struct abicap_counter *out)
{
	int fd = bpf_map__fd(c->skel->maps.counters);
	struct abicap_counter *v = calloc(c->ncpus, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (__u32 ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		out[ev].seen = out[ev].dropped = 0;
		if (bpf_map_lookup_elem(fd, &ev, v)) {
			int e = -errno;

			free(v);
			return e;
		}
		for (int i = 0; i < c->ncpus; i++) {
			if (cpu >= 0 && i != cpu)
				continue;
			out[ev].seen += v[i].seen;
			out[ev].dropped += v[i].dropped;
		}
	}
	free(v);
	return 0;
}

int capture_aux(struct capture *c, uint64_t out[ABICAP_AUX_COUNT])
{
	int fd = bpf_map__fd(c->skel->maps.aux_counters);
	uint64_t *v = calloc(c->ncpus, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (__u32 i = 0; i < ABICAP_AUX_COUNT; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, v)) {
			int e = -errno;

			free(v);
			return e;
		}
		for (int cpu = 0; cpu < c->ncpus; cpu++)
			out[i] += v[cpu];
	}
	free(v);
	return 0;
}

/*
 * The program's recursion_misses (0 for none); -errno if it cannot be read,
 * *known false if the kernel has no such count.
 */
static int prog_misses(struct bpf_program *p, uint64_t *out, bool *known)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	*out = 0;
	if (!p || bpf_program__fd(p) < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return -errno;
	/* a kernel older than the field (5.12) gives a shorter info */
	if (len >= offsetof(struct bpf_prog_info, recursion_misses) +
		   sizeof(info.recursion_misses))
		*out = info.recursion_misses;
	else
		*known = false;
	return 0;
}

/* The other programs' (enum other_tp), where attached. */
static int other_misses(struct capture *c, struct capture_misses *out)
{
	struct bpf_program *p[OTHER_TP_COUNT] = {
		[OTHER_TP_FORK] = c->fork_prog,
		[OTHER_TP_FREE] = c->free_prog,
	};
	int ret = 0;

	_Static_assert(OTHER_TP_CSD_QUEUE + WL_PROGS == OTHER_TP_COUNT &&
		       OTHER_TP_CSD_ENTRY - OTHER_TP_CSD_QUEUE == WL_ENTRY &&
		       OTHER_TP_CSD_EXIT - OTHER_TP_CSD_QUEUE == WL_EXIT,
		       "the wakelists' programs in enum other_tp's order");
	wakelist_programs(c, p + OTHER_TP_CSD_QUEUE);
	for (int i = 0; i < OTHER_TP_COUNT; i++) {
		out->other_on[i] = p[i] != NULL;
		ret = ret ?: prog_misses(p[i], &out->other[i], &out->known);
	}
	return ret;
}

int capture_misses(struct capture *c, struct capture_misses *out)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->known = true;
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		out->on[ev] = c->prog[ev] != NULL;
		ret = ret ?: prog_misses(c->prog[ev], &out->ev[ev], &out->known);
		out->total += out->ev[ev];
	}
	ret = ret ?: other_misses(c, out);
	for (int i = 0; i < OTHER_TP_COUNT; i++)
		out->total += out->other[i];
	return ret;
}

uint64_t capture_received(const struct capture *c, unsigned int ev)
{
	uint64_t n;

	if (ev >= ABICAP_EV_COUNT)
		return 0;
	n = c->received[ev];
	for (int g = 0; g < c->ngroups && c->grp; g++)
		n += __atomic_load_n(&c->grp[g].received[ev], __ATOMIC_RELAXED);
	return n;
}

uint64_t capture_dropped_total(struct capture *c)
{
	struct abicap_counter sum[ABICAP_EV_COUNT];
	uint64_t d = 0;

	/* the .bss is mmap'd where the kernel can (5.5+): no system call */
	if (c->skel->bss) {
		for (int i = 0; i < c->ncpus && i < ABICAP_MAX_CPUS; i++)
			d += __atomic_load_n(&c->skel->bss->dropped_cpu[i].n,
					     __ATOMIC_RELAXED);
		return d;
	}
	if (capture_counters(c, -1, sum))
		return 0;
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		d += sum[ev].dropped;
	return d;
}

int capture_dropped_per_cpu(struct capture *c, uint64_t *out, int n)
{
	struct abicap_counter per[ABICAP_EV_COUNT];
	int k = c->ncpus < n ? c->ncpus : n;

	/* the .bss where it is mmap'd (5.5+): no system call */
	if (c->skel->bss && k > ABICAP_MAX_CPUS)
		k = ABICAP_MAX_CPUS;
	for (int i = 0; i < k; i++) {
		if (c->skel->bss) {
			out[i] = __atomic_load_n(&c->skel->bss->dropped_cpu[i].n,
						 __ATOMIC_RELAXED);
			continue;
		}
		if (capture_counters(c, i, per))
			return -1;
		out[i] = 0;
		for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
			out[i] += per[ev].dropped;
	}
	return k;
}

uint64_t capture_bad_records(const struct capture *c)
{
	uint64_t n = c->bad;

	for (int g = 0; g < c->ngroups && c->grp; g++)
		n += __atomic_load_n(&c->grp[g].bad, __ATOMIC_RELAXED);
	return n;
}

int capture_drain_threads(const struct capture *c)
{
	return c->nthreads;
}

int capture_drain_busy(const struct capture *c, int i)
{
	return c->drain_want == DRAIN_AUTO && i >= 0 && i < c->nthreads ?
	       c->busy_pct[i] : -1;
}

int capture_drain_max(const struct capture *c)
{
	return c->drain_want == DRAIN_AUTO ? c->drain_max : 0;
}

const char *capture_drain_mode(const struct capture *c)
{
	if (!c->grp)
		return "none";
	return c->drain_want == DRAIN_AUTO ? "auto" : "fixed";
}

bool capture_kernel_accounting(const struct capture *c)
{
	return c->kernel_agg;
}

const char *capture_variant(const struct capture *c, unsigned int ev)
{
	if (ev >= ABICAP_EV_COUNT || !c->prog[ev])
		return NULL;
	return c->plan.tp_btf[ev] ? "tp_btf" : "raw_tp";
}

const char *capture_program_name(const struct capture *c, unsigned int ev)
{
	if (ev >= ABICAP_EV_COUNT || !c->prog[ev])
		return NULL;
	return bpf_program__name(c->prog[ev]);
}

const struct kernel_plan *capture_plan(const struct capture *c)
{
	return &c->plan;
}

const struct check_result *capture_check(const struct capture *c)
{
	return &c->check;
}

const void *capture_elf_bytes(size_t *len)
{
	return abicap_bpf__elf_bytes(len);
}

struct bpf_object *capture_object(const struct capture *c)
{
	return c->skel->obj;
}

size_t capture_buffer_bytes(const struct capture *c)
{
	return c->ring_bytes;
}

size_t capture_nest_bytes(const struct capture *c)
{
	return c->slab ? c->nest_bytes : 0;
}

uint64_t capture_late(const struct capture *c)
{
	return c->merge ? recmerge_late(c->merge) : 0;
}

int capture_test_run(struct capture *c, unsigned int ev, const uint64_t *args,
		     int nargs)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = nargs * sizeof(*args));

	if (ev >= ABICAP_EV_COUNT || !c->prog[ev])
		return -ENOENT;
	if (bpf_prog_test_run_opts(bpf_program__fd(c->prog[ev]), &opts))
		return -errno;
	return 0;
}
