/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A capture's metadata, typed: what record writes into the header and the
 * trailer (capfile.h: both JSON) and what report, export and info read
 * back. One writer per part (struct -> JSON, the members in one order) and
 * one reader (JSON -> struct, every member's type checked: a member of
 * the wrong type is named in the error and read as absent; members this
 * abicap does not know are ignored, members older files lack are absent).
 */
#ifndef ABICAP_CAPMETA_H
#define ABICAP_CAPMETA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event/ctnames.h"
#include "event/events.h"
#include "event/record.h"
#include "lib/hashtab.h"

#define CAPTURE_MAX_CPUS 65536 /* Linux builds have at most 8192 (NR_CPUS) */
#define CAPMETA_ABSENT (-1)
/* where a cgroup's throttling was read */
#define CAPMETA_THROTTLE_V2 "cgroup2 cpu.stat throttled_usec"
#define CAPMETA_THROTTLE_V1 "cgroup1 cpu cpu.stat throttled_time"

struct capmeta_verdict {
	char *scope, *item, *verdict;
};

/* "filter": what the capture was filtered to (absent in older files). */
struct capmeta_filter {
	bool present;
	bool tasks; /* some tasks only: not every switch of a CPU */
	int32_t *pids, *tids;
	size_t npids, ntids;
	char *comm; /* NULL: none */
	bool cgroup; /* --cgroup: cgroup_id, cgroup_path (NULL: not known) */
	uint64_t cgroup_id;
	char *cgroup_path;
	bool cpus_given; /* -C: the CPUs in cpus; false: all */
	int32_t *cpus;
	size_t ncpus;
	char **command; /* a followed command's argv, NULL: none */
	size_t ncommand;
	int64_t command_pid;
};

/* The header's metadata. Integers CAPMETA_ABSENT, strings NULL when absent. */
struct capmeta {
	int64_t capture_format, record_format;
	char *kernel; /* the release */
	char *sysname, *version, *machine; /* "uname" */
	/*
	 * "byte_order": the recording machine's, "little-endian" or
	 * "big-endian" (NULL: a capture from before it was written, all
	 * from little-endian machines). The records are little-endian in
	 * the file whatever it was (capfile.h).
	 */
	char *byte_order;
	bool btf; /* "btf": the running kernel's BTF, size and crc32 */
	uint64_t btf_size;
	char *btf_crc32;
	bool contract; /* "contract": counts and the items not ok */
	int64_t contract_ok, contract_degraded, contract_broken;
	struct capmeta_verdict *not_ok;
	size_t nnot_ok;
	char *variant[ABICAP_EV_COUNT]; /* "variants", NULL: not recorded */
	char *transport, *clock;
	int64_t start_ns, boot_offset_ns;
	int64_t ncpus; /* as written; capmeta_ncpus() checks it */
	bool events_given; /* "events": the events captured (mask by enum abicap_event) */
	uint32_t events;
	char **command_line;
	size_t ncommand_line;
	int64_t pid_filter;
	/* "recorder_pid": the recording abicap's own process (absent: older) */
	int64_t recorder_pid;
	struct capmeta_filter filter;
	/*
	 * The header as written, parsed once here: what report --format json
	 * shows as "capture" (NULL: not a JSON object). Nothing reads fields
	 * from it: the typed ones above are the reader's.
	 */
	json_t *raw;
};

/* Containers' names a trailer holds at most (record keeps no more). */
#define CAPTRAILER_CT_MAX 2048

/* A container's names, as the runtime gave them while recording. */
struct captrailer_ct {
	char id[65]; /* the container id (hex) */
	struct ct_names names;
};

/* The trailer's counts per event, CPU, and the cgroups' CPU quota throttling. */
struct captrailer_cgroup {
	uint64_t id;
	char *path;
	/*
	 * The kernel's own cpu.stat over the capture: end minus start of
	 * nr_periods, nr_throttled and the time throttled (cgroup v2's
	 * throttled_usec, in ns; or, v1 set, the v1 cpu cgroup of the same
	 * path: throttled_time); known false where cpu.stat could not be read
	 * at the end (the cgroup gone, no cpu controller) or went backwards
	 */
	bool known, v1;
	uint64_t nr_periods, nr_throttled, throttled_ns;
};

struct captrailer {
	double duration_s;
	int64_t end_ns, records;
	/*
	 * "span": the records' first and last time and one past
	 * the highest CPU they name, as written; false: not in the trailer
	 * (captures of an older abicap)
	 */
	bool span_given;
	uint64_t first_ns, last_ns;
	uint32_t record_cpus;
	bool event[ABICAP_EV_COUNT]; /* "events": counts given */
	uint64_t seen[ABICAP_EV_COUNT], received[ABICAP_EV_COUNT],
		dropped[ABICAP_EV_COUNT];
	struct captrailer_cpu {
		int cpu;
		uint64_t seen, dropped;
	} *cpus;
	size_t ncpus;
	bool bookkeeping;
	uint64_t followed, follow_failed, followed_gone, wakers_lost,
		wakers_in_hash, waker_context_unknown;
	bool misses_known; /* "recursion_misses": program runs skipped */
	/* by event, then the other programs' (enum other_tp) past them */
	bool miss_on[ABICAP_EV_COUNT + OTHER_TP_COUNT];
	uint64_t miss[ABICAP_EV_COUNT + OTHER_TP_COUNT];
	bool command_exited;
	int command_status;
	bool throttle_given; /* "cgroup_throttling" (record 21+): cgroups */
	struct captrailer_cgroup *cg;
	size_t ncg;
	struct hashtab by_id; /* id -> index in cg */
	/* "containers": names by container id; those record left out */
	struct captrailer_ct *ct;
	size_t nct;
	uint64_t ct_not_listed;
	/*
	 * The trailer as written, parsed once here: what report --format
	 * json shows as "trailer" (NULL: not a JSON object). Nothing reads
	 * fields from it: the typed ones above are the reader's.
	 */
	json_t *raw;
};

void capmeta_init(struct capmeta *m);
/* The header's JSON, compact (malloc'd); NULL: no memory. */
char *capmeta_write(const struct capmeta *m);
/*
 * Read json into m (capmeta_init'ed here): 0, or -1 with err naming the
 * first member of the wrong type (the rest read) or saying it is no JSON
 * object; -ENOMEM.
 */
int capmeta_read(struct capmeta *m, const char *json, char *err, size_t errlen);
void capmeta_free(struct capmeta *m);
/* Its "filter" and "events" as written (JSON null when absent); NULL: no memory. */
json_t *capmeta_filter_json(const struct capmeta *m);
json_t *capmeta_events_json(const struct capmeta *m);

void captrailer_init(struct captrailer *t);
char *captrailer_write(const struct captrailer *t);
int captrailer_read(struct captrailer *t, const char *json, char *err,
		    size_t errlen);
void captrailer_free(struct captrailer *t);
/* The cgroup throttling entry of id, NULL if none. */
const struct captrailer_cgroup *captrailer_cgroup(const struct captrailer *t,
						 uint64_t id);

/* The metadata's ncpus where it is 1..CAPTURE_MAX_CPUS, else 0. */
int capmeta_ncpus(const struct capmeta *m);

/*
 * How many CPUs' tables a capture's records need: the metadata's "ncpus"
 * where it is 1..CAPTURE_MAX_CPUS, else (damaged or missing) one more than
 * the highest CPU a record names, at most CAPTURE_MAX_CPUS. (export's.)
 */
int capmeta_ncpus_of(const struct capmeta *m, const union abicap_rec *recs,
		     size_t n);

#endif
