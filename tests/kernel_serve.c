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

static int test_port(void)
{
	return 40000 + getpid() % 20000;
}

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
	int port = test_port(), fd;
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
	int port = test_port() + 1;
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

#define SLOW_PER_ADDR 16
#define SLOW_ADDRS 5 /* 127.0.0.1 (the scraper's too) and .2 to .5 */
#define RUN_S 12.0
#define SCRAPE_MAX_S 2.0
#define DEADLINE_S 10.0

Test(serve_http, scrapes_get_through_while_slow_clients_hold_connections)
{
	int port = test_port() + 2, fd[SLOW_ADDRS * SLOW_PER_ADDR], nslow = 0,
	    scrapes = 0;
	double born[SLOW_ADDRS * SLOW_PER_ADDR], died[SLOW_ADDRS * SLOW_PER_ADDR],
	       t0, last_drip = 0, worst_scrape = 0, longest = 0;
	char *body;

	start_serve(port);
	/* 16 from 127.0.0.1 and 64 from 127.0.0.2-5: more than serve keeps */
	for (int a = 0; a < SLOW_ADDRS; a++)
		for (int i = 0; i < SLOW_PER_ADDR; i++) {
			fd[nslow] = dial(port, 1 + a, 5);
			send_all(fd[nslow], "GET /metrics HTTP/1.1\r\n");
			born[nslow] = now_s();
			died[nslow++] = 0;
		}
	t0 = now_s();
	while (now_s() - t0 < RUN_S) {
		double t = now_s(), took;
		int code;

		/* the slow clients: one header line a second each */
		if (t - last_drip >= 1) {
			last_drip = t;
			for (int i = 0; i < nslow; i++)
				if (!died[i] && send(fd[i], "X-Slow: 1\r\n", 11,
						     MSG_NOSIGNAL) < 0)
					died[i] = now_s();
		}
		for (int i = 0; i < nslow; i++) {
			struct pollfd p = { fd[i], POLLIN, 0 };
			char c;

			if (!died[i] && poll(&p, 1, 0) == 1 &&
			    recv(fd[i], &c, 1, MSG_DONTWAIT) <= 0)
				died[i] = now_s();
		}
		/* the scraper, from a slow clients' address and from another */
		code = scrape_from(port, scrapes % 2 ? 6 : 1, 5, &body);
		took = now_s() - t;
		cr_assert_eq(code, 200, "scrape %d from 127.0.0.%d: %d after %.2f s",
			     scrapes, scrapes % 2 ? 6 : 1, code, took);
		cr_assert_lt(took, SCRAPE_MAX_S, "scrape %d took %.2f s", scrapes,
			     took);
		free(body);
		worst_scrape = took > worst_scrape ? took : worst_scrape;
		scrapes++;
		usleep(250000);
	}
	/* every slow client was closed: evicted, or at the deadline */
	for (int i = 0; i < nslow; i++) {
		double life = (died[i] ? died[i] : now_s()) - born[i];

		cr_assert(died[i], "slow client %d still open after %.1f s", i, life);
		longest = life > longest ? life : longest;
		close(fd[i]);
	}
	cr_assert_lt(longest, DEADLINE_S + 1.5, "a slow client lived %.1f s",
		     longest);
	cr_assert_eq(scrape_from(port, 1, 5, &body), 200);
	cr_assert_geq(metric(body, "abicap_http_connections_closed_total{reason="
			     "\"evicted\"} "), SLOW_ADDRS * SLOW_PER_ADDR - 64,
		      "%s", body);
	cr_assert_geq(metric(body, "abicap_http_connections_closed_total{reason="
			     "\"deadline\"} "), 1, "%s", body);
	fprintf(stderr, "serve_http: %d slow clients, %d scrapes in %.0f s, all "
		"200, slowest %.3f s; the longest slow client lived %.1f s; "
		"%.0f evicted, %.0f at the deadline\n", nslow, scrapes, RUN_S,
		worst_scrape, longest,
		metric(body, "abicap_http_connections_closed_total{reason="
		       "\"evicted\"} "),
		metric(body, "abicap_http_connections_closed_total{reason="
		       "\"deadline\"} "));
	free(body);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	running = false;
}
