/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Comms and cgroup paths for output, as trace prints them (format.c's
 * escaping): printable ASCII and valid UTF-8 as they are; in text any other
 * byte as the four characters \xHH, so a terminal gets no control bytes; in
 * JSON control bytes as \u00XX and bytes that are not UTF-8 as the text
 * \xHH, so a name is never dropped for not being UTF-8. Bidirectional
 * controls and line separators (U+202E, U+2028, ...) as \uXXXX in both.
 */
#ifndef ABICAP_ESCAPE_H
#define ABICAP_ESCAPE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define ESCAPE_MAX 4096 /* a cgroup v2 path (capfile.h), a file name */

/*
 * s[0..n) (up to a NUL; past ESCAPE_MAX bytes cut, "..." added) for text
 * output, in one of four static buffers used in turn: four may be passed
 * to one printf.
 */
const char *text_escaped(const char *s, size_t n);
/*
 * printf for human output that carries names from BTF, an object, a
 * contract or a capture (check, diff): the whole text escaped as
 * text_escaped does, its newlines kept.
 */
void text_printf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s[0..n) (up to a NUL, any length) as a JSON string (NULL: out of memory). */
json_t *json_escaped(const char *s, size_t n);

#endif
