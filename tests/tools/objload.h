/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef ABICAP_OBJLOAD_H
#define ABICAP_OBJLOAD_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

/*
 * Open, load and attach every program of OBJ, then detach and free: 0 if
 * all of it worked, else -1 with "STAGE: REASON" in why.
 */
static inline int objload_try(const char *path, char *why, size_t len)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p;
	struct bpf_link *links[64];
	int n = 0, ret = 0;

	if (!obj) {
		snprintf(why, len, "open: %s", strerror(errno));
		return -1;
	}
	/* programs off by default (SEC("?...")) too: every one is tried */
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, true);
	if (bpf_object__load(obj)) {
		snprintf(why, len, "load: %s", strerror(errno));
		ret = -1;
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		struct bpf_link *l = bpf_program__attach(p);

		if (!l) {
			snprintf(why, len, "attach %s: %s", bpf_program__name(p),
				 strerror(errno));
			ret = -1;
			break;
		}
		if (n == 64) {
			bpf_link__destroy(l);
			snprintf(why, len, "attach %s: more than 64 programs: "
				 "objload cannot hold their links",
				 bpf_program__name(p));
			ret = -1;
			break;
		}
		links[n++] = l;
	}
	while (n--)
		bpf_link__destroy(links[n]);
out:
	bpf_object__close(obj);
	return ret;
}

#endif
