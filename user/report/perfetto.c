// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Records as a native Perfetto trace: ftrace event bundles per CPU and a
 * process tree with the thread names. A small protobuf writer; the field
 * numbers are Perfetto's (protos/perfetto/trace/trace_packet.proto,
 * ftrace/ftrace_event.proto, ftrace/sched.proto, ftrace/power.proto,
 * ps/process_tree.proto, system_info.proto). tests/perfetto/abicap_subset.proto
 * declares the
 * same subset for protoc.
 */
#define _GNU_SOURCE /* copy_file_range */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "capfile/capwarn.h"
#include "report/perfetto.h"
#include "lib/hashtab.h"

enum {
	TRACE_PACKET = 1,
	PACKET_FTRACE_EVENTS = 1, PACKET_PROCESS_TREE = 2,
	PACKET_SEQUENCE_ID = 10, PACKET_SYSTEM_INFO = 45,
	SYSINFO_UTSNAME = 1,
	UTS_SYSNAME = 1, UTS_VERSION = 2, UTS_RELEASE = 3, UTS_MACHINE = 4,
	BUNDLE_CPU = 1, BUNDLE_EVENT = 2,
	EV_TIMESTAMP = 1, EV_PID = 2, EV_SCHED_SWITCH = 4,
	EV_CPU_FREQUENCY = 11, EV_CPU_IDLE = 13, EV_SCHED_WAKEUP = 17,
	EV_SCHED_WAKING = 20, EV_SCHED_WAKEUP_NEW = 114,
	SW_PREV_COMM = 1, SW_PREV_PID, SW_PREV_PRIO, SW_PREV_STATE, SW_NEXT_COMM,
	SW_NEXT_PID, SW_NEXT_PRIO,
	WK_COMM = 1, WK_PID, WK_PRIO, WK_SUCCESS, WK_TARGET_CPU,
	PW_STATE = 1, PW_CPU_ID = 2,
	TREE_PROCESSES = 1, TREE_THREADS = 2,
	/* track_event/track_descriptor.proto, track_event.proto */
	PACKET_TIMESTAMP = 8, PACKET_TRACK_EVENT = 11,
	PACKET_TRACK_DESCRIPTOR = 60,
	TD_UUID = 1, TD_NAME = 2,
	TE_TYPE = 9, TE_TRACK_UUID = 11, TE_NAME = 23,
	TE_SLICE_BEGIN = 1, TE_SLICE_END = 2,
	PROC_PID = 1, PROC_CMDLINE = 3,
	THREAD_TID = 1, THREAD_NAME = 2, THREAD_TGID = 3,
};

#define EVENTS_PER_BUNDLE 1000
/* the loss track: a uuid of its own, its packets on a sequence of their own */
#define LOSS_TRACK_UUID 0xab1ca9105500ull
#define LOSS_TRACK_NAME "abicap losses"
#define LOSS_SEQUENCE 2
#define SPILL_COPY (1 << 20) /* bytes a read where the kernel cannot copy */

struct pb {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

static unsigned char *grow(struct pb *b, size_t n)
{
	size_t cap = n <= SIZE_MAX - b->len ?
		     array_grown(b->cap, b->len + n, 4096, SIZE_MAX) : 0;
	unsigned char *np;

	if (b->oom)
		return NULL;
	np = cap ? realloc(b->p, cap) : NULL;
	if (!np) {
		b->oom = true;
		return NULL;
	}
	b->p = np;
	b->cap = cap;
	return b->p + b->len;
}

/*
 * Room for n more bytes at b->p + b->len, or NULL (b->oom is then set; what
 * is written after that stays inside the buffer and is thrown away).
 */
static inline unsigned char *reserve(struct pb *b, size_t n)
{
	if (b->len + n <= b->cap)
		return b->p + b->len;
	return grow(b, n);
}

static void put(struct pb *b, const void *d, size_t n)
{
	unsigned char *p;

	if (!n) /* an empty message's d is NULL: no memcpy from it */
		return;
	p = reserve(b, n);
	if (!p)
		return;
	memcpy(p, d, n);
	b->len += n;
}

/* v as a protobuf varint into buf (10 bytes at most); its length */
static size_t varint_enc(unsigned char *buf, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	buf[n++] = v;
	return n;
}

static inline void varint(struct pb *b, uint64_t v)
{
	unsigned char *p = reserve(b, 10);

	if (!p)
		return;
	if (v < 0x80) { /* tags and most values: one byte */
		*p = v;
		b->len++;
		return;
	}
	b->len += varint_enc(p, v);
}

static void field_uint(struct pb *b, uint32_t field, uint64_t v)
{
	varint(b, (uint64_t)field << 3); /* wire type 0 */
	varint(b, v);
}

/* int32/int64 fields: negative values as 64-bit two's complement */
static void field_int(struct pb *b, uint32_t field, int64_t v)
{
	field_uint(b, field, (uint64_t)v);
}

static void field_bytes(struct pb *b, uint32_t field, const void *d, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2); /* length-delimited */
	varint(b, n);
	put(b, d, n);
}

static void field_str(struct pb *b, uint32_t field, const char *s, size_t max)
{
	field_bytes(b, field, s, strnlen(s, max));
}

static void field_msg(struct pb *b, uint32_t field, const struct pb *m)
{
	field_bytes(b, field, m->p, m->len);
}

static void pb_reset(struct pb *b)
{
	b->len = 0;
}

static void pb_free(struct pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/*
 * One FtraceEvent for the record, appended to the bundle b: its payload
 * (sched_switch, ...) encoded into sub, its own fields before it written
 * straight into b (no copy of the whole event).
 */
static void encode_event(struct pb *b, struct pb *sub, const union abicap_rec *r)
{
	unsigned char head[48];
	uint32_t kind = 0, pid = 0;
	size_t n = 0;

	pb_reset(sub);
	switch (r->hdr.type) {
	case ABICAP_EV_SCHED_SWITCH:
		pid = (uint32_t)r->sw.prev_pid;
		field_str(sub, SW_PREV_COMM, r->sw.prev_comm, ABICAP_COMM_LEN);
		field_int(sub, SW_PREV_PID, r->sw.prev_pid);
		field_int(sub, SW_PREV_PRIO, r->sw.prev_prio);
		field_int(sub, SW_PREV_STATE, r->sw.prev_state);
		field_str(sub, SW_NEXT_COMM, r->sw.next_comm, ABICAP_COMM_LEN);
		field_int(sub, SW_NEXT_PID, r->sw.next_pid);
		field_int(sub, SW_NEXT_PRIO, r->sw.next_prio);
		kind = EV_SCHED_SWITCH;
		break;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKING:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
		/* the event's pid is the task it ran in: the waker */
		pid = r->wk.waker_pid > 0 ? (uint32_t)r->wk.waker_pid : 0;
		field_str(sub, WK_COMM, r->wk.comm, ABICAP_COMM_LEN);
		field_int(sub, WK_PID, r->wk.pid);
		field_int(sub, WK_PRIO, r->wk.prio);
		field_int(sub, WK_SUCCESS, 1);
		field_int(sub, WK_TARGET_CPU, r->wk.target_cpu);
		kind = r->hdr.type == ABICAP_EV_SCHED_WAKEUP ? EV_SCHED_WAKEUP :
		       r->hdr.type == ABICAP_EV_SCHED_WAKING ? EV_SCHED_WAKING :
		       EV_SCHED_WAKEUP_NEW;
		break;
	case ABICAP_EV_CPU_IDLE:
	case ABICAP_EV_CPU_FREQUENCY:
		field_uint(sub, PW_STATE, r->pw.state);
		field_uint(sub, PW_CPU_ID, r->pw.cpu_id);
		kind = r->hdr.type == ABICAP_EV_CPU_IDLE ? EV_CPU_IDLE :
		       EV_CPU_FREQUENCY;
		break;
	}
	n += varint_enc(head + n, EV_TIMESTAMP << 3);
	n += varint_enc(head + n, r->hdr.ts_ns);
	if (kind) {
		n += varint_enc(head + n, EV_PID << 3);
		n += varint_enc(head + n, pid);
		n += varint_enc(head + n, (uint64_t)kind << 3 | 2);
		n += varint_enc(head + n, sub->len);
	} else {
		pb_reset(sub); /* a type this writer does not know: the time only */
	}
	varint(b, (uint64_t)BUNDLE_EVENT << 3 | 2);
	varint(b, n + sub->len);
	put(b, head, n);
	put(b, sub->p, sub->len);
}

/*
 * Trace.packet = TracePacket{timestamp (0: none), sequence id, field =
 * msg}: the headers are encoded here and msg is written after them as it
 * is, without a copy.
 */
static int emit_packet_on(FILE *out, uint64_t ts, uint32_t seq, uint32_t field,
			  const struct pb *msg)
{
	unsigned char pkt[48], hdr[16];
	size_t np = 0, nh = 0;

	if (ts) {
		np += varint_enc(pkt + np, PACKET_TIMESTAMP << 3);
		np += varint_enc(pkt + np, ts);
	}
	np += varint_enc(pkt + np, PACKET_SEQUENCE_ID << 3);
	np += varint_enc(pkt + np, seq);
	np += varint_enc(pkt + np, (uint64_t)field << 3 | 2);
	np += varint_enc(pkt + np, msg->len);
	nh += varint_enc(hdr + nh, TRACE_PACKET << 3 | 2);
	nh += varint_enc(hdr + nh, np + msg->len);
	/* an empty message has no buffer: nothing to write from it */
	if (fwrite(hdr, 1, nh, out) != nh || fwrite(pkt, 1, np, out) != np ||
	    (msg->len && fwrite(msg->p, 1, msg->len, out) != msg->len))
		return -errno;
	return 0;
}

static int emit_packet(FILE *out, uint32_t field, const struct pb *msg)
{
	return emit_packet_on(out, 0, 1, field, msg);
}

struct thr {
	int32_t tid, tgid;
	char name[ABICAP_COMM_LEN];
};

/*
 * Every thread seen, in the order first seen (the process tree's order),
 * with a hash index by tid: a lookup per record costs the same however
 * many threads there are.
 */
struct threads {
	struct thr *v;
	size_t n, cap;
	struct hashtab index; /* tid -> position in v */
	bool oom;
};

static void note_thread(struct threads *t, int32_t tid, int32_t tgid,
			const char *name)
{
	uint64_t *i;
	struct thr *th;

	if (tid <= 0 || t->oom)
		return;
	i = hashtab_get(&t->index, (uint32_t)tid);
	if (i) {
		th = &t->v[*i];
		memcpy(th->name, name, ABICAP_COMM_LEN);
		if (tgid > 0)
			th->tgid = tgid;
		return;
	}
	if (array_room(&t->v, t->n, &t->cap, sizeof(*t->v), 256)) {
		t->oom = true;
		return;
	}
	if (hashtab_put(&t->index, (uint32_t)tid, t->n) < 0) {
		t->oom = true;
		return;
	}
	th = &t->v[t->n++];
	*th = (struct thr){ .tid = tid, .tgid = tgid };
	memcpy(th->name, name, ABICAP_COMM_LEN);
}

struct perfetto {
	FILE *out;
	struct capfile_drop *loss; /* perfetto_losses(): sorted, merged */
	size_t nloss;
	FILE *spill; /* perfetto_spill(): the event bundles until the tree */
	FILE *ev_out; /* where event bundles go: out, or spill */
	int ncpus;
	struct threads t; /* every thread seen, with its last name */
	struct pb *bundle; /* per CPU: the FtraceEventBundle being filled */
	size_t *count;
	struct pb sub;
	uint64_t bad_cpu; /* records naming a CPU past ncpus: left out */
	int err;
};

struct perfetto *perfetto_new(FILE *out, int ncpus)
{
	struct perfetto *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->out = out;
	p->ev_out = out;
	p->ncpus = ncpus;
	p->bundle = calloc(ncpus, sizeof(*p->bundle));
	p->count = calloc(ncpus, sizeof(*p->count));
	if (!p->bundle || !p->count) {
		free(p->bundle);
		free(p->count);
		free(p);
		return NULL;
	}
	return p;
}

void perfetto_thread(struct perfetto *p, const union abicap_rec *r)
{
	if (r->hdr.type == ABICAP_EV_SCHED_SWITCH) {
		note_thread(&p->t, r->sw.prev_pid, r->sw.prev_tgid,
			    r->sw.prev_comm);
		note_thread(&p->t, r->sw.next_pid, r->sw.next_tgid,
			    r->sw.next_comm);
	} else if (r->hdr.type <= ABICAP_EV_SCHED_WAKING) {
		note_thread(&p->t, r->wk.pid, r->wk.tgid, r->wk.comm);
	}
}

int perfetto_system(struct perfetto *p, const struct perfetto_uts *uts)
{
	struct pb info = { 0 }, u = { 0 };
	int ret = 0;

	if (!uts || (!uts->sysname && !uts->release && !uts->version &&
		     !uts->machine))
		return 0;
	if (uts->sysname)
		field_bytes(&u, UTS_SYSNAME, uts->sysname, strlen(uts->sysname));
	if (uts->version)
		field_bytes(&u, UTS_VERSION, uts->version, strlen(uts->version));
	if (uts->release)
		field_bytes(&u, UTS_RELEASE, uts->release, strlen(uts->release));
	if (uts->machine)
		field_bytes(&u, UTS_MACHINE, uts->machine, strlen(uts->machine));
	field_msg(&info, SYSINFO_UTSNAME, &u);
	ret = info.oom || u.oom ? -ENOMEM :
	      emit_packet(p->out, PACKET_SYSTEM_INFO, &info);
	pb_free(&info);
	pb_free(&u);
	if (ret && !p->err)
		p->err = ret;
	return ret;
}

/*
 * The loss windows, on a track of their own: a slice over each window
 * named with its count. A window is (start_ns, end_ns]; a slice on a track
 * needs a start after the trace's zero and an end after its start.
 */
static int emit_losses(struct perfetto *p)
{
	struct pb m = { 0 }, ev = { 0 };
	char name[64];
	int ret = 0;

	if (!p->nloss)
		return 0;
	field_uint(&m, TD_UUID, LOSS_TRACK_UUID);
	field_str(&m, TD_NAME, LOSS_TRACK_NAME, sizeof(LOSS_TRACK_NAME));
	ret = m.oom ? -ENOMEM :
	      emit_packet_on(p->out, 0, LOSS_SEQUENCE, PACKET_TRACK_DESCRIPTOR, &m);
	for (size_t i = 0; i < p->nloss && !ret; i++) {
		const struct capfile_drop *d = &p->loss[i];
		uint64_t start = d->start_ns ? d->start_ns : 1;

		snprintf(name, sizeof(name), "%llu record%s lost",
			 (unsigned long long)d->count, d->count == 1 ? "" : "s");
		pb_reset(&ev);
		field_uint(&ev, TE_TYPE, TE_SLICE_BEGIN);
		field_uint(&ev, TE_TRACK_UUID, LOSS_TRACK_UUID);
		field_str(&ev, TE_NAME, name, sizeof(name));
		ret = ev.oom ? -ENOMEM :
		      emit_packet_on(p->out, start, LOSS_SEQUENCE,
				     PACKET_TRACK_EVENT, &ev);
		pb_reset(&ev);
		field_uint(&ev, TE_TYPE, TE_SLICE_END);
		field_uint(&ev, TE_TRACK_UUID, LOSS_TRACK_UUID);
		if (!ret)
			ret = ev.oom ? -ENOMEM :
			      emit_packet_on(p->out, d->end_ns > start ?
					     d->end_ns : start + 1, LOSS_SEQUENCE,
					     PACKET_TRACK_EVENT, &ev);
	}
	pb_free(&m);
	pb_free(&ev);
	return ret;
}

static int cmp_drop(const void *a, const void *b)
{
	const struct capfile_drop *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

int perfetto_losses(struct perfetto *p, const struct capfile_drop *d, size_t n)
{
	size_t k = 0;

	free(p->loss);
	p->loss = n ? malloc(n * sizeof(*p->loss)) : NULL;
	p->nloss = 0;
	if (!n)
		return 0;
	if (!p->loss)
		return -ENOMEM;
	memcpy(p->loss, d, n * sizeof(*d));
	qsort(p->loss, n, sizeof(*p->loss), cmp_drop);
	/* slices on one track nest: overlapping windows become one */
	for (size_t i = 0; i < n; i++) {
		if (k && p->loss[i].start_ns <= p->loss[k - 1].end_ns) {
			if (p->loss[i].end_ns > p->loss[k - 1].end_ns)
				p->loss[k - 1].end_ns = p->loss[i].end_ns;
			p->loss[k - 1].count += p->loss[i].count;
			continue;
		}
		p->loss[k++] = p->loss[i];
	}
	p->nloss = k;
	return 0;
}

int perfetto_tree(struct perfetto *p)
{
	const struct thr *t = p->t.v;
	struct pb tree = { 0 }, m = { 0 };
	int ret;

	for (size_t i = 0; i < p->t.n; i++) {
		if (t[i].tid == t[i].tgid) {
			pb_reset(&m);
			field_int(&m, PROC_PID, t[i].tgid);
			field_str(&m, PROC_CMDLINE, t[i].name, ABICAP_COMM_LEN);
			field_msg(&tree, TREE_PROCESSES, &m);
		}
		pb_reset(&m);
		field_int(&m, THREAD_TID, t[i].tid);
		field_str(&m, THREAD_NAME, t[i].name, ABICAP_COMM_LEN);
		field_int(&m, THREAD_TGID, t[i].tgid);
		field_msg(&tree, TREE_THREADS, &m);
	}
	ret = p->t.oom || tree.oom || m.oom ? -ENOMEM :
	      emit_packet(p->out, PACKET_PROCESS_TREE, &tree);
	pb_free(&tree);
	pb_free(&m);
	if (!ret)
		ret = emit_losses(p);
	if (ret && !p->err)
		p->err = ret;
	return ret;
}

int perfetto_event(struct perfetto *p, const union abicap_rec *r)
{
	uint32_t cpu = r->hdr.cpu;

	if (p->err)
		return p->err;
	if (capwarn_cpu_past(r, (uint32_t)p->ncpus)) {
		p->bad_cpu++;
		return 0;
	}
	if (!p->bundle[cpu].len)
		field_uint(&p->bundle[cpu], BUNDLE_CPU, cpu);
	encode_event(&p->bundle[cpu], &p->sub, r);
	if (++p->count[cpu] == EVENTS_PER_BUNDLE) {
		p->err = emit_packet(p->ev_out, PACKET_FTRACE_EVENTS,
				     &p->bundle[cpu]);
		pb_reset(&p->bundle[cpu]);
		p->count[cpu] = 0;
	}
	if (p->sub.oom || p->bundle[cpu].oom)
		p->err = -ENOMEM;
	return p->err;
}

uint64_t perfetto_bad_cpu(const struct perfetto *p)
{
	return p->bad_cpu;
}

void perfetto_spill(struct perfetto *p, FILE *spill)
{
	p->spill = spill;
	p->ev_out = spill;
}

/* The spill's bytes after what out holds: 0 or -errno. */
static int copy_spill(FILE *spill, FILE *out)
{
	off_t off = 0, end;
	int in = fileno(spill), o = fileno(out), ret = 0;
	char *buf;
	ssize_t n;

	if (fflush(spill) || fflush(out))
		return -errno;
	end = lseek(in, 0, SEEK_END);
	if (end < 0)
		return -errno;
	/* in the kernel where it can (one file system), else through buf */
	while (off < end) {
		n = copy_file_range(in, &off, o, NULL, end - off, 0);
		if (n <= 0)
			break;
	}
	if (off == end)
		return 0;
	buf = malloc(SPILL_COPY);
	if (!buf)
		return -ENOMEM;
	while (off < end && !ret) {
		n = pread(in, buf, SPILL_COPY, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = n ? -errno : -EIO;
		else if (fwrite(buf, 1, n, out) != (size_t)n)
			ret = -errno;
		else
			off += n;
	}
	free(buf);
	return ret;
}

int perfetto_finish(struct perfetto *p)
{
	int ret = p->err;

	/* the tree of every thread seen, then the events held back */
	if (p->spill && !ret)
		ret = perfetto_tree(p);
	if (p->spill && !ret)
		ret = copy_spill(p->spill, p->out);

	for (int c = 0; c < p->ncpus && !ret; c++)
		if (p->count[c])
			ret = emit_packet(p->out, PACKET_FTRACE_EVENTS,
					  &p->bundle[c]);
	for (int c = 0; c < p->ncpus; c++)
		pb_free(&p->bundle[c]);
	free(p->bundle);
	free(p->count);
	pb_free(&p->sub);
	free(p->t.v);
	hashtab_free(&p->t.index);
	free(p->loss);
	if (!ret && fflush(p->out))
		ret = -errno;
	free(p);
	return ret;
}

int perfetto_write(FILE *out, const union abicap_rec *recs, size_t n, int ncpus,
		   const struct perfetto_uts *uts)
{
	struct perfetto *p = perfetto_new(out, ncpus);

	if (!p)
		return -ENOMEM;
	perfetto_system(p, uts);
	for (size_t i = 0; i < n; i++)
		perfetto_thread(p, &recs[i]);
	perfetto_tree(p);
	for (size_t i = 0; i < n; i++)
		perfetto_event(p, &recs[i]);
	return perfetto_finish(p);
}
