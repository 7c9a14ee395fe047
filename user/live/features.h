/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the running kernel can do, asked of the kernel itself rather than
 * read from its version: a probe also answers right on a kernel with a
 * backport, or one built without the feature.
 */
#ifndef ABICAP_FEATURES_H
#define ABICAP_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel has CAP_BPF and CAP_PERFMON (Linux 5.8+). */
bool feature_cap_bpf(void);

/*
 * bpf(2) on a BPF object this process already holds (a map lookup) works
 * without any capability: 1 yes, 0 no (EPERM: before Linux 6.5 while
 * kernel.unprivileged_bpf_disabled is set), -errno if the probe could not
 * run. The calling thread holds the same capabilities after as before.
 */
int feature_bpf_fd_unprivileged(void);

/*
 * Ring buffers can be held in a BPF_MAP_TYPE_ARRAY_OF_MAPS, of sizes other
 * than the template's (per-CPU ring buffers; the kernel matrix has it from
 * 5.10 on): 1 yes, 0 no, -errno if the probe could not run.
 */
int feature_ringbuf_array(void);
/* An array map user space can mmap (BPF_F_MMAPABLE, Linux 5.5): 1, 0, -errno. */
int feature_mmapable_array(void);

/*
 * The scheduler keeps each task's run-queue waits (sched_info: CONFIG_
 * SCHED_INFO, and before Linux 5.14 also schedstats or delay accounting
 * on): this thread's /proc schedstat counts a switch-in after a short
 * sleep. 1 yes, 0 no, -errno if the probe could not run.
 */
int feature_sched_info(void);

/*
 * A program's bpf_get_smp_processor_id() says the CPU it runs on: Debian's
 * riscv64 6.12 kernel, whose JIT is off by default, says 0 on every CPU
 * (its interpreter; tracefs says otherwise), and every record would be
 * booked on CPU 0. feature_cpu_id_probe() loads a raw_tp program that
 * returns it (its fd, or -errno); feature_cpu_id_right() runs prog_fd on
 * the highest online CPU (BPF_F_TEST_RUN_ON_CPU): 1 right, 0 wrong (*cpu
 * where it ran, *said what it said), -errno if it could not run (-ENODEV:
 * only CPU 0 is online, where a wrong 0 is right).
 */
int feature_cpu_id_probe(void);
int feature_cpu_id_right(int prog_fd, int *cpu, unsigned int *said);
/*
 * The same as a check before anything attaches, with prog_fd or (-1) a
 * probe of its own: 0, or -1 with what is wrong and the fix in err (a
 * probe that cannot load or run checks nothing: 0).
 */
int feature_cpu_id_check(int prog_fd, char *err, size_t errlen);

/* The BPF JIT's switch, sysctl net.core.bpf_jit_enable: 0, 1, 2, -1 unknown. */
int feature_jit_enabled(void);

#endif
