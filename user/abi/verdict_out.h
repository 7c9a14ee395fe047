/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Contract verdicts as a table, JSON, or JUnit XML (one test case per item). */
#ifndef ABICAP_VERDICT_OUT_H
#define ABICAP_VERDICT_OUT_H

#include <stdbool.h>
#include <stdio.h>
#include "abi/checker.h"
#include "abi/kernel_id.h"

enum vformat { VF_TEXT, VF_JSON, VF_JUNIT };

bool parse_vformat(const char *s, enum vformat *out);

/*
 * source: "Linux 6.18 (running kernel)" or the BTF file; kid: the kernel's
 * release, architecture and byte order as far as known (NULL: none);
 * contract: its name.
 */
void verdicts_print(FILE *f, enum vformat fmt, const struct check_result *r,
		    const char *source, const struct kernel_id *kid,
		    const char *contract, bool strict);

/* s with & < > " ' and control characters escaped for XML. */
void xml_escaped(FILE *f, const char *s);

#endif
