// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lz4.h>
#include <lzma.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "harness.h"

struct ids {
	int u8, u16, s32, u32, s64, u64, boolean, chr, comm, task, task_ptr,
		void_ptr, pid_t_, css_set_ptr, csn;
};

static void member(struct btf *b, const char *name, int type, int *off,
		   int size)
{
	cr_assert_eq(btf__add_field(b, name, type, *off * 8, 0), 0,
		     "btf__add_field(%s)", name);
	*off += size;
}

/* A task's cgroup v2 id and the walk up for --cgroup (kernfs ids: 5.5+). */
static void add_cgroups(struct btf *b, struct ids *t)
{
	int kn, css_fwd, css, cg, cset, off = 0;

	kn = btf__add_struct(b, "kernfs_node", 8);
	member(b, "id", t->u64, &off, 8);
	kn = btf__add_ptr(b, kn);
	css_fwd = btf__add_ptr(b, btf__add_fwd(b, "cgroup_subsys_state",
					       BTF_FWD_STRUCT));
	css = btf__add_struct(b, "cgroup_subsys_state", 16);
	off = 0;
	member(b, "cgroup", t->void_ptr, &off, 8);
	member(b, "parent", css_fwd, &off, 8);
	cg = btf__add_struct(b, "cgroup", 32);
	off = 0;
	member(b, "self", css, &off, 16);
	member(b, "level", t->s32, &off, 8);
	member(b, "kn", kn, &off, 8);
	cg = btf__add_ptr(b, cg);
	cset = btf__add_struct(b, "css_set", 8);
	off = 0;
	member(b, "dfl_cgrp", cg, &off, 8);
	t->css_set_ptr = btf__add_ptr(b, cset);
}

static void add_task(struct btf *b, struct ids *t, const struct kfix *k)
{
	/* every type a member uses exists before its struct: fields attach to the last type added */
	int vol_long = btf__add_volatile(b, t->s64), ti, off = 0, leader;

	int rq, cfs, se, si, csn;

	/* group_leader points at a task_struct, declared ahead as in vmlinux */
	leader = btf__add_ptr(b, btf__add_fwd(b, "task_struct", BTF_FWD_STRUCT));
	/* se.cfs_rq->rq: the CPU's run queue (x86's preempt_count is near) */
	rq = btf__add_struct(b, "rq", 16);
	member(b, "nr_running", t->u32, &off, 8);
	member(b, "clock", t->u64, &off, 8);
	rq = btf__add_ptr(b, rq);
	off = 0;
	cfs = btf__add_struct(b, "cfs_rq", 8);
	member(b, "rq", rq, &off, 8);
	cfs = btf__add_ptr(b, cfs);
	off = 0;
	se = btf__add_struct(b, "sched_entity", 16);
	member(b, "cfs_rq", cfs, &off, 8);
	member(b, "sum_exec_runtime", t->u64, &off, 8);
	off = 0;
	/* the scheduler's own run-queue waits (CONFIG_SCHED_INFO) */
	si = btf__add_struct(b, "sched_info", 32);
	member(b, "pcount", t->u64, &off, 8);
	member(b, "run_delay", t->u64, &off, 8);
	member(b, "last_arrival", t->u64, &off, 8);
	member(b, "last_queued", t->u64, &off, 8);
	off = 0;
	/* a task's wakeup queued on a wakelist (5.8+) */
	csn = btf__add_struct(b, "__call_single_node", 16);
	member(b, "llist", t->u64, &off, 8);
	member(b, "u_flags", t->u32, &off, 8);
	t->csn = csn;
	off = 0;

	ti = btf__add_struct(b, "thread_info", k->old_cpu ? 12 : 24);
	off = 0;
	member(b, "flags", t->u64, &off, 8);
	if (!k->old_cpu) {
		member(b, "syscall_work", t->u64, &off, 8);
		member(b, "status", t->u32, &off, 4);
		member(b, "cpu", k->cpu_signed ? t->s32 : t->u32, &off, 4);
	} else {
		member(b, "status", t->u32, &off, 4);
	}
	cr_assert_gt(btf__add_struct(b, "task_struct", 320), 0);
	off = 0;
	member(b, "thread_info", ti, &off, k->old_cpu ? 16 : 24);
	if (k->old_state)
		member(b, "state", vol_long, &off, 8);
	else
		member(b, "__state", t->u32, &off, 8);
	if (k->old_cpu)
		member(b, "cpu", k->cpu_signed ? t->s32 : t->u32, &off, 4);
	if (!k->no_prio)
		member(b, "prio", t->s32, &off, 4);
	member(b, "exit_state", t->s32, &off, 4);
	member(b, "pid", t->pid_t_, &off, 4);
	member(b, "tgid", k->tgid_u64 ? t->u64 : t->pid_t_, &off, 8);
	member(b, "comm", t->comm, &off, 16);
	if (!k->no_cgroups)
		member(b, "cgroups", t->css_set_ptr, &off, 8);
	member(b, "start_time", t->u64, &off, 8);
	member(b, "group_leader", leader, &off, 8);
	member(b, "se", se, &off, 16);
	member(b, "sched_info", si, &off, 32);
	member(b, "wake_entry", csn, &off, 16);
}

/* struct bpf_ringbuf and the lock types it may use */
static void add_ringbuf(struct btf *b, const struct ids *t, enum rb_lock l)
{
	int raw, lock, off = 0, inner;

	raw = btf__add_struct(b, "raw_spinlock", 4);
	member(b, "raw_lock", t->u32, &off, 4);
	raw = btf__add_typedef(b, "raw_spinlock_t", raw);
	switch (l) {
	case RB_RAW:
		lock = raw;
		break;
	case RB_RQSPINLOCK:
		off = 0;
		lock = btf__add_struct(b, "qspinlock", 4);
		member(b, "val", t->u32, &off, 4);
		lock = btf__add_typedef(b, "rqspinlock_t", lock);
		break;
	case RB_RQSPINLOCK_TAS:
		inner = btf__add_union(b, NULL, 4);
		off = 0;
		member(b, "val", t->u32, &off, 0);
		member(b, "locked", t->u32, &off, 4);
		off = 0;
		lock = btf__add_struct(b, "rqspinlock", 4);
		member(b, "", inner, &off, 4);
		lock = btf__add_typedef(b, "rqspinlock_t", lock);
		break;
	case RB_SPINLOCK:
		inner = btf__add_union(b, NULL, 4);
		off = 0;
		member(b, "rlock", raw, &off, 4);
		lock = btf__add_struct(b, "spinlock", 4);
		off = 0;
		member(b, "", inner, &off, 4);
		lock = btf__add_typedef(b, "spinlock_t", lock);
		break;
	default: /* RB_SPINLOCK_RT */
		inner = btf__add_struct(b, "rt_mutex", 32);
		off = 0;
		member(b, "owner", t->u64, &off, 8);
		lock = btf__add_struct(b, "spinlock", 32);
		off = 0;
		member(b, "lock", inner, &off, 32);
		lock = btf__add_typedef(b, "spinlock_t", lock);
		break;
	}
	cr_assert_gt(btf__add_struct(b, "bpf_ringbuf", 128), 0);
	off = 0;
	member(b, "mask", t->u64, &off, 64);
	member(b, "spinlock", lock, &off, 64);
}

/* typedef void (*btf_trace_<name>)(void *__data, args...) */
static void add_tp(struct btf *b, const struct ids *t, const char *name,
		   const int *args, int n)
{
	char tn[64];
	int proto = btf__add_func_proto(b, 0);

	cr_assert_gt(proto, 0);
	cr_assert_eq(btf__add_func_param(b, "__data", t->void_ptr), 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(btf__add_func_param(b, "", args[i]), 0);
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	cr_assert_gt(btf__add_typedef(b, tn, btf__add_ptr(b, proto)), 0);
}

/* csd_queue_cpu, csd_function_entry/exit (6.3+) */
static void add_csd_tps(struct btf *b, const struct ids *t)
{
	int fn = btf__add_func_proto(b, 0), csd, fnp;

	cr_assert_gt(fn, 0);
	cr_assert_eq(btf__add_func_param(b, "", t->void_ptr), 0);
	fnp = btf__add_typedef(b, "smp_call_func_t", btf__add_ptr(b, fn));
	csd = btf__add_struct(b, "__call_single_data", 16);
	cr_assert_eq(btf__add_field(b, "node", t->csn, 0, 0), 0);
	csd = btf__add_ptr(b, btf__add_typedef(b, "call_single_data_t", csd));
	add_tp(b, t, "csd_queue_cpu", (int[]){ t->u32, t->u64, fnp, csd }, 4);
	add_tp(b, t, "csd_function_entry", (int[]){ fnp, csd }, 2);
	add_tp(b, t, "csd_function_exit", (int[]){ fnp, csd }, 2);
}

struct rf {
	const char *name;
	int type;
	int size;
};

static void add_record(struct btf *b, int entry, int empty, const char *name,
		       const struct rf *f, int n)
{
	int off = 0;

	cr_assert_gt(btf__add_struct(b, name, 64), 0);
	member(b, "ent", entry, &off, 8);
	for (int i = 0; i < n; i++)
		member(b, f[i].name, f[i].type, &off, f[i].size);
	member(b, "__data", empty, &off, 0);
}

struct btf *kfix_build(const struct kfix *k)
{
	struct btf *b = btf__new_empty();
	struct ids t;
	int entry, empty, off = 0;

	cr_assert(b);
	t.u8 = btf__add_int(b, "unsigned char", 1, 0);
	t.u16 = btf__add_int(b, "short unsigned int", 2, 0);
	t.s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t.u32 = btf__add_int(b, "unsigned int", 4, 0);
	t.s64 = btf__add_int(b, "long int", 8, BTF_INT_SIGNED);
	t.u64 = btf__add_int(b, "long unsigned int", 8, 0);
	t.boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	t.chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	t.comm = btf__add_array(b, t.s32, t.chr, 16);
	t.pid_t_ = btf__add_typedef(b, "pid_t", t.s32);
	t.void_ptr = btf__add_ptr(b, 0);
	add_cgroups(b, &t);
	add_task(b, &t, k);
	t.task = btf__find_by_name_kind(b, "task_struct", BTF_KIND_STRUCT);
	t.task_ptr = btf__add_ptr(b, t.task);

	if (!k->no_trace_types) {
		if (k->sw == SW_4ARG)
			add_tp(b, &t, "sched_switch", (int[]){ t.boolean,
			       t.task_ptr, t.task_ptr, t.u32 }, 4);
		else if (k->sw == SW_3ARG)
			add_tp(b, &t, "sched_switch", (int[]){ t.boolean,
			       t.task_ptr, t.task_ptr }, 3);
		else
			add_tp(b, &t, "sched_switch", (int[]){ t.boolean, t.u32,
			       t.task_ptr, t.task_ptr }, 4);
		add_tp(b, &t, "sched_wakeup", (int[]){ t.task_ptr }, 1);
		add_tp(b, &t, "sched_wakeup_new", (int[]){ t.task_ptr }, 1);
		add_tp(b, &t, "sched_waking", (int[]){ t.task_ptr }, 1);
		add_tp(b, &t, "sched_process_fork",
		       (int[]){ t.task_ptr, t.task_ptr }, 2);
		add_tp(b, &t, "sched_process_free", (int[]){ t.task_ptr }, 1);
		add_tp(b, &t, "cpu_idle", (int[]){ t.u32, t.u32 }, 2);
		if (!k->no_cpu_frequency)
			add_tp(b, &t, "cpu_frequency", (int[]){ t.u32, t.u32 }, 2);
		if (!k->no_csd)
			add_csd_tps(b, &t);
	}

	add_ringbuf(b, &t, k->rb_lock);
	entry = btf__add_struct(b, "trace_entry", 8);
	member(b, "type", t.u16, &off, 2);
	member(b, "flags", t.u8, &off, 1);
	member(b, "preempt_count", t.u8, &off, 1);
	member(b, "pid", t.s32, &off, 4);
	empty = btf__add_array(b, t.s32, t.chr, 0);
	{
		struct rf sw[] = {
			{ "prev_comm", t.comm, 16 }, { "prev_pid", t.pid_t_, 4 },
			{ "prev_prio", t.s32, 4 }, { "prev_state", t.s64, 8 },
			{ "next_comm", t.comm, 16 }, { "next_pid", t.pid_t_, 4 },
			{ "next_prio", t.s32, 4 }, { "next_flags", t.u32, 4 },
		};
		struct rf wk[] = {
			{ "comm", t.comm, 16 }, { "pid", t.pid_t_, 4 },
			{ "prio", t.s32, 4 }, { "success", t.s32, 4 },
			{ "target_cpu", t.s32, 4 },
		};
		struct rf wk_new[] = {
			{ "comm", t.comm, 16 }, { "pid", t.pid_t_, 4 },
			{ "prio", t.s32, 4 }, { "target_cpu", t.s32, 4 },
		};
		struct rf cpu[] = { { "state", t.u32, 4 }, { "cpu_id", t.u32, 4 } };

		add_record(b, entry, empty, "trace_event_raw_sched_switch", sw,
			   k->switch_appended ? 8 : 7);
		if (k->wakeup_success)
			add_record(b, entry, empty,
				   "trace_event_raw_sched_wakeup_template", wk, 5);
		else
			add_record(b, entry, empty,
				   "trace_event_raw_sched_wakeup_template", wk_new, 4);
		add_record(b, entry, empty, "trace_event_raw_cpu", cpu, 2);
	}
	return b;
}

void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f, "cannot write %s", path);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static const void *raw_btf(const struct kfix *k, struct btf **b, __u32 *len)
{
	const void *raw;

	*b = kfix_build(k);
	raw = btf__raw_data(*b, len);
	cr_assert(raw);
	return raw;
}

void kfix_write_raw(const struct kfix *k, const char *path)
{
	struct btf *b;
	__u32 len;
	const void *raw = raw_btf(k, &b, &len);

	write_file(path, raw, len);
	btf__free(b);
}

/* linux_banner, as every kernel image holds it */
static char banner[] = "Linux version " KFIX_RELEASE " (fixture@abicap) "
		       "(gcc 12.2.0) #1 SMP PREEMPT_DYNAMIC\n";

/* A section of e holding len bytes of buf; its index. */
static size_t elf_section(Elf *e, void *buf, size_t len, size_t align,
			  unsigned int name, unsigned int type)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = elf_newdata(scn);
	Elf64_Shdr *sh;

	d->d_buf = buf;
	d->d_size = len;
	d->d_align = align;
	d->d_type = ELF_T_BYTE;
	sh = elf64_getshdr(scn);
	sh->sh_name = name;
	sh->sh_type = type;
	return elf_ndxscn(scn);
}

/*
 * An ELF64 of this machine with .BTF (if btf), .rodata (the banner) and
 * .shstrtab, written with libelf to fd.
 */
static void elf_machine(int fd, int machine, bool big_endian, const void *btf,
			size_t len)
{
	static char shstr[] = "\0.BTF\0.shstrtab\0.rodata";
	Elf *e;
	Elf64_Ehdr *eh;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	cr_assert(e);
	eh = elf64_newehdr(e);
	eh->e_ident[EI_DATA] = big_endian ? ELFDATA2MSB : ELFDATA2LSB;
	eh->e_machine = machine;
	eh->e_type = ET_EXEC;
	eh->e_version = EV_CURRENT;
	if (btf)
		elf_section(e, (void *)btf, len, 4, 1, SHT_PROGBITS);
	elf_section(e, banner, sizeof(banner), 1, 16, SHT_PROGBITS);
	eh->e_shstrndx = elf_section(e, shstr, sizeof(shstr), 1, 6, SHT_STRTAB);
	cr_assert_gt(elf_update(e, ELF_C_WRITE), 0, "%s", elf_errmsg(-1));
	elf_end(e);
}

static void elf_with_btf(int fd, const void *btf, size_t len)
{
	elf_machine(fd, EM_X86_64, false, btf, len);
}

void kfix_write_elf(const struct kfix *k, const char *path)
{
	struct btf *b;
	__u32 len;
	const void *raw = raw_btf(k, &b, &len);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	elf_with_btf(fd, raw, len);
	close(fd);
	btf__free(b);
}

static size_t pack(const char *how, const void *in, size_t len, void *out,
		       size_t cap)
{
	if (!strcmp(how, "zstd")) {
		size_t n = ZSTD_compress(out, cap, in, len, 3);

		cr_assert_not(ZSTD_isError(n));
		return n;
	}
	if (!strcmp(how, "lz4")) {
		/* legacy frame: magic, then (le32 size, block) per 8 MiB */
		unsigned char *o = out;
		size_t pos = 4;

		memcpy(o, "\x02\x21\x4c\x18", 4);
		for (size_t off = 0; off < len; off += 8u << 20) {
			size_t chunk = len - off < (8u << 20) ? len - off : 8u << 20;
			int n = LZ4_compress_default((const char *)in + off,
						     (char *)o + pos + 4, chunk,
						     cap - pos - 4);

			cr_assert_gt(n, 0);
			memcpy(o + pos, &(__u32){ (__u32)n }, 4);
			pos += 4 + n;
		}
		return pos;
	}
	if (!strcmp(how, "xz")) {
		size_t pos = 0;

		cr_assert_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL,
						     in, len, out, &pos, cap),
			     LZMA_OK);
		return pos;
	} else {
		z_stream z = { 0 };

		cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
					  Z_DEFAULT_STRATEGY), Z_OK);
		z.next_in = (void *)in;
		z.avail_in = len;
		z.next_out = out;
		z.avail_out = cap;
		cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
		deflateEnd(&z);
		return z.total_out;
	}
}

/*
 * A minimal x86 bzImage: boot sector with "HdrS", setup_sects = 1, and the
 * compressed ELF at payload_offset within the protected-mode part. The
 * kernel build appends the uncompressed size (le32) after the payload.
 */
void kfix_write_bzimage(const struct kfix *k, const char *path,
			const char *compression)
{
	char elf_path[] = "/tmp/abicap-fixture-XXXXXX";
	int fd = mkstemp(elf_path);
	size_t elf_len, cap, plen, off = 0x100, total;
	unsigned char *elf, *img;
	struct btf *b;
	__u32 len;
	const void *raw = raw_btf(k, &b, &len);

	cr_assert_geq(fd, 0);
	elf_with_btf(fd, raw, len);
	close(fd);
	btf__free(b);
	elf = read_file(elf_path, &elf_len);
	unlink(elf_path);
	cap = elf_len * 2 + 4096;
	total = 1024 + off + cap + 4;
	img = calloc(1, total);
	plen = pack(compression, elf, elf_len, img + 1024 + off, cap);
	memcpy(img + 1024 + off + plen, &(__u32){ (__u32)elf_len }, 4);
	img[0] = 'M';
	img[1] = 'Z';
	img[0x1f1] = 1; /* setup_sects: protected-mode code at 2 * 512 */
	memcpy(img + 0x202, "HdrS", 4);
	memcpy(img + 0x248, &(__u32){ (__u32)off }, 4);
	memcpy(img + 0x24c, &(__u32){ (__u32)plen + 4 }, 4);
	write_file(path, img, 1024 + off + plen + 4);
	free(img);
	free(elf);
}

/* Raw BTF of k in the given byte order; malloc'd. */
static unsigned char *btf_bytes(const struct kfix *k, bool big_endian,
				size_t *len)
{
	struct btf *b = k ? kfix_build(k) : btf__new_empty();
	const void *raw;
	unsigned char *out;
	__u32 n;

	if (!k) { /* the decoy alone: one type */
		cr_assert_gt(btf__add_int(b, "int", 4, BTF_INT_SIGNED), 0);
	}
	cr_assert_eq(btf__set_endianness(b, big_endian ? BTF_BIG_ENDIAN :
					 BTF_LITTLE_ENDIAN), 0);
	raw = btf__raw_data(b, &n);
	cr_assert(raw);
	out = malloc(n);
	memcpy(out, raw, n);
	*len = n;
	btf__free(b);
	return out;
}

/*
 * The kernel proper: header page, code-like filler, a decoy BTF (one type),
 * then the kernel's BTF (if any), then more filler.
 */
static unsigned char *image_body(const struct kfix *k, bool be,
				 const char *magic38, size_t *len)
{
	size_t dlen, blen = 0, pos = 4096;
	unsigned char *decoy = btf_bytes(NULL, be, &dlen);
	unsigned char *btf = k ? btf_bytes(k, be, &blen) : NULL;
	unsigned char *img = calloc(1, 4096 + 2048 + dlen + blen + 2048);

	memcpy(img, "MZ", 2);
	if (magic38)
		memcpy(img + 0x38, magic38, 4);
	for (size_t i = 0; i < 2048; i++)
		img[pos++] = (unsigned char)(i * 7 + 3);
	memcpy(img + pos - 1024, banner, sizeof(banner));
	memcpy(img + pos, decoy, dlen);
	pos += dlen;
	if (btf)
		memcpy(img + pos, btf, blen);
	pos += blen + 2048;
	free(decoy);
	free(btf);
	*len = pos;
	return img;
}

static unsigned char *packed(const char *how, const void *in, size_t len,
			     size_t *plen)
{
	size_t cap = len * 2 + 4096;
	unsigned char *out = malloc(cap);

	*plen = pack(how, in, len, out, cap);
	return out;
}

void kfix_compress_file(const char *src, const char *dst, const char *how)
{
	size_t len, plen;
	unsigned char *in = read_file(src, &len);
	unsigned char *out = packed(how, in, len, &plen);

	write_file(dst, out, plen);
	free(in);
	free(out);
}

/* A 64-bit ELF header with no section table, then the body. */
static unsigned char *stripped_elf(const unsigned char *body, size_t blen,
				   size_t *len)
{
	unsigned char *e = calloc(1, 64 + blen);

	memcpy(e, "\x7f" "ELF\x02\x01\x01", 7);
	e[16] = 2; /* ET_EXEC */
	e[18] = 21; /* EM_PPC64, little-endian */
	e[20] = 1;
	e[52] = 64; /* e_ehsize */
	memcpy(e + 64, body, blen);
	*len = 64 + blen;
	return e;
}

void kfix_write_image(const struct kfix *k, const char *path, enum kimg kind,
		      bool big_endian, const char *compression)
{
	const char *how = compression ? compression : "gzip";
	size_t blen = 0, plen, len;
	unsigned char *body, *pay, *img;

	switch (kind) {
	case KIMG_RAW:
		body = btf_bytes(k, big_endian, &blen);
		write_file(path, body, blen);
		free(body);
		return;
	case KIMG_ARM64:
	case KIMG_RISCV64:
		body = image_body(k, big_endian, kind == KIMG_ARM64 ?
				  "ARM\x64" : "RSC\x05", &blen);
		write_file(path, body, blen);
		free(body);
		return;
	case KIMG_ELF_S390:
	{
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

		cr_assert_geq(fd, 0);
		body = k ? btf_bytes(k, big_endian, &blen) : NULL;
		elf_machine(fd, EM_S390, big_endian, body, blen);
		close(fd);
		free(body);
	}
		return;
	case KIMG_ELF_STRIPPED:
		body = image_body(k, big_endian, NULL, &blen);
		img = stripped_elf(body, blen, &len);
		write_file(path, img, len);
		free(body);
		free(img);
		return;
	default:
		break;
	}
	body = image_body(k, big_endian, kind == KIMG_ZBOOT ? "ARM\x64" : NULL,
			  &blen);
	pay = packed(how, body, blen, &plen);
	img = calloc(1, 8192 + plen + 4);
	if (kind == KIMG_ZBOOT) {
		memcpy(img, "MZ\0\0zimg", 8);
		memcpy(img + 8, &(__u32){ 4096 }, 4);
		memcpy(img + 12, &(__u32){ (__u32)plen }, 4);
		snprintf((char *)img + 24, 16, "%s", how);
		memcpy(img + 0x38, "\xcd\x23\x82\x81", 4); /* LINUX_PE_MAGIC */
		memcpy(img + 4096, pay, plen);
		len = 4096 + plen;
	} else {
		if (kind == KIMG_ZIMAGE)
			memcpy(img + 0x24, "\x18\x28\x6f\x01", 4);
		else
			memcpy(img + 8, "\x02\x00\x00\x18\x60\x00\x00\x50"
			       "\x02\x00\x00\x68\x60\x00\x00\x50", 16);
		/* the stub: code, and a stray gzip magic that is no stream */
		for (size_t i = 64; i < 8192; i++)
			img[i] = (unsigned char)(i * 13 + 5);
		memcpy(img + 1000, "\x1f\x8b\x08\x00garbage", 11);
		memcpy(img + 8192, pay, plen);
		len = 8192 + plen;
	}
	memcpy(img + len, &(__u32){ (__u32)blen }, 4); /* the size trailer */
	write_file(path, img, len + 4);
	free(body);
	free(pay);
	free(img);
}

struct tptypes {
	int s32, u32, ul, u8, u16, boolean, page_ptr, mode, entry, empty,
		void_ptr, char_ptr, s8_ptr;
};

static int tp_type(const struct tptypes *t, const char *s)
{
	static const struct { const char *name; size_t off; } map[] = {
		{ "int", offsetof(struct tptypes, s32) },
		{ "unsigned int", offsetof(struct tptypes, u32) },
		{ "unsigned long", offsetof(struct tptypes, ul) },
		{ "u8", offsetof(struct tptypes, u8) },
		{ "u16", offsetof(struct tptypes, u16) },
		{ "bool", offsetof(struct tptypes, boolean) },
		{ "struct page *", offsetof(struct tptypes, page_ptr) },
		{ "enum migrate_mode", offsetof(struct tptypes, mode) },
		{ "char *", offsetof(struct tptypes, char_ptr) },
		{ "s8 *", offsetof(struct tptypes, s8_ptr) },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(s, map[i].name))
			return *(const int *)((const char *)t + map[i].off);
	cr_assert_fail("tpfix: unknown type '%s'", s);
	return 0;
}

/* "a, b, c" into trimmed items */
static int split(char *s, const char *sep, char **out, int max)
{
	int n = 0;

	for (char *tok = strtok(s, sep); tok && n < max; tok = strtok(NULL, sep)) {
		while (*tok == ' ')
			tok++;
		for (char *e = tok + strlen(tok); e > tok && e[-1] == ' '; )
			*--e = '\0';
		if (*tok)
			out[n++] = tok;
	}
	return n;
}

static void tp_add(struct btf *b, const struct tptypes *t, const char *spec)
{
	char buf[512], name[128], *items[16];
	char *open;
	int n, off = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	open = strpbrk(buf, "({");
	cr_assert(open, "tpfix: '%s'", spec);
	snprintf(name, sizeof(name), "%.*s", (int)(open - buf), buf);
	if (*open == '(') {
		int proto, ids[16];

		open[strcspn(open, ")")] = '\0';
		n = split(open + 1, ",", items, 16);
		/* params attach to the last type added: resolve them all first */
		for (int i = 0; i < n; i++)
			ids[i] = tp_type(t, items[i]);
		proto = btf__add_func_proto(b, 0);
		cr_assert_eq(btf__add_func_param(b, "__data", t->void_ptr), 0);
		for (int i = 0; i < n; i++)
			cr_assert_eq(btf__add_func_param(b, "", ids[i]), 0);
		snprintf(buf, sizeof(buf), "btf_trace_%s", name);
		cr_assert_gt(btf__add_typedef(b, buf, btf__add_ptr(b, proto)), 0);
		return;
	}
	open[strcspn(open, "}")] = '\0';
	n = split(open + 1, ";", items, 16);
	{
		int ids[16];
		char *fname[16], sname[160]; /* sname not in buf: fname is */

		for (int i = 0; i < n; i++) {
			fname[i] = strrchr(items[i], ' ');
			cr_assert(fname[i], "tpfix: '%s'", items[i]);
			*fname[i]++ = '\0';
			ids[i] = tp_type(t, items[i]);
		}
		snprintf(sname, sizeof(sname), "trace_event_raw_%s", name);
		cr_assert_gt(btf__add_struct(b, sname, 64), 0);
		member(b, "ent", t->entry, &off, 8);
		for (int i = 0; i < n; i++)
			member(b, fname[i], ids[i], &off, 8);
		member(b, "__data", t->empty, &off, 0);
	}
}

void tpfix_write(const char *path, const char *const *spec, int n)
{
	struct btf *b = btf__new_empty();
	struct tptypes t;
	const void *raw;
	__u32 len;
	int off = 0, chr;
	bool uchar = false;

	t.s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t.u32 = btf__add_int(b, "unsigned int", 4, 0);
	t.void_ptr = btf__add_ptr(b, 0);
	t.ul = btf__add_int(b, "long unsigned int", 8, 0);
	t.u8 = btf__add_typedef(b, "u8", btf__add_int(b, "unsigned char", 1, 0));
	t.u16 = btf__add_typedef(b, "u16", btf__add_int(b, "short unsigned int", 2, 0));
	t.boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	t.page_ptr = btf__add_ptr(b, btf__add_struct(b, "page", 64));
	t.mode = btf__add_enum(b, "migrate_mode", 4);
	cr_assert_eq(btf__add_enum_value(b, "MIGRATE_ASYNC", 0), 0);
	/* plain char: signed (x86 before 6.2), or as with -funsigned-char */
	for (int i = 0; i < n; i++)
		uchar |= !strcmp(spec[i], "-funsigned-char");
	chr = btf__add_int(b, "char", 1, uchar ? 0 : BTF_INT_SIGNED);
	t.char_ptr = btf__add_ptr(b, chr);
	t.s8_ptr = btf__add_ptr(b, btf__add_typedef(b, "s8",
			btf__add_int(b, "signed char", 1, BTF_INT_SIGNED)));
	t.empty = btf__add_array(b, t.s32, chr, 0);
	t.entry = btf__add_struct(b, "trace_entry", 8);
	member(b, "type", t.u16, &off, 8);
	for (int i = 0; i < n; i++)
		if (strcmp(spec[i], "-funsigned-char"))
			tp_add(b, &t, spec[i]);
	raw = btf__raw_data(b, &len);
	cr_assert(raw);
	write_file(path, raw, len);
	btf__free(b);
}
