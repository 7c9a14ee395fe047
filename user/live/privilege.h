/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The capabilities loading and attaching abicap's programs takes. */
#ifndef ABICAP_PRIVILEGE_H
#define ABICAP_PRIVILEGE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * EXIT_OK when this process may load and attach abicap's programs and
 * use the ring buffer: CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN, the only
 * way before Linux 5.8). Otherwise EXIT_PRIV with the missing capability
 * and the fix in err.
 */
int privilege_check(char *err, size_t errlen);

/*
 * EXIT_PRIV and the fix, for perf buffers of `bytes` in all that the
 * kernel refused to map (EPERM): beyond perf's locked-memory allowance
 * they need CAP_IPC_LOCK.
 */
int privilege_perfbuf_denied(size_t bytes, char *err, size_t errlen);

/*
 * Does this process run in a user namespace other than the initial one?
 * Its capabilities (root's there included) count only in it: the kernel
 * loads BPF programs and creates maps only for capabilities in the
 * initial user namespace (short of a BPF token).
 */
bool privilege_in_user_ns(void);

/*
 * EXIT_PRIV and the cause, for what (e.g. "the kernel would not create
 * the BPF map 'events'") refused with EPERM: in a user namespace, its
 * capabilities not reaching the kernel; else a security module or kernel
 * lockdown. Never a size to change: EPERM is about who asks.
 */
int privilege_denied(const char *what, char *err, size_t errlen);

#endif
