/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A diff (btf_diff) as text or JSON on stdout. */
#ifndef ABICAP_BTF_DIFF_OUT_H
#define ABICAP_BTF_DIFF_OUT_H

#include "abi/btf_diff.h"

/* A line a change and the result; scopes: how many items were compared. */
void diff_print_text(const struct diff *d, const char *old, const char *new,
		     int scopes);
/* The changes and the result as one JSON document. */
void diff_print_json(const struct diff *d, const char *old, const char *new);

#endif
