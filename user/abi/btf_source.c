// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "abi/btf_source.h"
#include "abi/btf_util.h"
#include "abi/kernel.h"
#include "abi/kernel_id.h"
#include "abi/unpack.h"
#include "lib/strfit.h"
#include "lib/util.h"

/* a compressed kernel inside a compressed kernel is as deep as images go */
#define MAX_DEPTH 3

/*
 * One budget for all the work one file may cause, whatever its shape
 * (issue 23: 64 candidate streams per layer, 1 GiB each, made a 20 KB file
 * decompress 4 TiB): in all, across every stream and layer.
 */
static const struct btf_budget budget_default = {
	.bytes = 1ull << 30, /* a Debian vmlinux is 30-100 MB */
	.streams = 64, /* the real one is the first or second tried */
	.btf_bytes = 256ull << 20, /* a kernel's BTF is 3-8 MB */
	/*
	 * per stream, from its size (issue 37: a 524-byte zImage took 1 GB
	 * and 6 s before its refusal): kernels compress 3-10 times (xz,
	 * zstd -19 at most about 7)
	 */
	.ratio = 32,
};

enum over { OVER_BYTES, OVER_STREAMS, OVER_BTF, OVER_RATIO };

/* "1024 MiB", or "4096 bytes" where that is not whole MiB (a test's budget) */
static const char *size_str(unsigned long long n, char *out, size_t len)
{
	if (n % (1 << 20))
		snprintf(out, len, "%llu bytes", n);
	else
		snprintf(out, len, "%llu MiB", n >> 20);
	return out;
}

/* The budget is spent: stop all work on this file, and say which part ran out. */
static bool over(struct btf_open_info *o, const char *path, enum over what,
		 char *err, size_t errlen)
{
	char here[96], b[32], p[32];

	o->over_budget = true;
	if (what == OVER_RATIO)
		snprintf(here, sizeof(here), "a stream decompressing to more "
			 "than %llu times its size and 1 MiB", o->budget.ratio);
	else if (what == OVER_STREAMS)
		snprintf(here, sizeof(here), "more than %llu decompressions",
			 o->budget.streams);
	else
		snprintf(here, sizeof(here), "more than %s %s",
			 size_str(what == OVER_BYTES ? o->budget.bytes :
				  o->budget.btf_bytes, b, sizeof(b)),
			 what == OVER_BYTES ? "decompressed" : "of BTF parsed");
	snprintf(err, errlen, "'%s' needs more than abicap's budget for one file "
		 "(%s decompressed, %llu decompressions, %d layers, %s of BTF "
		 "parsed, a stream %llu times its size; here: %s): no kernel "
		 "image needs that much; give the kernel's image or its raw BTF",
		 path, size_str(o->budget.bytes, b, sizeof(b)), o->budget.streams,
		 MAX_DEPTH, size_str(o->budget.btf_bytes, p, sizeof(p)),
		 o->budget.ratio, here);
	return false;
}

/* Spend n of a part of the budget before the work, or refuse: false with err. */
static bool spend(struct btf_open_info *o, const char *path, enum over what,
		  unsigned long long n, char *err, size_t errlen)
{
	unsigned long long *u = what == OVER_BYTES ? &o->spent.bytes :
				what == OVER_STREAMS ? &o->spent.streams : &o->spent.btf_bytes;
	unsigned long long b = what == OVER_BYTES ? o->budget.bytes :
			       what == OVER_STREAMS ? o->budget.streams : o->budget.btf_bytes;

	if (o->over_budget)
		return false;
	if (n > b - *u)
		return over(o, path, what, err, errlen);
	*u += n;
	return true;
}

/* btf__new() within the budget of BTF parsed; NULL (err set only when over budget). */
static struct btf *parse_btf(struct btf_open_info *o, const char *path,
			     const void *p, size_t len, char *err,
			     size_t errlen)
{
	if (!spend(o, path, OVER_BTF, len, err, errlen))
		return NULL;
	return btf__new(p, len);
}

struct img {
	const unsigned char *b;
	size_t len;
	const char *path;
	int depth;
	char kind[96]; /* "arm64 Image", "gzip'd arm64 Image", ... once known */
};

static struct btf *read_image(struct btf_open_info *o, const unsigned char *b,
			      size_t len, const char *path, const char *wrap,
			      int depth, char *err, size_t errlen);


static __u32 rd32(const unsigned char *p, bool be)
{
	return be ? (__u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] :
		    p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

static bool btf_magic(const unsigned char *p, bool *be)
{
	if (p[0] == 0x9f && p[1] == 0xeb)
		*be = false;
	else if (p[0] == 0xeb && p[1] == 0x9f)
		*be = true;
	else
		return false;
	return true;
}

/*
 * The byte length of the BTF whose header starts at p (version 1, no flags,
 * type and string sections inside the len bytes there), or 0.
 */
static size_t btf_extent(const unsigned char *p, size_t len)
{
	__u32 hdr_len, type_off, type_len, str_off, str_len;
	size_t end;
	bool be;

	if (len < 24 || !btf_magic(p, &be) || p[2] != 1 || p[3] != 0)
		return 0;
	hdr_len = rd32(p + 4, be);
	type_off = rd32(p + 8, be);
	type_len = rd32(p + 12, be);
	str_off = rd32(p + 16, be);
	str_len = rd32(p + 20, be);
	if (hdr_len < 24 || hdr_len > 256 || hdr_len % 4 || type_off % 4 ||
	    !type_len || !str_len || hdr_len > len)
		return 0;
	if (type_off > len - hdr_len || type_len > len - hdr_len - type_off ||
	    str_off > len - hdr_len || str_len > len - hdr_len - str_off)
		return 0;
	end = (size_t)type_off + type_len;
	if ((size_t)str_off + str_len > end)
		end = (size_t)str_off + str_len;
	return hdr_len + end;
}

struct cand {
	size_t off, len;
};

static int by_len_desc(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->len < y->len ? 1 : x->len > y->len ? -1 :
	       x->off < y->off ? -1 : x->off > y->off;
}

/*
 * A raw kernel image has no section table: its BTF is found by the header's
 * magic (either byte order). BTF blobs of embedded BPF programs (the
 * bpf_preload skeleton) may come first: the largest that parses and has a
 * struct task_struct is the kernel's.
 */
static struct btf *btf_scan(struct btf_open_info *o, const unsigned char *b,
			    size_t len, const char *path, char *err,
			    size_t errlen)
{
	struct cand c[32];
	struct btf *btf = NULL;
	size_t n = 0;

	for (size_t i = 0; i + 24 <= len && n < 32; i++) {
		const unsigned char *p = memchr(b + i, 0xeb, len - i - 1);
		size_t ext, at;

		if (!p)
			break;
		at = p - b;
		i = at;
		/* 0xeb is the magic's 2nd byte little-endian, 1st big-endian */
		if (at > 0 && b[at - 1] == 0x9f) {
			ext = btf_extent(b + at - 1, len - at + 1);
			if (ext)
				c[n++] = (struct cand){ at - 1, ext };
		}
		if (n < 32 && at + 1 < len && b[at + 1] == 0x9f) {
			ext = btf_extent(b + at, len - at);
			if (ext)
				c[n++] = (struct cand){ at, ext };
		}
	}
	qsort(c, n, sizeof(*c), by_len_desc);
	for (size_t i = 0; i < n && !btf && !o->over_budget; i++) {
		btf = parse_btf(o, path, b + c[i].off, c[i].len, err, errlen);
		if (btf && btf__find_by_name_kind(btf, "task_struct",
						  BTF_KIND_STRUCT) <= 0) {
			btf__free(btf);
			btf = NULL;
		}
	}
	return btf;
}

static const char *elf_arch(const GElf_Ehdr *eh)
{
	bool le = eh->e_ident[EI_DATA] == ELFDATA2LSB;

	switch (eh->e_machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "arm64";
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return le ? "ppc64el" : "ppc64 (big-endian)";
	case EM_PPC:
		return "powerpc";
	case EM_S390:
		return "s390x";
	case EM_RISCV:
		return "riscv64";
	case EM_LOONGARCH:
		return "loongarch64";
	case EM_MIPS:
		return le ? "mipsel" : "mips";
	}
	return "unknown-architecture";
}

/*
 * An ELF without BTF and without a "Linux version" banner is no kernel
 * (a program, a library): bad input, not a kernel that lacks BTF.
 */
static bool not_a_kernel(struct btf_open_info *o, const char *what,
			 const char *arch, char *err, size_t errlen)
{
	if (o->kid.release[0])
		return false;
	o->no_btf = false;
	snprintf(err, errlen, "%s: %s ELF file that is not a Linux kernel (no "
		 "BTF and no \"Linux version\" banner): give a kernel's raw "
		 "BTF, vmlinux or vmlinuz", what, arch);
	return true;
}

/* .BTF of an ELF image in memory; an ELF stripped of its section table is searched. */
static struct btf *btf_from_elf(struct btf_open_info *o, const void *buf,
				size_t len, const char *what, char *err,
				size_t errlen)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	struct btf *btf = NULL;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(err, errlen, "%s: not a readable ELF file (%s)", what,
			 elf_errmsg(-1));
		goto out;
	}
	kernel_id_note(&o->kid, buf, len, elf_arch(&eh));
	if (eh.e_shnum == 0 && eh.e_shoff == 0) {
		btf = btf_scan(o, buf, len, what, err, errlen);
		o->no_btf = !btf && !o->over_budget;
		if (!btf && !o->over_budget &&
		    not_a_kernel(o, what, elf_arch(&eh), err, errlen))
			goto out;
		if (!btf && !o->over_budget)
			snprintf(err, errlen, "%s: %s ELF vmlinux (no section "
				 "table) without BTF: the kernel was built "
				 "without CONFIG_DEBUG_INFO_BTF=y", what,
				 elf_arch(&eh));
		goto out;
	}
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "%s: not a readable ELF file (%s)", what,
			 elf_errmsg(-1));
		goto out;
	}
	if (eh.e_shoff > len ||
	    (size_t)eh.e_shnum * eh.e_shentsize > len - eh.e_shoff) {
		snprintf(err, errlen, "%s: not a readable ELF file (cut short: "
			 "its section headers lie past the end)", what);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".BTF"))
			continue;
		data = elf_rawdata(scn, NULL);
		if (!data || !data->d_buf || sh.sh_type == SHT_NOBITS) {
			snprintf(err, errlen, "%s: the .BTF section is empty", what);
			goto out;
		}
		btf = parse_btf(o, what, data->d_buf, data->d_size, err, errlen);
		if (!btf && !o->over_budget)
			snprintf(err, errlen, "%s: the .BTF section is not valid "
				 "BTF (%s)", what, strerror(errno));
		goto out;
	}
	if (not_a_kernel(o, what, elf_arch(&eh), err, errlen))
		goto out;
	o->no_btf = true;
	snprintf(err, errlen, "%s: %s ELF file without a .BTF section: no BTF "
		 "(a kernel built without CONFIG_DEBUG_INFO_BTF=y)", what,
		 elf_arch(&eh));
out:
	if (elf)
		elf_end(elf);
	return btf;
}

/*
 * Decompress the stream at p, within what is left of the budget, and read
 * the result as a kernel image. *ret: 0, the unpack() error, or 1 when err
 * already says why (the budget, or layers too deep).
 */
static struct btf *from_stream(struct btf_open_info *o, enum unpack_fmt f,
			       const unsigned char *p, size_t len,
			       const char *path, const char *wrap, int depth,
			       int *ret, char *err, size_t errlen)
{
	struct growbuf g = { 0 };
	struct btf *btf = NULL;
	bool by_ratio = false;
	char w[128];

	*ret = 1;
	if (depth + 1 > MAX_DEPTH) {
		snprintf(err, errlen, "'%s': compressed more than %d times over: "
			 "not a kernel image", path, MAX_DEPTH);
		return NULL;
	}
	if (!spend(o, path, OVER_STREAMS, 1, err, errlen))
		return NULL;
	/* the decompressor stops at what is left of the budget */
	g.limit = o->budget.bytes - o->spent.bytes;
	if (!g.limit) {
		over(o, path, OVER_BYTES, err, errlen);
		return NULL;
	}
	/* and at what this stream's size allows */
	if (o->budget.ratio && g.limit > BTF_STREAM_FLOOR &&
	    len <= (g.limit - BTF_STREAM_FLOOR) / o->budget.ratio) {
		g.limit = len * o->budget.ratio + BTF_STREAM_FLOOR;
		by_ratio = true;
	}
	*ret = unpack(f, p, len, &g);
	/* what a stream gave before it failed counts too */
	if (*ret == -EFBIG || !spend(o, path, OVER_BYTES, g.len, err, errlen)) {
		if (!o->over_budget)
			over(o, path, by_ratio && *ret == -EFBIG ? OVER_RATIO :
			     OVER_BYTES, err, errlen);
		*ret = 1;
	} else if (!*ret) {
		if (wrap[0])
			snprintf(w, sizeof(w), "%s (%s)", wrap, unpack_name(f));
		else
			snprintf(w, sizeof(w), "%s", unpack_name(f));
		btf = read_image(o, g.p, g.len, path, w, depth + 1, err, errlen);
	}
	free(g.p);
	return btf;
}

/*
 * x86 bzImage: the boot protocol header ("HdrS" at 0x202) gives setup_sects
 * (0x1f1) and the compressed kernel's payload_offset/length (0x248/0x24c),
 * relative to the protected-mode code at (setup_sects + 1) * 512.
 */
static struct btf *btf_from_bzimage(struct btf_open_info *o,
				    const unsigned char *buf, size_t len,
				    const char *what, int depth, char *err,
				    size_t errlen)
{
	unsigned int setup_sects = buf[0x1f1] ? buf[0x1f1] : 4;
	enum unpack_fmt f;
	size_t start, plen;
	struct btf *btf;
	int r;

	if (len < 0x250 || rd32(buf + 0x248, false) == 0) {
		snprintf(err, errlen, "%s: bzImage too old or cut short (boot "
			 "protocol 2.08+ with payload fields needed)", what);
		return NULL;
	}
	start = (size_t)(setup_sects + 1) * 512 + rd32(buf + 0x248, false);
	plen = rd32(buf + 0x24c, false);
	if (start >= len || plen > len - start) {
		snprintf(err, errlen, "%s: bzImage payload lies outside the file "
			 "(cut short?)", what);
		return NULL;
	}
	f = unpack_magic(buf + start, plen);
	if (f == UP_NONE) {
		snprintf(err, errlen, "%s: bzImage payload is compressed with a "
			 "format abicap does not read (it reads gzip, xz, zstd, "
			 "lz4)", what);
		return NULL;
	}
	btf = from_stream(o, f, buf + start, plen, what, "x86 bzImage", depth, &r,
			  err, errlen);
	if (r < 0)
		snprintf(err, errlen, "%s: cannot decompress the %s payload: %s",
			 what, unpack_name(f), unpack_strerror(r));
	return btf;
}

/*
 * EFI zboot (arm64, riscv64, loongarch since 6.1): "MZ", "zimg", then le32
 * payload offset and size, reserved words and the compression's name at 24
 * (drivers/firmware/efi/libstub/zboot-header.S); the payload is the Image.
 */
static struct btf *btf_from_zboot(struct btf_open_info *o,
				  const unsigned char *b, size_t len,
				  const char *what, int depth, char *err,
				  size_t errlen)
{
	size_t off = rd32(b + 8, false), plen = rd32(b + 12, false);
	char comp[16];
	enum unpack_fmt f;
	struct btf *btf;
	int r;

	snprintf(comp, sizeof(comp), "%.*s", (int)strnlen((const char *)b + 24,
		 sizeof(comp) - 1), b + 24);
	for (char *c = comp; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	if (off >= len || plen > len - off) {
		snprintf(err, errlen, "%s: EFI zboot image whose payload lies "
			 "outside the file (cut short?)", what);
		return NULL;
	}
	f = unpack_magic(b + off, plen);
	if (f == UP_NONE) {
		snprintf(err, errlen, "%s: EFI zboot image compressed with "
			 "'%s', which abicap does not read (it reads gzip, xz, "
			 "zstd, lz4)", what, comp);
		return NULL;
	}
	btf = from_stream(o, f, b + off, plen, what, "EFI zboot", depth, &r, err,
			  errlen);
	if (r < 0)
		snprintf(err, errlen, "%s: cannot decompress the EFI zboot "
			 "image's %s payload: %s", what, unpack_name(f),
			 unpack_strerror(r));
	return btf;
}

/*
 * Boot images with a decompressor stub (armhf zImage, s390x) carry the
 * kernel as one compressed stream somewhere after the stub: each candidate
 * magic is tried until one decompresses into a kernel with BTF.
 */
static struct btf *btf_from_streams(struct btf_open_info *o,
				    const unsigned char *b, size_t len,
				    const char *path, const char *kind,
				    int depth, bool *found, char *err,
				    size_t errlen)
{
	struct btf *btf = NULL;

	*found = false;
	for (size_t i = 0; i + 6 <= len && !btf && !o->over_budget; i++) {
		enum unpack_fmt f;
		int r;

		if (b[i] != 0x1f && b[i] != 0xfd && b[i] != 0x28 && b[i] != 0x02)
			continue;
		f = unpack_magic(b + i, len - i);
		if (f == UP_NONE)
			continue;
		btf = from_stream(o, f, b + i, len - i, path, kind, depth, &r, err,
				  errlen);
		if (r >= 0)
			*found = true; /* a stream that decompressed: err says why no BTF */
	}
	return btf;
}

/* The architecture of a raw kernel image, from its boot header, or NULL. */
static const char *raw_image_kind(const unsigned char *b, size_t len)
{
	if (len >= 0x40 && !memcmp(b + 0x38, "ARM\x64", 4))
		return "arm64 Image";
	if (len >= 0x40 && !memcmp(b + 0x38, "RSC\x05", 4))
		return "riscv64 Image";
	if (len >= 0x30 && rd32(b + 0x24, false) == 0x016f2818)
		return "armhf zImage";
	if (len >= 0x30 && rd32(b + 0x24, true) == 0x016f2818)
		return "arm zImage (big-endian)";
	/* the IPL channel programs at 8 of an s390 boot image */
	if (len >= 0x20 && !memcmp(b + 8, "\x02\x00\x00\x18\x60\x00\x00\x50"
				   "\x02\x00\x00\x68\x60\x00\x00\x50", 16))
		return "s390x image";
	return NULL;
}

/* Kinds that hold the kernel compressed behind a decompressor stub. */
static bool has_stub(const char *kind)
{
	return kind && (strstr(kind, "zImage") || strstr(kind, "s390x"));
}

/* An outer layer already told a kernel image: a bzImage, zboot, zImage, s390x. */
static bool wrap_is_kernel(const char *wrap)
{
	return strstr(wrap, "bzImage") || strstr(wrap, "zboot") ||
	       strstr(wrap, "zImage") || strstr(wrap, "s390x");
}

static struct btf *read_image(struct btf_open_info *o, const unsigned char *b,
			      size_t len, const char *path, const char *wrap,
			      int depth, char *err, size_t errlen)
{
	const char *kind = raw_image_kind(b, len);
	enum unpack_fmt f = unpack_magic(b, len);
	char what[160];
	struct btf *btf;
	bool streams;
	int r;

	if (depth > MAX_DEPTH) {
		snprintf(err, errlen, "'%s': compressed more than %d times over: "
			 "not a kernel image", path, MAX_DEPTH);
		return NULL;
	}
	if (len >= 4 && !memcmp(b, "\x7f" "ELF", 4))
		return btf_from_elf(o, b, len, path, err, errlen);
	if (len > 0x250 && !memcmp(b + 0x202, "HdrS", 4))
		return btf_from_bzimage(o, b, len, path, depth, err, errlen);
	if (len >= 0x40 && !memcmp(b, "MZ", 2) && !memcmp(b + 4, "zimg", 4))
		return btf_from_zboot(o, b, len, path, depth, err, errlen);
	if (f != UP_NONE) {
		btf = from_stream(o, f, b, len, path, wrap, depth, &r, err, errlen);
		if (r < 0)
			snprintf(err, errlen, "'%s': cannot decompress this %s "
				 "file: %s", path, unpack_name(f),
				 unpack_strerror(r));
		return btf;
	}
	if (!kind && !wrap_is_kernel(wrap)) {
		if (depth) /* a compressed file of something else */
			snprintf(err, errlen, "'%s' decompresses (%s) to neither "
				 "BTF nor a kernel image abicap reads", path, wrap);
		return NULL; /* at the top, the caller says so */
	}
	if (kind && wrap[0])
		snprintf(what, sizeof(what), "%s: %s", wrap, kind);
	else
		snprintf(what, sizeof(what), "%s", kind ? kind : wrap);
	kernel_id_note(&o->kid, b, len, kind);
	btf = btf_scan(o, b, len, path, err, errlen);
	if (btf || o->over_budget)
		return btf;
	if (depth < MAX_DEPTH && has_stub(kind)) {
		btf = btf_from_streams(o, b, len, path, what, depth, &streams, err,
				       errlen);
		if (btf || streams || o->over_budget)
			return btf;
	}
	o->no_btf = true;
	snprintf(err, errlen, "'%s' is a kernel image (%s) without BTF (no "
		 "BTF header in it): the kernel was built without "
		 "CONFIG_DEBUG_INFO_BTF=y", path, what);
	return NULL;
}

struct btf *btf_open(const char *path, struct btf_open_info *info, char *err,
		     size_t errlen)
{
	struct btf_open_info mine = { 0 }, *o = info ? info : &mine;
	char why[256];
	struct btf *btf = NULL;
	const unsigned char *b;
	struct stat st;
	void *map;
	bool be;
	int fd;

	o->no_btf = false;
	o->over_budget = false;
	memset(&o->spent, 0, sizeof(o->spent));
	if (!o->budget.bytes)
		o->budget = budget_default;
	memset(&o->kid, 0, sizeof(o->kid));
	if (!path) {
		kernel_id_running(&o->kid);
		btf = btf__load_vmlinux_btf();
		o->no_btf = !btf;
		if (!btf)
			snprintf(err, errlen, "this kernel (%s) has no BTF "
				 "(/sys/kernel/btf/vmlinux): abicap needs "
				 "CONFIG_DEBUG_INFO_BTF=y, or give --btf FILE",
				 kernel_release());
		return btf;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open BTF file '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", path);
		close(fd);
		return NULL;
	}
	if (st.st_size == 0) {
		snprintf(err, errlen, "BTF file '%s' is empty", path);
		close(fd);
		return NULL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	b = map;
	err[0] = '\0';
	if (st.st_size >= 2 && btf_magic(b, &be)) {
		/* libbpf reads either byte order (btf->swapped_endian) */
		btf = parse_btf(o, path, map, st.st_size, err, errlen);
		if (!btf && !o->over_budget)
			snprintf(err, errlen, "'%s' starts like raw %s-endian "
				 "BTF but is not valid BTF (truncated or "
				 "corrupt)", path, be ? "big" : "little");
	} else {
		btf = read_image(o, b, st.st_size, path, "", 0, err, errlen);
		if (!btf && !err[0])
			snprintf(err, errlen, "'%s' is neither BTF nor a kernel "
				 "image abicap reads (raw BTF, ELF vmlinux, x86 "
				 "bzImage, arm64/riscv64 Image, EFI zboot, armhf "
				 "zImage, s390x image, gzip/xz/zstd/lz4 of one)",
				 path);
	}
	munmap(map, st.st_size);
	if (o->over_budget)
		o->no_btf = false; /* what it would be is not known */
	if (btf && !btf_well_formed(btf, why, sizeof(why))) {
		snprintf(err, errlen, "'%s' is not valid BTF (%s): the file is "
			 "corrupt", path, why);
		btf__free(btf);
		btf = NULL;
	}
	return btf;
}

void btf_source_label(const char *path, char *out, size_t len)
{
	/* a path too long for the label shows cut, marked "..." */
	if (path)
		strfit(out, len, "%s", path);
	else
		strfit(out, len, "running kernel %s", kernel_release());
}
