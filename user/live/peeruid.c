// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The user of a local TCP client: see peeruid.h. */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "live/peeruid.h"

/* TCP states (include/net/tcp_states.h), not in the uapi headers */
enum { TIME_WAIT = 6, NEW_SYN_RECV = 12 };

int peeruid_open(void)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	/* an answer comes at once; a kernel that never answers costs 0.1 s */
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* One end of the connection as the kernel's diagnostics name it. */
static int end_of(const struct sockaddr_storage *ss, int *family,
		  __be16 *port, __be32 addr[4])
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const struct sockaddr_in *s4 = (const void *)ss;

	if (ss->ss_family == AF_INET) {
		*family = AF_INET;
		*port = s4->sin_port;
		addr[0] = s4->sin_addr.s_addr;
		return 0;
	}
	if (ss->ss_family != AF_INET6)
		return -1;
	*port = s6->sin6_port;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		/* the client's socket is an IPv4 one */
		*family = AF_INET;
		memcpy(addr, s6->sin6_addr.s6_addr + 12, 4);
	} else {
		*family = AF_INET6;
		memcpy(addr, s6->sin6_addr.s6_addr, 16);
	}
	return 0;
}

/* The request for the socket whose source is peer and destination self. */
static int ask(int diag, const struct sockaddr_storage *peer,
	       const struct sockaddr_storage *self, uint32_t seq)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} q;
	int fam_peer, fam_self;

	memset(&q, 0, sizeof(q));
	if (end_of(peer, &fam_peer, &q.r.id.idiag_sport, q.r.id.idiag_src) ||
	    end_of(self, &fam_self, &q.r.id.idiag_dport, q.r.id.idiag_dst) ||
	    fam_peer != fam_self)
		return -1;
	q.nh.nlmsg_len = sizeof(q);
	q.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nh.nlmsg_flags = NLM_F_REQUEST;
	q.nh.nlmsg_seq = seq;
	q.r.sdiag_family = (__u8)fam_peer;
	q.r.sdiag_protocol = IPPROTO_TCP;
	/*
	 * a socket in TIME_WAIT (its owner closed it) is reported as uid 0:
	 * not asked for, so a tenant's closed client is never root's
	 */
	q.r.idiag_states = ~(1u << TIME_WAIT | 1u << NEW_SYN_RECV);
	q.r.id.idiag_cookie[0] = q.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	return send(diag, &q, sizeof(q), 0) == (ssize_t)sizeof(q) ? 0 : -1;
}

uint32_t peeruid_of(int diag, int conn)
{
	static uint32_t seq;
	struct sockaddr_storage peer, self;
	socklen_t pl = sizeof(peer), sl = sizeof(self);
	union {
		struct nlmsghdr nh;
		char buf[1024];
	} a;
	const struct inet_diag_msg *m;
	ssize_t n;

	if (diag < 0 || getpeername(conn, (void *)&peer, &pl) ||
	    getsockname(conn, (void *)&self, &sl) ||
	    ask(diag, &peer, &self, ++seq))
		return PEER_UID_NONE;
	/* a late answer to an earlier question is passed over */
	do
		n = recv(diag, &a, sizeof(a), 0);
	while ((n < 0 && errno == EINTR) ||
	       (n >= (ssize_t)sizeof(a.nh) && a.nh.nlmsg_seq != seq));
	/* NLMSG_ERROR (ENOENT): not a socket of this network namespace */
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(*m)) ||
	    a.nh.nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return PEER_UID_NONE;
	m = NLMSG_DATA(&a.nh);
	/*
	 * a socket its owner closed has no inode, and the kernel reports
	 * its uid as 0 (seen here: a tenant's hung-up clients were root's
	 * and evicted root's scraper); such a client is no one's
	 */
	if (m->idiag_state == TIME_WAIT || !m->idiag_inode)
		return PEER_UID_NONE;
	return m->idiag_uid;
}
