/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Exit codes, diagnostics and strict number parsing shared by every command. */
#ifndef ABICAP_UTIL_H
#define ABICAP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Documented exit codes (README "Exit codes", abicap --help). */
enum abicap_exit {
	EXIT_OK = 0,
	EXIT_KERNEL = 1, /* the kernel cannot give what is asked: no BTF, tracepoint missing */
	EXIT_USAGE = 2, /* bad flag, bad value, bad input file */
	EXIT_PRIV = 3, /* not enough privilege: missing capability */
	EXIT_RUNTIME = 4, /* load/attach/ring buffer/output failure */
	/* report/export: a capture read with parts damaged, missing or doubled */
	EXIT_DAMAGED = 5,
};

#define ERRMSG_LEN 512

/* One-line diagnostics on stderr: "abicap: error: ..." / "abicap: warning: ..." */
void ab_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Called with each error's line after it went to stderr (NULL: none). */
void ab_set_error_hook(void (*hook)(const char *line));
void ab_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * "abicap: " and the message on stderr, escaped as ab_error escapes it:
 * what a run says it does and did ("wrote N records to PATH").
 */
void ab_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Warnings and notes off (errors still go out): a second read of an input
 * whose first read already said them.
 */
void ab_quiet(bool on);

/* Strict parsers: the whole string must be a number within [min, max]. */
bool parse_long(const char *s, long min, long max, long *out);
bool parse_seconds(const char *s, double *out);

uint64_t mono_ns(void);

/*
 * This machine's byte order (s390x is big-endian): the kernel's BTF,
 * BPF objects and ring-buffer records are in it; a capture file is
 * little-endian whatever it is (capfile.h).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN true
#define HOST_BYTE_ORDER "big-endian"
#else
#define HOST_BIG_ENDIAN false
#define HOST_BYTE_ORDER "little-endian"
#endif

#endif
