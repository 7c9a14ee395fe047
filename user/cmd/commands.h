/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Subcommands (one do_<cmd>() each) and what they share. */
#ifndef ABICAP_COMMANDS_H
#define ABICAP_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct contract;
union abicap_rec;
typedef struct json_t json_t;

int do_trace(int argc, char **argv);
int do_record(int argc, char **argv);
int do_report(int argc, char **argv);
int do_export(int argc, char **argv);
int do_check(int argc, char **argv);
int do_diff(int argc, char **argv);
int do_contract(int argc, char **argv);
int do_serve(int argc, char **argv);

extern const char check_usage[];
extern const char record_usage[];
extern const char report_usage[];
extern const char export_usage[];
extern const char diff_usage[];
extern const char contract_usage[];
extern const char serve_usage[];

/* A capture file as a Perfetto trace: an EXIT_* code, errors reported. */
int export_perfetto(const char *cap, const char *out, bool force);
/* The same into fd, opened for out beforehand (outfile_open); takes fd. */
int export_perfetto_fd(const char *cap, int fd, const char *out);
struct outfile;
/* The same into of (outfile_open), its descriptor kept for outfile_commit. */
int export_dup_fd(const char *cap, struct outfile *of);

/*
 * How many CPUs' tables a capture's records need: the metadata's "ncpus"
 * where it is 1..CAPTURE_MAX_CPUS, else (damaged or missing) one more than
 * the highest CPU a record names, at most CAPTURE_MAX_CPUS.
 */
#define CAPTURE_MAX_CPUS 65536 /* Linux builds have at most 8192 (NR_CPUS) */
int meta_ncpus(json_t *meta, const union abicap_rec *recs, size_t n);
/* The metadata's "ncpus" where it is 1..CAPTURE_MAX_CPUS, else 0. */
int meta_ncpus_given(json_t *meta);

/* --contract FILE, or the built-in contract when path is NULL. */
struct contract *load_contract_arg(const char *path, char *err, size_t errlen);
/* "running kernel 6.18..." or the file's path. */
void btf_source_label(const char *path, char *out, size_t len);
/* The error for getopt's ':' (missing value) and '?' (unknown option): EXIT_USAGE. */
int usage_error(int argc, char **argv, int ch, const char *cmd);

#endif
