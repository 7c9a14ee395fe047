/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A real kernel's BTF with one item removed, written with libbpf's BTF
 * writer: every other type keeps its id, size and layout, so what libbpf
 * relocates against the copy is what it would relocate against the kernel
 * it came from, but for the item removed.
 */
#ifndef ABICAP_BTF_MUTATE_H
#define ABICAP_BTF_MUTATE_H

/*
 * Copy the BTF at src to dst without `what`: "struct.member" (a member of
 * the first struct of that name) or "tracepoint()" (the last argument of
 * btf_trace_<tracepoint>). Fails the test on any error.
 */
void btf_write_without(const char *src, const char *dst, const char *what);

#endif
