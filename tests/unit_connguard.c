// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* serve's connection guard: who is closed so that a scrape gets through. */
#include <criterion/criterion.h>
#include <string.h>
#include "live/connguard.h"
#include "live/peeruid.h"

#define S 1000000000ull

static struct guard_peer peers[200];

/* A client on another host: known by its address alone. */
static struct guard_peer *peer(int i, unsigned char addr)
{
	memset(&peers[i], 0, sizeof(peers[i]));
	peers[i].addr[15] = addr;
	peers[i].uid = PEER_UID_NONE;
	peers[i].fd = i;
	return &peers[i];
}

/* A client on this host: 127.0.0.1 and the user owning its socket. */
static struct guard_peer *local(int i, uint32_t uid)
{
	peer(i, 0);
	memcpy(peers[i].addr + 10, "\xff\xff\x7f\x00\x00\x01", 6);
	peers[i].uid = uid;
	return &peers[i];
}

Test(connguard, a_newcomer_over_the_per_address_limit_evicts_that_address_oldest)
{
	struct conn_guard g;
	struct guard_peer *v;

	guard_init(&g, 64, 16, 10 * S);
	for (int i = 0; i < 16; i++) {
		guard_add(&g, peer(i, 1), i * S / 10);
		cr_assert_null(guard_victim(&g, &peers[i]));
	}
	/* another address is not limited by the first one's */
	guard_add(&g, peer(16, 2), 2 * S);
	cr_assert_null(guard_victim(&g, &peers[16]));
	/* the scraper from the slow clients' address */
	guard_add(&g, peer(17, 1), 3 * S);
	v = guard_victim(&g, &peers[17]);
	cr_assert_eq(v, &peers[0], "the oldest of address 1 goes");
	cr_assert_null(guard_victim(&g, &peers[17]));
	cr_assert_eq(g.evicted, 1);
	cr_assert_eq(g.live, 17);
	guard_remove(&g, v);
	cr_assert_eq(g.live, 17);
}

Test(connguard, a_newcomer_over_the_total_limit_evicts_from_the_client_holding_most)
{
	struct conn_guard g;
	int n = 0;

	guard_init(&g, 64, 16, 10 * S);
	/* 64 slow clients: 10 from address 2, 18 from each of 3, 4 and 5 */
	for (; n < 64; n++) {
		unsigned char a = n < 10 ? 2 : 3 + (n - 10) % 3;

		guard_add(&g, peer(n, a), (n + 1) * S / 100);
		/* 18 of one address: two of its own evicted as they came */
		guard_victim(&g, &peers[n]);
	}
	cr_assert_eq(g.evicted, 6);
	cr_assert_eq(g.live, 58);
	for (; n < 70; n++) {
		guard_add(&g, peer(n, 6), S);
		cr_assert_null(guard_victim(&g, &peers[n]));
	}
	/* the 65th: 16 each for 3, 4 and 5; the first of them (3) pays */
	guard_add(&g, peer(n, 6), S);
	cr_assert_eq(guard_victim(&g, &peers[n]), &peers[16],
		     "address 3's oldest left (10, 13 evicted)");
	cr_assert_null(guard_victim(&g, &peers[n]));
	/* address 2, the oldest of all, holds fewer: it keeps its place */
	for (int i = 0; i < 10; i++)
		cr_assert_not(peers[i].out);
	/* one connection each from 65 addresses: the oldest of all goes */
	guard_init(&g, 64, 16, 10 * S);
	for (n = 0; n < 65; n++) {
		guard_add(&g, peer(n, (unsigned char)(10 + n)), (n + 1) * S);
		cr_assert_eq(guard_victim(&g, &peers[n]), n < 64 ? NULL : &peers[0]);
	}
}

/*
 * Every client on this host has 127.0.0.1: a tenant's 40 connections evict
 * only each other, and root's scrape (older than all of them) stays.
 */
Test(connguard, local_clients_are_told_apart_by_their_user)
{
	struct conn_guard g;
	int n;

	guard_init(&g, 64, 16, 10 * S);
	guard_add(&g, local(0, 0), 0);
	cr_assert_null(guard_victim(&g, &peers[0]));
	for (n = 1; n <= 40; n++) {
		guard_add(&g, local(n, 65534), n * S / 100);
		while (guard_victim(&g, &peers[n]))
			;
		cr_assert_not(peers[0].out, "root's scrape evicted by nobody's %d", n);
	}
	cr_assert_eq(g.evicted, 40 - 16);
	/* all nobody's evicted were nobody's oldest */
	for (n = 1; n <= 40; n++)
		cr_assert_eq(peers[n].out, n <= 24, "nobody's %d", n);
	/* a closed client (no user) is another client than root */
	guard_add(&g, local(41, PEER_UID_NONE), S);
	cr_assert_null(guard_victim(&g, &peers[41]));
	cr_assert_not(peers[0].out);
}

Test(connguard, a_request_past_the_deadline_is_closed_whatever_it_sends)
{
	struct conn_guard g;

	guard_init(&g, 64, 16, 10 * S);
	guard_add(&g, peer(0, 1), 0);
	guard_add(&g, peer(1, 1), 5 * S);
	cr_assert_null(guard_expired(&g, 10 * S));
	cr_assert_eq(guard_expired(&g, 10 * S + 1), &peers[0]);
	cr_assert_null(guard_expired(&g, 10 * S + 1), "reported once");
	guard_done(&g, &peers[1], 12 * S);
	cr_assert_null(guard_expired(&g, 16 * S));
	cr_assert_eq(guard_expired(&g, 22 * S + 1), &peers[1]);
	cr_assert_eq(g.expired, 2);
	cr_assert_eq(g.live, 0);
}
