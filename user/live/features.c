// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/cpulist.h"
#include "live/features.h"

/* the kernel's ENOTSUPP (not in the UAPI), what an unfit inner map gives */
#define ENOTSUPP_ 524

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/*
 * PR_CAPBSET_READ fails with EINVAL for a capability the kernel does not
 * know (capabilities(7)); CAP_PERFMON (38) and CAP_BPF came together in
 * Linux 5.8.
 */
bool feature_cap_bpf(void)
{
	return prctl(PR_CAPBSET_READ, CAP_BPF, 0, 0, 0) >= 0;
}

/*
 * Before Linux 6.5 (commit 1d28635abcf1, "bpf: Move unprivileged checks
 * into map_create() and bpf_prog_load()"; backported to some stable
 * lines) every bpf(2) command checked kernel.unprivileged_bpf_disabled,
 * not only creating maps and loading programs. Asked the way it matters:
 * a map lookup with the calling thread's effective capabilities cleared
 * (the kernel checks those only), restored from the permitted set after.
 * No process or thread is created: record's command stays its last child.
 */
int feature_bpf_fd_unprivileged(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct had[2], none[2];
	__u32 key = 0, value;
	int fd, ret, e;

	if (syscall(SYS_capget, &h, had))
		return -errno;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "abicap_probe", 4, 4, 1, NULL);
	if (fd < 0)
		return -errno;
	memcpy(none, had, sizeof(none));
	none[0].effective = none[1].effective = 0;
	if (syscall(SYS_capset, &h, none)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = !bpf_map_lookup_elem(fd, &key, &value);
	e = errno;
	if (syscall(SYS_capset, &h, had))
		ret = -errno;
	else if (!ret && e != EPERM)
		ret = -e;
	close(fd);
	return ret;
}

/*
 * Asked as the loader uses it: an array of maps whose template is a ring
 * buffer, and a ring buffer of another size put in it (the kernel compares
 * an inner map with the template through its map_meta_equal operation; a
 * map type without one cannot be an inner map).
 */
int feature_ringbuf_array(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, oo);
	__u32 key = 0;
	int rb, rb2, arr, ret;

	rb = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "abicap_probe", 0, 0,
			    getpagesize(), NULL);
	if (rb < 0)
		return errno == EINVAL ? 0 : -errno;
	oo.inner_map_fd = rb;
	arr = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "abicap_probe", 4, 4,
			     1, &oo);
	if (arr < 0) {
		ret = errno == EINVAL || errno == ENOTSUPP_ ? 0 : -errno;
		close(rb);
		return ret;
	}
	/* a second ring of another size: the loader's sizes differ from the template's */
	rb2 = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "abicap_probe", 0, 0,
			     2 * getpagesize(), NULL);
	ret = rb2 >= 0 && !bpf_map_update_elem(arr, &key, &rb2, BPF_ANY);
	if (rb2 >= 0)
		close(rb2);
	close(arr);
	close(rb);
	return ret;
}

/* An array map user space can mmap (BPF_F_MMAPABLE, Linux 5.5): 1, 0, -errno. */
int feature_mmapable_array(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, oo, .map_flags = BPF_F_MMAPABLE);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "abicap_probe", 4, 8, 1,
				&oo);

	if (fd < 0)
		return errno == EINVAL ? 0 : -errno;
	close(fd);
	return 1;
}

/* This thread's pcount (switch-ins after a wait), -errno if unreadable. */
static long long sched_info_pcount(void)
{
	unsigned long long run, delay, pcount;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	int n, e;

	if (!f)
		return -errno;
	n = fscanf(f, "%llu %llu %llu", &run, &delay, &pcount);
	e = errno;
	fclose(f);
	if (n != 3)
		return n < 0 ? -(e ? e : EIO) : -EINVAL;
	return (long long)pcount;
}

int feature_sched_info(void)
{
	long long before = sched_info_pcount(), after;

	if (before == -ENOENT)
		return 0; /* no CONFIG_SCHED_INFO */
	if (before < 0)
		return (int)before;
	/* a sleep ends in a wakeup: an enqueue, then a switch-in */
	usleep(2000);
	after = sched_info_pcount();
	if (after < 0)
		return (int)after;
	return after > before;
}

/* The highest online CPU (/sys/devices/system/cpu/online: "0-3,5"), or -1. */
static int highest_online_cpu(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int ncpus = libbpf_num_possible_cpus(), cpu = -1;
	char list[4096], err[256];
	uint8_t *set = ncpus > 0 ? calloc(ncpus, 1) : NULL;

	if (f && set && fgets(list, sizeof(list), f)) {
		list[strcspn(list, "\n")] = '\0';
		if (parse_cpulist(list, set, ncpus, err, sizeof(err)))
			for (cpu = ncpus - 1; cpu >= 0 && !set[cpu]; cpu--)
				;
	}
	if (f)
		fclose(f);
	free(set);
	return cpu;
}

int feature_cpu_id_right(int prog_fd, int *cpu, unsigned int *said)
{
	char ctx[8] = { 0 }; /* a raw_tp program's context: no argument read */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = ctx,
		    .ctx_size_in = sizeof(ctx), .flags = BPF_F_TEST_RUN_ON_CPU);

	*cpu = highest_online_cpu();
	if (*cpu < 0)
		return -ENOENT;
	if (*cpu == 0)
		return -ENODEV;
	opts.cpu = *cpu;
	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	*said = opts.retval;
	return opts.retval == (unsigned int)*cpu;
}

int feature_jit_enabled(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "re");
	int v = -1;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

int feature_cpu_id_probe(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL,
		  .imm = BPF_FUNC_get_smp_processor_id },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "abicap_cpu_id",
			       "GPL", insns, 2, NULL);

	return fd < 0 ? -errno : fd;
}

int feature_cpu_id_check(int prog_fd, char *err, size_t errlen)
{
	int fd = prog_fd >= 0 ? prog_fd : feature_cpu_id_probe();
	unsigned int said = 0;
	int cpu = -1, right;

	if (fd < 0)
		return 0;
	right = feature_cpu_id_right(fd, &cpu, &said);
	if (prog_fd < 0)
		close(fd);
	if (right != 0)
		return 0;
	snprintf(err, errlen, "this kernel's BPF programs are told the wrong "
		 "CPU (bpf_get_smp_processor_id() said %u on CPU %d), so every "
		 "record would name the wrong one: %s", said, cpu,
		 feature_jit_enabled() == 0 ?
		 "its BPF JIT is off (sysctl net.core.bpf_jit_enable is 0; "
		 "Debian's riscv64 6.12 interpreter does this): turn it on with "
		 "'sysctl net.core.bpf_jit_enable=1'" :
		 "a kernel bug; try another kernel, or report it to its "
		 "maintainers");
	return -1;
}
