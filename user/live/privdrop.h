/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Least privilege after attaching: once the programs are loaded and
 * attached and the buffers mapped, abicap needs no capability to consume
 * the buffers, read its maps and detach (each is done through a file
 * descriptor it already holds), so it keeps none.
 */
#ifndef ABICAP_PRIVDROP_H
#define ABICAP_PRIVDROP_H

#include <stddef.h>

/*
 * Clear the effective, permitted, inheritable and ambient capability sets
 * (and the bounding set where CAP_SETPCAP allows), and set
 * PR_SET_NO_NEW_PRIVS so no later execve can gain any back (not even as
 * uid 0). Only the calling thread (abicap has one then; serve starts its
 * HTTP thread after). One exception: where bpf(2) itself needs CAP_BPF
 * (CAP_SYS_ADMIN before 5.8) even on descriptors already held (before
 * Linux 6.5, with kernel.unprivileged_bpf_disabled set; probed,
 * live/features.h), that one
 * is kept, effective and permitted. EXIT_OK, or EXIT_RUNTIME with err.
 */
int privdrop_after_attach(char *err, size_t errlen);

#endif
