// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Where the time of abicap's sched_waking program goes (scripts/bench.sh):
 * a copy of on_wakeup() in bpf/abicap.bpf.c for sched_waking (tp_btf, no
 * filters), which remembers each wakee's waker for sched_wakeup, against
 * other places to keep the waker. Each variant has its own ring buffer.
 *
 *   wk_lru      the copy: waker into an LRU hash keyed by the wakee's pid,
 *               counter lookup, reserve 64 bytes, comm, fields, query, submit
 *   wk_tstore   the waker in the wakee's task storage instead
 *   wk_nomap    no waker map: the record alone (sched_waking runs in the
 *               waker's context, so user space can pair waking and wakeup)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
/* the headers of bpf/abicap.bpf.c, all of them: the copies cannot drift */
#include "abicap.h"
#include "core_fixes.bpf.h"
#include "cgroup.bpf.h"
#include "task_read.bpf.h"
#include "task_state.h"
#include "bench.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

RING(rb_lru);
RING(rb_tstore);
RING(rb_nomap);

struct waker {
	__s32 pid;
	__s32 tgid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __s32);
	__type(value, struct waker);
} wakers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct waker);
} waker_store SEC(".maps");

enum { KEEP_LRU, KEEP_TSTORE, KEEP_NONE };

static __always_inline int waking(void *ring, int keep, struct task_struct *p)
{
	__u64 ts = bpf_ktime_get_ns(), flags = BPF_RB_NO_WAKEUP, avail;
	__u32 cpu = bpf_get_smp_processor_id(), key = ABICAP_EV_SCHED_WAKING;
	__u64 id = bpf_get_current_pid_tgid();
	struct waker w = { .pid = (__s32)id, .tgid = (__s32)(id >> 32) }, *s;
	struct abicap_counter *c;
	struct abicap_wakeup *e;
	__s32 pid = p->pid;

	if (keep == KEEP_LRU) {
		bpf_map_update_elem(&wakers, &pid, &w, BPF_ANY);
	} else if (keep == KEEP_TSTORE) {
		s = bpf_task_storage_get(&waker_store, p, NULL,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (s)
			*s = w;
	}
	c = bpf_map_lookup_elem(&counters, &key);
	if (c)
		c->seen++;
	e = bpf_ringbuf_reserve(ring, sizeof(*e), 0);
	if (!e) {
		if (c)
			c->dropped++;
		return 0;
	}
	e->hdr.ts_ns = ts;
	e->hdr.type = ABICAP_EV_SCHED_WAKING;
	e->hdr.size = sizeof(*e);
	e->hdr.cpu = cpu;
	task_comm(e->comm, p, true);
	e->pid = pid;
	e->tgid = p->tgid;
	e->prio = p->prio;
	e->target_cpu = task_cpu(p, true);
	e->waker_pid = w.pid;
	e->waker_tgid = w.tgid;
	avail = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA);
	if (avail >= wakeup_bytes && avail < wakeup_bytes + sizeof(*e) + 8)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(e, flags);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(wk_lru, struct task_struct *p)
{
	return waking(&rb_lru, KEEP_LRU, p);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(wk_tstore, struct task_struct *p)
{
	return waking(&rb_tstore, KEEP_TSTORE, p);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(wk_nomap, struct task_struct *p)
{
	return waking(&rb_nomap, KEEP_NONE, p);
}
