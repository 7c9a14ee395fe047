// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/objload: what really happens to BPF objects on this kernel, to set
 * against abicap check --object's prediction (scripts/vmtest.sh runs it in
 * each test VM; the kernel tests run the same on the host).
 *
 *   objload OBJ.bpf.o...
 *
 * Opens, loads and attaches every program of each object with libbpf and
 * prints one line per object: "ABICAP-OBJ NAME loads" or
 * "ABICAP-OBJ NAME rejected STAGE: REASON". Exits 0 when every object was
 * tried, whatever the outcome.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "objload.h"

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l;
	(void)f;
	(void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(quiet);
	for (int i = 1; i < argc; i++) {
		char why[256];
		const char *base = strrchr(argv[i], '/');

		base = base ? base + 1 : argv[i];
		/* which one was being tried, should the kernel hang on it */
		printf("ABICAP-OBJ-TRY %s\n", base);
		fflush(stdout);
		if (objload_try(argv[i], why, sizeof(why)))
			printf("ABICAP-OBJ %s rejected %s\n", base, why);
		else
			printf("ABICAP-OBJ %s loads\n", base);
		fflush(stdout);
	}
	return 0;
}
