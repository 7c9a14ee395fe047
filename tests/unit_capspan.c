// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A capture's span from its trailer (issue 34): record writes the records'
 * first and last time and one past the highest CPU; the views take them
 * from there where the file opened whole, and decode the records only for
 * a capture without them (an older abicap's) or one found damaged.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "capfile/capmeta.h"
#include "harness.h"
#include "lib/duration.h"
#include "lib/util.h"
#include "recfix.h"
#include "view/capview.h"

TestSuite(capspan, .init = scratch_init, .fini = scratch_fini);

static char err[ERRMSG_LEN];

#define T0 1000000000ull

/*
 * Switches on CPUs 0 and 3 (the metadata says 2), the last one first in
 * the file; the trailer's span as record writes it (lie_ns added to its
 * last time: a trailer the records do not bear out), or none.
 */
static const char *capture(const char *name, bool span, uint64_t lie_ns)
{
	char *p = scratch_path(name), *trl;
	struct captrailer t;
	struct capw *w;
	uint32_t cpus;

	w = capw_open(p, true, "{\"ncpus\":2,\"events\":[\"sched_switch\"]}",
		      err, sizeof(err));
	cr_assert(w, "%s", err);
	for (int i = 0; i < 6; i++) {
		/* out of order in the file: the span is not its ends */
		uint64_t ts = T0 + (uint64_t)(i == 0 ? 9 : i) * 1000000;
		union abicap_rec r = recfix_switch(ts, i % 2 ? 3 : 0, 100, "a",
						   0, 200, "b", 0);

		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	captrailer_init(&t);
	t.records = (int64_t)capw_records(w);
	capw_span(w, &t.first_ns, &t.last_ns, &cpus);
	t.record_cpus = cpus;
	t.last_ns += lie_ns;
	t.span_given = span;
	trl = captrailer_write(&t);
	cr_assert(trl);
	cr_assert_eq(capw_close(w, trl, err, sizeof(err)), 0, "%s", err);
	free(trl);
	return p;
}

/* The view's span of p: the records' first time, last, and 4 CPUs. */
static void assert_span(const char *p, uint64_t last)
{
	struct timewin all = TIMEWIN_ALL;
	struct capview v;

	cr_assert_eq(capview_open(&v, p, &all), 0);
	cr_assert_eq(v.first, T0 + 1000000);
	cr_assert_eq(v.last, last);
	cr_assert_eq(v.ncpus, 4, "one past the highest CPU, over the "
		     "metadata's 2");
	capview_close(&v);
}

Test(capspan, the_writer_keeps_the_records_span)
{
	struct captrailer t;
	struct capr *r;

	r = capr_open(capture("w.abicap", true, 0), err, sizeof(err));
	cr_assert(r, "%s", err);
	cr_assert_eq(captrailer_read(&t, capr_trailer(r), err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(t.span_given);
	cr_assert_eq(t.first_ns, T0 + 1000000);
	cr_assert_eq(t.last_ns, T0 + 9000000);
	cr_assert_eq(t.record_cpus, 4);
	captrailer_free(&t);
	capr_close(r);
}

Test(capspan, views_take_the_span_from_the_trailer)
{
	assert_span(capture("s.abicap", true, 0), T0 + 9000000);
	/* taken from the trailer, not from the records: a lie shows */
	assert_span(capture("l.abicap", true, 5000000), T0 + 14000000);
}

Test(capspan, a_capture_without_it_is_decoded)
{
	assert_span(capture("o.abicap", false, 0), T0 + 9000000);
}

Test(capspan, a_damaged_capture_is_decoded)
{
	const char *p = capture("d.abicap", true, 5000000);
	size_t len;
	unsigned char *b = (unsigned char *)read_file(p, &len);
	FILE *f;

	cr_assert(b && len > 200);
	/* a byte of the trailer (the file's last block): not intact */
	b[len - 10] ^= 0x55;
	f = fopen(p, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(b, 1, len, f), len);
	fclose(f);
	free(b);
	/* not the trailer's (a lie of 5 ms more): the records' */
	assert_span(p, T0 + 9000000);
}
