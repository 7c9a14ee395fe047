/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* libbpf's messages: none unless asked (-v), kernel addresses hidden. */
#ifndef ABICAP_BPFLOG_H
#define ABICAP_BPFLOG_H

#include <stdbool.h>
#include <stdio.h>

/* libbpf's own messages on stderr only when asked (-v). */
void set_libbpf_verbose(bool verbose);
/*
 * What libbpf said of the first failure since bpflog_reset(), kept with or
 * without -v: the map the kernel would not create, or the program it
 * refused and the verifier's last word on it (its log's last line before
 * the statistics). A failed load closes every map libbpf had created, so
 * this, not the maps' state afterwards, says which part failed.
 */
struct bpflog_failure {
	char map[64]; /* "" unless a map failed */
	char prog[64]; /* "" unless a program failed */
	char why[256]; /* the verifier's reason, "" if it gave none */
};
void bpflog_reset(void);
const struct bpflog_failure *bpflog_failure(void);
/* One libbpf message at its level (enum libbpf_print_level), as libbpf sends it. */
void bpflog_note(int level, const char *msg);

/* s to out, each kernel address (0xffff and 12 more hex digits) hidden. */
void fputs_redacted(const char *s, FILE *out);

#endif
