// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap record: capture to a file (capfile.h), optionally of one command. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "capfile/capfile.h"
#include "capfile/perfetto_export.h"
#include "event/cgnames.h"
#include "abi/checker.h"
#include "cmd/commands.h"
#include "abi/contract.h"
#include "event/events.h"
#include "lib/escape.h"
#include "abi/kernel.h"
#include "lib/outfile.h"
#include "live/runloop.h"
#include "cmd/trace.h"
#include "lib/util.h"

const char record_usage[] =
"Usage: abicap record -o FILE [OPTIONS] [-- COMMAND [ARGS...]]\n"
"Capture scheduler and power events into a capture file (zstd chunks with\n"
"checksums; a header saying what was captured and how; a trailer with the\n"
"counts). With a COMMAND, start it, follow it and every process it forks\n"
"(in the kernel), and stop when it exits. Power events belong to no task:\n"
"any task filter (-p, --tid, --comm, --cgroup, a command) leaves them out.\n"
"\n"
"  -o, --output FILE      the capture file (created 0600; never through a\n"
"                         symbolic link at any component of the path, nor in\n"
"                         a directory another user owns or may write)\n"
"      --force            replace FILE (and the --perfetto trace) if it exists,\n"
"                         once the new one is complete: on failure the old\n"
"                         one stays as it was\n"
"      --perfetto OUT     also write the capture as a Perfetto trace\n"
"                         (as abicap export --perfetto does)\n"
"  -d, --duration SECS    stop after SECS seconds (default: Ctrl-C, or the\n"
"                         command's exit)\n"
"  -e, --events LIST      as for trace\n"
"  -p, --pid PID[,PID]    as for trace (not with a command)\n"
"      --tid TID[,TID]    as for trace\n"
"      --comm NAME        as for trace\n"
"      --cgroup PATH      as for trace (the cgroup v2 subtree's tasks)\n"
"  -C, --cpu CPULIST      as for trace\n"
"  -b, --buffer-size MB   as for trace\n"
"      --attach MODE      as for trace\n"
"      --transport T      as for trace\n"
"  -c, --contract FILE    as for trace\n"
"  -v, --verbose          libbpf's log on stderr\n"
"  -h, --help             show this help\n"
"\n"
"Exit: 0 ok (with a command: also when the command failed; its status is\n"
"in the summary), 1 kernel cannot do it, 2 bad usage (an output path\n"
"refused, a command that cannot be run), 3 missing privilege, 4 runtime\n"
"failure (a new file holds what was written before it; one being replaced\n"
"with --force stays as it was).\n";

struct rec_state {
	struct capw *w;
	int werr; /* first write error, -errno */
	struct cgnames *names; /* NULL: no cgroup v2 hierarchy to name from */
	uint64_t last_cg; /* the last id looked at: most records repeat it */
	struct capture *c;
	uint64_t drops; /* records lost, as of the last look */
	uint64_t looked_ns; /* when that was */
};

/*
 * Between a BPF program taking its record's time and counting the record
 * as lost: the program's run, a few microseconds; a drop counted just
 * after a look may belong to a record stamped just before it.
 */
#define DROP_SLACK_NS 1000000ull

/*
 * After each drain: records lost since the last look go into the file as a
 * drop window (capfile.h) at once, so report can leave out what spans it.
 */
static void note_drops(void *ctx)
{
	struct rec_state *st = ctx;
	uint64_t d = capture_dropped_total(st->c), now = mono_ns(), from;
	int e;

	if (d > st->drops && !st->werr) {
		from = st->looked_ns > DROP_SLACK_NS ?
		       st->looked_ns - DROP_SLACK_NS : 0;
		e = capw_add_drop(st->w, from, now, d - st->drops);
		if (e)
			st->werr = e;
	}
	st->drops = d;
	st->looked_ns = now;
}

/* A cgroup's path goes into the file once, before the chunk using it. */
static void name_cgroup(struct rec_state *st, uint64_t id)
{
	const char *path;
	int e;

	if (!id || id == st->last_cg || !st->names)
		return;
	st->last_cg = id;
	if (!cgnames_first_use(st->names, id) ||
	    !(path = cgnames_path(st->names, id)))
		return;
	e = capw_add_cgroup(st->w, id, path);
	if (e && !st->werr)
		st->werr = e;
}

static int sink(void *ctx, const union abicap_rec *r)
{
	struct rec_state *st = ctx;
	int e;

	if (st->werr)
		return 0;
	if (r->hdr.type == ABICAP_EV_SCHED_SWITCH) {
		name_cgroup(st, r->sw.prev_cgroup);
		name_cgroup(st, r->sw.next_cgroup);
	} else if (r->hdr.type != ABICAP_EV_CPU_IDLE &&
		   r->hdr.type != ABICAP_EV_CPU_FREQUENCY) {
		name_cgroup(st, r->wk.cgroup);
	}
	e = capw_add(st->w, r, r->hdr.size);
	if (e)
		st->werr = e;
	return 0;
}

static bool sink_done(void *ctx)
{
	return ((struct rec_state *)ctx)->werr != 0;
}

/* A crc32 of the running kernel's BTF: which kernel this was, exactly. */
static json_t *btf_identity(void)
{
	FILE *f = fopen("/sys/kernel/btf/vmlinux", "rb");
	unsigned long crc = 0, size = 0;
	unsigned char buf[65536];
	char hex[16];
	size_t n;

	if (!f)
		return json_null();
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		crc = crc32(crc, buf, n);
		size += n;
	}
	fclose(f);
	snprintf(hex, sizeof(hex), "%08lx", crc);
	return json_pack("{s:I, s:s}", "size", (json_int_t)size, "crc32", hex);
}

/* -p, --tid, --comm, --cgroup or a followed command */
static bool task_filtered(const struct capture_opts *c)
{
	return c->npids || c->ntids || c->comm[0] || c->cgroup_id;
}

static json_t *int_array(const int32_t *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/*
 * What the capture was filtered to, for report: task filters mean a
 * capture does not see every switch of a CPU, or every task's.
 */
static json_t *filter_json(const struct trace_opts *o, pid_t child)
{
	json_t *cpus = json_null(), *cmd = json_null(), *cg = json_null();

	if (o->cap.cpus) {
		cpus = json_array();
		for (int i = 0; i < o->cap.ncpus; i++)
			if (o->cap.cpus[i])
				json_array_append_new(cpus, json_integer(i));
	}
	if (o->command) {
		cmd = json_array();
		for (char **a = o->command; *a; a++)
			json_array_append_new(cmd, json_escaped(*a, SIZE_MAX));
	}
	if (o->cap.cgroup_id)
		cg = json_pack("{s:I, s:o}", "id", (json_int_t)o->cap.cgroup_id,
			       "path", o->cgroup_path ?
			       json_escaped(o->cgroup_path, SIZE_MAX) : json_null());
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
		"tasks", task_filtered(&o->cap),
		"pids", int_array(o->cap.pids, child ? 0 : o->cap.npids),
		"tids", int_array(o->cap.tids, o->cap.ntids),
		"comm", o->cap.comm[0] ? json_escaped(o->cap.comm,
				ABICAP_COMM_LEN) : json_null(),
		"cgroup", cg, "cpus", cpus, "command", cmd,
		"command_pid", (json_int_t)child);
}

static char *metadata(struct capture *c, const struct trace_opts *o, int argc,
		      char **argv, uint64_t t0, pid_t child)
{
	const struct check_result *res = capture_check(c);
	const struct kernel_plan *plan = capture_plan(c);
	json_t *variants = json_object(), *degraded = json_array(), *cmdline =
		json_array(), *events = json_array(), *m;
	struct timespec rt;
	struct utsname uts;
	char *s;

	clock_gettime(CLOCK_REALTIME, &rt);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		const char *v = capture_variant(c, ev);
		char buf[64];

		if (!(o->cap.events & (1u << ev)))
			continue;
		json_array_append_new(events, json_string(event_name(ev)));
		snprintf(buf, sizeof(buf), "%s%s", v ? v : "-",
			 ev == ABICAP_EV_SCHED_SWITCH ? (plan->switch_prev_state ?
			 " (4 args)" : " (3 args)") : "");
		json_object_set_new(variants, event_name(ev), json_string(buf));
	}
	for (int i = 0; i < res->n; i++)
		if (res->v[i].status != V_OK)
			json_array_append_new(degraded, json_pack("{s:s, s:s, s:s}",
				"scope", res->v[i].scope, "item", res->v[i].item,
				"verdict", vstatus_str(res->v[i].status)));
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmdline, json_escaped(argv[i], SIZE_MAX));
	if (uname(&uts))
		memset(&uts, 0, sizeof(uts));
	/* the whole uname: exporters (Perfetto) pick layouts by the release */
	m = json_pack("{s:i, s:i, s:s, s:{s:s, s:s, s:s}, s:o, "
		      "s:{s:i, s:i, s:i, s:o}, s:o, s:s, "
		      "s:s, s:I, s:I, s:i, s:o, s:o, s:I}",
		      "capture_format", CAPFILE_VERSION,
		      "record_format", ABICAP_RECORD_VERSION,
		      "kernel", kernel_release(), "uname", "sysname", uts.sysname,
		      "version", uts.version, "machine", uts.machine,
		      "btf", btf_identity(),
		      "contract", "ok", res->count[V_OK], "degraded",
		      res->count[V_DEGRADED], "broken", res->count[V_BROKEN],
		      "not_ok", degraded, "variants", variants,
		      "transport", capture_transport(c),
		      "clock", "CLOCK_MONOTONIC",
		      "start_ns", (json_int_t)t0,
		      /* realtime = monotonic + boot_offset */
		      "boot_offset_ns", (json_int_t)((uint64_t)rt.tv_sec * 1000000000ull +
						      rt.tv_nsec - mono_ns()),
		      "ncpus", capture_ncpus(c), "events", events,
		      "command_line", cmdline,
		      "pid_filter", (json_int_t)(o->cap.npids ? o->cap.pids[0] : 0));
	if (m)
		json_object_set_new(m, "filter", filter_json(o, child));
	s = json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(m);
	return s;
}

static char *trailer(struct capture *c, double secs, uint64_t records,
		     const struct loop_opts *lo)
{
	struct abicap_counter sum[ABICAP_EV_COUNT], per[ABICAP_EV_COUNT];
	uint64_t aux[ABICAP_AUX_COUNT];
	json_t *evs = json_object(), *cpus = json_array(), *t;
	char *s;

	capture_counters(c, -1, sum);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		json_object_set_new(evs, event_name(ev), json_pack(
			"{s:I, s:I, s:I}", "seen", (json_int_t)sum[ev].seen,
			"received", (json_int_t)capture_received(c, ev),
			"dropped", (json_int_t)sum[ev].dropped));
	for (int cpu = 0; cpu < capture_ncpus(c); cpu++) {
		uint64_t seen = 0, drop = 0;

		capture_counters(c, cpu, per);
		for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
			seen += per[ev].seen;
			drop += per[ev].dropped;
		}
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:I}", "cpu",
			cpu, "seen", (json_int_t)seen, "dropped", (json_int_t)drop));
	}
	t = json_pack("{s:f, s:I, s:I, s:o, s:o}", "duration_s", secs,
		      "end_ns", (json_int_t)capture_end_ns(c),
		      "records", (json_int_t)records,
		      "events", evs, "cpus", cpus);
	if (!capture_aux(c, aux))
		json_object_set_new(t, "bookkeeping", json_pack(
			"{s:I, s:I, s:I, s:I, s:I, s:I}",
			"followed", (json_int_t)aux[ABICAP_AUX_FOLLOW_ADDED],
			"follow_failed", (json_int_t)aux[ABICAP_AUX_FOLLOW_FAILED],
			"followed_gone", (json_int_t)aux[ABICAP_AUX_FOLLOW_REMOVED],
			"wakers_lost", (json_int_t)aux[ABICAP_AUX_WAKER_LOST],
			"wakers_in_hash", (json_int_t)aux[ABICAP_AUX_WAKER_IN_HASH],
			"waker_context_unknown",
			(json_int_t)aux[ABICAP_AUX_IRQ_UNKNOWN]));
	if (lo->child_exited)
		json_object_set_new(t, "command_status", json_integer(
			WIFEXITED(lo->child_status) ? WEXITSTATUS(lo->child_status) :
			128 + WTERMSIG(lo->child_status)));
	s = json_dumps(t, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(t);
	return s;
}

/*
 * Create the output files (outfile.h) before attaching: privileges are
 * dropped once attached, and a root-owned abicap without CAP_DAC_OVERRIDE
 * could not create them in, say, a user's home directory (nor rename or
 * remove them at the end: a helper that keeps that one capability does).
 */
static int create_outputs(const struct trace_opts *o, struct outfile *out,
			  struct outfile *pf)
{
	char err[ERRMSG_LEN];
	int ret;

	memset(out, 0, sizeof(*out));
	memset(pf, 0, sizeof(*pf));
	out->fd = pf->fd = -1;
	out->dirfd = pf->dirfd = out->helper = pf->helper = -1;
	ret = o->perfetto ? outfile_distinct(o->perfetto, o->output,
					     "the capture", err, sizeof(err)) : 0;
	if (!ret && o->contract_path)
		ret = outfile_distinct(o->output, o->contract_path,
				       "the contract", err, sizeof(err));
	if (!ret && o->contract_path && o->perfetto)
		ret = outfile_distinct(o->perfetto, o->contract_path,
				       "the contract", err, sizeof(err));
	if (!ret)
		ret = outfile_open(out, o->output, o->force, err, sizeof(err));
	if (!ret && o->perfetto) {
		ret = outfile_open(pf, o->perfetto, o->force, err, sizeof(err));
		if (ret)
			outfile_abort(out, false);
	}
	if (!ret && (outfile_delegate(out, err, sizeof(err)) ||
		     (o->perfetto && outfile_delegate(pf, err, sizeof(err))))) {
		outfile_abort(out, false);
		outfile_abort(pf, false);
		ret = EXIT_RUNTIME;
	}
	if (ret)
		ab_error("%s", err);
	return ret;
}

/*
 * Fork the command, held on a pipe until the capture is attached, so its
 * first instruction is already traced. *exec_fd reads the errno of a
 * failed execvp, or EOF once the command runs.
 */
static pid_t start_command(char **cmd, int *go_fd, int *exec_fd)
{
	int p[2], e[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	if (pipe2(e, O_CLOEXEC)) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char c;
		int err;

		close(p[1]);
		close(e[0]);
		if (read(p[0], &c, 1) != 1)
			_exit(127); /* the capture failed: never run */
		close(p[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(e[1], &err, sizeof(err)) != sizeof(err))
			_exit(126);
		_exit(127);
	}
	close(p[0]);
	close(e[1]);
	*go_fd = p[1];
	*exec_fd = e[0];
	return pid;
}

/*
 * Can cmd be run (as execvp would find it)? 0 or an errno. Checked before
 * anything is created or loaded; command_started() catches what this
 * cannot tell (a directory, a file that is not an executable).
 */
static int command_found(const char *cmd)
{
	const char *dirs = getenv("PATH"), *p, *end;
	char buf[4096];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? errno : 0;
	if (!*cmd)
		return ENOENT;
	for (p = dirs ? dirs : "/bin:/usr/bin"; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", end > p ? (int)(end - p) :
			     1, end > p ? p : ".", cmd) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return 0;
		if (!*end)
			return ENOENT;
	}
}

/* 0 once the command runs, else why it could not be run. */
static int command_started(int exec_fd)
{
	int err = 0;
	ssize_t n;

	do
		n = read(exec_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(exec_fd);
	return n == sizeof(err) ? err : 0;
}

int do_record(int argc, char **argv)
{
	char err[ERRMSG_LEN], *meta, *trl;
	struct trace_opts o;
	struct rec_state st = { 0 };
	struct loop_opts lo = { 0 };
	struct contract *contract = NULL;
	struct outfile out, pf;
	struct capture *c;
	int ret, go_fd = -1, exec_fd = -1, keep_fd = -1, e;
	pid_t child = 0;

	ret = capture_prepare(argc, argv, true, &o, &contract);
	if (ret || o.help)
		return ret;
	/* power events belong to no task: any task filter leaves them out */
	if (task_filtered(&o.cap) || o.command)
		o.cap.events &= ~((1u << ABICAP_EV_CPU_IDLE) |
				  (1u << ABICAP_EV_CPU_FREQUENCY));
	if (!o.cap.events) {
		ab_error("cpu_idle and cpu_frequency belong to no task: with -p, "
			 "--tid, --comm, --cgroup or a command, add a sched event "
			 "to --events or drop the filter");
		contract_free(contract);
		return EXIT_USAGE;
	}
	e = o.command ? command_found(o.command[0]) : 0;
	if (e) {
		ab_error("cannot run '%s': %s (give a command on PATH or its "
			 "path)", o.command[0], strerror(e));
		contract_free(contract);
		return EXIT_USAGE;
	}
	ret = create_outputs(&o, &out, &pf);
	if (ret) {
		contract_free(contract);
		return ret;
	}
	if (o.command) {
		child = start_command(o.command, &go_fd, &exec_fd);
		if (child < 0) {
			ab_error("cannot start '%s': %s", o.command[0],
				 strerror(errno));
			contract_free(contract);
			ret = EXIT_RUNTIME;
			goto discard;
		}
		o.cap.pids[o.cap.npids++] = child;
		o.cap.follow_forks = true;
	}

	st.names = cgnames_live(err, sizeof(err));
	if (!st.names)
		ab_warn("cgroups will not be named in the file: %s", err);
	c = capture_open(&o.cap, sink, &st, &ret, err, sizeof(err));
	contract_free(contract);
	if (!c) {
		ab_error("%s", err);
		cgnames_free(st.names);
		goto kill_child;
	}
	meta = metadata(c, &o, argc, argv, capture_start_ns(c), child);
	if (!meta)
		snprintf(err, sizeof(err), "out of memory");
	if (meta && pf.fd >= 0)
		keep_fd = fcntl(out.fd, F_DUPFD_CLOEXEC, 0); /* for the export */
	st.w = meta ? capw_fdopen(out.fd, o.output, meta, err, sizeof(err)) : NULL;
	if (meta)
		out.fd = -1; /* the writer's now */
	free(meta);
	if (!st.w) {
		ab_error("%s", err);
		capture_close(c);
		cgnames_free(st.names);
		ret = EXIT_RUNTIME;
		goto kill_child;
	}
	fprintf(stderr, "abicap: recording %d event%s to %s%s%s; %s to stop\n",
		__builtin_popcount(o.cap.events),
		__builtin_popcount(o.cap.events) == 1 ? "" : "s", o.output,
		child ? " while running " : "", child ? o.command[0] : "",
		child ? "its exit or Ctrl-C" : "Ctrl-C or the duration");
	if (child) {
		if (write(go_fd, "g", 1) != 1)
			ab_warn("could not start the command");
		close(go_fd);
		go_fd = -1;
		e = command_started(exec_fd);
		exec_fd = -1;
		if (e) {
			ab_error("cannot run '%s': %s (give a command on PATH or "
				 "its path)", o.command[0], strerror(e));
			capw_close(st.w, "{}", err, sizeof(err));
			capture_close(c);
			cgnames_free(st.names);
			waitpid(child, NULL, 0);
			if (keep_fd >= 0)
				close(keep_fd);
			ret = EXIT_USAGE;
			child = 0;
			goto discard;
		}
	}
	lo.duration = o.duration;
	lo.child = child;
	lo.done = sink_done;
	lo.flush = note_drops;
	lo.ctx = &st;
	st.c = c;
	st.looked_ns = capture_start_ns(c);
	ret = run_loop(c, &lo);
	capture_stop(c);
	note_drops(&st);
	print_summary(c, o.cap.events, capture_secs(c));
	trl = trailer(c, capture_secs(c), capw_records(st.w), &lo);
	{
		uint64_t recs = capw_records(st.w);

		e = capw_close(st.w, trl ? trl : "{}", err, sizeof(err));
		free(trl);
		if (!e && !st.werr)
			e = outfile_commit(&out, err, sizeof(err));
		else
			outfile_abort(&out, true);
		if (st.werr || e) {
			if (st.werr)
				ab_error("cannot write '%s': %s (%s)", o.output,
					 strerror(-st.werr), out.tmp[0] ?
					 "the file it would have replaced is left "
					 "as it was" : "what was written before "
					 "stays readable");
			else
				ab_error("%s", err);
			ret = EXIT_RUNTIME;
		} else {
			fprintf(stderr, "abicap: wrote %llu records to %s\n",
				(unsigned long long)recs, o.output);
		}
	}
	capture_close(c);
	cgnames_free(st.names);
	if (!ret && pf.fd >= 0) {
		/*
		 * read back through the descriptor kept: without capabilities
		 * its directory may no longer be searchable by path
		 */
		char self[64];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", keep_fd);
		ret = export_dup_fd(keep_fd >= 0 ? self : o.output, &pf);
		if (!ret && outfile_commit(&pf, err, sizeof(err))) {
			ab_error("%s", err);
			ret = EXIT_RUNTIME;
		}
	}
	outfile_abort(&pf, false); /* if not committed: nothing half-written */
	if (keep_fd >= 0)
		close(keep_fd);
	if (child && !lo.child_exited) {
		/* stopped by a signal or the duration: the command goes on */
		ab_warn("the command (pid %d) is still running", child);
	} else if (child) {
		if (WIFEXITED(lo.child_status))
			fprintf(stderr, "abicap: the command exited with status %d\n",
				WEXITSTATUS(lo.child_status));
		else
			fprintf(stderr, "abicap: the command was killed by signal %d\n",
				WTERMSIG(lo.child_status));
	}
	return ret;
kill_child:
	if (keep_fd >= 0)
		close(keep_fd);
	if (child) {
		close(go_fd); /* the child sees EOF and exits without running */
		close(exec_fd);
		waitpid(child, NULL, 0);
	}
discard:
	outfile_abort(&out, false);
	outfile_abort(&pf, false);
	return ret;
}
