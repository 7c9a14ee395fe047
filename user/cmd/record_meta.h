/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a recording says of itself in a capture file: the header's metadata
 * (kernel, contract verdicts, variants, filters, clocks) and the trailer's
 * counts, as capfile/capmeta writes them (record joins live and capfile,
 * so this is in cmd/).
 */
#ifndef ABICAP_RECORD_META_H
#define ABICAP_RECORD_META_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "capfile/capfile.h"
#include "capfile/capmeta.h"
#include "event/cgcpu.h"
#include "event/cgnames.h"
#include "live/capture.h"
#include "live/runloop.h"

struct record_meta {
	const struct capture_opts *cap;
	int capture_format; /* the file's format version */
	int argc; /* the command line */
	char **argv;
	char **command; /* followed, NULL-terminated; NULL: none */
	const char *cgroup_path; /* --cgroup as given, NULL: none */
};

/* -p, --tid, --comm, --cgroup or a followed command */
bool capture_task_filtered(const struct capture_opts *c);

/* The header's metadata, compact JSON (malloc'd); NULL: no memory. */
char *record_metadata(struct capture *c, const struct record_meta *o,
		      uint64_t t0, pid_t child);

/*
 * Each cgroup named in the file (ids, n), its CPU quota throttling over the
 * capture: cpu.stat read now, less the snapshot taken at the start (zero
 * for a cgroup created since). Paths borrowed from names. NULL: no memory.
 */
struct captrailer_cgroup *record_throttling(const struct cg_cpu_roots *roots,
					    const struct cg_cpu_snap *start,
					    struct cgnames *names,
					    const uint64_t *ids, size_t n);

/*
 * The trailer: counts per event and CPU, the records written by w and
 * their span, the command's status, the cgroups' throttling (cg, ncg; cg
 * NULL: not measured) and the names of the containers names knows (NULL:
 * none); NULL: no memory.
 */
char *record_trailer(struct capture *c, double secs, const struct capw *w,
		     const struct loop_opts *lo,
		     const struct captrailer_cgroup *cg, size_t ncg,
		     const struct cgnames *names);

#endif
