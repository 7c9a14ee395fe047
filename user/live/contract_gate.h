/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The fail-closed rule against abicap's own BPF object (embedded in the
 * binary through the skeleton): a contract must declare every item the
 * programs to be loaded depend on (abi/contract_deps.h).
 */
#ifndef ABICAP_CONTRACT_GATE_H
#define ABICAP_CONTRACT_GATE_H

#include <stddef.h>

struct contract;

/*
 * EXIT_OK where c declares all that the programs of `needs` (1 << ev,
 * DEP_FORK, DEP_FREE) in the object (obj, len bytes: abicap's own,
 * capture_elf_bytes()) depend on; EXIT_USAGE with one line in err naming
 * the item missing; EXIT_RUNTIME if the object cannot be read.
 */
int contract_gate(const struct contract *c, const void *obj, size_t len,
		  unsigned int needs, char *err, size_t errlen);

#endif
