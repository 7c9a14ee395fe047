/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Durations with a unit ("1.5s", "200ms", "2us", "500ns") and time windows. */
#ifndef ABICAP_DURATION_H
#define ABICAP_DURATION_H

#include <stdbool.h>
#include <stdint.h>

/*
 * s: a non-negative number (decimals allowed) and a unit, s, ms, us or ns,
 * at most a year: *ns rounded to the nanosecond. false for anything else.
 */
bool parse_duration_ns(const char *s, uint64_t *ns);

/*
 * A window of a capture, relative to its first record (--since/--until):
 * [since, until] ns after it; until UINT64_MAX: to the end.
 */
struct timewin {
	uint64_t since, until;
};
#define TIMEWIN_ALL ((struct timewin){ 0, UINT64_MAX })

/* Whether w cuts anything. */
static inline bool timewin_set(const struct timewin *w)
{
	return w->since || w->until != UINT64_MAX;
}

/* Whether the record at ts (t0: the capture's first record) is inside w. */
static inline bool timewin_has(const struct timewin *w, uint64_t t0,
			       uint64_t ts)
{
	uint64_t rel = ts >= t0 ? ts - t0 : 0;

	return rel >= w->since && rel <= w->until;
}

/* The window as absolute times from t0 (saturating). */
static inline uint64_t timewin_abs(uint64_t t0, uint64_t rel)
{
	return rel > UINT64_MAX - t0 ? UINT64_MAX : t0 + rel;
}

#endif
