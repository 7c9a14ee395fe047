/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Who is at the other end of a TCP connection from this host: every local
 * client shares the host's addresses (127.0.0.1 above all), so serve tells
 * its tenants apart by the user owning the client's socket, which the
 * kernel's socket diagnostics (NETLINK_SOCK_DIAG, as ss(8) uses) give to
 * anyone. A client of another host, or of another network namespace, is
 * not found: it is known by its address alone.
 */
#ifndef ABICAP_PEERUID_H
#define ABICAP_PEERUID_H

#include <stdint.h>

#define PEER_UID_NONE UINT32_MAX /* not a socket of this namespace */

/* The diagnostics socket: a descriptor, or -1 (then no client is found). */
int peeruid_open(void);

/*
 * The uid owning the client end of the accepted TCP socket conn, or
 * PEER_UID_NONE.
 */
uint32_t peeruid_of(int diag, int conn);

#endif
