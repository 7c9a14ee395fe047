// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "event/events.h"
#include "event/cgnames.h"
#include "event/format.h"

const char *state_str(uint32_t st, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	struct sbuf sb;

	sb_init(&sb, buf, len);
	if (!(st & (ABICAP_STATE_PREEMPTED - 1))) {
		sb_puts(&sb, "R");
	} else {
		for (int i = 0; i < 8; i++) {
			if (!(st & (1u << i)))
				continue;
			if (sb.len)
				sb_puts(&sb, "|");
			sb_printf(&sb, "%c", letters[i]);
		}
	}
	if (st & ABICAP_STATE_PREEMPTED)
		sb_puts(&sb, "+");
	return buf;
}

const char *format_text_header(void)
{
	return "    TIME(ms) CPU EVENT             DETAILS";
}

/* A cgroup for text: its container, else its full path, else cgroup#ID. */
static void text_cgroup(struct sbuf *sb, struct formatter *f, uint64_t id)
{
	if (!id) {
		sb_puts(sb, "-");
	} else if (f->names) {
		sb_text_str(sb, cgnames_label(f->names, id), SIZE_MAX);
	} else {
		sb_printf(sb, "cgroup#%llu", (unsigned long long)id);
		f->unknown_shown = true;
	}
}

const char *format_cgroup_note(const struct formatter *f)
{
	return f->unknown_shown || (f->names &&
				    cgnames_unknown_shown(f->names)) ?
	       CGNAMES_UNKNOWN_NOTE : NULL;
}

/* ,"<p>cgroup_id":N,"<p>cgroup":"/path"|null,"<p>container":"label"|null */
static void json_cgroup(struct sbuf *sb, const struct formatter *f,
			const char *p, uint64_t id)
{
	struct cgname c = { 0 };

	if (f->names)
		cgnames_get(f->names, id, &c);
	sb_printf(sb, ",\"%scgroup_id\":%llu,\"%scgroup\":", p,
		  (unsigned long long)id, p);
	if (c.path)
		sb_json_str(sb, c.path, SIZE_MAX);
	else
		sb_puts(sb, "null");
	sb_printf(sb, ",\"%scontainer\":", p);
	if (c.ct)
		sb_json_str(sb, c.label, SIZE_MAX);
	else
		sb_puts(sb, "null");
}

static void text_task(struct sbuf *sb, const char *comm, int32_t pid,
		      int32_t prio)
{
	sb_text_str(sb, comm, ABICAP_COMM_LEN);
	sb_printf(sb, ":%d [%d]", pid, prio);
}

static void format_text(struct sbuf *sb, struct formatter *f,
			const union abicap_rec *r)
{
	unsigned int type = r->hdr.type;
	double ms = ((double)r->hdr.ts_ns - (double)f->t0_ns) / 1e6;
	char st[32];

	sb_printf(sb, "%12.3f %3u %-17s ", ms, r->hdr.cpu, event_name(type));
	switch (type) {
	case ABICAP_EV_SCHED_SWITCH:
		text_task(sb, r->sw.prev_comm, r->sw.prev_pid, r->sw.prev_prio);
		sb_printf(sb, " %s ==> ",
			  state_str(r->sw.prev_state, st, sizeof(st)));
		text_task(sb, r->sw.next_comm, r->sw.next_pid, r->sw.next_prio);
		if (r->sw.prev_cgroup || r->sw.next_cgroup) {
			sb_puts(sb, "  cgroups ");
			text_cgroup(sb, f, r->sw.prev_cgroup);
			sb_puts(sb, " -> ");
			text_cgroup(sb, f, r->sw.next_cgroup);
		}
		break;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
	case ABICAP_EV_SCHED_WAKING:
		text_task(sb, r->wk.comm, r->wk.pid, r->wk.prio);
		sb_printf(sb, " target_cpu=%d waker_pid=%d", r->wk.target_cpu,
			  r->wk.waker_pid);
		if (r->wk.cgroup) {
			sb_puts(sb, "  cgroup ");
			text_cgroup(sb, f, r->wk.cgroup);
		}
		break;
	case ABICAP_EV_CPU_IDLE:
		if (r->pw.state == UINT32_MAX)
			sb_printf(sb, "exit cpu_id=%u", r->pw.cpu_id);
		else
			sb_printf(sb, "state=%u cpu_id=%u", r->pw.state,
				  r->pw.cpu_id);
		break;
	case ABICAP_EV_CPU_FREQUENCY:
		sb_printf(sb, "state=%u kHz cpu_id=%u", r->pw.state,
			  r->pw.cpu_id);
		break;
	}
	sb_puts(sb, "\n");
}

static void json_comm(struct sbuf *sb, const char *key, const char *comm)
{
	sb_printf(sb, ",\"%s\":", key);
	sb_json_str(sb, comm, ABICAP_COMM_LEN);
}

static void format_json(struct sbuf *sb, const struct formatter *f,
			const union abicap_rec *r)
{
	unsigned int type = r->hdr.type;
	char st[32];

	sb_printf(sb, "{\"event\":\"%s\",\"ts_ns\":%llu,\"cpu\":%u",
		  event_name(type), (unsigned long long)r->hdr.ts_ns,
		  r->hdr.cpu);
	switch (type) {
	case ABICAP_EV_SCHED_SWITCH:
		json_comm(sb, "prev_comm", r->sw.prev_comm);
		sb_printf(sb, ",\"prev_pid\":%d,\"prev_tgid\":%d,"
			  "\"prev_prio\":%d,\"prev_state\":\"%s\","
			  "\"prev_state_raw\":%u",
			  r->sw.prev_pid, r->sw.prev_tgid, r->sw.prev_prio,
			  state_str(r->sw.prev_state, st, sizeof(st)),
			  r->sw.prev_state);
		json_comm(sb, "next_comm", r->sw.next_comm);
		sb_printf(sb, ",\"next_pid\":%d,\"next_tgid\":%d,"
			  "\"next_prio\":%d,\"preempt\":%s",
			  r->sw.next_pid, r->sw.next_tgid, r->sw.next_prio,
			  r->sw.preempt ? "true" : "false");
		json_cgroup(sb, f, "prev_", r->sw.prev_cgroup);
		json_cgroup(sb, f, "next_", r->sw.next_cgroup);
		break;
	case ABICAP_EV_SCHED_WAKEUP:
	case ABICAP_EV_SCHED_WAKEUP_NEW:
	case ABICAP_EV_SCHED_WAKING:
		json_comm(sb, "comm", r->wk.comm);
		sb_printf(sb, ",\"pid\":%d,\"tgid\":%d,\"prio\":%d,"
			  "\"target_cpu\":%d,\"waker_pid\":%d,"
			  "\"waker_tgid\":%d",
			  r->wk.pid, r->wk.tgid, r->wk.prio, r->wk.target_cpu,
			  r->wk.waker_pid, r->wk.waker_tgid);
		json_cgroup(sb, f, "", r->wk.cgroup);
		break;
	case ABICAP_EV_CPU_IDLE:
	case ABICAP_EV_CPU_FREQUENCY:
		sb_printf(sb, ",\"state\":%u,\"cpu_id\":%u", r->pw.state,
			  r->pw.cpu_id);
		break;
	}
	sb_puts(sb, "}\n");
}

void format_record(struct sbuf *sb, struct formatter *f,
		   const union abicap_rec *r)
{
	if (f->fmt == FMT_JSON)
		format_json(sb, f, r);
	else
		format_text(sb, f, r);
}
