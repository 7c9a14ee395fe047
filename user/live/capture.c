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
#include "abicap.h" /* before the skeleton: its .bss type */
#include "abicap.skel.h"
#include "live/capture.h"
#include "live/cgslots.h"
#include "live/contract_gate.h"
#include "live/drain.h"
#include "live/features.h"
#include "live/merge.h"
#include "abi/btf_util.h"
#include "abi/checker.h"
#include "lib/bpflog.h"
#include "abi/contract.h"
#include "event/events.h"
#include "live/privdrop.h"
#include "live/privilege.h"
#include "lib/util.h"

/*
 * A group of per-CPU ring buffers drained together (one struct ring_buffer):
 * by the main thread, or by a drain thread of its own (drain.h).
 */
struct ring_group {
	struct capture *c;
	struct ring_buffer *rb;
	int first, n; /* its rings: CPUs first .. first + n - 1 */
	/*
	 * A drain thread owns it: set before the thread starts, cleared once
	 * it is joined. Its records then go through q.
	 */
	bool threaded;
	struct drainq *q;
	struct drain_thread *th;
	/* written by the group's owner only (relaxed atomics: read anywhere) */
	uint64_t received[ABICAP_EV_COUNT];
	uint64_t bad;
};

/* One CPU's ring buffer, for its records' place in the merge. */
struct ring_src {
	struct capture *c;
	struct ring_group *g;
	int cpu;
};

/* the main thread's epoll: a group's data.u32 is its index; the threads': */
#define EP_NOTIFY UINT32_MAX

struct capture {
	struct abicap_bpf *skel;
	enum transport transport; /* RINGBUF, PERCPU or PERFBUF */
	struct ring_buffer *rb;
	struct perf_buffer *pb;
	int *ring_fd; /* per-CPU ring buffers (ncpus), -1: none */
	struct ring_src *ring_src;
	/* per-CPU ring buffers: their groups, and the drain threads (drain.h) */
	struct ring_group *grp;
	int ngroups;
	int epfd; /* the main thread's epoll: its groups and notify_fd */
	int notify_fd; /* eventfd: a drain thread queued records */
	int stop_fd; /* eventfd: the drain threads end */
	int drain_want; /* --drain-threads: DRAIN_AUTO, 0 or N */
	int drain_max; /* auto: the most threads it may add */
	int nthreads; /* drain threads started */
	int busy_pct[DRAIN_AUTO_MAX]; /* auto: the main thread's busy % at each start */
	uint64_t win_wall, win_cpu; /* auto: the window's start, wall and CPU time */
	/* auto: each ring's consumer and producer positions (read-only maps) */
	const unsigned long **ring_cons, **ring_prod;
	int win_fill; /* auto: the fullest a ring was at a drain, %, this window */
	size_t ring_bytes; /* each ring buffer's size (perf buffer: each CPU's) */
	/* per-CPU streams merged in time order (per-CPU rings, perf buffers) */
	struct recmerge *merge;
	uint64_t perf_lost; /* PERF_RECORD_LOST: already counted as dropped */
	struct bpf_program *prog[ABICAP_EV_COUNT]; /* chosen variant */
	struct bpf_link *link[ABICAP_EV_COUNT];
	struct bpf_program *fork_prog; /* following children */
	struct bpf_link *fork_link;
	struct bpf_program *free_prog; /* forgetting freed processes (-p) */
	struct bpf_link *free_link;
	struct check_result check; /* the contract's verdicts */
	struct kernel_plan plan;
	bool tstore; /* the waker in task storage (the *_ts programs) */
	bool kernel_agg; /* serve from sched_info and the run queue's clocks */
	capture_cb cb;
	void *ctx;
	int ncpus;
	uint64_t received[ABICAP_EV_COUNT];
	uint64_t bad;
	uint64_t start_ns; /* the first attach: events flow from here */
	uint64_t end_ns; /* the last detach (capture_stop) */
};

/* A record from CPU cpu's buffer (cpu < 0: the shared ring buffer). */
static int take_record(struct capture *c, int cpu, const void *data,
		       size_t size)
{
	union abicap_rec r;

	if (record_decode(data, size, &r) != REC_OK) {
		c->bad++;
		return 0;
	}
	c->received[r.hdr.type]++;
	if (c->merge)
		return recmerge_push(c->merge, cpu >= 0 && cpu < c->ncpus ?
				     cpu : 0, &r);
	return c->cb ? c->cb(c->ctx, &r) : 0;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	return take_record(ctx, -1, data, size);
}

/* one more in a counter only its group's owner writes */
static void owner_inc(uint64_t *n)
{
	__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/* A per-CPU ring's record, in its group's owner (a drain thread or main). */
static int on_sample_cpu(void *ctx, void *data, size_t size)
{
	struct ring_src *src = ctx;
	struct ring_group *g = src->g;
	union abicap_rec r;

	if (record_decode(data, size, &r) != REC_OK) {
		owner_inc(&g->bad);
		return 0;
	}
	owner_inc(&g->received[r.hdr.type]);
	if (g->threaded) {
		drainq_push(g->q, src->cpu - g->first, &r);
		return 0;
	}
	return recmerge_push(g->c->merge, src->cpu, &r);
}

/* A record of a capture closed unstopped: nowhere to go. */
static int from_queue_drop(void *ctx, int src, const union abicap_rec *r)
{
	(void)ctx;
	(void)src;
	(void)r;
	return 0;
}

/* A record a drain thread queued, into the merge (the main thread). */
static int from_queue(void *ctx, int src, const union abicap_rec *r)
{
	struct ring_group *g = ctx;

	return recmerge_push(g->c->merge, g->first + src, r);
}

/* A perf buffer record: a raw sample (our record) or a count of lost ones. */
static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu,
					     struct perf_event_header *e)
{
	struct capture *c = ctx;

	if (e->type == PERF_RECORD_SAMPLE) {
		struct {
			struct perf_event_header h;
			__u32 size;
			char data[];
		} *s = (void *)e;

		take_record(c, cpu, s->data, s->size);
	} else if (e->type == PERF_RECORD_LOST) {
		struct {
			struct perf_event_header h;
			__u64 id;
			__u64 lost;
		} *l = (void *)e;

		c->perf_lost += l->lost;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

/*
 * Per-CPU perf buffers of `pages` pages each. No wakeup per record (libbpf's
 * default): wake the consumer when a buffer is a quarter full; it also
 * drains on its timer.
 */
static struct perf_buffer *open_perfbuf(struct capture *c, size_t pages)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.watermark = 1,
		.wakeup_watermark = pages * sysconf(_SC_PAGESIZE) / 4,
	};

	return perf_buffer__new_raw(bpf_map__fd(c->skel->maps.events_pb), pages,
				    &attr, on_perf_event, c, NULL);
}

size_t capture_budget(size_t want, int ncpus)
{
	size_t dflt = (size_t)RINGBUF_DEFAULT_MB << 20;

	if (want)
		return want;
	if (ncpus > RINGBUF_DEFAULT_MB)
		dflt = (size_t)ncpus << 20;
	return dflt;
}

/* The shared ring buffer: the budget rounded up to a power of two. */
static size_t ringbuf_size(size_t want)
{
	size_t sz = (size_t)sysconf(_SC_PAGESIZE);

	while (sz < want)
		sz <<= 1;
	return sz;
}

int capture_ring_share(size_t budget, int ncpus, size_t page, size_t *each,
		       char *err, size_t errlen)
{
	size_t share = budget / (size_t)(ncpus > 0 ? ncpus : 1), sz = page;

	*each = 0;
	if (share < page) {
		snprintf(err, errlen, "--buffer-size: %zu KiB cannot give each "
			 "of the %d CPUs a ring buffer of a page (%zu KiB): give "
			 "at least %zu MB, or --transport ringbuf (one shared)",
			 budget >> 10, ncpus, page >> 10,
			 ((size_t)ncpus * page + (1 << 20) - 1) >> 20);
		return -1;
	}
	while (sz * 2 <= share && sz * 2 <= ((size_t)RINGBUF_MAX_MB << 20))
		sz <<= 1;
	*each = sz;
	return 0;
}

/* Each event's program variants: attach type, sched_switch's argument count, task storage. */
enum variant {
	VAR_TP_BTF, /* sched_switch: the 4-argument program */
	VAR_TP_BTF_3, /* sched_switch: the 3-argument program (before 5.18) */
	VAR_TP_BTF_TS, /* the waker and wait in task storage (see use_task_storage) */
	VAR_TP_BTF_3_TS,
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
	POWER_VARIANTS(ABICAP_EV_CPU_IDLE, cpu_idle);
	POWER_VARIANTS(ABICAP_EV_CPU_FREQUENCY, cpu_frequency);
#undef WAKEUP_VARIANTS
#undef POWER_VARIANTS
}

/* The variant the plan chose for ev (tstore: the sched programs' *_ts). */
static enum variant variant_of(const struct kernel_plan *p, bool tstore,
			       unsigned int ev)
{
	bool three = ev == ABICAP_EV_SCHED_SWITCH && !p->switch_prev_state;

	if (!p->tp_btf[ev])
		return three ? VAR_RAW_TP_3 : VAR_RAW_TP;
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

/*
 * Where the kernel keeps preempt_count (bpf/core_fixes.bpf.h,
 * in_irq_context), from its BTF: task_struct.thread_info.preempt_count
 * (arm64 and others), or on x86 a per-CPU variable, __preempt_count or
 * pcpu_hot.preempt_count (6.2-6.14), given as its distance in the per-CPU
 * section from the run queue `runqueues`.
 */
static enum abicap_pc_where preempt_count_place(__s64 *off)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long long rq = -1, pc = -1;
	const struct btf_type *t;
	__u32 bits = 0;
	int id;

	if (!btf)
		return ABICAP_PC_NONE;
	if (btf_find_member(btf, btf_find_struct(btf, "task_struct"),
			    "thread_info.preempt_count", &bits)) {
		btf__free(btf);
		*off = bits / 8;
		return ABICAP_PC_TASK;
	}
	id = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_var_secinfo *v = btf_var_secinfos(t) + i;
		const char *name = btf__name_by_offset(btf,
				btf__type_by_id(btf, v->type)->name_off);

		if (!strcmp(name, "runqueues"))
			rq = v->offset;
		else if (!strcmp(name, "__preempt_count"))
			pc = v->offset;
		else if (!strcmp(name, "pcpu_hot") && pc < 0 &&
			 btf_find_member(btf, btf_find_struct(btf, "pcpu_hot"),
					 "preempt_count", &bits))
			pc = v->offset + bits / 8;
	}
	btf__free(btf);
	if (rq < 0 || pc < 0)
		return ABICAP_PC_NONE;
	*off = pc - rq;
	return ABICAP_PC_PERCPU;
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
	ro->pc_where = preempt_count_place((__s64 *)&ro->pc_off);
	/* x86's place is reached through current's run queue: its items must hold */
	if (ro->pc_where == ABICAP_PC_PERCPU && !c->plan.rq_ok)
		ro->pc_where = ABICAP_PC_NONE;
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
	int nbroken = 0, ret;

	if (!con) {
		con = own = contract_default(err, errlen);
		if (!con)
			return EXIT_RUNTIME;
	}
	/* fail closed: the contract declares all the programs depend on */
	ret = contract_gate(con, load | (o->follow_forks ? DEP_FORK : 0) |
			    (o->npids ? DEP_FREE : 0), err, errlen);
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

/*
 * The transport: perf buffers where the contract finds the ring buffer's
 * lock unsafe (or asked for); else per-CPU ring buffers where the kernel
 * can hold ring buffers in an array (probed) and the budget gives every
 * CPU a page, the shared ring buffer where asked for or where it cannot
 * (docs/transport.md: what each costs, measured). Sets the buffer size each
 * CPU gets; the streams are merged in time order.
 */
static int choose_transport(struct capture *c, const struct capture_opts *o,
			    size_t budget, char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (c->plan.perfbuf)
		c->transport = TRANSPORT_PERFBUF;
	else if (o->transport == TRANSPORT_RINGBUF || o->aggregate)
		c->transport = TRANSPORT_RINGBUF;
	else if (o->transport == TRANSPORT_PERCPU)
		c->transport = TRANSPORT_PERCPU;
	else
		c->transport = feature_ringbuf_array() == 1 ?
			       TRANSPORT_PERCPU : TRANSPORT_RINGBUF;
	if (c->transport == TRANSPORT_RINGBUF)
		c->ring_bytes = o->aggregate ? 0 : ringbuf_size(budget);
	if (c->transport == TRANSPORT_PERCPU &&
	    capture_ring_share(budget, c->ncpus, page, &c->ring_bytes, err,
			       errlen))
		return EXIT_USAGE;
	/*
	 * The shared ring buffer is in reserve order, not quite time order (a
	 * program reads the clock before it reserves): one stream, sorted too.
	 */
	if (!o->aggregate) {
		c->merge = recmerge_new(c->transport == TRANSPORT_RINGBUF ? 1 :
					c->ncpus, MERGE_LAG_NS, c->cb, c->ctx);
		if (!c->merge) {
			snprintf(err, errlen, "out of memory");
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/*
 * Ring cpu's consumer and producer positions, mapped read-only (the
 * kernel's ring buffer layout: a page each, at offsets 0 and one page).
 */
static int map_positions(struct capture *c, __u32 cpu)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *cons = mmap(NULL, page, PROT_READ, MAP_SHARED, c->ring_fd[cpu], 0);
	void *prod;

	if (cons == MAP_FAILED)
		return -1;
	prod = mmap(NULL, page, PROT_READ, MAP_SHARED, c->ring_fd[cpu], page);
	if (prod == MAP_FAILED) {
		munmap(cons, page);
		return -1;
	}
	c->ring_cons[cpu] = cons;
	c->ring_prod[cpu] = prod;
	return 0;
}

/* auto: note how full the fullest ring is, before a drain. */
static void note_fill(struct capture *c)
{
	for (int i = 0; c->ring_prod && i < c->ncpus; i++) {
		unsigned long p, k;
		int pct;

		if (!c->ring_prod[i])
			continue;
		p = __atomic_load_n(c->ring_prod[i], __ATOMIC_ACQUIRE);
		k = __atomic_load_n(c->ring_cons[i], __ATOMIC_ACQUIRE);
		pct = p > k ? (int)((p - k) * 100 / c->ring_bytes) : 0;
		if (pct > c->win_fill)
			c->win_fill = pct;
	}
}

/*
 * The per-CPU ring buffers: one per possible CPU, in the programs' array,
 * split into groups, each drained by one struct ring_buffer (its epoll).
 * The main thread's epoll holds the groups it drains and notify_fd.
 */
static int open_rings(struct capture *c, char *err, size_t errlen)
{
	int outer = bpf_map__fd(c->skel->maps.events_cpu), e;
	struct epoll_event ev = { .events = EPOLLIN };

	c->ring_fd = malloc(c->ncpus * sizeof(*c->ring_fd));
	c->ring_src = calloc(c->ncpus, sizeof(*c->ring_src));
	c->grp = calloc(c->ngroups, sizeof(*c->grp));
	/* auto looks at how full the rings are (the note when it adds one) */
	if (c->drain_max) {
		c->ring_cons = calloc(c->ncpus, sizeof(*c->ring_cons));
		c->ring_prod = calloc(c->ncpus, sizeof(*c->ring_prod));
	}
	if (!c->ring_fd || !c->ring_src || !c->grp ||
	    (c->drain_max && (!c->ring_cons || !c->ring_prod))) {
		snprintf(err, errlen, "out of memory");
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < c->ncpus; i++)
		c->ring_fd[i] = -1;
	for (int g = 0; g < c->ngroups; g++) {
		c->grp[g].c = c;
		drain_group_span(c->ncpus, c->ngroups, g, &c->grp[g].first,
				 &c->grp[g].n);
	}
	for (__u32 cpu = 0; cpu < (__u32)c->ncpus; cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "abicap_rb_cpu", 0,
					0, c->ring_bytes, NULL);
		struct ring_group *g = c->grp;

		while ((int)cpu >= g->first + g->n)
			g++;
		c->ring_src[cpu].c = c;
		c->ring_src[cpu].g = g;
		c->ring_src[cpu].cpu = cpu;
		if (fd < 0) {
			e = errno;
			if (e == EPERM)
				return privilege_denied("the kernel would not "
					"create a ring buffer", err, errlen);
			snprintf(err, errlen, "the kernel would not create the "
				 "ring buffer of CPU %u (%zu KiB each, for %d CPUs): "
				 "%s; give a smaller --buffer-size", cpu,
				 c->ring_bytes >> 10, c->ncpus, strerror(e));
			return EXIT_RUNTIME;
		}
		c->ring_fd[cpu] = fd;
		if (c->ring_cons && map_positions(c, cpu)) {
			snprintf(err, errlen, "cannot map CPU %u's ring buffer "
				 "positions: %s", cpu, strerror(errno));
			return EXIT_RUNTIME;
		}
		if (bpf_map_update_elem(outer, &cpu, &fd, BPF_ANY) ||
		    (!g->rb && !(g->rb = ring_buffer__new(fd, on_sample_cpu,
							  &c->ring_src[cpu],
							  NULL))) ||
		    ((int)cpu != g->first &&
		     ring_buffer__add(g->rb, fd, on_sample_cpu,
				      &c->ring_src[cpu]))) {
			snprintf(err, errlen, "cannot set up CPU %u's ring "
				 "buffer: %s", cpu, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->epfd < 0 || c->notify_fd < 0 || c->stop_fd < 0)
		goto fail;
	ev.data.u32 = EP_NOTIFY;
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->notify_fd, &ev))
		goto fail;
	for (int g = 0; g < c->ngroups; g++) {
		ev.data.u32 = g;
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD,
			      ring_buffer__epoll_fd(c->grp[g].rb), &ev))
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the consumer's epoll: %s",
		 strerror(errno));
	return EXIT_RUNTIME;
}

/*
 * A records' queue per CPU of a group handed to a drain thread: the most it
 * holds before the thread waits, about the ring's worth of records (a
 * switch record is 96 bytes in the ring), at least 1024.
 */
static size_t queue_max(const struct capture *c)
{
	size_t n = c->ring_bytes / 128;

	return n < 1024 ? 1024 : n;
}

/* Hand group gi to a new drain thread: 0, or -errno (the main keeps it). */
static int hand_over(struct capture *c, int gi)
{
	struct ring_group *g = &c->grp[gi];
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = gi };
	int fd = ring_buffer__epoll_fd(g->rb), e;

	g->q = drainq_new(g->n, queue_max(c), c->notify_fd);
	if (!g->q)
		return -ENOMEM;
	if (epoll_ctl(c->epfd, EPOLL_CTL_DEL, fd, NULL)) {
		e = errno;
		drainq_free(g->q);
		g->q = NULL;
		return -e;
	}
	g->threaded = true;
	g->th = drain_thread_start(g->rb, g->q, c->stop_fd, c->notify_fd);
	if (!g->th) {
		e = errno;
		g->threaded = false;
		drainq_free(g->q);
		g->q = NULL;
		epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev);
		return -e;
	}
	c->nthreads++;
	return 0;
}

/*
 * The groups, from --drain-threads: none (0) one group for the main thread;
 * N: N groups, each its own thread's from the start; auto: the most threads
 * it may add and one more group, the main thread's to the end.
 */
static int plan_drain(struct capture *c, const struct capture_opts *o,
		      char *err, size_t errlen)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	c->drain_want = o->drain_threads;
	c->ngroups = 1;
	if (o->drain_threads > 0 && c->transport != TRANSPORT_PERCPU) {
		snprintf(err, errlen, "--drain-threads %d: drain threads drain "
			 "per-CPU ring buffers, and this capture uses the %s: "
			 "use --drain-threads 0 or auto, or --transport percpu",
			 o->drain_threads, capture_transport(c));
		return EXIT_USAGE;
	}
	if (o->drain_threads > c->ncpus) {
		snprintf(err, errlen, "--drain-threads %d: at most %d here (a "
			 "thread drains at least one CPU's ring buffer, and "
			 "there are %d)", o->drain_threads, c->ncpus, c->ncpus);
		return EXIT_USAGE;
	}
	if (c->transport != TRANSPORT_PERCPU || o->aggregate)
		return 0;
	if (o->drain_threads > 0) {
		c->ngroups = o->drain_threads;
	} else if (o->drain_threads == DRAIN_AUTO) {
		c->drain_max = drain_auto_max(online > 0 ? (int)online : 1,
					      c->ncpus);
		c->ngroups = c->drain_max + 1;
	}
	return 0;
}

/* This thread's CPU time, ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int capture_drain_add(struct capture *c, int busy_pct);

/*
 * --drain-threads auto, in the main thread after a drain: at the end of
 * each window, a new thread for the main thread's last group if the main
 * thread was busy past the threshold (drain_should_add).
 */
static void drain_auto(struct capture *c)
{
	uint64_t now, cpu, busy, win;
	int pct, fill, e;

	if (c->drain_want != DRAIN_AUTO || c->nthreads >= c->drain_max)
		return;
	now = mono_ns();
	cpu = thread_cpu_ns();
	if (!c->win_wall) {
		c->win_wall = now;
		c->win_cpu = cpu;
		return;
	}
	win = now - c->win_wall;
	if (win < DRAIN_WINDOW_NS)
		return;
	busy = cpu - c->win_cpu;
	fill = c->win_fill;
	c->win_wall = now;
	c->win_cpu = cpu;
	c->win_fill = 0;
	if (!drain_should_add(busy, win, c->nthreads, c->drain_max))
		return;
	pct = (int)(busy * 100 / win);
	e = capture_drain_add(c, pct);
	if (e) {
		fprintf(stderr, "abicap: warning: cannot start drain thread %d "
			"(the consumer was busy %d%% of the last second): %s\n",
			c->nthreads + 1, pct, strerror(-e));
		c->drain_max = c->nthreads; /* no more tries */
		return;
	}
	fprintf(stderr, "abicap: drain thread %d started: the consumer was "
		"busy %d%% of the last second (the fullest ring %d%% full at a "
		"drain)\n", c->nthreads, pct, fill);
}

int capture_drain_add(struct capture *c, int busy_pct)
{
	int e;

	if (!c->grp || c->drain_want != DRAIN_AUTO ||
	    c->nthreads >= c->drain_max)
		return -ENOSPC;
	/* the main thread's last group: it keeps group 0 to the end */
	e = hand_over(c, c->ngroups - 1 - c->nthreads);
	if (!e)
		c->busy_pct[c->nthreads - 1] = busy_pct;
	return e;
}

struct capture *capture_open(const struct capture_opts *o, capture_cb cb,
			     void *ctx, int *exit_code, char *err,
			     size_t errlen)
{
	struct bpf_program *table[ABICAP_EV_COUNT][VAR_COUNT];
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
	rb_bytes = ringbuf_size(budget);
	/* sched_waking's program also feeds sched_wakeup's waker (records only) */
	load = o->events;
	if ((load & (1u << ABICAP_EV_SCHED_WAKEUP)) && !o->aggregate)
		load |= 1u << ABICAP_EV_SCHED_WAKING;
	ret = check_kernel(o, load, &c->plan, &c->check, err, errlen);
	if (ret)
		goto fail;
	if (o->legacy_switch)
		c->plan.switch_prev_state = false;
	if (o->transport != TRANSPORT_AUTO)
		c->plan.perfbuf = o->transport == TRANSPORT_PERFBUF;
	ret = choose_transport(c, o, budget, err, errlen);
	if (!ret)
		ret = plan_drain(c, o, err, errlen);
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
	variant_table(c->skel, table);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		if (!(load & (1u << ev)))
			continue;
		c->prog[ev] = table[ev][variant_of(&c->plan, c->tstore, ev)];
		if (!c->prog[ev]) {
			snprintf(err, errlen, "internal error: no %s program "
				 "for %s in the BPF object", c->plan.tp_btf[ev] ?
				 "tp_btf" : "raw_tp", event_name(ev));
			goto fail;
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
	configure(c, o, rb_bytes);
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
	if (o->aggregate) {
		/* no records: user space reads the maps */
	} else if (c->transport == TRANSPORT_PERFBUF) {
		/* the same memory in all, split across CPUs, in pages (a power of two) */
		size_t pages = 1, want = rb_bytes / sysconf(_SC_PAGESIZE) /
					  (c->ncpus > 0 ? c->ncpus : 1);

		while (pages * 2 <= want)
			pages *= 2;
		c->ring_bytes = pages * sysconf(_SC_PAGESIZE);
		c->pb = open_perfbuf(c, pages);
	} else if (c->transport == TRANSPORT_PERCPU) {
		ret = open_rings(c, err, errlen);
		if (ret)
			goto fail;
	} else {
		c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events),
					 on_sample, c, NULL);
	}
	if (!o->aggregate && !c->rb && !c->pb && !c->grp &&
	    c->transport == TRANSPORT_PERFBUF && errno == EPERM) {
		ret = privilege_perfbuf_denied(rb_bytes, err, errlen);
		goto fail;
	} else if (!o->aggregate && !c->rb && !c->pb && !c->grp) {
		snprintf(err, errlen, "cannot set up the %s: %s",
			 capture_transport(c), strerror(errno));
		goto fail;
	}
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
	ret = attach_all(c, err, errlen);
	if (!ret && o->drop_privileges)
		ret = privdrop_after_attach(err, errlen);
	/*
	 * --drain-threads N: every group its thread's from the start, once
	 * the capabilities are dropped (they are per thread: a thread made
	 * before would keep them all). Records wait in the rings till then.
	 */
	for (int g = 0; !ret && c->grp && g < c->ngroups &&
	     o->drain_threads > 0; g++) {
		int e = hand_over(c, g);

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

/*
 * The per-CPU rings: what the drain threads queued, then the main thread's
 * own groups, into the merge; the time every ring was drained at is the
 * earliest of the main thread's (now, before its drain) and each thread's
 * last complete pass, read before its queue is taken.
 */
static int consume_groups(struct capture *c, uint64_t *drained)
{
	int n, ret = 0;

	for (int g = 0; g < c->ngroups; g++) {
		struct ring_group *gr = &c->grp[g];

		if (gr->threaded) {
			uint64_t d = drain_thread_drained(gr->th);

			if (d < *drained)
				*drained = d;
			n = drain_thread_error(gr->th);
			if (n < 0)
				return n;
		}
	}
	for (int g = 0; g < c->ngroups; g++)
		if (c->grp[g].q)
			ret = drainq_take(c->grp[g].q, from_queue, &c->grp[g])
			      ?: ret;
	for (int g = 0; g < c->ngroups; g++) {
		if (c->grp[g].threaded)
			continue;
		n = ring_buffer__consume(c->grp[g].rb);
		if (n < 0)
			return n;
	}
	return ret;
}

/*
 * Drain every buffer; with per-CPU streams, hand on in time order what no
 * CPU can still precede (all: everything, the programs detached).
 */
static int consume(struct capture *c, bool all)
{
	uint64_t drained = all ? UINT64_MAX : mono_ns();
	int n;

	if (!c->pb && !c->rb && !c->grp)
		return 0; /* aggregation: nothing streams */
	if (c->grp && !all && c->drain_want == DRAIN_AUTO &&
	    c->nthreads < c->drain_max)
		note_fill(c);
	if (c->grp)
		n = consume_groups(c, &drained);
	else
		n = c->pb ? perf_buffer__consume(c->pb) :
			    ring_buffer__consume(c->rb);
	if (n < 0 || !c->merge)
		return n;
	n = recmerge_emit(c->merge, drained);
	if (!all && c->grp)
		drain_auto(c);
	return n < 0 ? n : 0;
}

/* The main thread's epoll: its groups' rings, the threads' notes. */
static int poll_groups(struct capture *c, int timeout_ms)
{
	struct epoll_event ev[8];
	uint64_t v;
	int n = epoll_wait(c->epfd, ev, 8, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++)
		if (ev[i].data.u32 == EP_NOTIFY &&
		    read(c->notify_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
	return 0;
}

int capture_poll(struct capture *c, int timeout_ms)
{
	int n;

	if (!c->pb && !c->rb && !c->grp)
		return poll(NULL, 0, timeout_ms) < 0 && errno != EINTR ? -errno : 0;
	if (c->grp)
		n = poll_groups(c, timeout_ms);
	else
		n = c->pb ? perf_buffer__poll(c->pb, timeout_ms) :
			    ring_buffer__poll(c->rb, timeout_ms);

	if (n < 0 && n != -EINTR)
		return n;
	/* records queued without a wakeup are there too */
	return consume(c, false);
}

/* stop_fd readable: every drain thread's loop ends (never read, so it stays) */
static void wake_stop(struct capture *c)
{
	uint64_t one = 1;

	/* an eventfd's write fails only at a count of 2^64 - 2 */
	if (write(c->stop_fd, &one, sizeof(one)) < 0) {
	}
}

/*
 * End the drain threads: each flushes and ends (taking their queues
 * meanwhile, so none waits for room), then is joined; their groups are
 * the main thread's again. Returns the first error a thread met.
 */
static int stop_threads(struct capture *c)
{
	uint64_t one = 1;
	int ret = 0;

	if (!c->nthreads)
		return 0;
	wake_stop(c);
	for (;;) {
		struct pollfd p = { .fd = c->notify_fd, .events = POLLIN };
		bool running = false;

		for (int g = 0; g < c->ngroups; g++) {
			if (c->grp[g].q)
				drainq_take(c->grp[g].q, from_queue, &c->grp[g]);
			running |= c->grp[g].th && !drain_thread_done(c->grp[g].th);
		}
		if (!running)
			break;
		if (poll(&p, 1, 10) > 0 &&
		    read(c->notify_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			break;
	}
	for (int g = 0; g < c->ngroups; g++) {
		struct ring_group *gr = &c->grp[g];
		int e;

		if (!gr->th)
			continue;
		e = drain_thread_join(gr->th);
		ret = ret ?: e;
		gr->th = NULL;
		gr->threaded = false;
	}
	return ret;
}

int capture_stop(struct capture *c)
{
	int ret;

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
	ret = c->grp ? stop_threads(c) : 0;
	return consume(c, true) ?: ret;
}

void capture_close(struct capture *c)
{
	if (!c)
		return;
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		bpf_link__destroy(c->link[ev]);
	bpf_link__destroy(c->fork_link);
	bpf_link__destroy(c->free_link);
	check_result_free(&c->check);
	if (c->grp) {
		/* a capture closed unstopped: its threads end, unflushed */
		if (c->nthreads)
			wake_stop(c);
		for (int g = 0; g < c->ngroups; g++) {
			/* a thread waiting for room gets it */
			while (c->grp[g].th && !drain_thread_done(c->grp[g].th))
				if (c->grp[g].q)
					drainq_take(c->grp[g].q, from_queue_drop,
						    NULL);
			drain_thread_join(c->grp[g].th);
			drainq_free(c->grp[g].q);
			ring_buffer__free(c->grp[g].rb);
		}
		free(c->grp);
	}
	if (c->epfd >= 0)
		close(c->epfd);
	if (c->notify_fd >= 0)
		close(c->notify_fd);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	ring_buffer__free(c->rb);
	perf_buffer__free(c->pb);
	for (int i = 0; c->ring_fd && i < c->ncpus; i++)
		if (c->ring_fd[i] >= 0)
			close(c->ring_fd[i]);
	for (int i = 0; c->ring_cons && c->ring_prod && i < c->ncpus; i++) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);

		if (c->ring_cons[i])
			munmap((void *)c->ring_cons[i], page);
		if (c->ring_prod[i])
			munmap((void *)c->ring_prod[i], page);
	}
	free(c->ring_cons);
	free(c->ring_prod);
	free(c->ring_fd);
	free(c->ring_src);
	recmerge_free(c->merge);
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
	out->fork_on = c->fork_prog != NULL;
	out->free_on = c->free_prog != NULL;
	ret = ret ?: prog_misses(c->fork_prog, &out->fork, &out->known);
	ret = ret ?: prog_misses(c->free_prog, &out->free, &out->known);
	out->total += out->fork + out->free;
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

const char *capture_transport(const struct capture *c)
{
	switch (c->transport) {
	case TRANSPORT_PERFBUF:
		return "perf buffer";
	case TRANSPORT_PERCPU:
		return "per-CPU ring buffers";
	default:
		return "ring buffer";
	}
}

size_t capture_buffer_bytes(const struct capture *c)
{
	return c->ring_bytes;
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
