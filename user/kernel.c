// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "kernel.h"
#include "util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

int kernel_check_privilege(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d)) {
		snprintf(err, errlen, "cannot read this process's capabilities: %s",
			 strerror(errno));
		return EXIT_PRIV;
	}
	if (has_cap(d, CAP_SYS_ADMIN))
		return EXIT_OK;
	if (has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON))
		return EXIT_OK;
	snprintf(err, errlen, "missing capability %s: run as root (sudo abicap ...) "
		 "or grant CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8)",
		 !has_cap(d, CAP_BPF) ? (!has_cap(d, CAP_PERFMON) ?
			"CAP_BPF and CAP_PERFMON" : "CAP_BPF") : "CAP_PERFMON");
	return EXIT_PRIV;
}

const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}

/* FUNC_PROTO behind "btf_trace_<name>" (typedef -> ptr -> proto), or NULL. */
static const struct btf_type *trace_proto(const struct btf *btf,
					  const char *name)
{
	char tn[64];
	const struct btf_type *t;
	int id;

	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF);
	if (id < 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

static bool param_is_ptr(const struct btf *btf, const struct btf_type *proto,
			 int i)
{
	const struct btf_param *p = btf_params(proto) + i;
	const struct btf_type *t = btf__type_by_id(btf, p->type);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_ptr(t);
}

/*
 * sched_switch is (void *__data, bool preempt, struct task_struct *prev,
 * struct task_struct *next[, unsigned int prev_state]). 5.18-rc1 briefly had
 * prev_state second, which no program variant here can read.
 */
static int plan_switch(const struct btf *btf, const struct btf_type *proto,
		       struct kernel_plan *plan, char *err, size_t errlen)
{
	int n = btf_vlen(proto);

	if ((n == 4 || n == 5) && param_is_ptr(btf, proto, 2) &&
	    param_is_ptr(btf, proto, 3)) {
		plan->switch_prev_state = n == 5;
		return EXIT_OK;
	}
	snprintf(err, errlen, "sched:sched_switch has a prototype abicap does not "
		 "know (%d arguments; expected preempt, prev, next[, prev_state]): "
		 "leave it out with --events", n - 1);
	return EXIT_KERNEL;
}

int kernel_plan(const struct btf *kbtf, unsigned int mask,
		enum attach_mode mode, struct kernel_plan *plan, char *err,
		size_t errlen)
{
	struct btf *own = NULL;
	const struct btf *btf = kbtf;
	bool typed;
	int ret = EXIT_OK;

	memset(plan, 0, sizeof(*plan));
	if (!btf) {
		own = btf__load_vmlinux_btf();
		if (!own) {
			snprintf(err, errlen, "this kernel (%s) has no BTF "
				 "(/sys/kernel/btf/vmlinux): abicap needs a kernel "
				 "built with CONFIG_DEBUG_INFO_BTF=y", kernel_release());
			return EXIT_KERNEL;
		}
		btf = own;
	}
	/* btf_trace_* typedefs exist from Linux 5.5 on; tp_btf needs them */
	typed = trace_proto(btf, "sched_switch") != NULL;
	if (mode == ATTACH_TP_BTF && !typed) {
		snprintf(err, errlen, "--attach tp_btf: this kernel's BTF has no "
			 "btf_trace_* types (Linux 5.5+ needed); use --attach raw_tp");
		ret = EXIT_USAGE;
		goto out;
	}
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		const struct btf_type *proto;

		if (!(mask & (1u << ev)))
			continue;
		proto = trace_proto(btf, event_name(ev));
		if (typed && !proto) {
			snprintf(err, errlen, "tracepoint %s:%s does not exist in "
				 "this kernel (%s): leave it out with --events",
				 event_group(ev), event_name(ev), kernel_release());
			ret = EXIT_KERNEL;
			goto out;
		}
		plan->tp_btf[ev] = typed && mode != ATTACH_RAW_TP;
		if (ev == ABICAP_EV_SCHED_SWITCH && proto) {
			ret = plan_switch(btf, proto, plan, err, errlen);
			if (ret)
				goto out;
		}
	}
	/*
	 * Without btf_trace_* types the argument count cannot be read, and
	 * switch_prev_state stays false: kernels that old (< 5.5) all have
	 * the 3-argument sched_switch.
	 */
out:
	btf__free(own);
	return ret;
}
