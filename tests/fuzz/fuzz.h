/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c). */
#ifndef ABICAP_FUZZ_H
#define ABICAP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input as a file for the readers that take a path: a memfd reused
 * across runs, named "/proc/self/fd/N" (a regular file to fstat/mmap).
 */
const char *fuzz_file(const uint8_t *data, size_t size);

/*
 * A capture file to read: an input that starts with the capture magic is
 * the file itself; any other is "METADATA JSON\0RAW RECORDS", written out
 * as a well-formed capture (one chunk, checksum right) so that arbitrary
 * metadata and records get past the chunk checks to what reads them.
 * NULL for an input of neither form.
 */
const char *fuzz_capture(const uint8_t *data, size_t size);

/* A file's bytes (malloc'd), the file removed. */
uint8_t *fuzz_take_file(const char *path, size_t *len);

#ifndef FUZZ_SEEDS
#define FUZZ_SEEDS "tests/fuzz/corpus"
#endif

struct btf;
/* The 6.x- and 5.10-shaped kernels of the seeds (fuzz_btf/raw-*.btf); exits if unreadable. */
void fuzz_kernels(struct btf *k[2], const char *target);

/* A FILE on /dev/null for writers whose output is not looked at. */
FILE *fuzz_null(void);

/* Stop the run (libFuzzer keeps the input) when a property does not hold. */
#define FUZZ_ASSERT(cond)                                                    \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: fuzz assertion failed: %s\n", \
				__FILE__, __LINE__, #cond);                  \
			__builtin_trap();                                    \
		}                                                            \
	} while (0)

#endif
