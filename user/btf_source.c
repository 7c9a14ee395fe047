// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lz4.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf_source.h"
#include "btf_util.h"
#include "kernel.h"
#include "util.h"

#define MAX_VMLINUX (1ull << 30) /* a decompressed kernel larger than this is refused */

static const unsigned char BTF_MAGIC_LE[2] = { 0x9f, 0xeb };

/* .BTF of an ELF image in memory. */
static struct btf *btf_from_elf(const void *buf, size_t len, const char *what,
				char *err, size_t errlen)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	struct btf *btf = NULL;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
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
		btf = btf__new(data->d_buf, data->d_size);
		if (!btf)
			snprintf(err, errlen, "%s: the .BTF section is not valid "
				 "BTF (%s)", what, strerror(errno));
		goto out;
	}
	snprintf(err, errlen, "%s: ELF file without a .BTF section: the "
		 "kernel was built without CONFIG_DEBUG_INFO_BTF=y", what);
out:
	if (elf)
		elf_end(elf);
	return btf;
}

struct growbuf {
	unsigned char *p;
	size_t len, cap;
};

static int grow(struct growbuf *g, size_t want)
{
	unsigned char *np;
	size_t cap = g->cap ? g->cap : 1 << 24;

	while (cap < want)
		cap *= 2;
	if (cap == g->cap)
		return 0;
	if (cap > MAX_VMLINUX)
		return -EFBIG;
	np = realloc(g->p, cap);
	if (!np)
		return -ENOMEM;
	g->p = np;
	g->cap = cap;
	return 0;
}

static __u32 le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

/*
 * LZ4 "legacy" frames, as the kernel's CONFIG_KERNEL_LZ4 writes them (Debian's
 * 6.1 cloud kernel): magic 0x184c2102, then blocks of a le32 compressed size
 * and data that decompresses to at most 8 MiB; the build appends the
 * uncompressed size (le32), which ends the stream.
 */
#define LZ4_LEGACY_BLOCK (8u << 20)

static int unlz4(const unsigned char *in, size_t len, struct growbuf *g)
{
	size_t pos = 4;
	int err = 0;

	while (!err && pos + 4 <= len) {
		__u32 clen = le32(in + pos);
		int n;

		if (clen == 0x184c2102) { /* a concatenated frame */
			pos += 4;
			continue;
		}
		if (clen > (__u32)LZ4_compressBound(LZ4_LEGACY_BLOCK) ||
		    clen > len - pos - 4)
			break; /* the size trailer, or the end */
		if ((err = grow(g, g->len + LZ4_LEGACY_BLOCK)))
			break;
		n = LZ4_decompress_safe((const char *)in + pos + 4,
					(char *)g->p + g->len, clen,
					LZ4_LEGACY_BLOCK);
		if (n < 0)
			err = -EINVAL;
		else
			g->len += n;
		pos += 4 + clen;
	}
	return !err && !g->len ? -EINVAL : err;
}

/* Each decoder writes the whole stream into g; 0, or -errno / -EINVAL for bad data. */
static int unxz(const unsigned char *in, size_t len, struct growbuf *g)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;
	int err = 0;

	if (lzma_stream_decoder(&s, MAX_VMLINUX, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = len;
	do {
		if ((err = grow(g, g->len + (1 << 20))))
			break;
		s.next_out = g->p + g->len;
		s.avail_out = g->cap - g->len;
		r = lzma_code(&s, LZMA_FINISH);
		g->len = g->cap - s.avail_out;
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			err = -EINVAL;
	} while (!err && r != LZMA_STREAM_END);
	lzma_end(&s);
	return err;
}

static int unzstd(const unsigned char *in, size_t len, struct growbuf *g)
{
	ZSTD_DStream *d = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	size_t r = 1;
	int err = 0;

	if (!d)
		return -ENOMEM;
	ZSTD_initDStream(d);
	while (!err && r) {
		ZSTD_outBuffer ob;

		if ((err = grow(g, g->len + (1 << 20))))
			break;
		ob = (ZSTD_outBuffer){ g->p + g->len, g->cap - g->len, 0 };
		r = ZSTD_decompressStream(d, &ob, &ib);
		g->len += ob.pos;
		if (ZSTD_isError(r))
			err = -EINVAL;
		else if (r && ib.pos == ib.size && ob.pos < ob.size)
			err = -EINVAL; /* truncated */
	}
	ZSTD_freeDStream(d);
	return err;
}

static int ungzip(const unsigned char *in, size_t len, struct growbuf *g)
{
	z_stream z = { 0 };
	int r = Z_OK, err = 0;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)in;
	z.avail_in = len;
	while (!err && r != Z_STREAM_END) {
		if ((err = grow(g, g->len + (1 << 20))))
			break;
		z.next_out = g->p + g->len;
		z.avail_out = g->cap - g->len;
		r = inflate(&z, Z_NO_FLUSH);
		g->len = g->cap - z.avail_out;
		if (r != Z_OK && r != Z_STREAM_END)
			err = -EINVAL;
	}
	inflateEnd(&z);
	return err;
}


/*
 * x86 bzImage: the boot protocol header ("HdrS" at 0x202) gives setup_sects
 * (0x1f1) and the compressed kernel's payload_offset/length (0x248/0x24c),
 * relative to the protected-mode code at (setup_sects + 1) * 512.
 */
static struct btf *btf_from_bzimage(const unsigned char *buf, size_t len,
				    const char *what, char *err, size_t errlen)
{
	struct growbuf g = { 0 };
	unsigned int setup_sects = buf[0x1f1] ? buf[0x1f1] : 4;
	size_t start, plen;
	const unsigned char *p;
	const char *fmt;
	struct btf *btf = NULL;
	int r;

	if (len < 0x250 || le32(buf + 0x248) == 0) {
		snprintf(err, errlen, "%s: bzImage too old or cut short (boot "
			 "protocol 2.08+ with payload fields needed)", what);
		return NULL;
	}
	start = (size_t)(setup_sects + 1) * 512 + le32(buf + 0x248);
	plen = le32(buf + 0x24c);
	if (start >= len || plen > len - start) {
		snprintf(err, errlen, "%s: bzImage payload lies outside the file "
			 "(cut short?)", what);
		return NULL;
	}
	p = buf + start;
	if (plen >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6)) {
		fmt = "xz";
		r = unxz(p, plen, &g);
	} else if (plen >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4)) {
		fmt = "zstd";
		r = unzstd(p, plen, &g);
	} else if (plen >= 3 && !memcmp(p, "\x1f\x8b\x08", 3)) {
		fmt = "gzip";
		r = ungzip(p, plen, &g);
	} else if (plen >= 4 && !memcmp(p, "\x02\x21\x4c\x18", 4)) {
		fmt = "lz4";
		r = unlz4(p, plen, &g);
	} else {
		snprintf(err, errlen, "%s: bzImage payload is compressed with a "
			 "format abicap does not read (it reads gzip, xz, zstd, "
			 "lz4)", what);
		return NULL;
	}
	if (r) {
		snprintf(err, errlen, "%s: cannot decompress the %s payload: %s",
			 what, fmt, r == -EINVAL ? "corrupt or cut short" :
			 r == -EFBIG ? "larger than 1 GiB" : strerror(-r));
	} else if (g.len < 4 || memcmp(g.p, "\x7f" "ELF", 4)) {
		snprintf(err, errlen, "%s: the decompressed %s payload is not an "
			 "ELF vmlinux", what, fmt);
	} else {
		btf = btf_from_elf(g.p, g.len, what, err, errlen);
	}
	free(g.p);
	return btf;
}

struct btf *btf_open(const char *path, char *err, size_t errlen)
{
	char why[128];
	struct btf *btf = NULL;
	struct stat st;
	void *map;
	int fd;

	if (!path) {
		btf = btf__load_vmlinux_btf();
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
	if (st.st_size >= 2 && !memcmp(map, BTF_MAGIC_LE, 2)) {
		btf = btf__new(map, st.st_size);
		if (!btf)
			snprintf(err, errlen, "'%s' starts like raw BTF but is "
				 "not valid BTF (truncated or corrupt)", path);
	} else if (st.st_size >= 4 && !memcmp(map, "\x7f" "ELF", 4)) {
		btf = btf_from_elf(map, st.st_size, path, err, errlen);
	} else if (st.st_size > 0x206 && !memcmp((char *)map + 0x202, "HdrS", 4)) {
		btf = btf_from_bzimage(map, st.st_size, path, err, errlen);
	} else {
		snprintf(err, errlen, "'%s' is not raw BTF, an ELF vmlinux or a "
			 "bzImage (vmlinuz)", path);
	}
	munmap(map, st.st_size);
	if (btf && !btf_well_formed(btf, why, sizeof(why))) {
		snprintf(err, errlen, "'%s' is not valid BTF (%s): the file is "
			 "corrupt", path, why);
		btf__free(btf);
		btf = NULL;
	}
	return btf;
}
