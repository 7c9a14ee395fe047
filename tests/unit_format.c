// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Text and JSON output, state letters, escaping of odd comms. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>
#include "event/cgnames.h"
#include "event/format.h"
#include "lib/escape.h"

static union abicap_rec switch_rec(const char *prev, const char *next,
				   uint32_t state, bool preempt)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr = (struct abicap_hdr){ .ts_ns = 5001234567ull,
				     .type = ABICAP_EV_SCHED_SWITCH,
				     .size = sizeof(r.sw), .cpu = 1 };
	strncpy(r.sw.prev_comm, prev, ABICAP_COMM_LEN - 1);
	strncpy(r.sw.next_comm, next, ABICAP_COMM_LEN - 1);
	r.sw.prev_pid = 101;
	r.sw.prev_tgid = 100;
	r.sw.prev_prio = 120;
	r.sw.next_pid = 202;
	r.sw.next_tgid = 200;
	r.sw.next_prio = 98;
	r.sw.prev_state = state;
	r.sw.preempt = preempt;
	return r;
}

static union abicap_rec wakeup_rec(unsigned int type, const char *comm)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr = (struct abicap_hdr){ .ts_ns = 5000000000ull, .type = type,
				     .size = sizeof(r.wk), .cpu = 0 };
	strncpy(r.wk.comm, comm, ABICAP_COMM_LEN - 1);
	r.wk.pid = 7;
	r.wk.tgid = 6;
	r.wk.prio = 120;
	r.wk.target_cpu = 1;
	r.wk.waker_pid = 9;
	r.wk.waker_tgid = 8;
	return r;
}

static union abicap_rec power_rec(unsigned int type, uint32_t state)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr = (struct abicap_hdr){ .ts_ns = 6000000000ull, .type = type,
				     .size = sizeof(r.pw), .cpu = 1 };
	r.pw.state = state;
	r.pw.cpu_id = 1;
	return r;
}

/* The test's formatter: its names and what it has shown carry over. */
static struct formatter tf;

static char *render(enum out_format fmt, const union abicap_rec *r)
{
	static char line[FORMAT_LINE_MAX];
	struct sbuf sb;

	sb_init(&sb, line, sizeof(line));
	tf.fmt = fmt;
	tf.t0_ns = 5000000000ull;
	format_record(&sb, &tf, r);
	cr_assert_not(sb.overflow);
	return line;
}

static json_t *parse_line(const char *line)
{
	json_error_t e;
	json_t *j;

	cr_assert_eq(line[strlen(line) - 1], '\n');
	j = json_loads(line, JSON_REJECT_DUPLICATES, &e);
	cr_assert(j, "not JSON (%s): %s", e.text, line);
	cr_assert(json_is_object(j));
	return j;
}

Test(state, letters_match_tracefs)
{
	char b[32];

	cr_assert_str_eq(state_str(0, b, sizeof(b)), "R");
	cr_assert_str_eq(state_str(0x1, b, sizeof(b)), "S");
	cr_assert_str_eq(state_str(0x2, b, sizeof(b)), "D");
	cr_assert_str_eq(state_str(0x4, b, sizeof(b)), "T");
	cr_assert_str_eq(state_str(0x8, b, sizeof(b)), "t");
	cr_assert_str_eq(state_str(0x10, b, sizeof(b)), "X");
	cr_assert_str_eq(state_str(0x20, b, sizeof(b)), "Z");
	cr_assert_str_eq(state_str(0x40, b, sizeof(b)), "P");
	cr_assert_str_eq(state_str(0x80, b, sizeof(b)), "I");
	cr_assert_str_eq(state_str(0x100, b, sizeof(b)), "R+");
	cr_assert_str_eq(state_str(0x3, b, sizeof(b)), "S|D");
}

Test(json, sched_switch_has_every_field)
{
	union abicap_rec r = switch_rec("bash", "worker 1", 0x2, false);
	json_t *j = parse_line(render(FMT_JSON, &r));

	cr_assert_str_eq(json_string_value(json_object_get(j, "event")),
			 "sched_switch");
	cr_assert_eq(json_integer_value(json_object_get(j, "ts_ns")),
		     5001234567ll);
	cr_assert_eq(json_integer_value(json_object_get(j, "cpu")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(j, "prev_comm")),
			 "bash");
	cr_assert_eq(json_integer_value(json_object_get(j, "prev_pid")), 101);
	cr_assert_eq(json_integer_value(json_object_get(j, "prev_tgid")), 100);
	cr_assert_eq(json_integer_value(json_object_get(j, "prev_prio")), 120);
	cr_assert_str_eq(json_string_value(json_object_get(j, "prev_state")),
			 "D");
	cr_assert_eq(json_integer_value(json_object_get(j, "prev_state_raw")),
		     2);
	cr_assert_str_eq(json_string_value(json_object_get(j, "next_comm")),
			 "worker 1");
	cr_assert_eq(json_integer_value(json_object_get(j, "next_pid")), 202);
	cr_assert_eq(json_integer_value(json_object_get(j, "next_tgid")), 200);
	cr_assert_eq(json_integer_value(json_object_get(j, "next_prio")), 98);
	cr_assert(json_is_false(json_object_get(j, "preempt")));
	cr_assert_eq(json_object_size(j), 20);
	json_decref(j);
}

Test(json, preempted_switch_is_R_plus)
{
	union abicap_rec r = switch_rec("a", "b", ABICAP_STATE_PREEMPTED, true);
	json_t *j = parse_line(render(FMT_JSON, &r));

	cr_assert_str_eq(json_string_value(json_object_get(j, "prev_state")),
			 "R+");
	cr_assert_eq(json_integer_value(json_object_get(j, "prev_state_raw")),
		     256);
	cr_assert(json_is_true(json_object_get(j, "preempt")));
	json_decref(j);
}

Test(json, wakeups_name_wakee_and_waker)
{
	static const unsigned int types[] = { ABICAP_EV_SCHED_WAKEUP,
					      ABICAP_EV_SCHED_WAKEUP_NEW,
					      ABICAP_EV_SCHED_WAKING };
	static const char *names[] = { "sched_wakeup", "sched_wakeup_new",
				       "sched_waking" };

	for (int i = 0; i < 3; i++) {
		union abicap_rec r = wakeup_rec(types[i], "kworker/0:1");
		json_t *j = parse_line(render(FMT_JSON, &r));

		cr_assert_str_eq(json_string_value(json_object_get(j, "event")),
				 names[i]);
		cr_assert_str_eq(json_string_value(json_object_get(j, "comm")),
				 "kworker/0:1");
		cr_assert_eq(json_integer_value(json_object_get(j, "pid")), 7);
		cr_assert_eq(json_integer_value(json_object_get(j, "tgid")), 6);
		cr_assert_eq(json_integer_value(json_object_get(j, "prio")), 120);
		cr_assert_eq(json_integer_value(json_object_get(j, "target_cpu")), 1);
		cr_assert_eq(json_integer_value(json_object_get(j, "waker_pid")), 9);
		cr_assert_eq(json_integer_value(json_object_get(j, "waker_tgid")), 8);
		cr_assert_eq(json_object_size(j), 13);
		json_decref(j);
	}
}

Test(json, power_events)
{
	union abicap_rec r = power_rec(ABICAP_EV_CPU_IDLE, UINT32_MAX);
	json_t *j = parse_line(render(FMT_JSON, &r));

	cr_assert_str_eq(json_string_value(json_object_get(j, "event")),
			 "cpu_idle");
	cr_assert_eq(json_integer_value(json_object_get(j, "state")),
		     4294967295ll);
	cr_assert_eq(json_integer_value(json_object_get(j, "cpu_id")), 1);
	json_decref(j);
	r = power_rec(ABICAP_EV_CPU_FREQUENCY, 2400000);
	j = parse_line(render(FMT_JSON, &r));
	cr_assert_str_eq(json_string_value(json_object_get(j, "event")),
			 "cpu_frequency");
	cr_assert_eq(json_integer_value(json_object_get(j, "state")), 2400000);
	json_decref(j);
}

Test(json, odd_comms_stay_valid_json)
{
	/* quotes, backslash, control bytes, UTF-8, and bytes that are not UTF-8 */
	static const struct {
		const char *comm;
		const char *decoded;
	} cases[] = {
		{ "say \"hi\"", "say \"hi\"" },
		{ "back\\slash", "back\\slash" },
		{ "tab\there\n", "tab\there\n" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "bad\xff\xfe", "bad\\xff\\xfe" },
		{ "cut\xc3", "cut\\xc3" },
		{ "\xed\xa0\x80surr", "\\xed\\xa0\\x80surr" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		union abicap_rec r = wakeup_rec(ABICAP_EV_SCHED_WAKEUP,
						cases[i].comm);
		json_t *j = parse_line(render(FMT_JSON, &r));

		cr_assert_str_eq(json_string_value(json_object_get(j, "comm")),
				 cases[i].decoded, "case %zu", i);
		json_decref(j);
	}
}

Test(text, switch_line_is_aligned_and_readable)
{
	union abicap_rec r = switch_rec("bash", "worker", 0x1, false);

	cr_assert_str_eq(render(FMT_TEXT, &r),
			 "       1.235   1 sched_switch      bash:101 [120] S ==> "
			 "worker:202 [98]\n");
	r = switch_rec("bash", "worker", ABICAP_STATE_PREEMPTED, true);
	cr_assert(strstr(render(FMT_TEXT, &r), " R+ ==> "));
}

Test(text, wakeup_and_power_lines)
{
	union abicap_rec r = wakeup_rec(ABICAP_EV_SCHED_WAKING, "my app");

	cr_assert_str_eq(render(FMT_TEXT, &r),
			 "       0.000   0 sched_waking      my app:7 [120] "
			 "target_cpu=1 waker_pid=9\n");
	r = power_rec(ABICAP_EV_CPU_IDLE, UINT32_MAX);
	cr_assert_str_eq(render(FMT_TEXT, &r),
			 "    1000.000   1 cpu_idle          exit cpu_id=1\n");
	r = power_rec(ABICAP_EV_CPU_IDLE, 2);
	cr_assert_str_eq(render(FMT_TEXT, &r),
			 "    1000.000   1 cpu_idle          state=2 cpu_id=1\n");
	r = power_rec(ABICAP_EV_CPU_FREQUENCY, 800000);
	cr_assert_str_eq(render(FMT_TEXT, &r),
			 "    1000.000   1 cpu_frequency     state=800000 kHz "
			 "cpu_id=1\n");
}

Test(text, control_and_invalid_bytes_escaped)
{
	union abicap_rec r = wakeup_rec(ABICAP_EV_SCHED_WAKEUP, "a\x1b[2J\xff");

	cr_assert(strstr(render(FMT_TEXT, &r), " a\\x1b[2J\\xff:7 "));
}

Test(sbuf, overflow_is_flagged_not_overrun)
{
	char buf[8];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	sb_puts(&sb, "1234567890");
	cr_assert(sb.overflow);
	cr_assert_eq(sb.len, 0);
	sb_init(&sb, buf, sizeof(buf));
	sb_printf(&sb, "%d", 1234567);
	cr_assert_not(sb.overflow);
	cr_assert_str_eq(buf, "1234567");
	sb_printf(&sb, "x");
	cr_assert(sb.overflow);
	cr_assert_str_eq(buf, "1234567");
}

Test(utf8, sequence_lengths)
{
	cr_assert_eq(utf8_seq_len((const unsigned char *)"a", 1), 1);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xc3\xa9", 2), 2);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xc0\xaf", 2), 0);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xe0\x80\xaf", 3), 0);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	cr_assert_eq(utf8_seq_len((const unsigned char *)"\xe2\x82", 2), 0);
}

/* Cgroup ids in output: named from a table, containers labelled, ids alone otherwise. */
Test(json, cgroups_are_named_with_their_containers)
{
	union abicap_rec r = switch_rec("bash", "worker", 0x1, false);
	struct cgnames *n = cgnames_table();
	json_t *j;

	cr_assert_null(format_cgroup_note(&tf), "no cgroup#ID shown yet");
	cr_assert(n);
	cr_assert_eq(cgnames_set(n, 77, "/system.slice/docker-"
		     "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081"
		     ".scope"), 0);
	cr_assert_eq(cgnames_set(n, 5, "/user.slice"), 0);
	r.sw.prev_cgroup = 5;
	r.sw.next_cgroup = 77;
	cr_assert(strstr(render(FMT_TEXT, &r), "  cgroups cgroup#5 -> cgroup#77\n"),
		  "%s", render(FMT_TEXT, &r));
	tf.names = n;
	/* text as JSON: the full path (was "systemd:user.slice", the last part) */
	cr_assert(strstr(render(FMT_TEXT, &r), "  cgroups /user.slice -> "
			 "docker:3f4e5a6b7c8d\n"), "%s", render(FMT_TEXT, &r));
	cr_assert_eq(cgnames_set(n, 6, "/system.slice/nginx.service"), 0);
	r.sw.prev_cgroup = 6;
	cr_assert(strstr(render(FMT_TEXT, &r), "  cgroups /system.slice/nginx."
			 "service -> docker:3f4e5a6b7c8d\n"), "%s",
		  render(FMT_TEXT, &r));
	r.sw.prev_cgroup = 5;
	j = parse_line(render(FMT_JSON, &r));
	cr_assert_eq(json_integer_value(json_object_get(j, "next_cgroup_id")), 77);
	cr_assert(strstr(json_string_value(json_object_get(j, "next_cgroup")),
			 "/docker-3f4e"));
	cr_assert_str_eq(json_string_value(json_object_get(j, "next_container")),
			 "docker:3f4e5a6b7c8d");
	cr_assert_str_eq(json_string_value(json_object_get(j, "prev_cgroup")),
			 "/user.slice");
	cr_assert(json_is_null(json_object_get(j, "prev_container")));
	json_decref(j);
	r.sw.next_cgroup = 999; /* not in the table */
	j = parse_line(render(FMT_JSON, &r));
	cr_assert(json_is_null(json_object_get(j, "next_cgroup")));
	json_decref(j);
	/* in text its id, and the summary's note says what that means */
	cr_assert(strstr(render(FMT_TEXT, &r), "-> cgroup#999\n"), "%s",
		  render(FMT_TEXT, &r));
	cr_assert(format_cgroup_note(&tf) && strstr(format_cgroup_note(&tf),
		  "cgroup#ID: a cgroup whose path was not known"), "%s",
		  format_cgroup_note(&tf) ?: "(none)");
	tf.names = NULL;
	cgnames_free(n);
}

/*
 * json_escaped: a valid UTF-8 name is the JSON string of itself (controls
 * and reordering marks included: JSON escapes them on output), with or
 * without the fast path (issue 34: it escaped, then parsed its own output,
 * for every name); an invalid byte becomes the text \xNN, never a string
 * jansson would refuse.
 */
Test(json, escaped_names_keep_valid_utf8_and_mark_invalid_bytes)
{
	static const struct { const char *in, *want; } c[] = {
		{ "abc_ping", "abc_ping" },
		{ "tab\there", "tab\there" },
		{ "\xe2\x80\xae" "rtl", "\xe2\x80\xae" "rtl" }, /* U+202E */
		{ "c1\xc2\x85", "c1\xc2\x85" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "bad\xff", "bad\\xff" },
		{ "over\xc0\xaf", "over\\xc0\\xaf" },
		{ "sur\xed\xa0\x80", "sur\\xed\\xa0\\x80" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		json_t *j = json_escaped(c[i].in, SIZE_MAX);

		cr_assert(j && json_is_string(j), "case %zu: not a string", i);
		cr_assert_str_eq(json_string_value(j), c[i].want, "case %zu", i);
		json_decref(j);
	}
}
