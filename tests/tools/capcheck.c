// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/capcheck FILE: reads a capture file from end to end, one record at
 * a time (constant memory, unlike report, which holds every record to sort
 * them), for scripts/soak.sh. Prints one JSON object:
 *
 *   {"records": N, "by_event": {"sched_switch": N, ...}, "bytes": SIZE,
 *    "end": "complete" | "cut short" | "damaged: WHY", "trailer": {...} | null}
 *
 * Exit 0 if the file read to a clean end, 1 if not, 2 if it cannot be opened.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include "capfile/capfile.h"
#include "event/events.h"

int main(int argc, char **argv)
{
	unsigned long long n[ABICAP_EV_COUNT] = { 0 }, total = 0;
	json_t *out, *by = json_object(), *trl = json_null();
	union abicap_rec rec;
	char err[256], end[300];
	struct capr *r;
	struct stat st;
	bool cut, ok;
	int c;

	if (argc != 2) {
		fprintf(stderr, "usage: capcheck FILE\n");
		return 2;
	}
	r = capr_open(argv[1], err, sizeof(err));
	if (!r || stat(argv[1], &st)) {
		fprintf(stderr, "capcheck: %s\n", r ? "cannot stat the file" : err);
		return 2;
	}
	while ((c = capr_next(r, &rec)) == 1) {
		total++;
		if (rec.hdr.type < ABICAP_EV_COUNT)
			n[rec.hdr.type]++;
	}
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		json_object_set_new(by, event_name(ev), json_integer(n[ev]));
	cut = capr_cut_short(r);
	if (c < 0 || capr_damaged(r))
		snprintf(end, sizeof(end), "damaged: %s", capr_error(r));
	else
		snprintf(end, sizeof(end), "%s", cut ? "cut short" : "complete");
	if (capr_trailer(r))
		trl = json_loads(capr_trailer(r), 0, NULL);
	out = json_pack("{s:I, s:o, s:I, s:s, s:o}", "records", (json_int_t)total,
			"by_event", by, "bytes", (json_int_t)st.st_size, "end", end,
			"trailer", trl ? trl : json_null());
	json_dumpf(out, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(out);
	ok = c == 0 && !cut && !capr_damaged(r);
	capr_close(r);
	return ok ? 0 : 1;
}
