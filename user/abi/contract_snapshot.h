/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A contract pinned to what one kernel has, every item required. */
#ifndef ABICAP_CONTRACT_SNAPSHOT_H
#define ABICAP_CONTRACT_SNAPSHOT_H

#include <jansson.h>
#include "abi/contract.h"

struct btf;

/*
 * The events of c in mask (each the kernel lacks left out, with a
 * warning) and the fields they read, as btf has them; source names the
 * kernel in the document's name and description.
 */
json_t *contract_snapshot(const struct contract *c, const struct btf *btf,
			  unsigned int mask, const char *source);

#endif
