// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap serve: a Prometheus endpoint fed by in-kernel aggregation. The BPF
 * programs keep per-cgroup histograms and counters in maps (no record
 * streams to user space); each scrape reads the maps.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "live/capture.h"
#include "event/cgnames.h"
#include "event/cgroup.h"
#include "live/connguard.h"
#include "cmd/commands.h"
#include "abi/contract.h"
#include "live/metrics.h"
#include "live/runloop.h"
#include "cmd/trace.h"
#include "lib/util.h"

#include <microhttpd.h>

const char serve_usage[] =
"Usage: abicap serve [OPTIONS]\n"
"Serve Prometheus metrics of the running kernel's scheduler, aggregated in\n"
"the kernel (per-cgroup histograms in BPF maps: no per-event streaming).\n"
"\n"
"  -l, --listen ADDR:PORT  where to listen (default 127.0.0.1:9464, loopback\n"
"                          only); e.g. 0.0.0.0:9464 or [::]:9464 for every\n"
"                          interface, which is never the default\n"
"      --cgroup PATH       only tasks in this cgroup v2 subtree, as a path in\n"
"                          the hierarchy (/system.slice) or under its mount\n"
"      --max-cgroups N     cgroups kept in the kernel (default 1024); when\n"
"                          three quarters full, removed cgroups are forgotten\n"
"  -d, --duration SECS     stop after SECS seconds (default: until Ctrl-C)\n"
"      --attach MODE       auto (default), tp_btf or raw_tp\n"
"  -c, --contract FILE     ABI contract to hold the kernel to before attaching\n"
"  -v, --verbose           print libbpf's log (verifier output) on stderr\n"
"  -h, --help              show this help\n"
"\n"
"GET /metrics:\n"
"  abicap_runqueue_latency_seconds{cgroup,container,pod,qos}  histogram\n"
"  abicap_context_switches_total{cgroup,...,kind=voluntary|involuntary}\n"
"  abicap_cpu_seconds_total{cgroup,...}        on-CPU time\n"
"  abicap_cpu_idle_seconds_total{cpu,state}    idle residency\n"
"  abicap_cpu_frequency_hertz{cpu}             last cpu_frequency\n"
"  abicap_abi_contract_status{event,item}      0 ok, 1 degraded, 2 broken\n"
"  abicap_events_total{event}, abicap_events_lost_total{event}\n"
"  abicap_http_connections_closed_total{reason=evicted|deadline}\n"
"Only GET and HEAD of / and /metrics are answered; a request with a body,\n"
"headers over 16 KiB or another method gets an HTTP error, and the exporter\n"
"keeps serving. Keep-alive and pipelining work. Each request must be done\n"
"within 10 s of its connection or of the previous answer; a connection over\n"
"16 from one address or 64 in all closes the oldest one, so slow clients\n"
"cannot lock a scraper out. Label values are UTF-8: a byte that is not\n"
"becomes the text \\xHH, and such a cgroup path ends in '/'.\n"
"Exit: 0 ok, 1 kernel cannot do it, 2 bad usage, 3 missing privilege,\n"
"4 runtime failure (e.g. the port is in use).\n";

enum { OPT_CGROUP = 256, OPT_MAX_CGROUPS, OPT_ATTACH };

static const struct option long_opts[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "max-cgroups", required_argument, NULL, OPT_MAX_CGROUPS },
	{ "duration", required_argument, NULL, 'd' },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "contract", required_argument, NULL, 'c' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

struct serve_opts {
	const char *listen;
	const char *cgroup;
	const char *contract_path;
	double duration;
	struct capture_opts cap;
};

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	bool loopback;
	char text[80]; /* "127.0.0.1:9464", "[::1]:9464" */
};

/* ADDR:PORT, [V6]:PORT or localhost:PORT, numeric only. */
static int parse_listen(const char *s, struct listen_addr *a, char *err,
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

/* A listening socket, before anything loads: a busy port fails early. */
static int open_listener(const struct listen_addr *a, char *err, size_t errlen)
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

static int parse_args(int argc, char **argv, struct serve_opts *o,
		      bool *help, char *err, size_t errlen)
{
	long n;
	int ch;

	memset(o, 0, sizeof(*o));
	err[0] = 0; /* usage_error() says it itself */
	o->listen = "127.0.0.1:9464";
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":l:d:c:vh", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			o->listen = optarg;
			break;
		case OPT_CGROUP:
			o->cgroup = optarg;
			break;
		case OPT_MAX_CGROUPS:
			if (!parse_long(optarg, 16, 1 << 20, &n)) {
				snprintf(err, errlen, "--max-cgroups '%s': give a "
					 "number from 16 to 1048576", optarg);
				return EXIT_USAGE;
			}
			o->cap.max_cgroups = n;
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration, err, errlen))
				return EXIT_USAGE;
			break;
		case OPT_ATTACH:
			if (parse_attach_mode(optarg, &o->cap.mode, err, errlen))
				return EXIT_USAGE;
			break;
		case 'c':
			o->contract_path = optarg;
			break;
		case 'v':
			o->cap.verbose = true;
			break;
		case 'h':
			*help = true;
			return EXIT_OK;
		default:
			return usage_error(argc, argv, ch, "serve");
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (see abicap serve "
			 "--help)", argv[optind]);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/*
 * Limits of the HTTP side (README "abicap serve"): slow clients are closed
 * at the deadline or evicted by newcomers, so they cannot lock out a scrape.
 */
#define HTTP_MAX_CONNS 64
#define HTTP_MAX_PER_ADDR 16
#define HTTP_DEADLINE_S 10
#define HTTP_MAX_HEADER 16384

struct server {
	struct metrics_ctx m;
	struct conn_guard guard;
	uint64_t scrapes, refused;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     char *body, size_t len, bool must_free)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
		must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", code == MHD_HTTP_OK && len > 64 ?
				"text/plain; version=0.0.4; charset=utf-8" :
				"text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

#define TEXT(s) (char *)(s), sizeof(s) - 1, false

/* A request body is announced by its headers, before any of it arrives. */
static bool has_body(struct MHD_Connection *conn)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);

	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
	       (cl && strspn(cl, "0") != strlen(cl));
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	struct server *s = cls;
	char err[ERRMSG_LEN], *body;
	size_t len;

	(void)version;
	(void)upload;
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
	if (!*req) {
		*req = s;
		return MHD_YES;
	}
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK,
			     TEXT("abicap exporter: metrics at /metrics\n"));
	if (strcmp(url, "/metrics")) {
		s->refused++;
		return reply(conn, MHD_HTTP_NOT_FOUND,
			     TEXT("not found: metrics are at /metrics\n"));
	}
	s->m.http_evicted = s->guard.evicted;
	s->m.http_expired = s->guard.expired;
	body = metrics_render(&s->m, &len, err, sizeof(err));
	if (!body) {
		ab_warn("scrape failed: %s", err);
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     TEXT("cannot read the metrics\n"));
	}
	s->scrapes++;
	return reply(conn, MHD_HTTP_OK, body, len, true);
}

static void close_peer(struct guard_peer *p)
{
	/* MHD sees the end of the stream and closes it in its next round */
	shutdown(p->fd, SHUT_RDWR);
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **ctx, enum MHD_ConnectionNotificationCode what)
{
	struct server *s = cls;
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
	struct server *s = cls;
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	(void)req;
	if (why == MHD_REQUEST_TERMINATED_COMPLETED_OK && i && i->socket_context)
		guard_done(&s->guard, i->socket_context, mono_ns());
}

int do_serve(int argc, char **argv)
{
	char err[ERRMSG_LEN], root[4096];
	struct serve_opts o;
	struct listen_addr la;
	struct server srv = { 0 };
	struct contract *contract = NULL;
	struct capture *c;
	struct MHD_Daemon *d;
	struct abicap_counter cnt[ABICAP_EV_COUNT];
	uint64_t t0, seen = 0, lost = 0;
	bool help = false, warned_gone = false;
	unsigned long ticks = 0;
	int ret, fd;

	ret = parse_args(argc, argv, &o, &help, err, sizeof(err));
	if (!ret && help) {
		fputs(serve_usage, stdout);
		return EXIT_OK;
	}
	if (!ret && parse_listen(o.listen, &la, err, sizeof(err)))
		ret = EXIT_USAGE;
	if (!ret)
		ret = resolve_cgroup_option(o.cgroup, root, sizeof(root),
					    &o.cap, err, sizeof(err));
	if (!ret && o.contract_path) {
		contract = load_contract_arg(o.contract_path, err, sizeof(err));
		if (!contract)
			ret = EXIT_USAGE;
		o.cap.contract = contract;
	}
	if (ret) {
		if (err[0])
			ab_error("%s", err);
		contract_free(contract);
		return ret;
	}
	fd = open_listener(&la, err, sizeof(err));
	if (fd < 0) {
		ab_error("%s", err);
		contract_free(contract);
		return EXIT_RUNTIME;
	}
	o.cap.events = (1u << ABICAP_EV_SCHED_SWITCH) |
		       (1u << ABICAP_EV_SCHED_WAKEUP) |
		       (1u << ABICAP_EV_SCHED_WAKEUP_NEW) |
		       (1u << ABICAP_EV_CPU_IDLE) |
		       (1u << ABICAP_EV_CPU_FREQUENCY);
	o.cap.aggregate = true;
	o.cap.drop_privileges = true;
	loop_install_signals();
	c = capture_open(&o.cap, NULL, NULL, &ret, err, sizeof(err));
	contract_free(contract);
	if (!c) {
		ab_error("%s", err);
		close(fd);
		return ret;
	}
	srv.m.cap = c;
	srv.m.cgroup_root = root;
	srv.m.max_cgroups = o.cap.max_cgroups ? o.cap.max_cgroups :
						ABICAP_MAX_CGROUPS_DEFAULT;
	srv.m.names = cgnames_live(err, sizeof(err));
	if (!srv.m.names) {
		ab_error("%s", err);
		capture_close(c);
		close(fd);
		return EXIT_KERNEL;
	}
	guard_init(&srv.guard, HTTP_MAX_CONNS, HTTP_MAX_PER_ADDR,
		   HTTP_DEADLINE_S * 1000000000ull);
	/*
	 * One thread runs MHD and the guard, so a peer is never closed by MHD
	 * while the guard shuts its socket down. MHD's own limit only bounds
	 * the peers already put out and not yet closed.
	 */
	d = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, on_request, &srv,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT,
			     (unsigned int)(4 * HTTP_MAX_CONNS),
			     MHD_OPTION_CONNECTION_TIMEOUT,
			     (unsigned int)HTTP_DEADLINE_S,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, &srv,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, &srv,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT,
			     (size_t)HTTP_MAX_HEADER,
			     MHD_OPTION_END);
	if (!d) {
		ab_error("cannot start the HTTP server on %s", la.text);
		cgnames_free(srv.m.names);
		capture_close(c);
		close(fd);
		return EXIT_RUNTIME;
	}
	if (!la.loopback)
		ab_warn("listening on %s: the metrics are reachable from other "
			"hosts", la.text);
	fprintf(stderr, "abicap: serving http://%s/metrics%s; Ctrl-C to stop\n",
		la.text, o.cgroup ? " for the cgroup subtree given" : "");
	t0 = mono_ns();
	while (!loop_stop_signal() &&
	       (o.duration <= 0 || (mono_ns() - t0) / 1e9 < o.duration)) {
		uint64_t id = 0;
		unsigned int level;
		struct guard_peer *p;

		MHD_run_wait(d, 100);
		while ((p = guard_expired(&srv.guard, mono_ns())))
			close_peer(p);
		/* once a second: is the filtered cgroup still there? */
		if (o.cgroup && !warned_gone && !(++ticks % 10) &&
		    (cgroup_resolve(root, o.cgroup, &id, &level, err,
				    sizeof(err)) || id != o.cap.cgroup_id)) {
			ab_warn("--cgroup %s was removed: no task can match it "
				"any more (metrics keep their last values)",
				o.cgroup);
			warned_gone = true;
		}
	}
	MHD_stop_daemon(d); /* closes the listening socket */
	if (!capture_counters(c, -1, cnt))
		for (int e = 0; e < ABICAP_EV_COUNT; e++) {
			seen += cnt[e].seen;
			lost += cnt[e].dropped;
		}
	fprintf(stderr, "abicap: served %llu scrapes (%llu requests refused, "
		"%llu connections evicted, %llu past the %d s deadline) in %.1f s;"
		" %llu events, %llu lost\n",
		(unsigned long long)srv.scrapes, (unsigned long long)srv.refused,
		(unsigned long long)srv.guard.evicted,
		(unsigned long long)srv.guard.expired, HTTP_DEADLINE_S,
		(mono_ns() - t0) / 1e9, (unsigned long long)seen,
		(unsigned long long)lost);
	metrics_fini(&srv.m);
	cgnames_free(srv.m.names);
	capture_close(c);
	return EXIT_OK;
}
