// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * serve's HTTP endpoint on libmicrohttpd: one thread runs the daemon and
 * the connection guard; a scrape renders the metrics (live/metrics.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include "live/httpd.h"
#include "live/peeruid.h"
#include "lib/gzip.h"
#include "lib/util.h"

#include <microhttpd.h>

int httpd_parse_listen(const char *s, struct listen_addr *a, char *err,
		       size_t errlen)
{
	char host[64];
	const char *colon, *port_s;
	struct sockaddr_in *in4 = (void *)&a->ss;
	struct sockaddr_in6 *in6 = (void *)&a->ss;
	long port;
	size_t hl;

	memset(a, 0, sizeof(*a));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			goto bad;
		hl = close - s - 1;
		port_s = close + 2;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			goto bad;
		hl = colon - s;
		port_s = colon + 1;
	}
	if (!hl || hl >= sizeof(host) || !parse_long(port_s, 1, 65535, &port))
		goto bad;
	memcpy(host, s, hl);
	host[hl] = 0;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		a->len = sizeof(*in4);
		a->loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
		snprintf(a->text, sizeof(a->text), "%s:%ld", host, port);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		a->len = sizeof(*in6);
		a->loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
		snprintf(a->text, sizeof(a->text), "[%s]:%ld", host, port);
	} else {
		goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "--listen '%s': give a numeric ADDR:PORT, e.g. "
		 "127.0.0.1:9464, [::1]:9464 or 0.0.0.0:9464", s);
	return -1;
}

int httpd_listen(const struct listen_addr *a, char *err, size_t errlen)
{
	int one = 1, fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		snprintf(err, errlen, "cannot create a socket: %s",
			 strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a->ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len) ||
	    listen(fd, 64)) {
		int e = errno;

		snprintf(err, errlen, "cannot listen on %s: %s%s", a->text,
			 strerror(e), e == EADDRINUSE ? " (another exporter? "
			 "choose another port with --listen)" :
			 e == EADDRNOTAVAIL ? " (no interface has that address)" :
			 "");
		close(fd);
		return -1;
	}
	return fd;
}

/* A short fixed text (the metrics go through send_page()). */
static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len,
		(void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

#define TEXT(s) (s), sizeof(s) - 1

/* A request body is announced by its headers, before any of it arrives. */
static bool has_body(struct MHD_Connection *conn)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);

	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
	       (cl && strspn(cl, "0") != strlen(cl));
}

/*
 * One request as the client sent its target, from MHD's URI log callback,
 * which sees it before MHD cuts it at '?' and decodes it in place.
 */
struct request {
	const char *uri; /* the raw target, in MHD's read buffer */
	size_t len;      /* up to its first NUL byte */
	bool nul_escape; /* %00 in the path */
	bool seen;       /* the headers' call of the access handler is done */
};

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct request *rq = calloc(1, sizeof(*rq));
	size_t path;

	(void)cls;
	(void)conn;
	if (!rq)
		return NULL;
	rq->uri = uri ? uri : ""; /* NULL: "GET " and no target */
	rq->len = strlen(rq->uri);
	uri = rq->uri;
	path = strcspn(uri, "?");
	for (size_t i = 0; i + 2 < path; i++)
		if (!strncmp(uri + i, "%00", 3))
			rq->nul_escape = true;
	return rq;
}

/*
 * A NUL byte in the target: MHD gives "/metrics\0x" as "/metrics". It
 * parses the request line in place and ends the target with the NUL it
 * writes over the space before the version, so there the version follows
 * the target's first NUL; where it does not, a NUL came from the client.
 * (A version elsewhere in memory is a parser this check does not know: it
 * then refuses nothing.)
 */
static bool nul_in_target(const struct request *rq, const char *version)
{
	return *version && version > rq->uri &&
	       version - rq->uri <= HTTP_MAX_HEADER &&
	       version != rq->uri + rq->len + 1;
}

struct lengths {
	const char *first;
	bool differ;
};

static enum MHD_Result each_length(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	struct lengths *l = cls;

	(void)kind;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
		return MHD_YES;
	if (!l->first)
		l->first = value ? value : "";
	else if (strcmp(l->first, value ? value : ""))
		l->differ = true;
	return MHD_YES;
}

/*
 * Content-Length given twice with different values: which one counts
 * depends on who reads it (a proxy in front, or serve), the way requests
 * are smuggled; RFC 9112 section 6.3 makes it an error. The same value
 * twice is one length, as Go's net/http (node_exporter) takes it.
 */
static bool lengths_differ(struct MHD_Connection *conn)
{
	struct lengths l = { 0 };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, each_length, &l);
	return l.differ;
}

/*
 * A rendered page, shared by the responses that send it: each holds a
 * reference, dropped by MHD when it is done with it (or the client left).
 */
struct page {
	unsigned int refs;
	char *text;
	size_t len;
	void *gz; /* made when first asked for */
	size_t gzlen;
	uint64_t born_ns, took_ns;
};

static void page_put(void *cls)
{
	struct page *p = cls;

	if (p && !--p->refs) {
		free(p->text);
		free(p->gz);
		free(p);
	}
}

/* The page to serve now: the current one while young, else a new one. */
static struct page *current_page(struct httpd *s, char *err, size_t errlen)
{
	uint64_t now = mono_ns(), age;
	struct page *p = s->page;
	char line[192];
	size_t n;

	age = p && p->took_ns < HTTP_PAGE_AGE_NS / 4 ? HTTP_PAGE_AGE_NS :
	      p ? 4 * p->took_ns : 0;
	if (p && now - p->born_ns < age)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->m->http_evicted = s->guard.evicted;
	s->m->http_expired = s->guard.expired;
	p->text = metrics_render(s->m, &p->len, err, errlen);
	p->took_ns = mono_ns() - now;
	/* how long this page took, in the page (node_exporter's habit) */
	n = snprintf(line, sizeof(line), "# HELP abicap_scrape_render_seconds "
		     "Time this page took to render.\n# TYPE "
		     "abicap_scrape_render_seconds gauge\n"
		     "abicap_scrape_render_seconds %.6f\n", p->took_ns / 1e9);
	if (p->text) {
		char *t = realloc(p->text, p->len + n);

		if (t) {
			memcpy(t + p->len, line, n);
			p->text = t;
			p->len += n;
		}
	}
	if (!p->text) {
		free(p);
		return NULL;
	}
	p->refs = 1; /* the httpd's */
	p->born_ns = now;
	page_put(s->page);
	s->page = p;
	s->renders++;
	return p;
}

/* The client takes gzip: Accept-Encoding lists it, with no q=0 (RFC 9110 12.5.3). */
static bool takes_gzip(struct MHD_Connection *conn)
{
	const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_ACCEPT_ENCODING);

	while (a && *a) {
		size_t item, tok;
		const char *q;

		a += strspn(a, " \t");
		item = strcspn(a, ",");
		tok = strcspn(a, " \t;,");
		if (tok == 4 && !strncasecmp(a, "gzip", 4)) {
			q = memchr(a, ';', item);
			if (!q)
				return true;
			q += 1 + strspn(q + 1, " \t");
			return strncasecmp(q, "q=", 2) || strtod(q + 2, NULL) > 0;
		}
		a += item;
		a += *a == ',';
	}
	return false;
}

/* The current page, gzipped where the client takes it. */
static enum MHD_Result send_page(struct httpd *s, struct MHD_Connection *conn)
{
	char err[ERRMSG_LEN];
	struct page *p = current_page(s, err, sizeof(err));
	struct MHD_Response *r;
	bool gz;
	enum MHD_Result ret;

	if (!p) {
		ab_warn("scrape failed: %s", err);
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     TEXT("cannot read the metrics\n"));
	}
	gz = takes_gzip(conn);
	if (gz && !p->gz && gzip_buffer(p->text, p->len, &p->gz, &p->gzlen))
		gz = false;
	r = MHD_create_response_from_buffer_with_free_callback_cls(
		gz ? p->gzlen : p->len, gz ? p->gz : p->text, page_put, p);
	if (!r)
		return MHD_NO;
	p->refs++;
	MHD_add_response_header(r, "Content-Type",
				"text/plain; version=0.0.4; charset=utf-8");
	MHD_add_response_header(r, "Vary", "Accept-Encoding");
	if (gz)
		MHD_add_response_header(r, "Content-Encoding", "gzip");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	s->scrapes++;
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	struct httpd *s = cls;
	struct request *rq = *req;

	(void)upload;
	if (!rq)
		return MHD_NO; /* out of memory in on_uri(): close */
	if (nul_in_target(rq, version)) {
		s->refused++;
		return reply(conn, MHD_HTTP_BAD_REQUEST,
			     TEXT("a NUL byte in the request target\n"));
	}
	if (lengths_differ(conn)) {
		s->refused++;
		return reply(conn, MHD_HTTP_BAD_REQUEST,
			     TEXT("Content-Length given twice with different "
				  "values\n"));
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		s->refused++;
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			     TEXT("only GET and HEAD are served\n"));
	}
	if (*upload_len || has_body(conn)) {
		s->refused++;
		return reply(conn, MHD_HTTP_CONTENT_TOO_LARGE,
			     TEXT("a GET has no body\n"));
	}
	/* MHD closes a connection answered in the headers' call: answer next */
	if (!rq->seen) {
		rq->seen = true;
		return MHD_YES;
	}
	if (!strcmp(url, "/") && !rq->nul_escape)
		return reply(conn, MHD_HTTP_OK,
			     TEXT("abicap exporter: metrics at /metrics\n"));
	if (strcmp(url, "/metrics") || rq->nul_escape) {
		s->refused++;
		return reply(conn, MHD_HTTP_NOT_FOUND,
			     TEXT("not found: metrics are at /metrics\n"));
	}
	return send_page(s, conn);
}

static void close_peer(struct guard_peer *p)
{
	/* MHD sees the end of the stream and closes it in its next round */
	shutdown(p->fd, SHUT_RDWR);
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **ctx, enum MHD_ConnectionNotificationCode what)
{
	struct httpd *s = cls;
	const union MHD_ConnectionInfo *fd, *ad;
	struct guard_peer *p = *ctx, *v;

	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (p) {
			guard_remove(&s->guard, p);
			free(p);
		}
		*ctx = NULL;
		return;
	}
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	ad = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	p = calloc(1, sizeof(*p));
	if (!p || !fd || !ad) {
		/* unaccounted for is not served */
		if (fd)
			shutdown(fd->connect_fd, SHUT_RDWR);
		free(p);
		return;
	}
	p->fd = fd->connect_fd;
	p->uid = peeruid_of(s->diag, p->fd);
	if (ad->client_addr->sa_family == AF_INET6) {
		memcpy(p->addr, &((struct sockaddr_in6 *)ad->client_addr)->sin6_addr,
		       16);
	} else {
		p->addr[10] = p->addr[11] = 0xff;
		memcpy(p->addr + 12,
		       &((struct sockaddr_in *)ad->client_addr)->sin_addr, 4);
	}
	*ctx = p;
	guard_add(&s->guard, p, mono_ns());
	while ((v = guard_victim(&s->guard, p)))
		close_peer(v);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req,
			 enum MHD_RequestTerminationCode why)
{
	struct httpd *s = cls;
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	free(*req);
	*req = NULL;
	if (why == MHD_REQUEST_TERMINATED_COMPLETED_OK && i && i->socket_context)
		guard_done(&s->guard, i->socket_context, mono_ns());
}

int httpd_start(struct httpd *h, int fd, struct metrics_ctx *m)
{
	memset(h, 0, sizeof(*h));
	h->m = m;
	h->diag = peeruid_open();
	guard_init(&h->guard, HTTP_MAX_CONNS, HTTP_MAX_PER_CLIENT,
		   HTTP_DEADLINE_S * 1000000000ull);
	/*
	 * One thread runs MHD and the guard, so a peer is never closed by MHD
	 * while the guard shuts its socket down. MHD's own limit only bounds
	 * the peers already put out and not yet closed.
	 */
	h->d = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, on_request, h,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)(4 * HTTP_MAX_CONNS),
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)HTTP_DEADLINE_S,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)HTTP_MAX_HEADER,
				MHD_OPTION_END);
	if (!h->d && h->diag >= 0) {
		close(h->diag);
		h->diag = -1;
	}
	return h->d ? 0 : -1;
}

void httpd_run(struct httpd *h, unsigned int ms)
{
	struct guard_peer *p;

	MHD_run_wait(h->d, ms);
	while ((p = guard_expired(&h->guard, mono_ns())))
		close_peer(p);
}

void httpd_stop(struct httpd *h)
{
	MHD_stop_daemon(h->d); /* closes the listening socket */
	h->d = NULL;
	if (h->diag >= 0)
		close(h->diag);
	h->diag = -1;
	page_put(h->page);
	h->page = NULL;
}
