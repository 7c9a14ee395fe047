// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include "live/features.h"
#include "live/privdrop.h"
#include "lib/util.h"

/* The bounding set too, where this process may change it. */
static void drop_bounding(void)
{
	cap_t cur = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (cur)
		cap_get_flag(cur, CAP_SETPCAP, CAP_EFFECTIVE, &v);
	cap_free(cur);
	if (v != CAP_SET)
		return;
	for (cap_value_t c = 0; c < cap_max_bits(); c++)
		cap_drop_bound(c);
}

/*
 * Where bpf(2) needs a capability even on descriptors this process holds
 * (before Linux 6.5, with kernel.unprivileged_bpf_disabled set, as Debian
 * sets it), the counters and serve's maps could not be read without one:
 * CAP_BPF, or CAP_SYS_ADMIN where the kernel predates CAP_BPF. That one
 * stays; nothing else does. -1: none is needed; -2: the probe failed (e).
 */
static cap_value_t bpf_cap_still_needed(int *e)
{
	int r = feature_bpf_fd_unprivileged();

	if (r < 0) {
		*e = -r;
		return -2;
	}
	if (r)
		return -1;
	return feature_cap_bpf() ? CAP_BPF : CAP_SYS_ADMIN;
}

int privdrop_after_attach(char *err, size_t errlen)
{
	int e = 0;
	cap_value_t keep = bpf_cap_still_needed(&e);
	cap_t none, now;
	int left;

	if (keep == -2) {
		snprintf(err, errlen, "cannot tell whether reading the BPF maps "
			 "needs a capability once the others are dropped: %s",
			 strerror(e));
		return EXIT_RUNTIME;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, errlen, "cannot set no_new_privs: %s",
			 strerror(errno));
		return EXIT_RUNTIME;
	}
	drop_bounding();
	/* ambient capabilities live only while also permitted: cleared below too */
	cap_reset_ambient();
	none = cap_init();
	if (none && keep >= 0 &&
	    (cap_set_flag(none, CAP_EFFECTIVE, 1, &keep, CAP_SET) ||
	     cap_set_flag(none, CAP_PERMITTED, 1, &keep, CAP_SET))) {
		cap_free(none);
		none = NULL;
	}
	if (!none || cap_set_proc(none)) {
		snprintf(err, errlen, "cannot drop capabilities after attaching: "
			 "%s", strerror(errno));
		cap_free(none);
		return EXIT_RUNTIME;
	}
	now = cap_get_proc();
	left = now ? cap_compare(now, none) : -1;
	cap_free(now);
	cap_free(none);
	if (left) {
		snprintf(err, errlen, "capabilities are still held after dropping "
			 "them: refusing to go on");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
