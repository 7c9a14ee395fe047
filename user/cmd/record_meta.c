// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A recording's header metadata and trailer, as compact JSON. */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "abi/checker.h"
#include "abi/kernel.h"
#include "capfile/capmeta.h"
#include "cmd/record_meta.h"
#include "event/events.h"
#include "lib/escape.h"
#include "lib/hashtab.h"
#include "lib/util.h"

/* A crc32 of the running kernel's BTF: which kernel this was, exactly. */
static void btf_identity(struct capmeta *m, char *hex, size_t hexlen)
{
	FILE *f = fopen("/sys/kernel/btf/vmlinux", "rb");
	unsigned long crc = 0, size = 0;
	unsigned char buf[65536];
	size_t n;

	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		crc = crc32(crc, buf, n);
		size += n;
	}
	fclose(f);
	snprintf(hex, hexlen, "%08lx", crc);
	m->btf = true;
	m->btf_size = size;
	m->btf_crc32 = hex;
}

bool capture_task_filtered(const struct capture_opts *c)
{
	return c->npids || c->ntids || c->comm[0] || c->cgroup_id;
}

/*
 * What the capture was filtered to, for report: task filters mean a
 * capture does not see every switch of a CPU, or every task's.
 */
static int fill_filter(struct capmeta_filter *f, const struct record_meta *o,
		       pid_t child)
{
	f->present = true;
	f->tasks = capture_task_filtered(o->cap);
	f->pids = (int32_t *)o->cap->pids;
	f->npids = child ? 0 : (size_t)o->cap->npids;
	f->tids = (int32_t *)o->cap->tids;
	f->ntids = (size_t)o->cap->ntids;
	f->comm = o->cap->comm[0] ? (char *)o->cap->comm : NULL;
	if (o->cap->cgroup_id) {
		f->cgroup = true;
		f->cgroup_id = o->cap->cgroup_id;
		f->cgroup_path = (char *)o->cgroup_path;
	}
	if (o->cap->cpus) {
		f->cpus_given = true;
		f->cpus = calloc((size_t)o->cap->ncpus + 1, sizeof(*f->cpus));
		if (!f->cpus)
			return -1;
		for (int i = 0; i < o->cap->ncpus; i++)
			if (o->cap->cpus[i])
				f->cpus[f->ncpus++] = i;
	}
	if (o->command) {
		f->command = o->command;
		while (o->command[f->ncommand])
			f->ncommand++;
	}
	f->command_pid = child;
	return 0;
}

char *record_metadata(struct capture *c, const struct record_meta *o,
		      uint64_t t0, pid_t child)
{
	const struct check_result *res = capture_check(c);
	const struct kernel_plan *plan = capture_plan(c);
	char variant[ABICAP_EV_COUNT][64], hex[16], *s = NULL;
	struct capmeta m;
	struct timespec rt;
	struct utsname uts;

	capmeta_init(&m);
	clock_gettime(CLOCK_REALTIME, &rt);
	m.events_given = true;
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		const char *v = capture_variant(c, ev);

		if (!(o->cap->events & (1u << ev)))
			continue;
		m.events |= 1u << ev;
		snprintf(variant[ev], sizeof(variant[ev]), "%s%s", v ? v : "-",
			 ev == ABICAP_EV_SCHED_SWITCH ? (plan->switch_prev_state ?
			 " (4 args)" : " (3 args)") : "");
		m.variant[ev] = variant[ev];
	}
	m.not_ok = calloc((size_t)res->n + 1, sizeof(*m.not_ok));
	if (!m.not_ok)
		return NULL;
	for (int i = 0; i < res->n; i++)
		if (res->v[i].status != V_OK)
			m.not_ok[m.nnot_ok++] = (struct capmeta_verdict){
				(char *)res->v[i].scope, (char *)res->v[i].item,
				(char *)vstatus_str(res->v[i].status) };
	if (uname(&uts))
		memset(&uts, 0, sizeof(uts));
	/* the whole uname: exporters (Perfetto) pick layouts by the release */
	m.capture_format = o->capture_format;
	m.record_format = ABICAP_RECORD_VERSION;
	m.kernel = (char *)kernel_release();
	m.sysname = uts.sysname;
	m.version = uts.version;
	m.machine = uts.machine;
	m.byte_order = HOST_BYTE_ORDER;
	btf_identity(&m, hex, sizeof(hex));
	m.contract = true;
	m.contract_ok = res->count[V_OK];
	m.contract_degraded = res->count[V_DEGRADED];
	m.contract_broken = res->count[V_BROKEN];
	m.transport = (char *)capture_transport(c);
	m.clock = "CLOCK_MONOTONIC";
	m.start_ns = (int64_t)t0;
	/* realtime = monotonic + boot_offset */
	m.boot_offset_ns = (int64_t)((uint64_t)rt.tv_sec * 1000000000ull +
				     rt.tv_nsec - mono_ns());
	m.ncpus = capture_ncpus(c);
	m.command_line = o->argv;
	m.ncommand_line = (size_t)o->argc;
	m.pid_filter = o->cap->npids ? o->cap->pids[0] : 0;
	/* its own tasks are in the capture too: readers mark them */
	m.recorder_pid = getpid();
	if (!fill_filter(&m.filter, o, child))
		s = capmeta_write(&m);
	/* the strings are borrowed: only what was allocated here goes */
	free(m.not_ok);
	free(m.filter.cpus);
	return s;
}

/* Program runs the kernel skipped, by the tracepoint of every attached program. */
static void misses(struct capture *c, struct captrailer *t)
{
	struct capture_misses m;

	if (capture_misses(c, &m) || !m.known)
		return;
	t->misses_known = true;
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		t->miss_on[ev] = m.on[ev];
		t->miss[ev] = m.ev[ev];
	}
	for (unsigned int i = 0; i < OTHER_TP_COUNT; i++) {
		t->miss_on[ABICAP_EV_COUNT + i] = m.other_on[i];
		t->miss[ABICAP_EV_COUNT + i] = m.other[i];
	}
}

struct captrailer_cgroup *record_throttling(const struct cg_cpu_roots *roots,
					    const struct cg_cpu_snap *start,
					    struct cgnames *names,
					    const uint64_t *ids, size_t n)
{
	struct captrailer_cgroup *v = calloc(n + 1, sizeof(*v));

	for (size_t i = 0; v && i < n; i++) {
		struct cg_cpu_stat a = { 0 }, b;
		const char *path = cgnames_path(names, ids[i]);

		v[i].id = ids[i];
		v[i].path = (char *)path;
		if (!path || cg_cpu_stat_read(roots, path, &b))
			continue;
		/* not in the snapshot: created since, its counters from 0 */
		if (start && cg_cpu_snap_get(start, path, &a) && a.v1 != b.v1)
			continue;
		if (b.nr_periods < a.nr_periods || b.nr_throttled < a.nr_throttled ||
		    b.throttled_ns < a.throttled_ns)
			continue; /* another cgroup at that path now */
		v[i].known = true;
		v[i].v1 = b.v1;
		v[i].nr_periods = b.nr_periods - a.nr_periods;
		v[i].nr_throttled = b.nr_throttled - a.nr_throttled;
		v[i].throttled_ns = b.throttled_ns - a.throttled_ns;
	}
	return v;
}

/* The containers' names, for the trailer: at most CAPTRAILER_CT_MAX, this big. */
#define CT_NAMES_BYTES (256u << 10)

struct ct_collect {
	struct captrailer *t;
	size_t bytes;
	struct hashtab seen; /* hash of a container id -> its t->ct[] */
	const char *id; /* the id looked up */
};

static bool same_ct(void *ctx, uint64_t i)
{
	const struct ct_collect *c = ctx;

	return !strcmp(c->t->ct[i].id, c->id);
}

static int collect_ct(void *ctx, const char *id, const struct ct_names *cn)
{
	struct ct_collect *c = ctx;
	struct captrailer *t = c->t;
	size_t b = strlen(id) + strlen(cn->pod) + strlen(cn->ns) +
		   strlen(cn->name) + 64;
	uint64_t h = hash_str(id);

	c->id = id;
	if (strlen(id) >= sizeof(t->ct->id) ||
	    hashtab_find(&c->seen, h, same_ct, c))
		return 0; /* a container's sub-cgroups: named once */
	if (t->nct >= CAPTRAILER_CT_MAX || c->bytes + b > CT_NAMES_BYTES) {
		t->ct_not_listed++;
		return 0;
	}
	if (hashtab_add(&c->seen, h, t->nct))
		return -ENOMEM;
	c->bytes += b;
	memcpy(t->ct[t->nct].id, id, strlen(id) + 1);
	t->ct[t->nct++].names = *cn;
	return 0;
}

/*
 * The names of the containers seen ("containers": {ID: {"pod_name",
 * "namespace", "container_name"}}), read from the runtimes' state while
 * recording, so that report names them anywhere, later (the cgroup blocks
 * hold paths only); those past the limits counted. 0, or -ENOMEM.
 */
static int trailer_containers(struct captrailer *t, const struct cgnames *names)
{
	struct ct_collect c = { t, 0, HASHTAB_INIT, NULL };
	int r;

	if (!names) /* no cgroup v2 mount: no containers either */
		return 0;
	t->ct = calloc(CAPTRAILER_CT_MAX, sizeof(*t->ct));
	if (!t->ct)
		return -ENOMEM;
	r = cgnames_each_ct_names(names, collect_ct, &c);
	hashtab_free(&c.seen);
	return r;
}

char *record_trailer(struct capture *c, double secs, const struct capw *w,
		     const struct loop_opts *lo,
		     const struct captrailer_cgroup *cg, size_t ncg,
		     const struct cgnames *names)
{
	struct abicap_counter sum[ABICAP_EV_COUNT], per[ABICAP_EV_COUNT];
	uint64_t aux[ABICAP_AUX_COUNT];
	struct captrailer t;
	char *s;

	captrailer_init(&t);
	capture_counters(c, -1, sum);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		t.event[ev] = true;
		t.seen[ev] = sum[ev].seen;
		t.received[ev] = capture_received(c, ev);
		t.dropped[ev] = sum[ev].dropped;
	}
	t.cpus = calloc((size_t)capture_ncpus(c) + 1, sizeof(*t.cpus));
	if (!t.cpus)
		return NULL;
	for (int cpu = 0; cpu < capture_ncpus(c); cpu++) {
		struct captrailer_cpu *p = &t.cpus[t.ncpus++];

		capture_counters(c, cpu, per);
		p->cpu = cpu;
		for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
			p->seen += per[ev].seen;
			p->dropped += per[ev].dropped;
		}
	}
	t.duration_s = secs;
	t.end_ns = (int64_t)capture_end_ns(c);
	t.records = (int64_t)capw_records(w);
	capw_span(w, &t.first_ns, &t.last_ns, &t.record_cpus);
	t.span_given = t.records > 0;
	if (!capture_aux(c, aux)) {
		t.bookkeeping = true;
		t.followed = aux[ABICAP_AUX_FOLLOW_ADDED];
		t.follow_failed = aux[ABICAP_AUX_FOLLOW_FAILED];
		t.followed_gone = aux[ABICAP_AUX_FOLLOW_REMOVED];
		t.wakers_lost = aux[ABICAP_AUX_WAKER_LOST];
		t.wakers_in_hash = aux[ABICAP_AUX_WAKER_IN_HASH];
		t.waker_context_unknown = aux[ABICAP_AUX_IRQ_UNKNOWN];
	}
	misses(c, &t);
	if (lo->child_exited) {
		t.command_exited = true;
		t.command_status = WIFEXITED(lo->child_status) ?
			WEXITSTATUS(lo->child_status) :
			128 + WTERMSIG(lo->child_status);
	}
	t.throttle_given = cg != NULL;
	t.cg = (struct captrailer_cgroup *)cg;
	t.ncg = ncg;
	if (trailer_containers(&t, names)) {
		ab_warn("out of memory: the containers' names are not in the "
			"capture (report names them by container id)");
		t.nct = 0;
	}
	s = captrailer_write(&t);
	free(t.cpus);
	free(t.ct);
	return s;
}
