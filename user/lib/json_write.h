/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A JSON document written whole, to stdout or a file replaced only once complete. */
#ifndef ABICAP_JSON_WRITE_H
#define ABICAP_JSON_WRITE_H

#include <jansson.h>
#include <stdbool.h>

/*
 * The document, indented, to path (NULL: stdout; outfile_open: a file
 * replaced only with force, once the new one is complete), never onto
 * input (the kernel or object it describes): EXIT_OK or an exit code.
 */
int json_write_file(json_t *doc, const char *path, bool force,
		    const char *input);

#endif
