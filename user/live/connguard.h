/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Who keeps a connection to serve's HTTP endpoint. Slow clients must not
 * lock out a scrape: each request has a total deadline (counted from the
 * connection or from the end of the previous request, whatever the client
 * sends meanwhile), and a new connection is never refused: over the
 * per-client limit it evicts the oldest of its own client's, over the total
 * limit the oldest of the client that holds the most. A client is an
 * address and, for one on this host (which all share its addresses), the
 * user owning its socket (live/peeruid.h): one tenant's connections evict
 * only each other, never another's scrape. Pure bookkeeping: the caller
 * closes what it is told.
 */
#ifndef ABICAP_CONNGUARD_H
#define ABICAP_CONNGUARD_H

#include <stdbool.h>
#include <stdint.h>

struct guard_peer {
	struct guard_peer *prev, *next;
	uint64_t since; /* ns: accepted, or its last request completed */
	unsigned char addr[16]; /* IPv4 as v4-mapped IPv6 */
	uint32_t uid; /* of a client on this host, else PEER_UID_NONE */
	int fd;
	bool out; /* evicted or past its deadline: being closed */
};

struct conn_guard {
	struct guard_peer *head, *tail;
	unsigned int live; /* peers not out */
	unsigned int max_total, max_per_client;
	uint64_t deadline_ns;
	uint64_t evicted, expired; /* peers put out, by cause */
};

void guard_init(struct conn_guard *g, unsigned int max_total,
		unsigned int max_per_client, uint64_t deadline_ns);
/* A new connection (p zeroed but for addr, uid and fd). */
void guard_add(struct conn_guard *g, struct guard_peer *p, uint64_t now);
/*
 * After guard_add(p): a peer to close to make room for p (now counted
 * out), or NULL when p fits. Call until NULL.
 */
struct guard_peer *guard_victim(struct conn_guard *g,
				const struct guard_peer *p);
/* A peer whose request is past the deadline (now counted out), or NULL. */
struct guard_peer *guard_expired(struct conn_guard *g, uint64_t now);
/* p answered a request: its next one has a fresh deadline. */
void guard_done(struct conn_guard *g, struct guard_peer *p, uint64_t now);
/* p closed (by anyone): forgotten; the caller frees it. */
void guard_remove(struct conn_guard *g, struct guard_peer *p);

#endif
