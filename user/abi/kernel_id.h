/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Which kernel a BTF came from: its release, from the "Linux version ..."
 * banner every kernel image holds (linux_banner), and its architecture,
 * from the ELF header or the boot image's magic. btf_open() notes both as
 * it reads a file; raw BTF has neither.
 */
#ifndef ABICAP_KERNEL_ID_H
#define ABICAP_KERNEL_ID_H

#include <stdbool.h>
#include <stddef.h>

struct kernel_id {
	char release[65]; /* "6.1.0-57-amd64"; "" if unknown */
	char arch[32]; /* "x86_64", "arm64", "s390x"; "" if unknown */
	char byte_order[8]; /* the BTF's: "little", "big" (set by the caller) */
};

/* The release in the first "Linux version RELEASE " of b; false if none. */
bool kernel_banner(const void *b, size_t len, char *release, size_t rlen);

/* k: the running kernel (uname). */
void kernel_id_running(struct kernel_id *k);
/*
 * Into k, a kernel image in memory, of architecture arch (NULL: not told
 * here, as for the Image a zImage holds): the first arch and release
 * found stay.
 */
void kernel_id_note(struct kernel_id *k, const void *b, size_t len,
		    const char *arch);

#endif
