/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Label values in the Prometheus text format, which must be UTF-8 (one bad
 * byte and the whole scrape is rejected: every series of the node lost).
 */
#ifndef ABICAP_PROMTEXT_H
#define ABICAP_PROMTEXT_H

#include <stdbool.h>
#include <stdio.h>

/*
 * name="value", after a ',' unless first. Backslash, quote and newline are
 * escaped as the format wants; each byte that is not part of valid UTF-8
 * becomes the text \xHH (as trace and report print it). A cgroup path
 * (is_path) with such bytes also gets each backslash as \x5c and a final
 * '/', which no cgroup path has (but the root "/"): distinct cgroups keep
 * distinct values, and a systemd name such as "foo\x2dbar.slice", valid
 * UTF-8, is shown as it is.
 */
void prom_label(FILE *f, const char *name, const char *v, bool first,
		bool is_path);
/*
 * Label values are bounded, as Prometheus' label_value_length_limit
 * bounds what it takes: a value of more than PROM_LABEL_MAX bytes keeps
 * its first and last PROM_LABEL_KEEP bytes (cut between characters) and,
 * between them, "…#" and 16 hex digits of a hash of the whole value, so
 * distinct values stay distinct: "/a/very/long…#3f2a…/its/end" (a
 * 16-level cgroup of 250-byte names: 4,288 bytes, 445 in the label).
 */
#define PROM_LABEL_MAX 512
#define PROM_LABEL_KEEP 200
void prom_label_bounded(FILE *f, const char *name, const char *v, bool first,
			bool is_path);

#endif
