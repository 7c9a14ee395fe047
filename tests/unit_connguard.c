// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* serve's connection guard: who is closed so that a scrape gets through. */
#include <criterion/criterion.h>
#include <string.h>
#include "live/connguard.h"

#define S 1000000000ull

static struct guard_peer peers[200];

static struct guard_peer *peer(int i, unsigned char addr)
{
	memset(&peers[i], 0, sizeof(peers[i]));
	peers[i].addr[15] = addr;
	peers[i].fd = i;
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

Test(connguard, a_newcomer_over_the_total_limit_evicts_the_oldest_of_all)
{
	struct conn_guard g;
	int n = 0;

	guard_init(&g, 64, 16, 10 * S);
	/* 64 slow clients from four addresses, 16 each */
	for (; n < 64; n++) {
		guard_add(&g, peer(n, 2 + n % 4), (n + 1) * S / 100);
		cr_assert_null(guard_victim(&g, &peers[n]));
	}
	guard_add(&g, peer(n, 6), S);
	cr_assert_eq(guard_victim(&g, &peers[n]), &peers[0]);
	cr_assert_null(guard_victim(&g, &peers[n]));
	/* a peer that just completed a request is young again */
	guard_done(&g, &peers[1], 2 * S);
	guard_add(&g, peer(n + 1, 6), 2 * S);
	cr_assert_eq(guard_victim(&g, &peers[n + 1]), &peers[2]);
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
