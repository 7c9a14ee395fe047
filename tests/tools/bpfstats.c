// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/bpfstats: the kernel's own run time per event of BPF programs over
 * one run of a command (scripts/bench.sh).
 *
 *   bpfstats [-n] [-p PID]... [-r NAME=VALUE]... [-l OBJ[:PROG,...]]...
 *            [-w FILE] -- COMMAND [ARGS...]
 *
 * Turns on bpf_stats (BPF_STATS_RUN_TIME, for as long as this runs), loads
 * and attaches every program of each OBJ (or only the PROGs named), takes
 * the programs of each PID (found through /proc/PID/fdinfo: abicap's, while
 * it runs) and of the objects, reads run_cnt and run_time_ns, runs COMMAND,
 * and reads them again. The ring buffers of the objects are drained while
 * COMMAND runs (every 10 ms, woken or not), by abicap's own reader
 * (user/live/ringread.c), as abicap drains its rings. One line per program
 * on FILE (default stdout):
 *
 *   NAME <tab> FROM <tab> RUN_CNT <tab> RUN_TIME_NS <tab> NS_PER_RUN
 *
 * -r sets a read-only global (const volatile, an integer) of the objects
 * loaded after it, by name (every object holding one so named). On x86-64
 * an object with a map "slabs" (bpf/slab.bpf.h) writes into them, as
 * abicap's default transport: each CPU a slab of 8 MiB in 1 MiB chunks,
 * read with the CPU's ring (its use_slab and sizes set).
 * FROM is "pid" or "obj". NAME is the program's full name (from its BTF;
 * the kernel keeps only 15 characters). -n: no bpf_stats and no lines,
 * the programs only loaded, attached and drained while COMMAND runs (a
 * workload's slowdown beside them, without bpf_stats' own cost), "bpfstats:
 * attached" on stderr once they are, SIGINT or SIGTERM passed on to
 * COMMAND as SIGTERM. At the end, "bpfstats: N records drained" on
 * stderr where an object has rings. Exit 0, or 1 on any failure; the
 * command's exit status is not ours.
 */
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "abicap.h"
#include "live/ringread.h"

#define MAX_PROGS 64

struct prog {
	int fd;
	char name[128];
	const char *from;
	__u64 cnt0, time0;
};

static struct prog progs[MAX_PROGS];
static int nprogs;
/* -n: SIGINT or SIGTERM ends COMMAND (scripts/bench.sh stops a tracer so) */
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	if (l == LIBBPF_WARN)
		return vfprintf(stderr, f, ap);
	return 0;
}

static int die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bpfstats: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The full name from the program's BTF, else the kernel's 15 characters. */
static void full_name(int fd, const struct bpf_prog_info *info, char *out,
		      size_t len)
{
	struct bpf_prog_info fi = { 0 };
	struct bpf_func_info f = { 0 };
	__u32 flen = sizeof(fi);
	struct btf *btf;

	snprintf(out, len, "%s", info->name);
	if (!info->btf_id || !info->nr_func_info)
		return;
	fi.nr_func_info = 1;
	fi.func_info_rec_size = sizeof(f);
	fi.func_info = (__u64)(unsigned long)&f;
	if (bpf_obj_get_info_by_fd(fd, &fi, &flen))
		return;
	btf = btf__load_from_kernel_by_id(info->btf_id);
	if (!btf)
		return;
	if (btf__type_by_id(btf, f.type_id))
		snprintf(out, len, "%s", btf__name_by_offset(btf,
			 btf__type_by_id(btf, f.type_id)->name_off));
	btf__free(btf);
}

static void add_prog(int fd, const char *from)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (nprogs == MAX_PROGS)
		die("more than %d programs", MAX_PROGS);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		die("cannot read a program's info: %s", strerror(errno));
	for (int i = 0; i < nprogs; i++) {
		struct bpf_prog_info o = { 0 };
		__u32 olen = sizeof(o);

		if (!bpf_obj_get_info_by_fd(progs[i].fd, &o, &olen) &&
		    o.id == info.id)
			return; /* the same program through another fd */
	}
	progs[nprogs].fd = fd;
	progs[nprogs].from = from;
	full_name(fd, &info, progs[nprogs].name, sizeof(progs[nprogs].name));
	nprogs++;
}

/* Every BPF program PID holds an fd of ("prog_id:" in its fdinfo). */
static void add_pid(const char *pid)
{
	char path[300], line[256];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo", pid);
	dir = opendir(path);
	if (!dir)
		die("cannot read %s: %s (is process %s running?)", path,
		    strerror(errno), pid);
	while ((d = readdir(dir))) {
		FILE *f;
		unsigned int id;

		if (d->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid,
			     d->d_name) >= (int)sizeof(path))
			die("process id '%s' is too long", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			int fd;

			if (sscanf(line, "prog_id: %u", &id) != 1)
				continue;
			fd = bpf_prog_get_fd_by_id(id);
			if (fd < 0)
				die("cannot open program %u: %s", id,
				    strerror(errno));
			add_prog(fd, "pid");
			found++;
		}
		fclose(f);
	}
	closedir(dir);
	if (!found)
		die("process %s holds no BPF program", pid);
}

static unsigned long long drained; /* records read from the objects */

static int on_record(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	drained++;
	return 0;
}

/* Each CPU's ring of a per-CPU ring array (bench.bpf.h CPU_RINGS), in bytes. */
#define CPU_RING_BYTES (8u << 20)

static bool is_cpu_rings(const struct bpf_map *m)
{
	return bpf_map__type(m) == BPF_MAP_TYPE_ARRAY_OF_MAPS;
}

/* Before the load: a per-CPU ring array holds an entry per possible CPU. */
static void size_cpu_rings(struct bpf_object *obj)
{
	struct bpf_map *m;
	int n = libbpf_num_possible_cpus(), tmpl;

	bpf_object__for_each_map(m, obj) {
		if (!is_cpu_rings(m))
			continue;
		if (n <= 0)
			die("cannot count the possible CPUs: %s", strerror(-n));
		tmpl = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0,
				      CPU_RING_BYTES, NULL);
		if (tmpl < 0 || bpf_map__set_inner_map_fd(m, tmpl) ||
		    bpf_map__set_max_entries(m, (__u32)n))
			die("cannot set up %s: %s", bpf_map__name(m),
			    strerror(errno));
	}
}

static int nrings; /* rings given to the reader so far */

/* Add the ring fd to the consumer *rb. */
static void drain_ring(struct ringread **rb, int fd, const char *name)
{
	int e;

	if (!*rb && !(*rb = ringread_new()))
		die("cannot read ring buffer %s: %s", name, strerror(errno));
	e = ringread_add(*rb, fd, on_record, NULL);
	if (e)
		die("cannot read ring buffer %s: %s", name, strerror(-e));
	nrings++;
}

/* After the load: each CPU's ring made, put in its slot, drained. */
static void fill_cpu_rings(struct bpf_map *m, struct ringread **rb)
{
	for (__u32 cpu = 0; cpu < bpf_map__max_entries(m); cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0,
					CPU_RING_BYTES, NULL);

		if (fd < 0 || bpf_map_update_elem(bpf_map__fd(m), &cpu, &fd, 0))
			die("cannot give CPU %u its ring in %s: %s", cpu,
			    bpf_map__name(m), strerror(errno));
		drain_ring(rb, fd, bpf_map__name(m));
	}
}

/* -r NAME=VALUE: read-only globals set in every object loaded after them */
#define MAX_RODATA 8
static struct {
	char name[64];
	long long value;
	bool used;
} rodata[MAX_RODATA];
static int nrodata;

static void add_rodata(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *end;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(rodata[0].name))
		die("-r wants NAME=VALUE, not '%s'", arg);
	if (nrodata == MAX_RODATA)
		die("more than %d -r", MAX_RODATA);
	memcpy(rodata[nrodata].name, arg, eq - arg);
	errno = 0;
	rodata[nrodata].value = strtoll(eq + 1, &end, 0);
	if (errno || end == eq + 1 || *end)
		die("-r %s: '%s' is no number", rodata[nrodata].name, eq + 1);
	nrodata++;
}

/* Write the -r values into obj's .rodata (its variables found by BTF). */
static void set_rodata(struct bpf_object *obj)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *sec;
	struct bpf_map *m;
	size_t sz = 0;
	unsigned char *copy;
	const void *init;
	int id;

	if (!nrodata)
		return;
	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	m = bpf_object__find_map_by_name(obj, ".rodata");
	init = m ? bpf_map__initial_value(m, &sz) : NULL;
	if (id < 0 || !init)
		die("-r given, but the object has no .rodata");
	copy = malloc(sz);
	if (!copy)
		die("out of memory");
	memcpy(copy, init, sz);
	sec = btf__type_by_id(btf, id);
	for (int i = 0; i < btf_vlen(sec); i++) {
		const struct btf_var_secinfo *v = btf_var_secinfos(sec) + i;
		const char *name = btf__name_by_offset(btf,
				btf__type_by_id(btf, v->type)->name_off);

		for (int j = 0; j < nrodata; j++) {
			if (strcmp(name, rodata[j].name))
				continue;
			if (v->size > 8 || v->offset + v->size > sz)
				die("-r %s: not an integer", name);
			/* little-endian: the low bytes (x86, arm64, riscv) */
			memcpy(copy + v->offset, &rodata[j].value, v->size);
			rodata[j].used = true;
		}
	}
	if (bpf_map__set_initial_value(m, copy, sz))
		die("cannot set .rodata: %s", strerror(errno));
	free(copy);
}

#define SLAB_SHIFT 20

/* obj writes into slabs here: x86-64, and a map "slabs" */
static struct bpf_map *slabs_of(struct bpf_object *obj)
{
#if defined(__x86_64__)
	return bpf_object__find_map_by_name(obj, "slabs");
#else
	(void)obj;
	return NULL;
#endif
}

/* Before the load: the slabs' array sized, use_slab and its sizes set. */
static void size_slabs(struct bpf_object *obj)
{
	struct bpf_map *m = slabs_of(obj);
	int n = libbpf_num_possible_cpus(), log = 0;
	char v[64];

	if (!m)
		return;
	while ((1u << (SLAB_SHIFT + log)) < CPU_RING_BYTES)
		log++;
	if (n <= 0 || bpf_map__set_value_size(m, 1u << SLAB_SHIFT) ||
	    bpf_map__set_max_entries(m, (__u32)n << log))
		die("cannot size the slabs: %s", strerror(errno));
	for (int i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(v, sizeof(v), "use_slab=1");
		else if (i == 1)
			snprintf(v, sizeof(v), "slab_chunk_shift=%d", SLAB_SHIFT);
		else
			snprintf(v, sizeof(v), "slab_chunks_log=%d", log);
		add_rodata(v);
		rodata[nrodata - 1].used = true;
	}
}

/* After the load: CPU c's slab read with ring first + c of rb. */
static void read_slabs(struct bpf_object *obj, struct ringread *rb, int first)
{
	struct bpf_map *m = slabs_of(obj);
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	const struct btf *btf = bpf_object__btf(obj);
	int n = libbpf_num_possible_cpus(), id;
	const struct btf_type *sec;
	unsigned char *data, *b;
	size_t off = SIZE_MAX;

	if (!m)
		return;
	id = btf && bss ? btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC)
			: -1;
	sec = id >= 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; sec && i < btf_vlen(sec); i++) {
		const struct btf_var_secinfo *v = btf_var_secinfos(sec) + i;

		if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf,
				v->type)->name_off), "slab_ctl"))
			off = v->offset;
	}
	if (off == SIZE_MAX || !rb)
		die("slabs, but no slab_ctl in .bss or no CPU rings to read them with");
	b = mmap(NULL, bpf_map__value_size(bss), PROT_READ | PROT_WRITE,
		 MAP_SHARED, bpf_map__fd(bss), 0);
	data = mmap(NULL, (size_t)n * CPU_RING_BYTES, PROT_READ, MAP_SHARED,
		    bpf_map__fd(m), 0);
	if (b == MAP_FAILED || data == MAP_FAILED)
		die("cannot map the slabs: %s", strerror(errno));
	for (int cpu = 0; cpu < n; cpu++) {
		struct abicap_slab_ctl *ctl =
			(struct abicap_slab_ctl *)(b + off) + cpu;
		struct ringread_slab s = {
			.data = data + (size_t)cpu * CPU_RING_BYTES,
			.bytes = CPU_RING_BYTES, .shift = SLAB_SHIFT,
			.head = &ctl->head, .tail = &ctl->tail,
		};

		if (ringread_add_slab(rb, first + cpu, &s))
			die("cannot read CPU %d's slab", cpu);
	}
}

/* Load OBJ[:PROG,...], attach, and add its ring buffers to *rb. */
static void load_obj(char *spec, struct ringread **rb)
{
	char *only = strchr(spec, ':');
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *m;
	int first = -1; /* the reader's index of CPU 0's ring */

	if (only)
		*only++ = 0;
	obj = bpf_object__open_file(spec, NULL);
	if (!obj)
		die("cannot open %s: %s", spec, strerror(errno));
	bpf_object__for_each_program(p, obj) {
		char list[512], key[160];
		bool want = !only;

		if (only) {
			snprintf(list, sizeof(list), ",%s,", only);
			snprintf(key, sizeof(key), ",%s,", bpf_program__name(p));
			want = strstr(list, key) != NULL;
		}
		bpf_program__set_autoload(p, want);
	}
	size_cpu_rings(obj);
	size_slabs(obj);
	set_rodata(obj);
	if (bpf_object__load(obj))
		die("cannot load %s: %s", spec, strerror(errno));
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p))
			continue;
		if (!bpf_program__attach(p))
			die("cannot attach %s: %s", bpf_program__name(p),
			    strerror(errno));
		add_prog(bpf_program__fd(p), "obj");
	}
	bpf_object__for_each_map(m, obj) {
		if (is_cpu_rings(m)) {
			first = nrings;
			fill_cpu_rings(m, rb);
		} else if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF) {
			drain_ring(rb, bpf_map__fd(m), bpf_map__name(m));
		}
	}
	if (first < 0 && slabs_of(obj))
		die("%s: slabs, but no CPU rings to read them with", spec);
	if (first >= 0)
		read_slabs(obj, *rb, first);
	/* the object stays loaded until we exit */
}

static void snapshot(bool after, FILE *out)
{
	for (int i = 0; i < nprogs; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		__u64 cnt, t;

		if (bpf_obj_get_info_by_fd(progs[i].fd, &info, &len))
			die("cannot read %s's stats: %s", progs[i].name,
			    strerror(errno));
		if (!after) {
			progs[i].cnt0 = info.run_cnt;
			progs[i].time0 = info.run_time_ns;
			continue;
		}
		cnt = info.run_cnt - progs[i].cnt0;
		t = info.run_time_ns - progs[i].time0;
		fprintf(out, "%s\t%s\t%llu\t%llu\t%.1f\n", progs[i].name,
			progs[i].from, (unsigned long long)cnt,
			(unsigned long long)t, cnt ? (double)t / cnt : 0.0);
	}
}

int main(int argc, char **argv)
{
	struct ringread *rb = NULL;
	bool stats = true;
	const char *wpath = NULL;
	FILE *out = stdout;
	int opt, stats_fd, status;
	pid_t child;

	libbpf_set_print(quiet);
	while ((opt = getopt(argc, argv, "+np:l:r:w:")) != -1) {
		if (opt == 'p')
			add_pid(optarg);
		else if (opt == 'l')
			load_obj(optarg, &rb);
		else if (opt == 'w')
			wpath = optarg;
		else if (opt == 'n')
			stats = false;
		else if (opt == 'r')
			add_rodata(optarg);
		else
			die("usage: bpfstats [-n] [-p PID]... [-r NAME=VALUE]... "
			    "[-l OBJ[:PROG,...]]... "
			    "[-w FILE] -- COMMAND [ARGS...]");
	}
	for (int i = 0; i < nrodata; i++)
		if (!rodata[i].used)
			die("-r %s: no object loaded after it has a read-only "
			    "global so named", rodata[i].name);
	if (optind >= argc)
		die("no command to run (bpfstats ... -- COMMAND)");
	if (!nprogs)
		die("no programs to measure: give -p PID or -l OBJ");
	if (wpath && !(out = fopen(wpath, "w")))
		die("cannot create %s: %s", wpath, strerror(errno));
	stats_fd = stats ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -2;
	if (stats_fd == -1)
		die("cannot enable bpf_stats: %s", strerror(errno));
	if (stats)
		snapshot(false, out);
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "bpfstats: error: cannot run %s: %s\n",
			argv[optind], strerror(errno));
		_exit(127);
	}
	if (!stats) {
		struct sigaction sa = { .sa_handler = on_stop };

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		fprintf(stderr, "bpfstats: attached\n");
	}
	for (;;) {
		pid_t w;
		int n;

		if (stop)
			kill(child, SIGTERM);
		w = waitpid(child, &status, rb ? WNOHANG : 0);

		if (w == child)
			break;
		if (w < 0 && errno != EINTR)
			die("waitpid: %s", strerror(errno));
		/* programs that never wake the consumer: drained every 10 ms */
		n = rb ? ringread_poll(rb, 10) : 0;
		if (n >= 0 && rb)
			n = ringread_consume(rb);
		if (n < 0 && n != -EINTR)
			die("reading the ring buffers failed: %s", strerror(-n));
	}
	if (stats)
		snapshot(true, out);
	if (rb) {
		ringread_consume(rb);
		fprintf(stderr, "bpfstats: %llu records drained\n", drained);
	}
	if (stats_fd >= 0)
		close(stats_fd);
	if (out != stdout)
		fclose(out);
	return 0;
}
