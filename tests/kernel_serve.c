// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * serve's HTTP side against hostile and ordinary clients on loopback:
 * slow clients holding connections from one and from several addresses
 * while a scraper must get through, keep-alive and pipelining, and
 * requests with a body.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

static struct child srv;
static bool running;

static void stop_serve(void)
{
	if (running)
		kill(srv.pid, SIGKILL);
	running = false;
}

TestSuite(serve_http, .init = require_kernel, .fini = stop_serve,
	  .timeout = 60);

static void start_serve(int port)
{
	char listen[64], seen[1024];

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	spawn(&srv, (char *[]){ (char *)abicap_bin(), "serve", "--listen",
			       listen, NULL });
	running = true;
	wait_for_stderr(&srv, "serving http://", seen, sizeof(seen));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A connection from 127.0.0.<from> (any 127/8 address is loopback). */
static int dial(int port, int from, double timeout_s)
{
	struct sockaddr_in src = { .sin_family = AF_INET },
			   dst = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { (time_t)timeout_s,
			      (suseconds_t)((timeout_s - (time_t)timeout_s) * 1e6) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	src.sin_addr.s_addr = htonl(0x7f000000 | from);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (void *)&src, sizeof(src)), 0, "%s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	cr_assert_eq(connect(fd, (void *)&dst, sizeof(dst)), 0, "%s",
		     strerror(errno));
	return fd;
}

static void send_all(int fd, const char *s)
{
	size_t n = strlen(s);

	cr_assert_eq(send(fd, s, n, MSG_NOSIGNAL), (ssize_t)n, "%s",
		     strerror(errno));
}

/*
 * One response from fd, which may hold more after it (pipelining): its
 * status (0: none before the timeout or the end) and its body.
 */
struct reader {
	char buf[1 << 20];
	size_t len;
};

static int read_response(int fd, struct reader *r, char **body)
{
	char *end;
	long clen = -1;
	int code = 0;

	*body = NULL;
	for (;;) {
		ssize_t n;

		r->buf[r->len] = 0;
		end = strstr(r->buf, "\r\n\r\n");
		if (end) {
			char *cl = strcasestr(r->buf, "\r\nContent-Length:");

			if (cl && cl < end)
				clen = strtol(cl + 17, NULL, 10);
			if (clen >= 0 && r->len >= (size_t)(end + 4 - r->buf) + clen)
				break;
		}
		if (r->len + 1 >= sizeof(r->buf))
			return 0;
		n = recv(fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len, 0);
		if (n <= 0)
			return 0;
		r->len += n;
	}
	sscanf(r->buf, "HTTP/1.%*d %d", &code);
	*body = strndup(end + 4, clen);
	/* what follows is the next response */
	r->len -= end + 4 + clen - r->buf;
	memmove(r->buf, end + 4 + clen, r->len);
	return code;
}

/* A whole scrape from 127.0.0.<from>: its status, 0 on a timeout. */
static int scrape_from(int port, int from, double timeout_s, char **body)
{
	static struct reader r;
	int fd = dial(port, from, timeout_s), code;

	r.len = 0;
	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: abicap\r\n\r\n");
	code = read_response(fd, &r, body);
	close(fd);
	return code;
}

static double metric(const char *text, const char *line_start)
{
	const char *p = strstr(text, line_start);

	return p ? strtod(p + strlen(line_start), NULL) : -1;
}

Test(serve_http, keep_alive_and_pipelined_requests_are_all_answered)
{
	static struct reader r;
	int port = free_ports(1), fd;
	char *body;

	start_serve(port);
	/* two requests one after the other on one connection */
	fd = dial(port, 1, 5);
	send_all(fd, "GET / HTTP/1.1\r\nHost: abicap\r\n\r\n");
	cr_assert_eq(read_response(fd, &r, &body), 200);
	free(body);
	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: abicap\r\n\r\n");
	cr_assert_eq(read_response(fd, &r, &body), 200, "the second request "
		     "on a kept-alive connection got no answer");
	cr_assert(strstr(body, "abicap_events_total"));
	free(body);
	close(fd);
	/* three in one write */
	r.len = 0;
	fd = dial(port, 1, 5);
	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: abicap\r\n\r\n"
		 "GET / HTTP/1.1\r\nHost: abicap\r\n\r\n"
		 "GET /nothing HTTP/1.1\r\nHost: abicap\r\n\r\n");
	cr_assert_eq(read_response(fd, &r, &body), 200);
	cr_assert(strstr(body, "abicap_events_total"));
	free(body);
	cr_assert_eq(read_response(fd, &r, &body), 200, "pipelined: no 2nd");
	cr_assert(strstr(body, "metrics at /metrics"), "%s", body);
	free(body);
	cr_assert_eq(read_response(fd, &r, &body), 404, "pipelined: no 3rd");
	free(body);
	close(fd);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	running = false;
}

Test(serve_http, a_get_with_a_body_is_refused_with_413)
{
	static struct reader r;
	const char *reqs[] = {
		"GET /metrics HTTP/1.1\r\nHost: abicap\r\nContent-Length: 5"
		"\r\n\r\nhello",
		"GET /metrics HTTP/1.1\r\nHost: abicap\r\nTransfer-Encoding: "
		"chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: abicap\r\nContent-Length: 1\r\n\r\nx",
	};
	int port = free_ports(1);
	char *body;
	struct run run;

	start_serve(port);
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		int fd = dial(port, 1, 5);

		r.len = 0;
		send_all(fd, reqs[i]);
		cr_assert_eq(read_response(fd, &r, &body), 413, "%s", reqs[i]);
		free(body);
		close(fd);
	}
	/* an empty body is no body */
	cr_assert_eq(scrape_from(port, 1, 5, &body), 200);
	free(body);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	running = false;

	/* one error line, naming the option, and nothing after it */
	run = run_cmd((char *[]){ (char *)abicap_bin(), "serve", "--bogus", NULL });
	cr_assert_eq(run.code, 2);
	cr_assert_str_eq(run.err, "abicap: error: unknown option '--bogus' (see "
			 "abicap serve --help)\n");
	free(run.out);
	free(run.err);
}

#define MAX_SLOW 128
#define SCRAPE_MAX_S 2.0
#define DEADLINE_S 10.0

/* Slow clients: each sends a request line, then a header line a second. */
struct crowd {
	int port, n, fd[MAX_SLOW], from[MAX_SLOW];
	double born[MAX_SLOW], died[MAX_SLOW], last_drip, longest;
	bool reconnect; /* come back at once when closed */
	long closed;
};

static void slow_open(struct crowd *c, int i)
{
	c->fd[i] = dial(c->port, c->from[i], 5);
	send_all(c->fd[i], "GET /metrics HTTP/1.1\r\n");
	c->born[i] = now_s();
	c->died[i] = 0;
}

/* per_addr clients from each of 127.0.0.<first>..<first + addrs - 1> */
static void crowd_add(struct crowd *c, int first, int addrs, int per_addr)
{
	for (int a = 0; a < addrs; a++)
		for (int i = 0; i < per_addr; i++) {
			cr_assert_lt(c->n, MAX_SLOW);
			c->from[c->n] = first + a;
			slow_open(c, c->n++);
		}
}

static void slow_closed(struct crowd *c, int i)
{
	double life;

	c->died[i] = now_s();
	life = c->died[i] - c->born[i];
	c->longest = life > c->longest ? life : c->longest;
	c->closed++;
	if (c->reconnect) {
		close(c->fd[i]);
		slow_open(c, i);
	}
}

/* Drip a header line to each once a second; notice those closed. */
static void crowd_step(struct crowd *c)
{
	bool drip = now_s() - c->last_drip >= 1;

	if (drip)
		c->last_drip = now_s();
	for (int i = 0; i < c->n; i++) {
		struct pollfd p = { c->fd[i], POLLIN, 0 };
		char ch;

		if (c->died[i])
			continue;
		if ((drip && send(c->fd[i], "X-Slow: 1\r\n", 11, MSG_NOSIGNAL) < 0) ||
		    (poll(&p, 1, 0) == 1 && recv(c->fd[i], &ch, 1, MSG_DONTWAIT) <= 0))
			slow_closed(c, i);
	}
}

/*
 * Scrape every quarter second for secs, alternately from 127.0.0.1 and
 * 127.0.0.6, while the crowd does its worst: each scrape must be answered
 * 200 within SCRAPE_MAX_S. The number of scrapes; *worst the slowest.
 */
static int scrape_through(struct crowd *c, double secs, double *worst)
{
	double t0 = now_s();
	int scrapes = 0;
	char *body;

	*worst = 0;
	while (now_s() - t0 < secs) {
		double t, took;
		int code, from = scrapes % 2 ? 6 : 1;

		crowd_step(c);
		t = now_s();
		code = scrape_from(c->port, from, 5, &body);
		took = now_s() - t;
		cr_assert_eq(code, 200, "scrape %d from 127.0.0.%d: %d after %.2f s",
			     scrapes, from, code, took);
		cr_assert_lt(took, SCRAPE_MAX_S, "scrape %d took %.2f s", scrapes,
			     took);
		free(body);
		*worst = took > *worst ? took : *worst;
		scrapes++;
		for (double until = now_s() + 0.25; now_s() < until;) {
			crowd_step(c);
			usleep(c->reconnect ? 1000 : 50000);
		}
	}
	return scrapes;
}

static double closed_by(int port, const char *reason)
{
	char line[128], *body;
	double v;

	cr_assert_eq(scrape_from(port, 1, 5, &body), 200);
	snprintf(line, sizeof(line), "abicap_http_connections_closed_total{"
		 "reason=\"%s\"} ", reason);
	v = metric(body, line);
	free(body);
	return v;
}

Test(serve_http, scrapes_get_through_while_slow_clients_hold_connections)
{
	struct crowd c = { .port = free_ports(1) };
	double worst;
	int scrapes;

	start_serve(c.port);
	/* 16 from 127.0.0.1 (the scraper's own) and 64 from 127.0.0.2-5 */
	crowd_add(&c, 1, 5, 16);
	scrapes = scrape_through(&c, 12, &worst);
	/* every slow client was closed: evicted, or at the deadline */
	for (int i = 0; i < c.n; i++) {
		cr_assert(c.died[i], "slow client %d still open after %.1f s", i,
			  now_s() - c.born[i]);
		close(c.fd[i]);
	}
	cr_assert_lt(c.longest, DEADLINE_S + 1.5, "a slow client lived %.1f s",
		     c.longest);
	cr_assert_geq(closed_by(c.port, "evicted"), c.n - 64);
	cr_assert_geq(closed_by(c.port, "deadline"), 1);
	fprintf(stderr, "serve_http: %d slow clients, %d scrapes in 12 s, all "
		"200, slowest %.3f s; the longest slow client lived %.1f s; "
		"%.0f evicted, %.0f at the deadline\n", c.n, scrapes, worst,
		c.longest, closed_by(c.port, "evicted"),
		closed_by(c.port, "deadline"));
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	running = false;
}

Test(serve_http, scrapes_get_through_while_evicted_clients_come_back_at_once)
{
	struct crowd c = { .port = free_ports(1), .reconnect = true };
	double worst;
	int scrapes;

	start_serve(c.port);
	/* 24 from one address (over its 16) and 70 from five: over 64 in all */
	crowd_add(&c, 2, 1, 24);
	crowd_add(&c, 7, 5, 14);
	scrapes = scrape_through(&c, 5, &worst);
	cr_assert_gt(c.closed, 100, "the crowd was hardly evicted: %ld", c.closed);
	fprintf(stderr, "serve_http: %d clients coming back at once: %ld closed "
		"and back in 5 s, %d scrapes all 200, slowest %.3f s\n", c.n,
		c.closed, scrapes, worst);
	for (int i = 0; i < c.n; i++)
		close(c.fd[i]);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	running = false;
}

/*
 * Requests a front proxy and serve could read differently (issue 23 #11):
 * two Content-Length headers that disagree (RFC 9112 6.3: an error, a
 * request-smuggling vector), and a NUL byte in the request target, raw or
 * as %00, which a C string cuts to "/metrics".
 */
Test(serve_http, conflicting_lengths_and_nul_bytes_in_the_target_are_refused)
{
	static struct reader r;
	static const struct {
		const char *req;
		size_t len;
		int code;
	} reqs[] = {
#define REQ(s, code) { s, sizeof(s) - 1, code }
		REQ("GET /metrics HTTP/1.1\r\nHost: abicap\r\nContent-Length: 0"
		    "\r\nContent-Length: 5\r\n\r\nhello", 400),
		REQ("GET /metrics HTTP/1.1\r\nHost: abicap\r\nContent-Length: 5"
		    "\r\nContent-Length: 0\r\n\r\nhello", 400),
		REQ("GET /metrics\0x HTTP/1.1\r\nHost: abicap\r\n\r\n", 400),
		REQ("GET /metrics?\0x HTTP/1.1\r\nHost: abicap\r\n\r\n", 400),
		REQ("GET /\0/metrics HTTP/1.1\r\nHost: abicap\r\n\r\n", 400),
		REQ("GET /metrics%00x HTTP/1.1\r\nHost: abicap\r\n\r\n", 404),
		REQ("GET /%00 HTTP/1.1\r\nHost: abicap\r\n\r\n", 404),
#undef REQ
	};
	int port = free_ports(1);
	char *body;

	start_serve(port);
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		int fd = dial(port, 1, 5), code;

		r.len = 0;
		cr_assert_eq(send(fd, reqs[i].req, reqs[i].len, MSG_NOSIGNAL),
			     (ssize_t)reqs[i].len);
		code = read_response(fd, &r, &body);
		cr_expect_eq(code, reqs[i].code, "request %zu (%.*s): %d, not %d",
			     i, (int)strcspn(reqs[i].req, "\r"), reqs[i].req,
			     code, reqs[i].code);
		free(body);
		close(fd);
	}
	/* the same value twice is one length (as Go's net/http takes it) */
	cr_assert_eq(scrape_from(port, 1, 5, &body), 200);
	free(body);
	{
		int fd = dial(port, 1, 5);

		r.len = 0;
		send_all(fd, "GET /metrics HTTP/1.1\r\nHost: abicap\r\n"
			 "Content-Length: 0\r\nContent-Length: 0\r\n\r\n");
		cr_assert_eq(read_response(fd, &r, &body), 200);
		cr_assert(strstr(body, "abicap_events_total"));
		free(body);
		close(fd);
	}
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	running = false;
}
