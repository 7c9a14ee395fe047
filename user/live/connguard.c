// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include "live/connguard.h"

void guard_init(struct conn_guard *g, unsigned int max_total,
		unsigned int max_per_addr, uint64_t deadline_ns)
{
	memset(g, 0, sizeof(*g));
	g->max_total = max_total;
	g->max_per_addr = max_per_addr;
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

/* The oldest live peer other than p (of p's address if same_addr). */
static struct guard_peer *oldest(struct conn_guard *g,
				 const struct guard_peer *p, bool same_addr)
{
	struct guard_peer *best = NULL;

	for (struct guard_peer *q = g->head; q; q = q->next) {
		if (q == p || q->out ||
		    (same_addr && memcmp(q->addr, p->addr, sizeof(q->addr))))
			continue;
		if (!best || q->since < best->since)
			best = q;
	}
	return best;
}

struct guard_peer *guard_victim(struct conn_guard *g,
				const struct guard_peer *p)
{
	struct guard_peer *v = NULL;
	unsigned int same = 0;

	for (struct guard_peer *q = g->head; q; q = q->next)
		same += !q->out && !memcmp(q->addr, p->addr, sizeof(q->addr));
	if (same > g->max_per_addr)
		v = oldest(g, p, true);
	else if (g->live > g->max_total)
		v = oldest(g, p, false);
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
