/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What a capture's metadata says of its CPUs. */
#ifndef ABICAP_CAPMETA_H
#define ABICAP_CAPMETA_H

#include <jansson.h>
#include <stddef.h>
#include "event/record.h"

/*
 * How many CPUs' tables a capture's records need: the metadata's "ncpus"
 * where it is 1..CAPTURE_MAX_CPUS, else (damaged or missing) one more than
 * the highest CPU a record names, at most CAPTURE_MAX_CPUS.
 */
#define CAPTURE_MAX_CPUS 65536 /* Linux builds have at most 8192 (NR_CPUS) */
int meta_ncpus(json_t *meta, const union abicap_rec *recs, size_t n);
/* The metadata's "ncpus" where it is 1..CAPTURE_MAX_CPUS, else 0. */
int meta_ncpus_given(json_t *meta);

#endif
