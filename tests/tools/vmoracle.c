// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/vmoracle: the differential oracle (tests/oracle.h) inside a test VM
 * (scripts/vmtest.sh, tests/vm/init) or on the host: tracefs and
 * `abicap record` capture the same ping-pong run, matched event by event.
 *
 *   vmoracle ABICAP PINGPONG SCRATCH_DIR [TOLERANCE_MS]
 *
 * TOLERANCE_MS: the timestamp bound of a match (default ORC_TS_TOL_NS);
 * the TCG guests pass 20: there an interrupt between the ftrace probe and
 * the BPF program took up to 4.2 ms (5.10 guest). The order on a CPU is
 * the same on both sides: the bound only keeps twins apart, and a loose
 * one pairs a missing event with its twin further on.
 *
 * Prints one line, "ABICAP-TRUTH {...}": matched and mismatched counts,
 * the oracle's losses and abicap's drops, the first differences, or the
 * error that kept it from running; exits 0 when nothing differed.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "oracle.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int result(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	int rc = json_integer_value(json_object_get(o, "mismatched")) ||
		 json_object_get(o, "error") ? 1 : 0;

	printf("ABICAP-TRUTH %s\n", s ? s : "{\"error\":\"out of memory\"}");
	fflush(stdout);
	free(s);
	json_decref(o);
	return rc;
}

static int fail(const char *msg)
{
	return result(json_pack("{s:s}", "error", msg));
}

/* Start `abicap record`, return once it says it records (its stderr on a pipe). */
static pid_t start_record(const char *abicap, const char *cap, int *errfd)
{
	int p[2];
	pid_t pid;
	char buf[4096];
	size_t len = 0;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		/* -b 64: under TCG emulation the consumer runs many times slower */
		execl(abicap, abicap, "record", "-o", cap, "-b", "64", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof(buf) - 1) {
		ssize_t n = read(p[0], buf + len, sizeof(buf) - 1 - len);

		if (n <= 0)
			break;
		len += n;
		buf[len] = 0;
		if (strstr(buf, "abicap: recording")) {
			*errfd = p[0];
			return pid;
		}
	}
	fprintf(stderr, "vmoracle: abicap record did not start: %.*s\n", (int)len,
		buf);
	close(p[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

int main(int argc, char **argv)
{
	char err[512], cap[512], name[64], buf[256];
	struct orc_session *s;
	struct orc_trace t;
	struct orc_match m;
	union abicap_rec *recs;
	size_t n;
	uint64_t drops, t0, t1, bad, total = 0;
	pid_t rec, pp;
	int errfd, st;

	if (argc != 4 && (argc != 5 || !strtoull(argv[4], NULL, 10))) {
		fprintf(stderr, "usage: vmoracle ABICAP PINGPONG SCRATCH_DIR "
			"[TOLERANCE_MS]\n");
		return 2;
	}
	if (argc == 5)
		orc_tol_ns = strtoull(argv[4], NULL, 10) * 1000000ULL;
	/* another try only when a side lost events (3 in all) */
	for (int tries = 1;; tries++) {
		snprintf(cap, sizeof(cap), "%s/vmoracle.abicap", argv[3]);
		unlink(cap);
		snprintf(name, sizeof(name), "abicap_vmoracle_%d", getpid());
		s = orc_start(name, 32768, err, sizeof(err));
		if (!s)
			return fail(err);
		rec = start_record(argv[1], cap, &errfd);
		if (rec < 0) {
			orc_abort(s);
			return fail("abicap record did not start");
		}
		t0 = now_ns();
		pp = fork();
		if (!pp) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(126);
			execl(argv[2], argv[2], "0.3", "0", (char *)NULL);
			_exit(127);
		}
		waitpid(pp, &st, 0);
		t1 = now_ns();
		kill(rec, SIGTERM);
		while (read(errfd, buf, sizeof(buf)) > 0)
			;
		waitpid(rec, &st, 0);
		close(errfd);
		if (orc_stop(s, &t, err, sizeof(err)))
			return fail(err);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return fail("abicap record failed");
		if (orc_load_capture(cap, &recs, &n, &drops, &t.events, err,
				     sizeof(err)))
			return fail(err);
		if ((!t.lost && !drops) || tries == 3)
			break;
		orc_trace_free(&t);
		free(recs);
	}
	if (t.unparsed) {
		snprintf(err, sizeof(err), "%llu tracefs lines of the six events "
			 "did not parse", (unsigned long long)t.unparsed);
		return fail(err);
	}
	if (t.lost || drops) {
		snprintf(err, sizeof(err), "3 tries lost events: tracefs %llu, "
			 "abicap %llu", (unsigned long long)t.lost,
			 (unsigned long long)drops);
		return fail(err);
	}
	bad = orc_match(&t, recs, n, t0, t1, NULL, &m);
	for (int k = 0; k < ABICAP_EV_COUNT; k++)
		total += m.matched[k];
	/*
	 * the wakers compared are reported, not judged here: in the many-vCPU
	 * TCG guest 40 of 6,823 differed in one run (not yet explained: the
	 * likeliest, tracefs's waking paired with its wakeup by time across
	 * vCPUs whose probes stand up to 1 s apart), none on the host's
	 * oracle tests, which judge them
	 */
	return result(json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:I, "
				"s:I, s:s, s:I, s:s}",
		"matched", (json_int_t)total,
		"mismatched", (json_int_t)bad,
		"tracefs_only", (json_int_t)m.oracle_only,
		"abicap_only", (json_int_t)m.abicap_only,
		"oracle_lost", (json_int_t)t.lost, "abicap_dropped", (json_int_t)drops,
		"max_skew_ns", (json_int_t)m.max_skew_ns, "first", m.first,
		"wakers_compared", (json_int_t)m.wakers_compared,
		"waker_diffs", (json_int_t)m.waker_diffs,
		"first_waker", m.first_waker,
		"waker_irq_diffs", (json_int_t)m.waker_irq_diffs,
		"first_irq_waker", m.first_irq_waker));
}
