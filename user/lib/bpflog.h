/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* libbpf's messages: none unless asked (-v), kernel addresses hidden. */
#ifndef ABICAP_BPFLOG_H
#define ABICAP_BPFLOG_H

#include <stdbool.h>
#include <stdio.h>

/* libbpf's own messages on stderr only when asked (-v). */
void set_libbpf_verbose(bool verbose);
/* s to out, each kernel address (0xffff and 12 more hex digits) hidden. */
void fputs_redacted(const char *s, FILE *out);

#endif
