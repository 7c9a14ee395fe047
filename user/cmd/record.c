// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap record: capture to a file (capfile.h), optionally of one command. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "capfile/capfile.h"
#include "capfile/capsink.h"
#include "report/perfetto_export.h"
#include "event/cgnames.h"
#include "event/cgroup.h"
#include "cmd/commands.h"
#include "abi/contract.h"
#include "lib/outfile.h"
#include "cmd/record_meta.h"
#include "live/runloop.h"
#include "live/spawn.h"
#include "cmd/capture_opts.h"
#include "lib/util.h"

static const struct opt record_own[] = {
	{ "output", 'o', "FILE", "the capture file (created 0600; never through "
	  "a symbolic link at any component of the path, nor in a directory "
	  "another user owns or may write; under sudo, written into a "
	  "directory of the user who ran sudo, it is given to that user, so "
	  "that report needs no sudo)" },
	{ "force", OPT_LONG('f'), NULL, "replace FILE (and the --perfetto trace) "
	  "if it exists, once the new one is complete: on failure the old one "
	  "stays as it was" },
	{ "perfetto", OPT_LONG('P'), "OUT", "also write the capture as a "
	  "Perfetto trace (as abicap export --perfetto does; the same rules "
	  "as for FILE)" },
	{ "duration", 'd', "SECS", "stop after SECS seconds (default: Ctrl-C, or "
	  "the command's exit)" },
	{ 0 },
};

const struct cmd_spec record_spec = {
	.name = "record",
	.synopsis =
"Usage: abicap record -o FILE [OPTIONS] [-- COMMAND [ARGS...]]\n"
"Capture scheduler and power events into a capture file (zstd chunks with\n"
"checksums; a header saying what was captured and how; a trailer with the\n"
"counts). With a COMMAND, start it, follow it and every process it forks\n"
"(in the kernel), and stop when it exits: the command's processes are the\n"
"filter, so -p cannot be given with one. Power events belong to no task:\n"
"any task filter (-p, --tid, --comm, --cgroup, a command) leaves them out.\n",
	.groups = { record_own, opts_capture_filter, opts_capture_buffer,
		    opts_capture_kernel,
		    opts_verbose, opts_help },
	.epilog =
"The trailer stores, for each cgroup named in the file, its CPU quota\n"
"throttling over the capture (cpu.stat read at the start and the end; on a\n"
"hybrid system the v1 cpu cgroup of the same path): report shows it.\n"
"Exit: 0 ok (with a command: also when the command failed; its status is\n"
"in the summary), 1 kernel cannot do it, 2 bad usage (an output path\n"
"refused, a command that cannot be run), 3 missing privilege, 4 runtime\n"
"failure (a new file holds what was written before it; one being replaced\n"
"with --force stays as it was).\n",
	.stop_at_operand = true,
};

struct rec_state {
	struct capsink s;
	struct capture *c;
	uint64_t *per_cpu; /* records lost on each CPU, as of the last look */
};

/*
 * The records lost since the last look, as drop windows: one per CPU
 * whose count grew (its total the sum of the CPUs', read once, so the
 * windows and the running count agree), else one of any CPU.
 */
static void note_drops(struct rec_state *st, uint64_t now)
{
	int n = st->per_cpu ? capture_dropped_per_cpu(st->c, st->per_cpu,
						      capture_ncpus(st->c)) : -1;
	uint64_t d = 0;

	for (int i = 0; i < n; i++)
		d += st->per_cpu[i];
	if (n < 0 || n < capture_ncpus(st->c))
		d = capture_dropped_total(st->c);
	capsink_drops(&st->s, d, n < 0 ? NULL : st->per_cpu, n, now);
}

/* After each drain: the drops, and the records so far as a chunk once a second. */
static void after_drain(void *ctx)
{
	struct rec_state *st = ctx;
	uint64_t now = mono_ns();

	note_drops(st, now);
	capsink_flush_due(&st->s, now);
}

static bool sink_done(void *ctx)
{
	return capsink_done(&((struct rec_state *)ctx)->s);
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
		ret = outfile_open_capture(out, o->output, o->force, err,
					   sizeof(err));
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

/* The events a filter leaves, and the command: 0, or EXIT_USAGE (reported). */
static int check_events_and_command(struct trace_opts *o)
{
	int e;

	/* power events belong to no task: any task filter leaves them out */
	if (capture_task_filtered(&o->cap) || o->command)
		o->cap.events &= ~((1u << ABICAP_EV_CPU_IDLE) |
				   (1u << ABICAP_EV_CPU_FREQUENCY));
	if (!o->cap.events) {
		ab_error("cpu_idle and cpu_frequency belong to no task: with -p, "
			 "--tid, --comm, --cgroup or a command, add a sched event "
			 "to --events or drop the filter");
		return EXIT_USAGE;
	}
	e = o->command ? command_found(o->command[0]) : 0;
	if (e) {
		ab_error("cannot run '%s': %s (give a command on PATH or its "
			 "path)", o->command[0], strerror(e));
		return EXIT_USAGE;
	}
	return 0;
}

/* What the recording leaves to close it: the files and the export. */
struct rec_end {
	const struct trace_opts *o;
	struct rec_state *st;
	struct capture *c;
	struct outfile *out, *pf;
	int keep_fd; /* the capture, for the export (-1: none) */
	int xret; /* the export's exit code */
	bool exported;
};

/*
 * Write the trailer and close the capture; the trace from it first (read
 * back through the descriptor kept: without capabilities its directory
 * may no longer be searchable by path, and once committed it may be the
 * sudo user's, which a root without capabilities cannot open); commit the
 * capture. ret: the run's exit code so far; the one after.
 */
static int close_capture(struct rec_end *z, char *trl, int ret)
{
	struct rec_state *st = z->st;
	uint64_t recs = capw_records(st->s.w),
		 ondisk = capw_records_written(st->s.w);
	char err[ERRMSG_LEN];
	int e = capw_close(st->s.w, trl ? trl : "{}", err, sizeof(err));

	if (!e && !st->s.werr && !ret && z->pf->fd >= 0) {
		char self[64];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", z->keep_fd);
		z->xret = export_dup_fd(z->keep_fd >= 0 ? self : z->o->output,
					z->pf);
		z->exported = true;
	}
	if (!e && !st->s.werr)
		e = outfile_commit(z->out, err, sizeof(err));
	else
		outfile_abort(z->out, true);
	if (st->s.werr && z->out->replace)
		ab_error("cannot write '%s': %s (the file it would have replaced "
			 "is left as it was)", z->o->output, strerror(-st->s.werr));
	else if (st->s.werr)
		/* not the buffer's doing: the summary counts them received */
		ab_error("cannot write '%s': %s (its first %llu records read "
			 "back; the %llu received after are not in it)",
			 z->o->output, strerror(-st->s.werr),
			 (unsigned long long)ondisk, (unsigned long long)
			 (capture_received_total(z->c) - ondisk));
	else if (e)
		ab_error("%s", err);
	else
		ab_note("wrote %llu records to %s", (unsigned long long)recs,
			z->o->output);
	return st->s.werr || e ? EXIT_RUNTIME : ret;
}

/*
 * The capture's header (its metadata) on out's descriptor, which the
 * writer takes; *keep_fd: a duplicate for the export (pf), else -1. NULL
 * with err.
 */
static struct capw *open_writer(struct capture *c, const struct record_meta *rm,
				pid_t child, const struct trace_opts *o,
				struct outfile *out, const struct outfile *pf,
				int *keep_fd, char *err, size_t errlen)
{
	char *meta = record_metadata(c, rm, capture_start_ns(c), child);
	struct capw *w;

	if (!meta) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (pf->fd >= 0)
		*keep_fd = fcntl(out->fd, F_DUPFD_CLOEXEC, 0);
	w = capw_fdopen(out->fd, o->output, meta, err, errlen);
	out->fd = -1; /* the writer's now */
	free(meta);
	return w;
}

/* Let the held command go: 0 once it runs, else why it could not (errno). */
static int release_command(int *go_fd, int *exec_fd)
{
	int e;

	if (write(*go_fd, "g", 1) != 1)
		ab_warn("could not start the command");
	close(*go_fd);
	*go_fd = -1;
	e = command_started(*exec_fd); /* which closes it */
	*exec_fd = -1;
	return e;
}

/* How the followed command ended, or that it goes on. */
static void command_status(pid_t child, const struct loop_opts *lo)
{
	if (child && !lo->child_exited)
		/* stopped by a signal or the duration: the command goes on */
		ab_warn("the command (pid %d) is still running", child);
	else if (child && WIFEXITED(lo->child_status))
		fprintf(stderr, "abicap: the command exited with status %d\n",
			WEXITSTATUS(lo->child_status));
	else if (child)
		fprintf(stderr, "abicap: the command was killed by signal %d\n",
			WTERMSIG(lo->child_status));
}

/*
 * cpu.stat at the start, for each cgroup's throttling over the capture:
 * in a thread while the loop drains the rings (issue 32: 30,000 empty
 * cgroups, read while nothing drained, made record drop 38-94% of its
 * events; read before attaching, they delayed it 1.7 s); a command is
 * held until it is taken. Where no thread starts, *snap is taken here.
 * NULL without a cgroup v2 mount.
 */
static struct cg_cpu_snap_job *snapshot_start(struct cg_cpu_roots *roots,
					      struct cg_cpu_snap **snap)
{
	char cgroot[4096], err[ERRMSG_LEN];
	struct cg_cpu_snap_job *job;

	if (cgroup_root(cgroot, sizeof(cgroot), err, sizeof(err)))
		return NULL;
	cg_cpu_roots_find(roots, cgroot);
	job = cg_cpu_snap_start(roots);
	if (!job)
		*snap = cg_cpu_snap_take(roots);
	return job;
}

/* The start's snapshot, once its thread has taken it (none: as it was). */
static void snapshot_wait(struct cg_cpu_snap_job **job, struct cg_cpu_snap **snap)
{
	if (*job)
		*snap = cg_cpu_snap_wait(*job);
	*job = NULL;
}

/* A recording's state, from its options to its files. */
struct recorder {
	struct trace_opts o;
	struct rec_state st;
	struct cg_cpu_roots roots;
	struct cg_cpu_snap *snap; /* cpu.stat at the start */
	struct cg_cpu_snap_job *job; /* the thread taking it */
	struct loop_opts lo;
	struct outfile out, pf; /* the capture, the Perfetto trace */
	struct capture *c;
	int go_fd, exec_fd, keep_fd;
	pid_t child; /* the command run (0: none) */
};

/*
 * A start that failed once the outputs exist: the snapshot's thread
 * joined, the held command let go without running (it sees EOF) and
 * reaped, the outputs removed unwritten. ret, for the caller to return.
 */
static int rec_abandon(struct recorder *r, int ret)
{
	cg_cpu_snap_free(cg_cpu_snap_wait(r->job));
	cg_cpu_snap_free(r->snap);
	if (r->keep_fd >= 0)
		close(r->keep_fd);
	if (r->child > 0) {
		close(r->go_fd);
		close(r->exec_fd);
		waitpid(r->child, NULL, 0);
	}
	outfile_abort(&r->out, false);
	outfile_abort(&r->pf, false);
	return ret;
}

/*
 * The options, the outputs, the command (held), the capture attached and
 * the capture file's header: -1 once recording, else the exit code (what
 * was made undone).
 */
static int rec_start(struct recorder *r, int argc, char **argv)
{
	char err[ERRMSG_LEN];
	struct contract *contract = NULL;
	struct record_meta rm;
	int ret;

	ret = capture_prepare(&record_spec, argc, argv, &r->o, &contract);
	if (ret || r->o.help)
		return ret;
	if (check_events_and_command(&r->o)) {
		contract_free(contract);
		return EXIT_USAGE;
	}
	ret = create_outputs(&r->o, &r->out, &r->pf);
	if (ret) {
		contract_free(contract);
		return ret;
	}
	if (r->o.command) {
		r->child = spawn_held(r->o.command, &r->go_fd, &r->exec_fd);
		if (r->child < 0) {
			ab_error("cannot start '%s': %s", r->o.command[0],
				 strerror(errno));
			contract_free(contract);
			r->child = 0;
			return rec_abandon(r, EXIT_RUNTIME);
		}
		r->o.cap.pids[r->o.cap.npids++] = r->child;
		r->o.cap.follow_forks = true;
	}
	r->st.s.names = cgnames_live(err, sizeof(err));
	if (!r->st.s.names)
		ab_warn("cgroups will not be named in the file: %s", err);
	r->c = capture_open(&r->o.cap, capsink_record, &r->st.s, &ret, err,
			    sizeof(err));
	if (r->c && r->st.s.names)
		r->job = snapshot_start(&r->roots, &r->snap);
	contract_free(contract);
	if (!r->c) {
		ab_error("%s", err);
		cgnames_free(r->st.s.names);
		return rec_abandon(r, ret);
	}
	rm = (struct record_meta){ &r->o.cap, CAPFILE_VERSION, argc, argv,
				  r->o.command, r->o.cgroup_path };
	r->st.s.w = open_writer(r->c, &rm, r->child, &r->o, &r->out, &r->pf,
				&r->keep_fd, err, sizeof(err));
	if (!r->st.s.w) {
		ab_error("%s", err);
		capture_close(r->c);
		cgnames_free(r->st.s.names);
		return rec_abandon(r, EXIT_RUNTIME);
	}
	return -1;
}

/*
 * The command let go, once the start's cpu.stat is taken: nothing of it
 * can fill the rings before then, and throttling it met before that
 * reading would be missed (seen on a loaded machine: 0.45 ms of a quota's
 * throttling). -1, or the exit code (undone) if it could not run.
 */
static int rec_release(struct recorder *r)
{
	char err[ERRMSG_LEN];
	int e;

	if (!r->child)
		return -1;
	snapshot_wait(&r->job, &r->snap);
	e = release_command(&r->go_fd, &r->exec_fd);
	if (!e)
		return -1;
	ab_error("cannot run '%s': %s (give a command on PATH or its path)",
		 r->o.command[0], strerror(e));
	capw_close(r->st.s.w, "{}", err, sizeof(err));
	capture_close(r->c);
	cgnames_free(r->st.s.names);
	capsink_free(&r->st.s);
	return rec_abandon(r, EXIT_USAGE); /* it has exited: reaped there */
}

/* Record until a signal, the duration or the command's end; the summary. */
static int rec_run(struct recorder *r)
{
	struct rec_state *st = &r->st;
	int ret, e;

	r->lo = (struct loop_opts){ .duration = r->o.duration,
		.child = r->child, .done = sink_done, .flush = after_drain,
		.ctx = st };
	st->c = r->c;
	st->s.looked_ns = capture_start_ns(r->c);
	/* NULL: the losses as windows of any CPU */
	st->per_cpu = calloc((size_t)capture_ncpus(r->c), sizeof(*st->per_cpu));
	st->s.flushed_ns = mono_ns();
	ret = run_loop(r->c, &r->lo);
	if ((e = capture_stop(r->c))) {
		ab_error("reading the ring buffer's last records failed: %s",
			 strerror(-e));
		ret = EXIT_RUNTIME;
	}
	note_drops(st, mono_ns());
	print_summary(r->c, r->o.cap.events, capture_secs(r->c));
	return ret;
}

/*
 * The trailer (with the cgroups' throttling over the capture), the file
 * closed and committed, the export; ret: the run's exit code so far.
 */
static int rec_finish(struct recorder *r, int ret)
{
	struct rec_state *st = &r->st;
	struct captrailer_cgroup *thr;
	char err[ERRMSG_LEN], *trl;
	struct rec_end end;

	snapshot_wait(&r->job, &r->snap);
	thr = r->snap ? record_throttling(&r->roots, r->snap, st->s.names,
					  st->s.named, st->s.nnamed) : NULL;
	trl = record_trailer(r->c, capture_secs(r->c), st->s.w,
			     &r->lo, thr, thr ? st->s.nnamed : 0, st->s.names);
	free(thr);
	cg_cpu_snap_free(r->snap);
	r->snap = NULL;
	end = (struct rec_end){ &r->o, st, r->c, &r->out, &r->pf, r->keep_fd,
				0, false };
	ret = close_capture(&end, trl, ret);
	free(trl);
	capture_close(r->c);
	cgnames_free(st->s.names);
	capsink_free(&st->s);
	free(st->per_cpu);
	if (!ret && end.exported) {
		ret = end.xret;
		if (!ret && outfile_commit(&r->pf, err, sizeof(err))) {
			ab_error("%s", err);
			ret = EXIT_RUNTIME;
		}
	}
	outfile_abort(&r->pf, false); /* if not committed: nothing half-written */
	if (r->keep_fd >= 0)
		close(r->keep_fd);
	command_status(r->child, &r->lo);
	return ret;
}

int do_record(int argc, char **argv)
{
	struct recorder r = { .go_fd = -1, .exec_fd = -1, .keep_fd = -1 };
	int ret = rec_start(&r, argc, argv);

	if (ret >= 0)
		return ret;
	ab_note("recording %d event%s to %s%s%s; %s to stop",
		__builtin_popcount(r.o.cap.events),
		__builtin_popcount(r.o.cap.events) == 1 ? "" : "s", r.o.output,
		r.child ? " while running " : "", r.child ? r.o.command[0] : "",
		r.child ? "its exit or Ctrl-C" : "Ctrl-C or the duration");
	ret = rec_release(&r);
	if (ret >= 0)
		return ret;
	return rec_finish(&r, rec_run(&r));
}
