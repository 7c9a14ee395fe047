// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include "abi/kernel.h"
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
 * Before Linux 6.5 every bpf(2) command, even a lookup in a map this
 * process holds, fails with EPERM without CAP_BPF (CAP_SYS_ADMIN before
 * 5.8) while kernel.unprivileged_bpf_disabled is set, as Debian sets it:
 * the counters and serve's maps could not be read. That capability stays
 * there; nothing else does.
 */
static cap_value_t bpf_cap_still_needed(void)
{
	FILE *f;
	int v = 0;

	if (!kernel_older_than(6, 5))
		return -1;
	f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 1;
		fclose(f);
	}
	if (!v)
		return -1;
	return kernel_older_than(5, 8) ? CAP_SYS_ADMIN : CAP_BPF;
}

int privdrop_after_attach(char *err, size_t errlen)
{
	cap_value_t keep = bpf_cap_still_needed();
	cap_t none, now;
	int left;

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
