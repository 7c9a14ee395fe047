// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Faults a production host meets: signals while tracing and recording,
 * nothing of abicap left in the kernel after any exit, two instances at
 * once, a disk that fills up while recording, stdout closed early, and
 * kernels abicap must refuse before attaching (no BTF, a tracepoint gone).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <linux/filter.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sysinfo.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "btf_fixture.h"
#include "capfile/capfile.h"
#include "harness.h"
#include "event/events.h"
#include "lib/util.h"
#include "lib/bpflog.h"
#include "live/features.h"

#define path(n) scratch_path(n)

TestSuite(faults, .init = scratch_init, .fini = scratch_fini, .timeout = 120);

/*
 * The kernel objects of the abicap instances running now: programs by name
 * (bpftool shows them as tp_btf_sched_switch, raw_tp_cpu_idle, ...), and
 * the links and maps of those programs, by id. Ids are not reused soon, so
 * "none of these ids exists any more" means they were all freed.
 */
#define MAX_KOBJ 256
struct kobjs {
	int prog[MAX_KOBJ], link[MAX_KOBJ], map[MAX_KOBJ];
	int nprog, nlink, nmap;
};

static json_t *bpftool_list(const char *what)
{
	char cmd[64];
	json_t *j;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "bpftool -j %s show 2>/dev/null", what);
	p = popen(cmd, "r");
	cr_assert(p);
	j = json_loadf(p, JSON_DISABLE_EOF_CHECK, NULL);
	pclose(p);
	cr_assert(json_is_array(j), "'%s' gave no JSON list", cmd);
	return j;
}

static bool has(const int *ids, int n, int id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static void add_id(int *ids, int *n, int id)
{
	if (!has(ids, *n, id) && *n < MAX_KOBJ)
		ids[(*n)++] = id;
}

static bool our_name(const char *name)
{
	return name && (!strncmp(name, "tp_btf_", 7) || !strncmp(name, "raw_tp_", 7)) &&
	       (strstr(name, "_sched_") || strstr(name, "_cpu_") ||
		strstr(name, "_csd_"));
}

/* abicap programs there before the test (another instance on the machine) */
static struct kobjs before;

/*
 * The programs the process pid holds (the prog_id lines of its fds in
 * /proc/PID/fdinfo): another abicap that starts on the machine during the
 * test is not this one (a busy machine: 22 programs counted, not 10).
 */
static void held_progs(pid_t pid, int *ids, int *n)
{
	char dir[64], fdinfo[320], line[128];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
	d = opendir(dir);
	cr_assert(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		FILE *f;

		snprintf(fdinfo, sizeof(fdinfo), "%s/%s", dir, e->d_name);
		f = fopen(fdinfo, "re");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "prog_id:", 8))
				add_id(ids, n, atoi(line + 8));
		if (f)
			fclose(f);
	}
	closedir(d);
}

/*
 * The abicap objects loaded since the test began; with pids, only those
 * of these processes (0: none).
 */
static struct kobjs ours_now(pid_t pid_a, pid_t pid_b)
{
	json_t *progs = bpftool_list("prog"), *links = bpftool_list("link"), *o, *m;
	struct kobjs k = { 0 };
	int held[MAX_KOBJ], nheld = 0;
	size_t i, j;

	if (pid_a)
		held_progs(pid_a, held, &nheld);
	if (pid_b)
		held_progs(pid_b, held, &nheld);
	json_array_foreach(progs, i, o) {
		if (!our_name(json_string_value(json_object_get(o, "name"))) ||
		    has(before.prog, before.nprog,
			json_integer_value(json_object_get(o, "id"))) ||
		    (pid_a && !has(held, nheld,
				   json_integer_value(json_object_get(o, "id")))))
			continue;
		add_id(k.prog, &k.nprog, json_integer_value(json_object_get(o, "id")));
		json_array_foreach(json_object_get(o, "map_ids"), j, m)
			add_id(k.map, &k.nmap, json_integer_value(m));
	}
	json_array_foreach(links, i, o)
		if (has(k.prog, k.nprog, json_integer_value(json_object_get(o, "prog_id"))))
			add_id(k.link, &k.nlink, json_integer_value(json_object_get(o, "id")));
	json_decref(progs);
	json_decref(links);
	return k;
}

/* How many of k's objects exist now. */
static int still_there(const char *what, const int *ids, int n)
{
	json_t *l = bpftool_list(what), *o;
	int left = 0;
	size_t i;

	json_array_foreach(l, i, o)
		left += has(ids, n, json_integer_value(json_object_get(o, "id")));
	json_decref(l);
	return left;
}

/* Objects are freed when their last reference goes (after RCU): 5 s at most. */
static void assert_all_freed(const struct kobjs *k, const char *after)
{
	int p = 0, l = 0, m = 0;

	for (int i = 0; i < 50; i++, usleep(100000)) {
		p = still_there("prog", k->prog, k->nprog);
		l = still_there("link", k->link, k->nlink);
		m = still_there("map", k->map, k->nmap);
		if (!p && !l && !m)
			break;
	}
	cr_assert(!p && !l && !m, "after %s: %d of %d programs, %d of %d links, "
		  "%d of %d maps of abicap left in the kernel", after, p,
		  k->nprog, l, k->nlink, m, k->nmap);
}

/*
 * Programs for sched_wakeup's wakers beyond sched_waking's: on 6.3+ the
 * three csd_* programs instead of it (bpf/waker.bpf.h)
 */
static int wakers_extra(void)
{
	return kernel_has_wakelist_wakers() ? 3 - 1 : 0;
}

/*
 * While abicap runs (process pid_a, and pid_b if not 0): its programs, one
 * link each, and their maps are there.
 */
static struct kobjs assert_attached(pid_t pid_a, pid_t pid_b, int nprogs)
{
	struct kobjs k = ours_now(pid_a, pid_b);

	cr_assert_eq(k.nprog, nprogs, "%d abicap programs loaded, not %d",
		     k.nprog, nprogs);
	cr_assert_eq(k.nlink, k.nprog, "%d links for %d programs", k.nlink, k.nprog);
	cr_assert_geq(k.nmap, 4, "%d maps", k.nmap);
	return k;
}

/*
 * Note the abicap programs loaded now, to leave them out: those of a test
 * before that are not freed yet, or of an abicap someone else runs.
 */
static void note_others(void)
{
	before = ours_now(0, 0);
}

static void trace_and_end(int sig)
{
	char *argv[] = { (char *)abicap_bin(), "trace", "-f", "json", NULL };
	char seen[4096], what[32];
	struct child ch;
	struct kobjs k;

	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: tracing", seen, sizeof(seen));
	k = assert_attached(ch.pid, 0, ABICAP_EV_COUNT + wakers_extra());
	kill(ch.pid, sig);
	free(read_all(ch.out_fd));
	free(read_all(ch.err_fd));
	waitpid(ch.pid, NULL, 0);
	snprintf(what, sizeof(what), "trace ended by %s", strsignal(sig));
	assert_all_freed(&k, what);
}

Test(faults, nothing_left_in_the_kernel_after_any_exit)
{
	require_kernel();
	note_others();
	trace_and_end(SIGINT);
	trace_and_end(SIGTERM);
	trace_and_end(SIGKILL);
}

/* What a capture file holds, read back with the capture reader. */
struct readback {
	/* in the workload's window: pong switched in, pong woken by ping */
	long long records, pp_switches, pp_wakeups;
	long long pp_woken; /* sched_wakeups of pong, whoever the waker */
	long long ping_switches; /* ping switched in (a failure's clue) */
	/* every record's: the first and last time, one past the highest CPU */
	long long first_ns, last_ns, cpus;
	int end; /* capr_next's last return: 0 clean or cut short, -1 damaged */
	bool cut_short;
	json_t *trailer;
};

static struct readback read_capture(const char *file, const struct pingpong *pp)
{
	struct readback b = { 0 };
	union abicap_rec rec;
	char err[ERRMSG_LEN];
	struct capr *r = capr_open(file, err, sizeof(err));

	cr_assert(r, "%s", err);
	while ((b.end = capr_next(r, &rec)) == 1) {
		if (!b.records || (long long)rec.hdr.ts_ns < b.first_ns)
			b.first_ns = (long long)rec.hdr.ts_ns;
		if ((long long)rec.hdr.ts_ns > b.last_ns)
			b.last_ns = (long long)rec.hdr.ts_ns;
		if (rec.hdr.cpu >= b.cpus)
			b.cpus = rec.hdr.cpu + 1;
		b.records++;
		if (!pp_window(pp, &rec))
			continue;
		if (rec.hdr.type == ABICAP_EV_SCHED_SWITCH &&
		    rec.sw.next_pid == pp->pong_tid)
			b.pp_switches++;
		if (rec.hdr.type == ABICAP_EV_SCHED_SWITCH &&
		    rec.sw.next_pid == pp->ping_tid)
			b.ping_switches++;
		if (rec.hdr.type == ABICAP_EV_SCHED_WAKEUP &&
		    rec.wk.pid == pp->pong_tid && rec.wk.waker_pid == pp->ping_tid)
			b.pp_wakeups++;
		if (rec.hdr.type == ABICAP_EV_SCHED_WAKEUP &&
		    rec.wk.pid == pp->pong_tid)
			b.pp_woken++;
	}
	cr_assert_eq(b.end, 0, "%s: %s", file, capr_error(r));
	b.cut_short = capr_cut_short(r);
	if (capr_trailer(r))
		b.trailer = json_loads(capr_trailer(r), 0, NULL);
	capr_close(r);
	return b;
}

static long long jint(json_t *o, const char *a, const char *b, const char *c)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	if (c)
		v = json_object_get(v, c);
	cr_assert(json_is_integer(v), "trailer has no %s.%s.%s", a, b ? b : "",
		  c ? c : "");
	return json_integer_value(v);
}

/* Every event the kernel saw is in the file, or counted as dropped. */
static void assert_counts_add_up(const struct readback *b)
{
	long long received = 0, dropped = 0;

	cr_assert(b->trailer, "no trailer");
	cr_assert_eq(jint(b->trailer, "records", NULL, NULL), b->records,
		     "the trailer counts %lld records, the file holds %lld",
		     jint(b->trailer, "records", NULL, NULL), b->records);
	/* the span the views take from it is the records' own */
	cr_assert_eq(jint(b->trailer, "span", "first_ns", NULL), b->first_ns);
	cr_assert_eq(jint(b->trailer, "span", "last_ns", NULL), b->last_ns);
	cr_assert_eq(jint(b->trailer, "span", "cpus", NULL), b->cpus);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		const char *n = event_name(ev);
		long long s = jint(b->trailer, "events", n, "seen"),
			  r = jint(b->trailer, "events", n, "received"),
			  d = jint(b->trailer, "events", n, "dropped");

		cr_assert_eq(s, r + d, "%s: seen %lld, received %lld, dropped %lld",
			     n, s, r, d);
		received += r;
		dropped += d;
	}
	cr_assert_eq(received, b->records, "%lld received, %lld in the file",
		     received, b->records);
	/* the workload below is far from filling 16 MiB: nothing may drop */
	cr_assert_eq(dropped, 0, "%lld events dropped", dropped);
}

/* report on the file: exit 0, and whether it says the file was cut short. */
static void assert_report(char *file, bool cut)
{
	struct child ch;
	char *out, *err;

	spawn(&ch, (char *[]){ (char *)abicap_bin(), "report", file, NULL });
	out = read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 60), 0, "%s", err);
	cr_assert_eq(strstr(out, "CUT SHORT: no trailer") != NULL, cut, "%s", out);
	cr_assert_eq(strstr(err, "was cut short") != NULL, cut, "%s", err);
	free(out);
	free(err);
}

/*
 * Until the running recorder's file holds all of the workload's `rounds`
 * switch-ins of pong (one CPU: at least one per exchange) in complete
 * chunks: record writes what it has at least once a second, however few
 * (issue 37). Decided by reading the file; 100 s only bounds a failure,
 * after which record is killed and what it said is shown.
 */
static void wait_on_disk(const char *file, const struct pingpong *pp, int rounds,
			 struct child *ch)
{
	struct readback b = { 0 };
	uint64_t end = mono_ns() + 100000000000ull;
	char *err;

	do {
		json_decref(b.trailer);
		b = read_capture(file, pp);
		if (b.pp_switches >= rounds)
			return;
		usleep(100000);
	} while (mono_ns() < end);
	kill(ch->pid, SIGKILL);
	err = read_all(ch->err_fd);
	cr_assert_fail("%s: only %lld of pong's %d switch-ins written in 100 s "
		       "while recording; record said: %s", file, b.pp_switches,
		       rounds, err);
}

/*
 * record -p (this process: the ping-pong's threads), the workload
 * (`rounds` exchanges on CPU 0), then sig. -p: the file holds the workload,
 * not the machine (CI's loaded run timed out at 120 s: a system-wide
 * file grows with the storm, and it is read again every 0.1 s until the
 * workload is in it).
 * SIGINT/SIGTERM: the ring is drained, the last chunk and the trailer are
 * written, exit 0, and the counts add up. SIGKILL: the file reads back up
 * to its last complete chunk and report says it was cut short. After
 * either, nothing of abicap is left in the kernel.
 */
static struct readback record_and_end(int sig, int rounds, struct pingpong *pp)
{
	char *file = path(sig == SIGKILL ? "kill.abicap" : "sig.abicap");
	/*
	 * at nice -10 into 256 MB: what this is about is how record ends, so
	 * its reader gets the CPU time it needs on a loaded machine (issue
	 * 36: beside the storm it fell 11,220 switch-ins of pong behind in
	 * 60 s), and all of the workload fits the ring should it still fall
	 * behind (CI's loaded run: 100,000 exchanges were not all in the
	 * file 60 s later)
	 */
	char self[16], *argv[] = { "nice", "-n", "-10", (char *)abicap_bin(),
				   "record", "-o", file, "--force", "-p", self,
				   "-b", "256", NULL };
	char seen[4096], what[32], *err, want[128];
	struct readback b;
	struct child ch;
	struct kobjs k;
	int status;

	snprintf(self, sizeof(self), "%d", getpid());
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: recording", seen, sizeof(seen));
	/* -p: the four sched events and sched_process_free */
	k = assert_attached(ch.pid, 0, 5 + wakers_extra());
	pingpong_run(pp, rounds, 0);
	if (sig == SIGKILL)
		wait_on_disk(file, pp, rounds, &ch);
	kill(ch.pid, sig);
	free(read_all(ch.out_fd));
	err = read_all(ch.err_fd);
	snprintf(what, sizeof(what), "record ended by %s", strsignal(sig));
	if (sig == SIGKILL) {
		waitpid(ch.pid, &status, 0);
		cr_assert(WIFSIGNALED(status));
	} else {
		cr_assert_eq(wait_exit(&ch, 30), 0, "%s: %s", what, err);
	}
	assert_all_freed(&k, what);
	b = read_capture(file, pp);
	if (sig != SIGKILL) {
		snprintf(want, sizeof(want), "abicap: wrote %lld records to %s\n",
			 b.records, file);
		cr_assert(strstr(err, want), "%s: want '%s' in: %s", what, want, err);
	}
	free(err);
	cr_assert_eq(b.cut_short, sig == SIGKILL, "%s", what);
	assert_report(file, sig == SIGKILL);
	return b;
}

/*
 * SIGHUP (a closed terminal or ssh session), SIGUSR1/2 and SIGALRM ended
 * record without its trailer (issue 13): each is handled as SIGTERM is.
 */
Test(faults, record_ends_cleanly_on_every_stop_signal)
{
	int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM };

	require_kernel();
	note_others();
	for (int i = 0; i < 6; i++) {
		struct pingpong pp;
		struct readback b = record_and_end(sigs[i], 20000, &pp);

		assert_counts_add_up(&b);
		/* one CPU: pong runs at least once per exchange */
		if (b.pp_switches < 20000) {
			char *t = json_dumps(b.trailer, JSON_COMPACT);

			cr_assert_fail("%s: pong switched in %lld times (ping "
				       "%lld, pong woken %lld) in the window "
				       "%lld..%lld; trailer: %s",
				       strsignal(sigs[i]), b.pp_switches,
				       b.ping_switches, b.pp_woken,
				       (long long)pp.start_ns,
				       (long long)pp.end_ns, t ? t : "?");
		}
		cr_assert_gt(b.pp_wakeups, 0, "%s: no wakeup of pong by ping",
			     strsignal(sigs[i]));
		json_decref(b.trailer);
	}
}

/*
 * kill -9 in the middle: everything up to the last complete chunk reads
 * back, and that is everything the workload did (written within a second).
 */
Test(faults, record_killed_reads_back_to_its_last_chunk, .timeout = 180)
{
	struct pingpong pp;
	struct readback b;

	require_kernel();
	note_others();
	b = record_and_end(SIGKILL, 100000, &pp); /* well past one 1 MiB chunk */
	cr_assert_null(b.trailer);
	cr_assert_geq(b.pp_switches, 100000, "pong switched in %lld times",
		      b.pp_switches);
}

/*
 * A quiet recorder killed keeps what it saw (issue 37: a system-wide
 * record at 3,629 events in 8 s stayed at its header for 7 s; killed, it
 * read back 0 records): 200 exchanges, far below one chunk, are in the
 * file before the kill.
 */
Test(faults, record_killed_while_quiet_keeps_the_last_second)
{
	struct pingpong pp;
	struct readback b;

	require_kernel();
	note_others();
	b = record_and_end(SIGKILL, 200, &pp);
	cr_assert_null(b.trailer);
	cr_assert_geq(b.pp_switches, 200, "pong switched in %lld times",
		      b.pp_switches);
	/* the kill keeps records, not the waker's attribution: any wakeup */
	cr_assert_gt(b.pp_woken, 0, "no wakeup of pong");
}

Test(faults, two_instances_at_once)
{
	char pid[16], seen[4096];
	char *argv[] = { (char *)abicap_bin(), "trace", "-f", "json", "-p", pid,
			 "-d", "2", NULL };
	struct child a, b;
	struct pingpong pp;
	struct kobjs k;
	char *oa, *ob;

	require_kernel();
	note_others();
	snprintf(pid, sizeof(pid), "%d", getpid());
	spawn(&a, argv);
	spawn(&b, argv);
	wait_for_stderr(&a, "abicap: tracing", seen, sizeof(seen));
	wait_for_stderr(&b, "abicap: tracing", seen, sizeof(seen));
	/* -p: the four sched events and sched_process_free, in each */
	k = assert_attached(a.pid, b.pid, 2 * (5 + wakers_extra()));
	pingpong_run(&pp, 500, 0);
	oa = read_all(a.out_fd);
	ob = read_all(b.out_fd);
	free(read_all(a.err_fd));
	free(read_all(b.err_fd));
	cr_assert_eq(wait_exit(&a, 30), 0);
	cr_assert_eq(wait_exit(&b, 30), 0);
	cr_assert(strstr(oa, "\"abc_ping\"") && strstr(ob, "\"abc_ping\""),
		  "both instances see the workload");
	free(oa);
	free(ob);
	assert_all_freed(&k, "two instances");
}

/* Has it exited? (without reaping it: wait_exit() wants its status) */
static bool exited(pid_t pid)
{
	siginfo_t si = { 0 };

	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       si.si_pid == pid;
}

/*
 * The disk fills up: abicap stops by itself (the kernel side detached, not
 * left running until someone notices), exit 4, one line naming the file,
 * and what was written before reads back.
 */
Test(faults, full_disk_while_recording, .timeout = 180)
{
	char *dir = path("tiny"), *file = path("tiny/x.abicap"), self[16];
	/*
	 * -p: this process (the ping-pong's threads), not the machine: on a
	 * loaded one a system-wide record dropped events for its full buffer
	 * before the disk filled, and said so, as it should (CI's loaded run).
	 * At nice -10 into 64 MB: a reader the load holds back is not what
	 * this is about either.
	 */
	char *argv[] = { "nice", "-n", "-10", (char *)abicap_bin(), "record",
			 "-o", file, "-e", "sched_switch,sched_wakeup", "-p", self,
			 "-b", "64", NULL };
	char seen[4096], *err;
	struct child ch;
	struct pingpong pp;
	struct capr *r;
	union abicap_rec rec;
	struct kobjs k;
	long long n = 0;
	uint64_t end;
	int code;

	require_kernel();
	note_others();
	cr_assert_eq(mkdir(dir, 0700), 0);
	/*
	 * room for one whole chunk (1 MiB of records compresses to 50-70 KB
	 * here, worse on a busy machine: a 64 KiB disk sometimes held none,
	 * and nothing read back), far less than the run writes
	 */
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", 0, "size=256k"), 0);
	snprintf(self, sizeof(self), "%d", getpid());
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: recording", seen, sizeof(seen));
	/* with sched_waking, which finds the wakers, and sched_process_free */
	k = assert_attached(ch.pid, 0, 4 + wakers_extra());
	/*
	 * exchanges until record has filled the disk and gone: decided by its
	 * exit (CI's loaded run: 600,000 exchanges and 5 s were not enough
	 * for a record the load held back); 100 s only bound a failure
	 */
	end = mono_ns() + 100000000000ull;
	while (!exited(ch.pid) && mono_ns() < end) {
		pingpong_run(&pp, 20000, 0);
		n += 20000;
	}
	if (!exited(ch.pid)) {
		kill(ch.pid, SIGKILL);
		err = read_all(ch.err_fd);
		umount(dir);
		cr_assert_fail("abicap still runs with its disk full after %lld "
			       "exchanges: %s", n, err);
	}
	n = 0;
	err = read_all(ch.err_fd);
	code = wait_exit(&ch, 30);
	cr_assert_eq(code, 4, "exit %d: %s", code, err);
	cr_assert(strstr(err, "No space left on device"), "%s", err);
	cr_assert(strstr(err, file), "%s", err);
	cr_assert_null(strstr(err, "wrote"), "%s", err);
	/* what is dropped after the disk filled is not the buffer's fault */
	cr_assert_null(strstr(err, "raise --buffer-size"), "%s", err);
	cr_assert(strstr(err, "records read back; the "), "%s", err);
	assert_all_freed(&k, "a full disk");
	/* what was written before reads back */
	r = capr_open(file, seen, sizeof(seen));
	cr_assert(r, "%s", seen);
	while (capr_next(r, &rec) == 1)
		n++;
	capr_close(r);
	cr_assert_gt(n, 0);
	snprintf(seen, sizeof(seen), "its first %lld records read back;", n);
	cr_assert(strstr(err, seen), "%lld read back: %s", n, err);
	free(err);
	cr_assert_eq(umount(dir), 0);
}

/*
 * A page on a full disk: exit 4 naming ENOSPC (issue 37: timechart said
 * "Input/output error"), nothing at the page's path or beside it.
 */
Test(faults, full_disk_while_drawing)
{
	static const char *const cmds[] = { "timechart", "heatmap" };
	char *dir = path("tinypage"), *page = path("tinypage/p.html");

	require_kernel(); /* root: mount */
	cr_assert_eq(mkdir(dir, 0700), 0);
	/* two pages: the ~12 KB pages of the s390x capture do not fit */
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", 0, "size=8k"), 0);
	for (int i = 0; i < 2; i++) {
		struct run r = run_cmd((char *[]){ (char *)abicap_bin(),
			(char *)cmds[i], "tests/captures/s390x.abicap", "-o",
			page, NULL });
		char ls[256];

		cr_assert_eq(r.code, 4, "%s: exit %d: %s", cmds[i], r.code, r.err);
		cr_assert(strstr(r.err, "No space left on device"), "%s: %s",
			  cmds[i], r.err);
		cr_assert_neq(access(page, F_OK), 0, "%s left %s", cmds[i], page);
		snprintf(ls, sizeof(ls), "test -z \"$(ls -A %s)\"", dir);
		cr_assert_eq(system(ls), 0, "%s left a file in %s", cmds[i], dir);
		free(r.out);
		free(r.err);
	}
	cr_assert_eq(umount(dir), 0);
}

/* trace onto a full disk: exit 4, the error named (issue 37: no exit 0 after a failed write). */
Test(faults, trace_to_a_full_disk)
{
	char cmd[512];
	struct run r;

	require_kernel();
	snprintf(cmd, sizeof(cmd), "exec %s trace -d 1 > /dev/full",
		 abicap_bin());
	r = run_cmd((char *[]){ "bash", "-c", cmd, NULL });
	cr_assert_eq(r.code, 4, "exit %d: %s", r.code, r.err);
	cr_assert(strstr(r.err, "No space left on device"), "%s", r.err);
	free(r.out);
	free(r.err);
}

/* `abicap trace | head -n 3` in a shell: both exit 0, no error on stderr. */
Test(faults, pipe_into_head_is_a_clean_exit)
{
	char cmd[512];
	char *argv[] = { "bash", "-c", cmd, NULL };
	struct child ch;
	char *out, *err;
	int lines = 0;

	require_kernel();
	snprintf(cmd, sizeof(cmd), "set -o pipefail; %s trace -f json | head -n 3",
		 abicap_bin());
	spawn(&ch, argv);
	out = read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "%s", err);
	for (char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	cr_assert_eq(lines, 3, "%s", out);
	cr_assert_null(strstr(err, "error"), "%s", err);
	cr_assert(strstr(err, "stdout was closed"), "%s", err);
	/* one warning line, the summary: not a line per lost event */
	lines = 0;
	for (char *p = err; (p = strchr(p, '\n')); p++)
		lines++;
	cr_assert_lt(lines, 20, "%d lines on stderr: %s", lines, err);
	free(out);
	free(err);
}

/*
 * The id the kernel gives the next BPF program and map: a trivial socket
 * filter and a one-entry array, loaded and freed. Ids are allocated
 * cyclically, so an id that moved by more than one between two calls means
 * something was loaded in between.
 */
static void next_ids(__u32 *prog, __u32 *map)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info pi = { 0 };
	struct bpf_map_info mi = { 0 };
	__u32 plen = sizeof(pi), mlen = sizeof(mi);
	int p = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "abc_probe", "GPL",
			      insns, 2, NULL);
	int m = bpf_map_create(BPF_MAP_TYPE_ARRAY, "abc_probe", 4, 4, 1, NULL);

	cr_assert(p >= 0 && m >= 0, "cannot load a probe program or map");
	cr_assert_eq(bpf_obj_get_info_by_fd(p, &pi, &plen), 0);
	cr_assert_eq(bpf_obj_get_info_by_fd(m, &mi, &mlen), 0);
	*prog = pi.id;
	*map = mi.id;
	close(p);
	close(m);
}

/*
 * Run abicap ARGS...: exit 1, the one line `says`, and nothing loaded into
 * the kernel meanwhile (the probe ids moved by exactly one; another loader
 * on the machine can move them too, so three tries).
 */
static void expect_refused(char *const argv[], const char *says)
{
	bool clean = false;

	for (int t = 0; t < 3 && !clean; t++) {
		__u32 p0, m0, p1, m1;
		struct child ch;
		char *out, *err;

		next_ids(&p0, &m0);
		spawn(&ch, argv);
		out = read_all(ch.out_fd);
		err = read_all(ch.err_fd);
		cr_assert_eq(wait_exit(&ch, 30), 1, "%s %s: %s", argv[1],
			     argv[2], err);
		cr_assert_str_empty(out);
		cr_assert(strstr(err, says), "want '%s' in: %s", says, err);
		cr_assert_null(strstr(err, "tracing"), "%s", err);
		cr_assert_null(strstr(err, "recording"), "%s", err);
		next_ids(&p1, &m1);
		clean = p1 == p0 + 1 && m1 == m0 + 1;
		free(out);
		free(err);
	}
	cr_assert(clean, "%s %s loaded BPF programs or maps before refusing",
		  argv[1], argv[2]);
}

/* A mount namespace of our own, where /sys/kernel/btf can be changed. */
static void private_mounts(void)
{
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
}

/*
 * A kernel without BTF: /sys/kernel/btf hidden under an empty tmpfs (and
 * libbpf's fallbacks, /boot/vmlinux-* and the like, absent here). trace and
 * record refuse before loading anything, and record creates no file.
 */
Test(faults, kernel_without_btf_is_refused_before_loading)
{
	char *file = path("nobtf.abicap");
	const char *why = "has no BTF (/sys/kernel/btf/vmlinux): abicap needs a "
			  "kernel built with CONFIG_DEBUG_INFO_BTF=y";
	char rel[256];

	require_kernel();
	snprintf(rel, sizeof(rel), "/boot/vmlinux-%s", kernel_release());
	if (!access(rel, R_OK))
		test_skip("%s exists: libbpf would take its BTF", rel);
	private_mounts();
	cr_assert_eq(mount("tmpfs", "/sys/kernel/btf", "tmpfs", 0, "size=4k"), 0);
	expect_refused((char *[]){ (char *)abicap_bin(), "trace", "-d", "1", NULL },
		       why);
	expect_refused((char *[]){ (char *)abicap_bin(), "record", "-o", file,
				   "-d", "1", NULL }, why);
	cr_assert_neq(access(file, F_OK), 0, "record created %s", file);
}

/*
 * A kernel without power:cpu_frequency (proposed for removal in 2025): the
 * running kernel's own BTF with btf_trace_cpu_frequency renamed, mounted
 * over /sys/kernel/btf/vmlinux. Asking for the event is refused before
 * anything loads, naming the tracepoint and the fix; leaving it out works.
 */
Test(faults, missing_tracepoint_is_refused_before_loading)
{
	static const char name[] = "\0btf_trace_cpu_frequency";
	char *btf = path("nofreq.btf");
	const char *why = "breaks the ABI contract 'abicap-default', nothing "
			  "attached: cpu_frequency tracepoint: expected present, "
			  "kernel has missing (this kernel has no tracepoint "
			  "power:cpu_frequency: nothing of it can be captured); "
			  "leave it out with --events";
	struct child ch;
	size_t len;
	char *buf, *at, *err;

	require_kernel();
	buf = read_file("/sys/kernel/btf/vmlinux", &len);
	at = memmem(buf, len, name, sizeof(name)); /* with its NUL */
	cr_assert(at, "no btf_trace_cpu_frequency in this kernel's BTF");
	at[sizeof(name) - 2] = 'X';
	write_file(btf, buf, len);
	free(buf);
	private_mounts();
	cr_assert_eq(mount(btf, "/sys/kernel/btf/vmlinux", NULL, MS_BIND, NULL), 0);
	expect_refused((char *[]){ (char *)abicap_bin(), "trace", "-d", "1", "-e",
				   "cpu_frequency,sched_switch", NULL }, why);
	expect_refused((char *[]){ (char *)abicap_bin(), "trace", "-d", "1", NULL },
		       why);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "trace", "-d", "0.3", "-e",
			       "sched_switch,cpu_idle", NULL });
	free(read_all(ch.out_fd));
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "%s", err);
	cr_assert(strstr(err, "abicap: tracing 2 events"), "%s", err);
	free(err);
}

/*
 * The loader asks the kernel which CPU a program is told it runs on
 * (feature_cpu_id_right), since Debian's riscv64 6.12 kernel with its JIT
 * off says 0 on every CPU: abicap's own probe program says the CPU it was
 * run on here, and a program that says 0 wherever it runs (what that
 * kernel does) is refused with the fix.
 */
Test(faults, a_kernel_that_names_the_wrong_cpu_is_refused)
{
	struct bpf_insn zero[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char err[ERRMSG_LEN];
	unsigned int said = 99;
	int cpu = -1, fd;

	require_kernel();
	require_cpus(2);
	fd = feature_cpu_id_probe();
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(feature_cpu_id_right(fd, &cpu, &said), 1);
	cr_assert_eq(cpu, get_nprocs() - 1, "ran on CPU %d", cpu);
	cr_assert_eq(said, (unsigned int)cpu);
	close(fd);
	cr_assert_eq(feature_cpu_id_check(-1, err, sizeof(err)), 0);

	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "says_zero", "GPL",
			   zero, 2, NULL);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_assert_eq(feature_cpu_id_right(fd, &cpu, &said), 0);
	cr_assert_eq(said, 0);
	cr_assert_eq(feature_cpu_id_check(fd, err, sizeof(err)), -1);
	cr_assert(strstr(err, "said 0 on CPU"), "%s", err);
	cr_assert(strstr(err, "report it") || strstr(err, "bpf_jit_enable=1"),
		  "%s", err);
	close(fd);
}

/*
 * A program the kernel refuses is named with the verifier's reason, from
 * libbpf's real messages (they carry a "libbpf: " prefix, which a parser
 * tested only on made-up lines missed: riscv64 7.2's JIT-off refusal was
 * blamed on the ring buffer's size, then on nothing).
 */
Test(faults, a_refused_program_is_named_with_the_verifiers_reason)
{
	struct bpf_object *obj;
	const struct bpflog_failure *f = bpflog_failure();

	require_kernel();
	set_libbpf_verbose(false);
	obj = bpf_object__open("build/tests/bpf/t_state_unguarded.bpf.o");
	cr_assert(obj, "%s", strerror(errno));
	bpflog_reset();
	cr_assert_neq(bpf_object__load(obj), 0, "task_struct.state is gone");
	cr_assert_str_eq(f->map, "");
	cr_assert_str_eq(f->prog, "on_switch");
	cr_assert_neq(f->why[0], '\0');
	cr_assert_null(strstr(f->why, "processed "), "%s", f->why);
	bpf_object__close(obj);
}
