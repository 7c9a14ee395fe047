// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * capfile/capmeta: what the writer writes the reader reads back, member
 * for member (and writes again byte for byte); a member of the wrong type
 * is named and read as absent, the rest still read.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capmeta.h"

static char err[256];

Test(capmeta, header_round_trip)
{
	static char *argv[] = { "abicap", "record", "-o", "x.abicap" },
		*cmd[] = { "sleep", "1" };
	static int32_t pids[] = { 42 }, cpus[] = { 0, 3 };
	struct capmeta m, back;
	char *a, *b;

	capmeta_init(&m);
	m.capture_format = 4;
	m.record_format = 3;
	m.kernel = "6.18.0";
	m.sysname = "Linux";
	m.ncpus = 4;
	m.events_given = true;
	m.events = 1u << ABICAP_EV_SCHED_SWITCH | 1u << ABICAP_EV_SCHED_WAKING;
	m.variant[ABICAP_EV_SCHED_SWITCH] = "tp_btf (4 args)";
	m.command_line = argv;
	m.ncommand_line = 4;
	m.pid_filter = 42;
	m.start_ns = 123;
	m.filter = (struct capmeta_filter){ .present = true, .tasks = true,
		.pids = pids, .npids = 1, .comm = "x\xff", .cpus_given = true,
		.cpus = cpus, .ncpus = 2, .command = cmd, .ncommand = 2,
		.command_pid = 7, .cgroup = true, .cgroup_id = 99 };
	a = capmeta_write(&m);
	cr_assert(a);
	cr_assert_eq(capmeta_read(&back, a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(back.capture_format, 4);
	cr_assert_eq(back.record_format, 3);
	cr_assert_str_eq(back.kernel, "6.18.0");
	cr_assert_str_eq(back.sysname, "Linux");
	cr_assert_null(back.version);
	cr_assert_eq(capmeta_ncpus(&back), 4);
	cr_assert_eq(back.events, m.events);
	cr_assert_str_eq(back.variant[ABICAP_EV_SCHED_SWITCH], "tp_btf (4 args)");
	cr_assert_eq(back.ncommand_line, 4);
	cr_assert_str_eq(back.command_line[3], "x.abicap");
	cr_assert_eq(back.pid_filter, 42);
	cr_assert(back.filter.present && back.filter.tasks);
	cr_assert_eq(back.filter.npids, 1);
	cr_assert_eq(back.filter.pids[0], 42);
	cr_assert_str_eq(back.filter.comm, "x\\xff"); /* escaped as written */
	cr_assert(back.filter.cpus_given && back.filter.ncpus == 2 &&
		  back.filter.cpus[1] == 3);
	cr_assert(back.filter.cgroup && back.filter.cgroup_id == 99 &&
		  !back.filter.cgroup_path);
	cr_assert_eq(back.filter.command_pid, 7);
	cr_assert_eq(back.btf, false);
	b = capmeta_write(&back);
	cr_assert_str_eq(b, a);
	free(a);
	free(b);
	capmeta_free(&back);
}

Test(capmeta, wrong_types_are_named_and_read_as_absent)
{
	struct capmeta m;

	cr_assert_eq(capmeta_read(&m, "{\"ncpus\":\"2\",\"kernel\":\"6.1\","
				  "\"events\":[\"sched_switch\"]}", err,
				  sizeof(err)), -1);
	cr_assert(strstr(err, "\"ncpus\"") && strstr(err, "not an integer"),
		  "%s", err);
	cr_assert_eq(capmeta_ncpus(&m), 0);
	cr_assert_str_eq(m.kernel, "6.1"); /* the rest is read */
	cr_assert(m.events_given && m.events == 1u << ABICAP_EV_SCHED_SWITCH);
	capmeta_free(&m);
	cr_assert_eq(capmeta_read(&m, "[1]", err, sizeof(err)), -1);
	cr_assert(strstr(err, "not a JSON object"), "%s", err);
	capmeta_free(&m);
	cr_assert_eq(capmeta_read(&m, "{}", err, sizeof(err)), 0);
	cr_assert_eq(m.capture_format, CAPMETA_ABSENT);
	cr_assert_not(m.filter.present);
	capmeta_free(&m);
}

Test(capmeta, trailer_round_trip_with_cgroup_throttling)
{
	struct captrailer_cgroup cg[] = {
		{ 5, "/a", true, true, 80, 40, 5260000123 },
		{ 6, "/b", false, false, 0, 0, 0 },
	};
	struct captrailer_cpu cpus[] = { { 0, 10, 1 }, { 1, 20, 0 } };
	struct captrailer t, back;
	const struct captrailer_cgroup *c;
	char *a, *b;

	captrailer_init(&t);
	t.duration_s = 8.5;
	t.records = 30;
	t.end_ns = 99;
	t.event[ABICAP_EV_SCHED_SWITCH] = true;
	t.seen[ABICAP_EV_SCHED_SWITCH] = 30;
	t.dropped[ABICAP_EV_SCHED_SWITCH] = 1;
	t.cpus = cpus;
	t.ncpus = 2;
	t.misses_known = true;
	t.miss_on[ABICAP_EV_SCHED_SWITCH] = true;
	t.miss[ABICAP_EV_SCHED_SWITCH] = 3;
	t.command_exited = true;
	t.command_status = 130;
	t.throttle_given = true;
	t.cg = cg;
	t.ncg = 2;
	a = captrailer_write(&t);
	cr_assert(a);
	cr_assert_eq(captrailer_read(&back, a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(back.records, 30);
	cr_assert_eq(back.dropped[ABICAP_EV_SCHED_SWITCH], 1);
	cr_assert_eq(back.ncpus, 2);
	cr_assert_eq(back.cpus[1].seen, 20);
	cr_assert(back.misses_known && back.miss[ABICAP_EV_SCHED_SWITCH] == 3);
	cr_assert(back.command_exited && back.command_status == 130);
	c = captrailer_cgroup(&back, 5);
	cr_assert(c && c->known && c->v1 && c->throttled_ns == 5260000123 &&
		  c->nr_throttled == 40 && c->nr_periods == 80);
	cr_assert_str_eq(c->path, "/a");
	c = captrailer_cgroup(&back, 6);
	cr_assert(c && !c->known);
	cr_assert_null(captrailer_cgroup(&back, 7));
	b = captrailer_write(&back);
	cr_assert_str_eq(b, a);
	free(a);
	free(b);
	captrailer_free(&back);
}

/*
 * The containers' names record found ("containers") and how many it had
 * no room for ("containers_not_listed"): written, read back typed, and
 * written again byte for byte.
 */
Test(capmeta, trailer_round_trip_with_containers)
{
	struct captrailer_ct ct[2] = {
		{ .id = "9601db7daeea", .names = { .name = "web" } },
		{ .id = "abc", .names = { .pod = "p", .ns = "default",
					  .name = "c" } },
	};
	struct captrailer t, back;
	char *a, *b;

	captrailer_init(&t);
	t.records = 1;
	t.ct = ct;
	t.nct = 2;
	t.ct_not_listed = 5;
	a = captrailer_write(&t);
	cr_assert(a);
	cr_assert(strstr(a, "\"containers\":{\"9601db7daeea\":{"), "%s", a);
	cr_assert(strstr(a, "\"containers_not_listed\":5"), "%s", a);
	cr_assert_eq(captrailer_read(&back, a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(back.nct, 2);
	cr_assert_eq(back.ct_not_listed, 5);
	cr_assert_str_eq(back.ct[0].id, "9601db7daeea");
	cr_assert_str_eq(back.ct[0].names.name, "web");
	cr_assert_str_eq(back.ct[1].names.pod, "p");
	cr_assert_str_eq(back.ct[1].names.ns, "default");
	b = captrailer_write(&back);
	cr_assert_str_eq(b, a);
	free(a);
	free(b);
	captrailer_free(&back);
}

/*
 * An entry that is no container's names is named (it was skipped
 * unsaid), the others still read; a container id too long for one is too.
 */
Test(capmeta, trailer_container_entry_of_the_wrong_shape_is_named)
{
	struct captrailer t;

	cr_assert_eq(captrailer_read(&t, "{\"containers\":{\"a\":{\"container_"
				     "name\":\"x\"},\"b\":[1],\"c\":{}}}", err,
				     sizeof(err)), -1);
	cr_assert(strstr(err, "trailer.containers member \"b\" is not a "
			 "container's names"), "%s", err);
	cr_assert_eq(t.nct, 1);
	cr_assert_str_eq(t.ct[0].id, "a");
	cr_assert_str_eq(t.ct[0].names.name, "x");
	captrailer_free(&t);
	cr_assert_eq(captrailer_read(&t, "{\"containers\":[]}", err,
				     sizeof(err)), -1);
	cr_assert(strstr(err, "\"containers\" is not an object"), "%s", err);
	captrailer_free(&t);
}

/* A trailer naming more containers than record keeps: the rest counted, said. */
Test(capmeta, trailer_with_too_many_containers_keeps_the_limit)
{
	size_t n = CAPTRAILER_CT_MAX + 10, len = 64 + n * 40, o;
	char *json = malloc(len);
	struct captrailer t;

	cr_assert(json);
	o = (size_t)snprintf(json, len, "{\"containers\":{");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(json + o, len - o, "%s\"c%zu\":{\"container_"
				      "name\":\"x\"}", i ? "," : "", i);
	snprintf(json + o, len - o, "}}");
	cr_assert_eq(captrailer_read(&t, json, err, sizeof(err)), -1);
	cr_assert(strstr(err, "over 2048 containers"), "%s", err);
	cr_assert_eq(t.nct, CAPTRAILER_CT_MAX);
	cr_assert_eq(t.ct_not_listed, 10);
	captrailer_free(&t);
	free(json);
}
