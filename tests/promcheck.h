/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * An independent reader of the Prometheus text format for the tests and
 * the fuzz target: what Prometheus would refuse in a scrape.
 */
#ifndef ABICAP_PROMCHECK_H
#define ABICAP_PROMCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each label of each sample, with the value unescaped. */
typedef void (*prom_label_fn)(void *ctx, const char *metric, const char *label,
			      const char *value, size_t len);

/*
 * text[0..len): valid UTF-8; every line "# HELP m text", "# TYPE m type",
 * or a sample m{l="v",...} VALUE (names [a-zA-Z_:][a-zA-Z0-9_:]*, values
 * with only \\, \" and \n escaped); no series (metric and labels) twice.
 * 0, or -1 with the first problem in why. fn may be NULL.
 */
int prom_check(const char *text, size_t len, prom_label_fn fn, void *ctx,
	       char *why, size_t whylen);

/* s[0..n) is valid UTF-8 (no overlongs, surrogates or values > U+10FFFF). */
bool utf8_valid(const unsigned char *s, size_t n);

#endif
