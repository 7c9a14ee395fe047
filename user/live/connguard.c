// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include "live/connguard.h"

void guard_init(struct conn_guard *g, unsigned int max_total,
		unsigned int max_per_client, uint64_t deadline_ns)
{
	memset(g, 0, sizeof(*g));
	g->max_total = max_total;
	g->max_per_client = max_per_client;
	g->deadline_ns = deadline_ns;
}

void guard_add(struct conn_guard *g, struct guard_peer *p, uint64_t now)
{
	p->since = now;
	p->out = false;
	p->next = NULL;
	p->prev = g->tail;
	if (g->tail)
		g->tail->next = p;
	else
		g->head = p;
	g->tail = p;
	g->live++;
}

static void put_out(struct conn_guard *g, struct guard_peer *p)
{
	p->out = true;
	g->live--;
}

static bool same_client(const struct guard_peer *a, const struct guard_peer *b)
{
	return a->uid == b->uid && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* The live peers of q's client. */
static unsigned int held(const struct conn_guard *g, const struct guard_peer *q)
{
	unsigned int n = 0;

	for (const struct guard_peer *r = g->head; r; r = r->next)
		n += !r->out && same_client(q, r);
	return n;
}

/* The oldest live peer other than p: of of's client, or of any if NULL. */
static struct guard_peer *oldest(struct conn_guard *g,
				 const struct guard_peer *p,
				 const struct guard_peer *of)
{
	struct guard_peer *best = NULL;

	for (struct guard_peer *q = g->head; q; q = q->next) {
		if (q == p || q->out || (of && !same_client(q, of)))
			continue;
		if (!best || q->since < best->since)
			best = q;
	}
	return best;
}

/*
 * A peer of the client holding the most live connections, p's client
 * first among equals. The peers are at most the total limit plus one: the
 * count per peer keeps this quadratic in 65, never more.
 */
static const struct guard_peer *heaviest(struct conn_guard *g,
					 const struct guard_peer *p)
{
	const struct guard_peer *top = p;
	unsigned int most = held(g, p);

	for (struct guard_peer *q = g->head; q; q = q->next) {
		unsigned int n = q->out || same_client(q, p) ? 0 : held(g, q);

		if (n > most) {
			most = n;
			top = q;
		}
	}
	return top;
}

struct guard_peer *guard_victim(struct conn_guard *g,
				const struct guard_peer *p)
{
	struct guard_peer *v = NULL;

	if (held(g, p) > g->max_per_client)
		v = oldest(g, p, p);
	else if (g->live > g->max_total &&
		 !(v = oldest(g, p, heaviest(g, p))))
		v = oldest(g, p, NULL); /* p is its client's one: every client's is */
	if (v) {
		put_out(g, v);
		g->evicted++;
	}
	return v;
}

struct guard_peer *guard_expired(struct conn_guard *g, uint64_t now)
{
	for (struct guard_peer *q = g->head; q; q = q->next)
		if (!q->out && now - q->since > g->deadline_ns) {
			put_out(g, q);
			g->expired++;
			return q;
		}
	return NULL;
}

void guard_done(struct conn_guard *g, struct guard_peer *p, uint64_t now)
{
	(void)g;
	p->since = now;
}

void guard_remove(struct conn_guard *g, struct guard_peer *p)
{
	if (!p->out)
		g->live--;
	if (p->prev)
		p->prev->next = p->next;
	else
		g->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		g->tail = p->prev;
	p->prev = p->next = NULL;
}
