// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What a capture's metadata says of its CPUs, checked against its records. */
#include <jansson.h>
#include <stdint.h>
#include "capfile/capmeta.h"

int meta_ncpus_given(json_t *meta)
{
	json_int_t v = json_integer_value(json_object_get(meta, "ncpus"));

	return v >= 1 && v <= CAPTURE_MAX_CPUS ? (int)v : 0;
}

int meta_ncpus(json_t *meta, const union abicap_rec *recs, size_t n)
{
	int v = meta_ncpus_given(meta);
	uint32_t max = 0;

	if (v)
		return v;
	for (size_t i = 0; i < n; i++)
		if (recs[i].hdr.cpu >= max && recs[i].hdr.cpu < CAPTURE_MAX_CPUS)
			max = recs[i].hdr.cpu + 1;
	return max ? (int)max : 1;
}
