/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A contract derived from a compiled CO-RE object's relocations. */
#ifndef ABICAP_CONTRACT_DERIVE_H
#define ABICAP_CONTRACT_DERIVE_H

#include <jansson.h>
#include "abi/core_relo.h"
#include "abi/objcheck.h"

/*
 * Tracepoint programs' targets, as contract events (the contract needs
 * one): an empty array where the object has no tp_btf, raw_tp or tp program.
 */
json_t *contract_derived_events(const struct core_object *o,
				const struct obj_result *guards);

/*
 * The contract document of obj: events (contract_derived_events, taken)
 * and a field per CO-RE field relocation, guards saying which are optional.
 */
json_t *contract_derived(const struct core_object *o,
			 const struct obj_result *guards, json_t *events,
			 const char *obj);

#endif
