/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A command whose output is JSON (--format json; contract snapshot/from-object
 * to stdout) also reports a failure on stdout, as {"error": "...",
 * "exit_code": N}, so a JSON consumer always has a document to parse.
 */
#ifndef ABICAP_JSON_ERRORS_H
#define ABICAP_JSON_ERRORS_H

#include <stdbool.h>

/* argv[0] is the command's name. */
bool json_output_requested(int argc, char **argv);
/* Remember errors from now on. */
void json_errors_begin(void);
/* If the command failed with an error, its JSON object on stdout. */
void json_errors_end(int exit_code);

#endif
