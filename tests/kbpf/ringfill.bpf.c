// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Writes records into a ring buffer for tests/kernel_ringread.c, one a run
 * (BPF_PROG_TEST_RUN): record seq is 16, 40 or 200 bytes by seq % 3, its
 * first word seq and every other byte (seq + i) & 0xff; every seventh
 * (seq % 7 == 3) is discarded after its reserve. A reserve that fails
 * (the ring full) is counted in failed, its seq not used.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16384);
} ring SEC(".maps");

__u32 seq, failed;
/* submit's flags: 0 by default (the kernel decides), or BPF_RB_FORCE_WAKEUP */
__u64 flags;

#define PUT(n)                                                               \
	do {                                                                 \
		unsigned char *r = bpf_ringbuf_reserve(&ring, n, 0);         \
                                                                             \
		if (!r) {                                                    \
			failed++;                                            \
			return 0;                                            \
		}                                                            \
		*(__u32 *)r = s;                                             \
		for (int i = 4; i < n; i++)                                  \
			r[i] = (unsigned char)(s + i);                       \
		if (s % 7 == 3)                                              \
			bpf_ringbuf_discard(r, flags);                       \
		else                                                         \
			bpf_ringbuf_submit(r, flags);                        \
	} while (0)

SEC("syscall")
int rf_write(void *ctx)
{
	__u32 s = seq;

	seq = s + 1;
	if (s % 3 == 0)
		PUT(16);
	else if (s % 3 == 1)
		PUT(40);
	else
		PUT(200);
	return 0;
}
