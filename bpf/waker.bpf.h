/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The waker of each wakeup, for sched_wakeup's record (included by
 * abicap.bpf.c after the maps and the filters).
 *
 * sched_wakeup runs in the waker's context, except for a wakeup the waker
 * queued on the wakee's CPU's wakelist (ttwu_queue_wakelist): that CPU
 * activates it later, from an IPI or its idle loop, where "current" is not
 * the waker. Two ways to name the waker there:
 *
 * - sched_waking's program, in the waker's context, keeps the waker of
 *   every wakee (task storage, or the wakers hash) and sched_wakeup takes
 *   it: a program run and a lookup for every wakeup (kernels before 6.3,
 *   raw_tp, or a contract without the items below).
 * - wakelist_wakers (6.3+, tp_btf sched_wakeup): only wakeups queued on a
 *   wakelist keep their waker. csd_queue_cpu fires in the waker's context
 *   as the task's wake_entry is queued for sched_ttwu_pending on the
 *   wakee's CPU, and the waker claims a slot of that CPU's (wl_slots) with
 *   a compare-and-swap; that CPU runs the list between csd_function_entry
 *   and csd_function_exit, interrupts off, which mark it as flushing;
 *   sched_wakeup there reads the waker from its slots, and the exit frees
 *   the slots read. Anywhere else the
 *   waker is current, or the interrupt it serves. No program runs at
 *   sched_waking unless its records are asked for. The loader attaches
 *   csd_function_exit, csd_function_entry, then sched_wakeup, then
 *   csd_queue_cpu last: no slot is claimed that sched_wakeup will not take,
 *   and a wakeup queued before is flushed on a marked CPU, unknown (-1,
 *   counted as a waker lost) rather than misnamed.
 */
#ifndef WAKER_BPF_H
#define WAKER_BPF_H

/* set by the loader: wakers from the wakelists' tracepoints, as above */
const volatile bool wakelist_wakers = false;
/* the kernel's sched_ttwu_pending, set by the loader (from kallsyms) */
const volatile __u64 ttwu_fn = 0;

/* CPUs running a wakelist (sched_ttwu_pending) */
struct abicap_flush_line ttwu_flush[ABICAP_MAX_CPUS];

/* each CPU's slots; the loader sets one element per possible CPU */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct abicap_wl_cpu);
} wl_slots SEC(".maps");

/*
 * The waker of a wakeup that runs in its context (sched_waking,
 * sched_wakeup_new, and sched_wakeup outside a wakelist's flush, see
 * below): current, unless the CPU is serving an interrupt. Its
 * `on` says whether it passes -p/--tid, decided here where its task is at
 * hand; where the context cannot be told (no preempt_count: see
 * in_irq_context) a filter never keeps a wakeup on the waker's account.
 */
static __always_inline struct waker current_waker(enum abicap_event ev,
						 const bool direct,
						 const bool plain)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct waker w = { .pid = (__s32)id, .tgid = (__s32)(id >> 32) };
	int irq = 0;

	/* sched_wakeup_new runs in the parent's fork, never in an interrupt */
	if (ev != ABICAP_EV_SCHED_WAKEUP_NEW)
		irq = in_irq_context(direct, plain);
	if (irq > 0) {
		w.pid = w.tgid = ABICAP_PID_INTERRUPT;
		return w;
	}
	if (!TASK_FILTERS || aggregate)
		return w;
	if (irq < 0)
		count_aux(ABICAP_AUX_IRQ_UNKNOWN);
	else
		w.on = ids_on((void *)bpf_get_current_task(), w.pid, w.tgid,
			      false);
	return w;
}

/*
 * Keep sched_waking's waker for sched_wakeup: in the wakee's task storage,
 * or where that cannot be created (allocation or the storage's recursion
 * guard failing), in the wakers hash; counted if neither works.
 */
static __always_inline void note_waker(struct task_struct *p,
				       struct waker *w, const bool direct,
				       const bool tstore)
{
	struct task_note *note;
	__s32 pid;

	if (tstore) {
		note = bpf_task_storage_get(&task_notes, p, 0,
					    BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (note) {
			note->w = *w;
			note->w.valid = 1;
			return;
		}
		count_aux(ABICAP_AUX_WAKER_IN_HASH);
	}
	/* the wakee's pid read only here: the task storage needs none */
	pid = TASK_FIELD(direct, p, pid);
	if (bpf_map_update_elem(&wakers, &pid, w, BPF_ANY))
		count_aux(ABICAP_AUX_WAKER_LOST);
}

/* sched_waking's waker of p, taken once; unknown if none was kept. */
static __always_inline struct waker take_waker(struct task_struct *p,
					       __s32 pid, const bool tstore)
{
	struct waker w = { .pid = ABICAP_PID_UNKNOWN,
			   .tgid = ABICAP_PID_UNKNOWN };
	struct task_note *note;
	struct waker *known;

	if (tstore) {
		note = bpf_task_storage_get(&task_notes, p, 0, 0);
		if (note && note->w.valid) {
			note->w.valid = 0;
			return note->w;
		}
	}
	known = bpf_map_lookup_elem(&wakers, &pid);
	if (known) {
		w = *known;
		/* the LRU keeps the raw_tp path's; the fallback's go */
		if (tstore)
			bpf_map_delete_elem(&wakers, &pid);
	}
	return w;
}

/* sched_wakeup's waker with wakelist_wakers (see the top of this file) */
static __always_inline struct waker wakelist_waker(__s32 pid, __u32 cpu,
						   const bool direct,
						   const bool plain)
{
	struct waker w = { .pid = ABICAP_PID_UNKNOWN,
			   .tgid = ABICAP_PID_UNKNOWN };
	struct abicap_flush_line *l;
	struct abicap_wl_cpu *q;
	struct waker *known;
	__u32 i = (__u32)pid;

	l = &ttwu_flush[cpu & (ABICAP_MAX_CPUS - 1)];
	if (cpu >= ABICAP_MAX_CPUS || !l->on)
		return current_waker(ABICAP_EV_SCHED_WAKEUP, direct, plain);
	q = bpf_map_lookup_elem(&wl_slots, &cpu);
	for (int n = 0; q && n < ABICAP_WL_SLOTS; n++, i++) {
		struct abicap_wl_slot *s = &q->s[i & (ABICAP_WL_SLOTS - 1)];
		__u64 k = s->key;

		if (!k || (__u32)k != (__u32)pid)
			continue;
		w.pid = s->waker_pid;
		w.tgid = s->waker_tgid;
		w.on = !!(k & ABICAP_WL_ON);
		/*
		 * freed by csd_function_exit's program: no atomic here, where
		 * kernels before 5.12 refuse one even in dead code
		 */
		l->taken |= 1u << (i & (ABICAP_WL_SLOTS - 1));
		count_aux(ABICAP_AUX_WAKELIST_KEPT);
		return w;
	}
	/* the slots were full when it was queued: the hash, taken once */
	known = q ? bpf_map_lookup_elem(&wakers, &pid) : NULL;
	if (known) {
		w = *known;
		bpf_map_delete_elem(&wakers, &pid);
		count_aux(ABICAP_AUX_WAKELIST_KEPT);
		return w;
	}
	count_aux(ABICAP_AUX_WAKER_LOST);
	return w;
}

/*
 * A task's wakeup queued on its CPU's wakelist: the waker claims a free
 * slot of that CPU's (the wakee's pid, tagged), starting at the pid's own,
 * then fills it in; sched_wakeup there cannot run before the kernel adds
 * the task to the list, after this returns. All slots taken: the wakers
 * hash instead. raw_tp: the tracepoint's func is a function pointer, which
 * tp_btf programs may not read.
 */
SEC("?raw_tp/csd_queue_cpu")
int BPF_PROG(raw_tp_csd_queue_cpu, unsigned int cpu, unsigned long callsite,
	     void *func, void *csd)
{
	struct abicap_wl_cpu *q;
	struct task_struct *p;
	struct waker w;
	__s32 pid;
	__u64 key;
	__u32 i;

	if ((__u64)func != ttwu_fn ||
	    !bpf_core_field_exists(struct task_struct, wake_entry))
		return 0;
	q = bpf_map_lookup_elem(&wl_slots, &cpu);
	if (!q)
		return 0;
	w = current_waker(ABICAP_EV_SCHED_WAKING, true, false);
	p = csd - bpf_core_field_offset(struct task_struct, wake_entry);
	pid = BPF_CORE_READ(p, pid);
	key = (__u32)pid | ABICAP_WL_TAKEN | (w.on ? ABICAP_WL_ON : 0);
	i = (__u32)pid;
	for (int n = 0; n < ABICAP_WL_SLOTS; n++, i++) {
		struct abicap_wl_slot *s = &q->s[i & (ABICAP_WL_SLOTS - 1)];

		if (s->key || __sync_val_compare_and_swap(&s->key, 0, key))
			continue;
		s->waker_pid = w.pid;
		s->waker_tgid = w.tgid;
		return 0;
	}
	/*
	 * more wakeups queued on the CPU than it has slots (a tenant waking
	 * many of its tasks there at once): the wakers hash, by pid; a
	 * waker not kept there either is counted by sched_wakeup
	 */
	bpf_map_update_elem(&wakers, &pid, &w, BPF_ANY);
	return 0;
}

/* the CPU runs its wakelist: its sched_wakeups take their wakers' slots */
SEC("?raw_tp/csd_function_entry")
int BPF_PROG(raw_tp_csd_function_entry, void *func, void *csd)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if ((__u64)func == ttwu_fn && cpu < ABICAP_MAX_CPUS)
		ttwu_flush[cpu & (ABICAP_MAX_CPUS - 1)].on = 1;
	return 0;
}

/*
 * The CPU is done with its wakelist: the slots its sched_wakeups took are
 * freed, each by an exchange (ordered after their reads on every
 * architecture), and the mark cleared.
 */
SEC("?raw_tp/csd_function_exit")
int BPF_PROG(raw_tp_csd_function_exit, void *func, void *csd)
{
	__u32 cpu = bpf_get_smp_processor_id(), taken;
	struct abicap_flush_line *l;
	struct abicap_wl_cpu *q;

	if (cpu >= ABICAP_MAX_CPUS)
		return 0;
	l = &ttwu_flush[cpu & (ABICAP_MAX_CPUS - 1)];
	if (!l->on)
		return 0;
	taken = l->taken;
	q = taken ? bpf_map_lookup_elem(&wl_slots, &cpu) : NULL;
	for (int n = 0; q && n < ABICAP_WL_SLOTS; n++)
		if (taken & (1u << n))
			__sync_lock_test_and_set(&q->s[n].key, 0);
	l->taken = 0;
	l->on = 0;
	return 0;
}

#endif /* WAKER_BPF_H */
