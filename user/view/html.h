/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Untrusted strings (names from a capture) into a self-contained HTML page. */
#ifndef ABICAP_HTML_H
#define ABICAP_HTML_H

#include <stddef.h>
#include <stdio.h>

/* s[0..n) as HTML text: control bytes as \xHH, <>&" as entities. */
void html_text(FILE *f, const char *s, size_t n);
/* s[0..n) as a JSON string safe inside <script> (no '<', '>', '&'). */
void html_json_str(FILE *f, const char *s, size_t n);

/*
 * What a page lacks (capview_notice), first in its legend, in red; nothing
 * for NULL or "".
 */
void html_notice(FILE *f, const char *notice);

#endif
