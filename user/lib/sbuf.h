/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Bounded string building and the one escaping function every output of
 * untrusted bytes goes through (names from the kernel, a capture, BTF, or
 * the command line): text never carries a control byte to a terminal.
 */
#ifndef ABICAP_SBUF_H
#define ABICAP_SBUF_H

#include <stdbool.h>
#include <stddef.h>

/* A fixed buffer that records whether anything did not fit. */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
	bool overflow;
};

void sb_init(struct sbuf *sb, char *buf, size_t cap);
void sb_puts(struct sbuf *sb, const char *s);
void sb_printf(struct sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s[0..n) (stopping at NUL) as a JSON string, quotes included */
void sb_json_str(struct sbuf *sb, const char *s, size_t n);
/* s[0..n) (stopping at NUL) for a terminal: non-printable bytes as \xHH */
void sb_text_str(struct sbuf *sb, const char *s, size_t n);

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

#endif
