/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Creating the files abicap writes (captures, Perfetto traces, contracts)
 * safely: always a new inode, mode 0600, never through a symbolic link.
 */
#ifndef ABICAP_OUTFILE_H
#define ABICAP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Create path and return its descriptor (read-write), or -1 with one line
 * in err. Without force an existing path is refused (O_EXCL). With force an
 * existing regular file is unlinked and a new one created in its place
 * (so a hard link to another file is never written through); refused are a
 * symbolic link, anything but a regular file, and, in a world-writable
 * sticky directory such as /tmp, a file another user owns.
 */
int outfile_create(const char *path, bool force, char *err, size_t errlen);

#endif
