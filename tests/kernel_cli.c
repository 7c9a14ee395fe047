// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/abicap as a user runs it: JSON a tool can parse, the summary on
 * Ctrl-C, stdout closed early, bad flags, exit codes (missing privilege:
 * kernel_privilege.c).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "harness.h"

#define ROUNDS 200

struct json_counts {
	int lines;
	/*
	 * switches out of a ping-pong thread: the two share one CPU, so each
	 * round hands it from one to the other and back, at least two a
	 * round whatever else runs there in between (direct ping -> pong
	 * switches are fewer when a task of a busy machine cuts in: once
	 * under 200 of them in 200 rounds)
	 */
	int pp_switches;
	int pp_wakeups; /* sched_wakeup of one ping-pong thread by the other */
	int pp_wakings;
};

static const char *pp_comm(const struct pingpong *pp, json_int_t tid)
{
	return tid == pp->ping_tid ? "abc_ping" :
	       tid == pp->pong_tid ? "abc_pong" : NULL;
}

/* Every line must be one JSON object; check the ping-pong threads' events. */
static struct json_counts check_json(char *out, const struct pingpong *pp)
{
	struct json_counts n = { 0 };
	char *save, *line;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_error_t e;
		json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, &e);
		const char *ev;
		json_int_t ts;

		cr_assert(j, "line %d is not JSON (%s): %s", n.lines, e.text,
			  line);
		n.lines++;
		ev = json_string_value(json_object_get(j, "event"));
		cr_assert(ev, "no \"event\": %s", line);
		cr_assert(json_is_integer(json_object_get(j, "ts_ns")));
		cr_assert(json_is_integer(json_object_get(j, "cpu")));
		ts = json_integer_value(json_object_get(j, "ts_ns"));
		if ((uint64_t)ts < pp->start_ns || (uint64_t)ts > pp->end_ns) {
			/* before the threads were named, or after */
		} else if (!strcmp(ev, "sched_switch")) {
			json_int_t prev = json_integer_value(json_object_get(j, "prev_pid"));
			json_int_t next = json_integer_value(json_object_get(j, "next_pid"));
			const char *st = json_string_value(json_object_get(j, "prev_state"));

			if (pp_comm(pp, prev)) {
				n.pp_switches++;
				cr_assert_str_eq(json_string_value(json_object_get(j, "prev_comm")),
						 pp_comm(pp, prev));
				if (pp_comm(pp, next))
					cr_assert_str_eq(json_string_value(json_object_get(j, "next_comm")),
							 pp_comm(pp, next));
				cr_assert(st && (!strcmp(st, "S") || !strcmp(st, "R") ||
						 !strcmp(st, "R+")), "state %s", st);
				cr_assert_eq(json_integer_value(json_object_get(j, "prev_tgid")),
					     getpid());
			}
		} else if (!strcmp(ev, "sched_wakeup") ||
			   !strcmp(ev, "sched_waking")) {
			json_int_t pid = json_integer_value(json_object_get(j, "pid"));
			json_int_t waker = json_integer_value(json_object_get(j, "waker_pid"));

			if (pp_comm(pp, pid) && pp_comm(pp, waker) && waker != pid) {
				cr_assert_str_eq(json_string_value(json_object_get(j, "comm")),
						 pp_comm(pp, pid));
				cr_assert_eq(json_integer_value(json_object_get(j, "waker_tgid")),
					     getpid());
				if (!strcmp(ev, "sched_wakeup"))
					n.pp_wakeups++;
				else
					n.pp_wakings++;
			}
		}
		json_decref(j);
	}
	return n;
}

static void spawn_trace(struct child *ch, const char *extra_dur,
			const char *events)
{
	char pid[16];
	char *argv[12] = { (char *)abicap_bin(), "trace", "--format", "json",
			   "-p", pid };
	int i = 6;
	char seen[4096];

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (extra_dur) {
		argv[i++] = "-d";
		argv[i++] = (char *)extra_dur;
	}
	if (events) {
		argv[i++] = "-e";
		argv[i++] = (char *)events;
	}
	spawn(ch, argv);
	wait_for_stderr(ch, "abicap: tracing", seen, sizeof(seen));
}

/*
 * By default no sched_waking record, yet every wakeup of one ping-pong
 * thread by the other names its waker (sched_waking's program keeps it,
 * writing nothing: issue 36); asked for, the waking records are there.
 */
Test(cli, json_stream_for_pingpong_ends_on_duration, .timeout = 60)
{
	for (int all = 0; all < 2; all++) {
		struct child ch;
		struct pingpong pp;
		struct json_counts n;
		char *out, *err;

		require_kernel();
		spawn_trace(&ch, "2",
			    all ? "sched_switch,sched_wakeup,sched_waking" : NULL);
		pingpong_run(&pp, ROUNDS, 0);
		out = read_all(ch.out_fd);
		err = read_all(ch.err_fd);
		cr_assert_eq(wait_exit(&ch, 30), 0, "stderr: %s", err);
		n = check_json(out, &pp);
		cr_assert_geq(n.pp_switches, ROUNDS, "%d switches", n.pp_switches);
		cr_assert_geq(n.pp_wakeups, ROUNDS, "%d wakeups", n.pp_wakeups);
		if (all)
			cr_assert_geq(n.pp_wakings, ROUNDS, "%d wakings",
				      n.pp_wakings);
		else
			cr_assert_eq(n.pp_wakings, 0, "%d wakings by default",
				     n.pp_wakings);
		cr_assert(strstr(err, " 0 dropped, 0 missed\n"), "stderr: %s", err);
		cr_assert(strstr(err, "dropped per CPU: cpu0 0"), "stderr: %s", err);
		/* 6.3+: no sched_waking program for the wakers alone */
		if (kernel_has_wakelist_wakers())
			cr_assert(strstr(err, "\n  wakers: sched_wakeup's "
					 "context, ") && !strstr(err, "(wakers "
					 "only"), "stderr: %s", err);
		else
			cr_assert_eq(strstr(err, "(wakers only: -e sched_waking "
					    "writes records)") == NULL, all,
				     "stderr: %s", err);
		free(out);
		free(err);
	}
}

Test(cli, ctrl_c_prints_summary_and_exits_0, .timeout = 60)
{
	struct child ch;
	struct pingpong pp;
	struct json_counts n;
	char *out, *err, line[128];

	require_kernel();
	spawn_trace(&ch, NULL, NULL);
	pingpong_run(&pp, ROUNDS, 0);
	/* at once: what the rings hold then is read out before the summary */
	kill(ch.pid, SIGINT);
	out = read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "stderr: %s", err);
	n = check_json(out, &pp);
	cr_assert_geq(n.pp_switches, ROUNDS);
	/* every line written is counted as received, and nothing dropped */
	snprintf(line, sizeof(line), " %d received, 0 dropped, 0 missed\n",
		 n.lines);
	cr_assert(strstr(err, line), "want '%s' in: %s", line, err);
	cr_assert(strstr(err, "sched_switch"), "%s", err);
	cr_assert(strstr(err, "dropped per CPU:"), "%s", err);
	free(out);
	free(err);
}

Test(cli, stdout_closed_early_is_a_clean_exit, .timeout = 60)
{
	char *argv[] = { (char *)abicap_bin(), "trace", NULL };
	struct child ch;
	struct pingpong pp;
	char seen[4096], *err;

	require_kernel();
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: tracing", seen, sizeof(seen));
	close(ch.out_fd); /* like `abicap trace | head` */
	pingpong_run(&pp, ROUNDS, 0);
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 0, "stderr: %s", err);
	cr_assert_null(strstr(err, "error"), "stderr: %s", err);
	cr_assert(strstr(err, "stdout was closed"), "stderr: %s", err);
	free(err);
}

static void expect_usage_error(char **argv, const char *says)
{
	struct child ch;
	char *err, *out;

	spawn(&ch, argv);
	out = read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 2, "stderr: %s", err);
	cr_assert_str_empty(out);
	cr_assert(strstr(err, says), "'%s' lacks '%s'", err, says);
	cr_assert_eq(strncmp(err, "abicap: error: ", 15), 0, "%s", err);
	cr_assert_eq(strchr(err, '\n') - err, (long)strlen(err) - 1,
		     "more than one line: %s", err);
	free(out);
	free(err);
}

Test(cli, bad_usage_exits_2_with_one_line)
{
	char *bin = (char *)abicap_bin();

	expect_usage_error((char *[]){ bin, "trace", "-e", "nope", NULL },
			   "unknown event 'nope'");
	expect_usage_error((char *[]){ bin, "trace", "-d", "soon", NULL },
			   "--duration 'soon'");
	expect_usage_error((char *[]){ bin, "frobnicate", NULL },
			   "unknown command 'frobnicate'");
}

/*
 * --drain-threads: more threads than CPU rings, not a number, or with a
 * transport that has no per-CPU rings: exit 2, one line naming the flag.
 */
Test(cli, drain_threads_bad_usage_exits_2_with_one_line)
{
	char *bin = (char *)abicap_bin(), *out = "build/cli-drain.abicap";
	int ncpus = libbpf_num_possible_cpus();
	char many[16], says[64];

	snprintf(many, sizeof(many), "%d", ncpus < 5 ? 5 : ncpus + 1);
	snprintf(says, sizeof(says), "--drain-threads %s: at most %d here",
		 many, ncpus);
	unlink(out);
	expect_usage_error((char *[]){ bin, "record", "-o", out,
				       "--drain-threads", many, NULL }, says);
	expect_usage_error((char *[]){ bin, "trace", "--drain-threads", many,
				       NULL }, says);
	expect_usage_error((char *[]){ bin, "trace", "--drain-threads", "x",
				       NULL }, "--drain-threads 'x': use auto, 0 "
			   "or a number of threads");
	expect_usage_error((char *[]){ bin, "record", "-o", out,
				       "--drain-threads", "1", "--transport",
				       "ringbuf", NULL },
			   "--drain-threads 1 and --transport ringbuf exclude "
			   "each other");
	expect_usage_error((char *[]){ bin, "trace", "--transport", "perfbuf",
				       "--drain-threads", "1", NULL },
			   "--drain-threads 1 and --transport perfbuf exclude "
			   "each other");
	expect_usage_error((char *[]){ bin, "serve", "--drain-threads", "1",
				       NULL }, "unknown option '--drain-threads' "
			   "for serve: it streams no records");
	cr_assert_eq(access(out, F_OK), -1, "a file was left");
}

/*
 * issue 13, CLI honesty: each was accepted, or failed with a misleading
 * error or exit code. -b 4096 overflowed the ring's u32 size (then "the
 * kernel refused to load ... verifier's log", exit 4, --force's file gone);
 * -o "" was exit 4; a command that cannot run gave exit 0; contract show
 * with an argument blamed the subcommand. None creates a file.
 */
Test(cli, dishonest_usage_is_exit_2_with_the_real_reason)
{
	char *bin = (char *)abicap_bin(), *out = "build/cli-honesty.abicap";

	unlink(out);
	expect_usage_error((char *[]){ bin, "record", "-o", out, "-b", "4096",
				       NULL },
			   "--buffer-size '4096': give megabytes from 1 to 2048");
	expect_usage_error((char *[]){ bin, "trace", "-b", "2049", NULL },
			   "give megabytes from 1 to 2048");
	expect_usage_error((char *[]){ bin, "record", "-o", "", "-d", "1", NULL },
			   "the output path is empty: give a file name");
	expect_usage_error((char *[]){ bin, "record", "-o", out, "--",
				       "/nonexistent", NULL },
			   "cannot run '/nonexistent': No such file or directory");
	expect_usage_error((char *[]){ bin, "record", "-o", out, "--",
				       "no-such-command-abicap", NULL },
			   "cannot run 'no-such-command-abicap'");
	expect_usage_error((char *[]){ bin, "contract", "show", "extra", NULL },
			   "unexpected argument 'extra'");
	cr_assert_eq(access(out, F_OK), -1, "a file was left");
}

/*
 * A command found but not runnable (a directory on the path): found only
 * when exec fails, after loading; still exit 2 and no file left.
 */
Test(cli, command_that_cannot_exec_fails_and_leaves_no_file, .timeout = 60)
{
	char *bin = (char *)abicap_bin(), *out = "build/cli-exec.abicap";
	struct run r;

	require_kernel();
	unlink(out);
	r = run_cmd((char *[]){ bin, "record", "-o", out, "--", "/tmp", NULL });
	cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
	cr_assert(strstr(r.err, "abicap: error: cannot run '/tmp': Permission "
			 "denied"), "%s", r.err);
	cr_assert_eq(access(out, F_OK), -1, "a file was left");
	free(r.out);
	free(r.err);
}

/* ulimit -n 16: the fd limit is named as the cause, with the fix. */
Test(cli, fd_limit_is_named, .timeout = 60)
{
	char cmd[512];
	struct run r;

	require_kernel();
	snprintf(cmd, sizeof(cmd), "ulimit -n 16 && exec %s trace -d 1",
		 abicap_bin());
	r = run_cmd((char *[]){ "bash", "-c", cmd, NULL });
	cr_assert_eq(r.code, 4, "exit %d: %s", r.code, r.err);
	cr_assert(strstr(r.err, "abicap: error: out of file descriptors loading "
			 "the BPF object (the limit, ulimit -n, is 16): raise it"),
		  "%s", r.err);
	cr_assert_null(strstr(r.err, "verifier"), "%s", r.err);
	free(r.out);
	free(r.err);
}

/*
 * A memory cgroup limited to 64 MiB (v1's memory controller, or cgroup2's
 * where the root delegates memory), made in dir. BPF maps are charged to
 * the cgroup of the task creating them (Linux 5.11).
 */
static void memcg_64m(char *dir, size_t len)
{
	char root[256] = "", line[1024], file[600];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	cr_assert(f);
	while (fgets(line, sizeof(line), f)) {
		char mnt[256], *sep = strstr(line, " - ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %255s", mnt) == 1 &&
		    ((!strncmp(sep, " - cgroup ", 10) && strstr(sep, "memory")) ||
		     (!strncmp(sep, " - cgroup2 ", 11) && !root[0])))
			snprintf(root, sizeof(root), "%s", mnt);
	}
	fclose(f);
	cr_assert(root[0], "no memory cgroup (v1) or cgroup2 mount");
	snprintf(dir, len, "%s/abicap-cli-%d", root, (int)getpid());
	cr_assert_eq(mkdir(dir, 0755), 0, "%s: %s", dir, strerror(errno));
	snprintf(file, sizeof(file), "%s/memory.max", dir);
	if (access(file, F_OK))
		snprintf(file, sizeof(file), "%s/memory.limit_in_bytes", dir);
	f = fopen(file, "w");
	cr_assert(f, "%s: %s (the memory controller is not delegated here)",
		  file, strerror(errno));
	cr_assert(fputs("67108864", f) >= 0 && !fclose(f), "%s", file);
}

/*
 * A ring buffer the kernel will not allocate (512 MiB in a 64 MiB memory
 * cgroup): the error names the map, its size and --buffer-size, not the
 * verifier.
 */
/* The error for -b 512 in a 64 MiB memory cgroup with transport T. */
static void map_creation_failure(const char *t, const char *want)
{
	char dir[512], cmd[1024];
	struct run r;

	require_kernel();
	memcg_64m(dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "echo $$ > %s/cgroup.procs && exec %s trace "
		 "-b 512 -d 1 --transport %s", dir, abicap_bin(), t);
	r = run_cmd((char *[]){ "bash", "-c", cmd, NULL });
	for (int i = 0; i < 50 && rmdir(dir); i++)
		usleep(100000);
	cr_assert_eq(r.code, 4, "exit %d: %s", r.code, r.err);
	cr_assert(strstr(r.err, want), "%s", r.err);
	free(r.out);
	free(r.err);
}

Test(cli, map_creation_failure_is_named, .timeout = 60)
{
	char want[256];

	map_creation_failure("ringbuf", "abicap: error: the kernel would not "
			     "create the BPF map 'events' (a 512 MiB ring "
			     "buffer): Cannot allocate memory; give a smaller "
			     "--buffer-size");
	/* per-CPU rings: here (2 CPUs) the first does not fit */
	snprintf(want, sizeof(want), "abicap: error: the kernel would not "
		 "create the ring buffer of CPU 0 (%d KiB each, for %d CPUs): "
		 "Cannot allocate memory; give a smaller --buffer-size",
		 (512 << 10) / libbpf_num_possible_cpus(),
		 libbpf_num_possible_cpus());
	map_creation_failure("percpu", want);
}

/* No byte a terminal acts on: controls other than newline, DEL, C1 (UTF-8 C2 80-9F). */
static void expect_terminal_safe(const char *what, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0; s[i]; i++)
		cr_assert(!((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f ||
			    (s[i] == 0xc2 && s[i + 1] >= 0x80 && s[i + 1] < 0xa0)),
			  "%s: byte 0x%02x at %zu reaches the terminal: %s", what,
			  s[i], i, text);
}

/*
 * issue 13, terminal safety: errors echo flag values and paths, check
 * prints names from a contract; each went to the terminal raw (an ESC
 * sequence could clear the screen or retitle the window). All escaped as
 * trace escapes comms: \xHH.
 */
Test(cli, no_control_byte_reaches_the_terminal)
{
	char *bin = (char *)abicap_bin(), con[] = "build/cli-evil-contract.json";
	const char *evil = "\x1b]0;owned\x07\x1b[2J\xc2\x9b";
	struct run r, show;
	char *doc, *at;
	FILE *f;

	r = run_cmd((char *[]){ bin, "trace", "-e", (char *)evil, NULL });
	cr_assert_eq(r.code, 2);
	expect_terminal_safe("trace -e", r.err);
	cr_assert(strstr(r.err, "'\\x1b]0;owned\\x07\\x1b[2J\\xc2\\x9b'"),
		  "%s", r.err);
	free(r.out);
	free(r.err);
	r = run_cmd((char *[]){ bin, "report", (char *)evil, NULL });
	cr_assert_eq(r.code, 2);
	expect_terminal_safe("report PATH", r.err);
	free(r.out);
	free(r.err);
	r = run_cmd((char *[]){ bin, "export", "x", "--perfetto", (char *)evil,
				NULL });
	cr_assert_neq(r.code, 0);
	expect_terminal_safe("export --perfetto PATH", r.err);
	free(r.out);
	free(r.err);

	/* check: a contract named with the sequence (JSON \u001b) */
	show = run_cmd((char *[]){ bin, "contract", "show", NULL });
	cr_assert_eq(show.code, 0);
	at = strstr(show.out, "\"name\": \"");
	cr_assert(at, "%s", show.out);
	at += 9;
	cr_assert(asprintf(&doc, "%.*s\\u001b]0;owned\\u0007\\u001b[2J%s",
			   (int)(at - show.out), show.out, at) > 0);
	f = fopen(con, "w");
	cr_assert(f && fputs(doc, f) >= 0 && !fclose(f));
	r = run_cmd((char *[]){ bin, "check", "--contract", con, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	expect_terminal_safe("check", r.out);
	cr_assert(strstr(r.out, "against contract \\x1b]0;owned\\x07\\x1b[2J"),
		  "%s", r.out);
	unlink(con);
	free(doc);
	free(show.out);
	free(show.err);
	free(r.out);
	free(r.err);
}

Test(cli, help_and_version_exit_0)
{
	char *bin = (char *)abicap_bin();
	struct child ch;
	char *out;

	spawn(&ch, (char *[]){ bin, "--help", NULL });
	out = read_all(ch.out_fd);
	cr_assert_eq(wait_exit(&ch, 10), 0);
	cr_assert(strstr(out, "trace"), "%s", out);
	cr_assert(strstr(out, "Exit codes"), "%s", out);
	free(out);
	spawn(&ch, (char *[]){ bin, "trace", "--help", NULL });
	out = read_all(ch.out_fd);
	cr_assert_eq(wait_exit(&ch, 10), 0);
	cr_assert(strstr(out, "Usage: abicap trace"), "%s", out);
	free(out);
	spawn(&ch, (char *[]){ bin, "--version", NULL });
	out = read_all(ch.out_fd);
	cr_assert_eq(wait_exit(&ch, 10), 0);
	cr_assert(!strncmp(out, "abicap ", 7), "%s", out);
	free(out);
}

/*
 * issue 17: a -p list over 255 bytes was cut there and the cut list
 * followed (exit 0). 63 idle processes, then the one that switches: its
 * events are there; 65 processes are an exit-2 error naming the limit.
 */
Test(cli, long_pid_list_is_followed_to_its_end, .timeout = 60)
{
	enum { IDLE = 63 };
	pid_t kids[IDLE + 2];
	char list[(IDLE + 2) * 12], *out, *err;
	size_t used = 0;
	struct child ch;
	int ticks = 0, code;

	require_kernel();
	for (int i = 0; i < IDLE + 2; i++) {
		kids[i] = fork();
		cr_assert_geq(kids[i], 0);
		if (!kids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;) {
				if (i == IDLE) /* the one to follow: switches often */
					usleep(1000);
				else
					pause();
			}
		}
		if (i <= IDLE)
			/* 7 digits whatever the pid: the list is over 255 bytes */
			used += snprintf(list + used, sizeof(list) - used, "%s%07d",
					 i ? "," : "", kids[i]);
	}
	cr_assert_gt(strlen(list), 255);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "trace", "-f", "json", "-e",
			       "sched_switch", "-p", list, "-d", "1", NULL });
	out = read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	code = wait_exit(&ch, 30);
	for (const char *p = out; (p = strstr(p, "\"prev_pid\":")); p++)
		ticks += atoi(p + 11) == kids[IDLE];
	cr_assert_eq(code, 0, "%s", err);
	cr_assert_gt(ticks, 100, "%d switches of the last pid in the list", ticks);
	free(out);
	free(err);

	snprintf(list + used, sizeof(list) - used, ",%d", kids[IDLE + 1]);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "trace", "-p", list, "-d",
			       "1", NULL });
	out = read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	code = wait_exit(&ch, 30);
	for (int i = 0; i < IDLE + 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	cr_assert_eq(code, 2, "%s", err);
	cr_assert(strstr(err, "at most 64 processes"), "%s", err);
	free(out);
	free(err);
}
