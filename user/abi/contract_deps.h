/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A contract fails closed: it must declare every item abicap's programs
 * depend on, as abicap's own BPF object shows them (its programs'
 * tracepoints, the arguments they read, the fields of their CO-RE
 * relocations) and as the loader decides by them (the typed items of
 * checker.h). A contract that omits one is refused; the loader never
 * guesses for an item nobody declared.
 */
#ifndef ABICAP_CONTRACT_DEPS_H
#define ABICAP_CONTRACT_DEPS_H

#include <stddef.h>
#include "abi/contract.h"
#include "abi/core_relo.h"

/*
 * The programs a contract speaks for: its captured events (1 << ev), and
 * DEP_FORK/DEP_FREE where it declares sched_process_fork/free.
 */
unsigned int contract_deps_declared(const struct contract *c);

/*
 * 0 where c declares everything the programs of `needs` (as above) in
 * abicap's object o depend on; otherwise -1 with one line in err naming
 * the first item missing and the fix.
 */
int contract_deps_check(const struct contract *c, const struct core_object *o,
			unsigned int needs, char *err, size_t errlen);

#endif
