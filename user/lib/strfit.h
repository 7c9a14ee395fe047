/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Formatting into fixed buffers without silent truncation. */
#ifndef ABICAP_STRFIT_H
#define ABICAP_STRFIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * snprintf for display text (verdicts, JSON paths in messages): when the
 * text does not fit, its end becomes "..." so the cut shows, and false is
 * returned. Where a cut value would be wrong, callers fail on false.
 */
bool strfit(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool vstrfit(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
