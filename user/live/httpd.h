/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * serve's HTTP endpoint: /metrics (one page rendered for every scraper of
 * its time, gzipped for those who accept it), GET and HEAD only,
 * connections kept by the connection guard (live/connguard.h).
 */
#ifndef ABICAP_HTTPD_H
#define ABICAP_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "live/connguard.h"
#include "live/metrics.h"

/*
 * Limits of the HTTP side (README "abicap serve"): slow clients are closed
 * at the deadline or evicted by newcomers, so they cannot lock out a scrape.
 */
#define HTTP_MAX_CONNS 64
#define HTTP_MAX_PER_CLIENT 16
#define HTTP_DEADLINE_S 10
#define HTTP_MAX_HEADER 16384

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	bool loopback;
	char text[80]; /* "127.0.0.1:9464", "[::1]:9464" */
};

/* ADDR:PORT, [V6]:PORT or localhost:PORT, numeric only: 0, or -1 with err. */
int httpd_parse_listen(const char *s, struct listen_addr *a, char *err,
		       size_t errlen);

/*
 * A listening socket, before anything loads: a busy port fails early.
 * The descriptor, or -1 with err.
 */
int httpd_listen(const struct listen_addr *a, char *err, size_t errlen);

/*
 * A page of metrics is rendered once and its bytes served to every scrape
 * until it is HTTP_PAGE_AGE_NS old, or four times as old as it took to
 * render, whichever is longer: however many clients ask (and hang up),
 * rendering takes at most a fifth of serve's time.
 */
#define HTTP_PAGE_AGE_NS 200000000ull

struct MHD_Daemon;
struct page;

struct httpd {
	struct metrics_ctx *m;
	struct conn_guard guard;
	int diag; /* who owns a local client's socket (live/peeruid.h) */
	uint64_t scrapes, refused, renders;
	struct page *page; /* the current page, NULL before the first scrape */
	struct MHD_Daemon *d;
};

/* Serves m on the listening socket fd (closed by httpd_stop): 0 or -1. */
int httpd_start(struct httpd *h, int fd, struct metrics_ctx *m);

/* Answers for up to ms milliseconds, then closes the peers past their deadline. */
void httpd_run(struct httpd *h, unsigned int ms);

void httpd_stop(struct httpd *h);

#endif
