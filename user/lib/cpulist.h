/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* CPU lists as the kernel writes them: "0", "0-3", "0,2-3,7". */
#ifndef ABICAP_CPULIST_H
#define ABICAP_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Parse list into set[0..ncpus); every CPU named must be < ncpus.
 * On error returns false with a one-line message in err.
 */
bool parse_cpulist(const char *list, uint8_t *set, int ncpus, char *err,
		   size_t errlen);

#endif
