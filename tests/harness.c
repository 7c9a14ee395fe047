// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/logging.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "harness.h"
#include "live/features.h"
#include "lib/util.h"

/* The file skips are appended to, and whether this runner made it. */
#define SKIP_LOG_ENV "ABICAP_SKIP_LOG"
static char own_skip_log[64];

/* One line "suite::test: why" appended in one write (O_APPEND: whole lines). */
static void skip_log(const char *suite, const char *test, const char *why)
{
	const char *path = getenv(SKIP_LOG_ENV);
	char line[1024];
	int fd, n;

	if (!path || !*path)
		return;
	n = snprintf(line, sizeof(line) - 1, "%s::%s: %s", suite, test, why);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2) { /* a long reason: marked cut */
		n = sizeof(line) - 2;
		memcpy(line + n - 3, "...", 3);
	}
	for (int i = 0; i < n; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, n) != n)
		fprintf(stderr, "cannot count a skip in %s (%s): %s", path,
			strerror(errno), line);
	if (fd >= 0)
		close(fd);
}

/* why from fmt; under CI the test fails with it instead (what: the case) */
static void skip_reason(const char *what, char *why, size_t len,
			const char *fmt, va_list ap)
{
	vsnprintf(why, len, fmt, ap);
	if (getenv("CI"))
		cr_assert_fail("%s in CI (CI is set, so this is a failure, not a "
			       "skip): %s", what, why);
}

void test_skip(const char *fmt, ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	skip_reason("cannot run", why, sizeof(why), fmt, ap);
	va_end(ap);
	/* logged by the runner's hook below, with the test's name */
	criterion_skip_test("%s", why);
}

void test_skip_part(const char *fmt, ...)
{
	char why[768], line[800];
	va_list ap;

	va_start(ap, fmt);
	skip_reason("a part not checked", why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "(part not checked) %s", why);
	/* cr_log_info: Criterion's runner exits 1 after any cr_log_warn */
	cr_log_info("%s", line);
	skip_log(criterion_current_suite->name, criterion_current_test->name,
		 line);
}

void require_kernel(void)
{
	if (geteuid() != 0)
		test_skip("needs root (run: sudo make test)");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		test_skip("this kernel has no BTF (/sys/kernel/btf/vmlinux)");
}

void require_cpus(int n)
{
	int have = libbpf_num_possible_cpus();

	if (have < n)
		test_skip("needs %d CPUs, this machine has %d", n, have);
}

void require_path(const char *path, const char *what)
{
	if (access(path, F_OK))
		test_skip("no %s (%s)", what, path);
}

/*
 * The runner's side: it names a skip log for the workers when the
 * Makefile did not, records every skipped test with its reason (a
 * cr_skip_test() too), and prints the log when it made it.
 */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	int fd;

	(void)set;
	if (getenv(SKIP_LOG_ENV))
		return;
	snprintf(own_skip_log, sizeof(own_skip_log), "/tmp/abicap-skips-XXXXXX");
	fd = mkstemp(own_skip_log);
	if (fd < 0) {
		own_skip_log[0] = 0;
		return;
	}
	close(fd);
	setenv(SKIP_LOG_ENV, own_skip_log, 1);
}

ReportHook(POST_TEST)(struct criterion_test_stats *st)
{
	if (st->test_status == CR_STATUS_SKIPPED)
		skip_log(st->test->category, st->test->name,
			 st->message ? st->message : "(no reason given)");
}

ReportHook(POST_ALL)(struct criterion_global_stats *g)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	(void)g;
	if (!own_skip_log[0])
		return;
	f = fopen(own_skip_log, "re");
	while (f && getline(&line, &cap, f) > 0)
		n++;
	fprintf(stderr, "[====] %d skipped%s\n", n, n ? ":" : "");
	if (f)
		rewind(f);
	while (f && getline(&line, &cap, f) > 0)
		fprintf(stderr, "[SKIP]   %s", line);
	if (f)
		fclose(f);
	free(line);
	unlink(own_skip_log);
}

long long idle_entries(void)
{
	long long sum = -1;
	char path[96];

	for (int cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		if (access(path, F_OK))
			break;
		for (int st = 0;; st++) {
			unsigned long long n;
			FILE *f;

			snprintf(path, sizeof(path), "/sys/devices/system/cpu/"
				 "cpu%d/cpuidle/state%d/usage", cpu, st);
			f = fopen(path, "re");
			if (!f)
				break;
			if (fscanf(f, "%llu", &n) == 1)
				sum = (sum < 0 ? 0 : sum) + (long long)n;
			fclose(f);
		}
	}
	return sum;
}

bool kernel_has_wakelist_wakers(void)
{
	return !access("/sys/kernel/tracing/events/csd/csd_queue_cpu", F_OK);
}

bool kernel_reads_pc_plainly(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct utsname u;
	bool kfunc;

	kfunc = btf && btf__find_by_name_kind(btf, "bpf_rdonly_cast",
					      BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return !uname(&u) && !strcmp(u.machine, "x86_64") &&
	       feature_jit_enabled() > 0 && kfunc;
}

void pingpong_run(struct pingpong *pp, int rounds, int cpu)
{
	int err;

	*pp = (struct pingpong){ .rounds = rounds, .cpu = cpu };
	err = pingpong(pp);
	cr_assert_eq(err, 0, "ping-pong workload: %s", strerror(-err));
	cr_assert_eq(pp->done_rounds, rounds);
}

bool pp_window(const struct pingpong *pp, const union abicap_rec *r)
{
	return r->hdr.ts_ns >= pp->start_ns && r->hdr.ts_ns <= pp->end_ns;
}

int collect_cb(void *ctx, const union abicap_rec *r)
{
	struct collected *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		cr_assert(c->v);
	}
	c->v[c->n++] = *r;
	return 0;
}

void collected_free(struct collected *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

struct capture *start_capture(const struct capture_opts *o,
			      struct collected *col)
{
	char err[ERRMSG_LEN] = "";
	int code = -1;
	struct capture *c = capture_open(o, collect_cb, col, &code, err,
					 sizeof(err));

	cr_assert(c, "capture_open failed (exit %d): %s", code, err);
	cr_assert_eq(code, EXIT_OK);
	return c;
}

void poll_for(struct capture *c, int ms)
{
	uint64_t end = mono_ns() + (uint64_t)ms * 1000000;

	while (mono_ns() < end)
		cr_assert_geq(capture_poll(c, 20), 0);
}

uint64_t stop_and_check_accounted(struct capture *c)
{
	struct abicap_counter sum[ABICAP_EV_COUNT];
	uint64_t dropped = 0;

	capture_stop(c);
	cr_assert_eq(capture_counters(c, -1, sum), 0);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		cr_expect_eq(sum[ev].seen, capture_received(c, ev) +
			     sum[ev].dropped, "event %u: seen %llu, received "
			     "%llu, dropped %llu", ev,
			     (unsigned long long)sum[ev].seen,
			     (unsigned long long)capture_received(c, ev),
			     (unsigned long long)sum[ev].dropped);
		dropped += sum[ev].dropped;
	}
	cr_expect_eq(capture_bad_records(c), 0);
	return dropped;
}

void stop_and_check_lossless(struct capture *c)
{
	struct abicap_counter sum[ABICAP_EV_COUNT];

	capture_stop(c);
	cr_assert_eq(capture_counters(c, -1, sum), 0);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		cr_expect_eq(sum[ev].dropped, 0, "event %u: %llu dropped", ev,
			     (unsigned long long)sum[ev].dropped);
		cr_expect_eq(sum[ev].seen, capture_received(c, ev),
			     "event %u: seen %llu, received %llu", ev,
			     (unsigned long long)sum[ev].seen,
			     (unsigned long long)capture_received(c, ev));
	}
	cr_expect_eq(capture_bad_records(c), 0);
}

static char scratch[] = "/tmp/abicap-test-XXXXXX";

void scratch_init(void)
{
	cr_assert(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
}

void scratch_fini(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	cr_assert_eq(system(cmd), 0);
}

char *scratch_path(const char *name)
{
	/* a few at a time stay valid: a ring of buffers, nothing to free */
	static char ring[16][512];
	static unsigned int next;
	char *p = ring[next++ % 16];

	snprintf(p, sizeof(ring[0]), "%s/%s", scratch, name);
	return p;
}

int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;

	cr_assert(f, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	buf = malloc(*len ? *len : 1);
	cr_assert(buf);
	cr_assert_eq(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

char *protoc_decode(const char *trace)
{
	char cmd[512], *out = NULL;
	size_t len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "protoc --proto_path=tests/perfetto "
		 "--decode=perfetto.protos.Trace tests/perfetto/abicap_subset.proto "
		 "< %s", trace);
	p = popen(cmd, "r");
	cr_assert(p);
	cr_assert_gt(getdelim(&out, &len, '\0', p), 0);
	cr_assert_eq(pclose(p), 0, "protoc could not decode %s", trace);
	return out;
}

/* Whether nobody listens on or holds 127.0.0.1:port (TIME_WAIT included). */
static bool port_free(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && !bind(fd, (void *)&a, sizeof(a));

	if (fd >= 0)
		close(fd);
	return ok;
}

int free_ports(int n)
{
	cr_assert(n >= 1 && n <= 8);
	for (int t = 0; t < 2500; t++) {
		int p = 10000 + ((getpid() + t) * 8) % 20000, k = 0;

		while (k < n && port_free(p + k))
			k++;
		if (k == n)
			return p;
	}
	cr_assert_fail("no %d free loopback ports from 10000 to 29999", n);
	return 0;
}

const char *abicap_bin(void)
{
	const char *b = getenv("ABICAP_BIN");

	return b ? b : "build/abicap";
}

void spawn(struct child *ch, char *const argv[])
{
	int out[2], err[2];

	cr_assert(!pipe(out) && !pipe(err));
	ch->pid = fork();
	cr_assert_geq(ch->pid, 0);
	if (!ch->pid) {
		/*
		 * a test that dies (a failed assertion, its timeout) takes its
		 * command along: an orphaned record or serve would keep its
		 * programs attached under every later test
		 */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		execvp(argv[0], argv);
		/* said, or a test sees only "exited 127" with nothing on stderr */
		fprintf(stderr, "harness: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	ch->out_fd = out[0];
	ch->err_fd = err[0];
}

char *read_all(int fd)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;

	cr_assert(buf);
	while ((n = read(fd, buf + len, cap - len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
	}
	buf[len] = 0;
	return buf;
}

void wait_for_stderr(struct child *ch, const char *needle, char *seen,
		     size_t seen_len)
{
	size_t len = 0;
	uint64_t end = mono_ns() + 20ull * 1000000000;

	seen[0] = 0;
	while (!strstr(seen, needle)) {
		struct pollfd p = { .fd = ch->err_fd, .events = POLLIN };
		ssize_t n;

		cr_assert(mono_ns() < end, "no '%s' on stderr in 20 s; got: %s",
			  needle, seen);
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(ch->err_fd, seen + len, seen_len - len - 1);
		cr_assert_gt(n, 0, "stderr closed before '%s'; got: %s", needle,
			     seen);
		len += n;
		seen[len] = 0;
	}
}

int wait_exit(struct child *ch, int timeout_s)
{
	uint64_t end = mono_ns() + (uint64_t)timeout_s * 1000000000;
	int status;

	for (;;) {
		pid_t r = waitpid(ch->pid, &status, WNOHANG);

		if (r == ch->pid)
			break;
		if (mono_ns() > end) {
			kill(ch->pid, SIGKILL);
			waitpid(ch->pid, &status, 0);
			cr_assert_fail("%s did not exit within %d s", abicap_bin(),
				 timeout_s);
		}
		usleep(10000);
	}
	cr_assert(WIFEXITED(status), "killed by signal %d",
		  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

struct run run_cmd(char *const argv[])
{
	struct child ch;
	struct run r;

	spawn(&ch, argv);
	r.out = read_all(ch.out_fd);
	r.err = read_all(ch.err_fd);
	r.code = wait_exit(&ch, 60);
	return r;
}

char *scrape_metrics(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	static const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), code = 0;
	char *resp, *body;

	cr_assert_geq(fd, 0, "%s", strerror(errno));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (void *)&a, sizeof(a)), 0, "%s", strerror(errno));
	cr_assert_eq(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
	shutdown(fd, SHUT_WR);
	resp = read_all(fd);
	close(fd);
	sscanf(resp, "HTTP/1.%*d %d", &code);
	cr_assert_eq(code, 200, "scrape: %.200s", resp);
	body = strstr(resp, "\r\n\r\n");
	cr_assert(body);
	body = strdup(body + 4);
	free(resp);
	return body;
}

char *metric_lines(const char *text, const char *prefix)
{
	size_t n = strcspn(prefix, "{ "), len = 0, cap = 4096;
	char *out = malloc(cap);
	int shown = 0, more = 0;

	cr_assert(out);
	out[0] = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		size_t l = strcspn(p, "\n");

		if (strncmp(p, prefix, n) || (p[n] != '{' && p[n] != ' '))
			continue;
		if (shown == 12 || len + l + 4 > cap) {
			more++;
			continue;
		}
		len += snprintf(out + len, cap - len, "  %.*s\n", (int)l, p);
		shown++;
	}
	if (!shown)
		snprintf(out, cap, "  (none)\n");
	else if (more)
		snprintf(out + len, cap - len, "  (%d more)\n", more);
	return out;
}

double metric_sample(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, prefix, n)) {
			const char *sp = p + strcspn(p, "\n");

			while (sp > p && sp[-1] != ' ')
				sp--;
			return strtod(sp, NULL);
		}
	return -1;
}
