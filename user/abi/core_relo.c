// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lib/array.h"
#include "abi/btf_util.h"
#include "abi/core_relo.h"
#include "lib/util.h"

/* The .BTF.ext header as the kernel's btf_ext format lays it out. */
struct ext_header {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off;
	__u32 func_info_len;
	__u32 line_info_off;
	__u32 line_info_len;
	__u32 core_relo_off;
	__u32 core_relo_len;
};

/*
 * Debian's libbpf 1.1.2 declares btf_ext__raw_data() but its library only
 * has the older name btf_ext__get_raw_data(); newer libbpf has the new one.
 * Both weak: use whichever this libbpf has.
 */
extern const void *btf_ext__get_raw_data(const struct btf_ext *e, __u32 *size)
	__attribute__((weak));
#pragma weak btf_ext__raw_data

static const void *ext_raw(const struct btf_ext *e, __u32 *size)
{
	if (btf_ext__raw_data)
		return btf_ext__raw_data(e, size);
	if (btf_ext__get_raw_data)
		return btf_ext__get_raw_data(e, size);
	return NULL;
}

struct relo_rec {
	__u32 insn_off;
	__u32 type_id;
	__u32 access_str_off;
	__u32 kind;
};

#define CORE_KINDS 13 /* field_byte_offset .. type_matches */

const char *core_kind_str(__u32 kind)
{
	static const char *const names[CORE_KINDS] = {
		"field_byte_offset", "field_byte_size", "field_exists",
		"field_signed", "field_lshift_u64", "field_rshift_u64",
		"type_id_local", "type_id_target", "type_exists", "type_size",
		"enumval_exists", "enumval_value", "type_matches",
	};

	return kind < CORE_KINDS ? names[kind] : "unknown";
}

bool core_kind_is_field(__u32 kind)
{
	return kind <= 5;
}

#define ACCESS_MAX 64 /* libbpf's BPF_CORE_SPEC_MAX_LEN */

/*
 * Check a relocation as libbpf's bpf_core_parse_spec() does (a root type
 * the object has, an access string of indexes that each name a member, an
 * array element or an enumerator there) and follow "0:1:2" from the root:
 * member names joined with '.' into out. 0, or -1 with why.
 */
static int access_path(const struct btf *btf, __u32 type_id, __u32 kind,
		       const char *access, char *out, size_t len, char *why,
		       size_t wlen)
{
	const struct btf_type *t = btf__type_by_id(btf, btf_skip_mods(btf, type_id));
	const char *p = access;
	char ts[96];
	int n = 0;

	out[0] = 0;
	if (kind >= CORE_KINDS) {
		snprintf(why, wlen, "has an unknown kind %u", kind);
		return -1;
	}
	if (!type_id || type_id >= btf__type_cnt(btf) || !t) {
		snprintf(why, wlen, "names type [%u], which the object's BTF "
			 "does not have", type_id);
		return -1;
	}
	if (!access) {
		snprintf(why, wlen, "its access string is not in the object's "
			 "BTF");
		return -1;
	}
	while (*p) {
		char *end;
		unsigned long idx;

		if (*p < '0' || *p > '9')
			break;
		idx = strtoul(p, &end, 10);
		if ((*end && *end != ':') || (*end == ':' && !end[1]) ||
		    ++n > ACCESS_MAX)
			break;
		p = *end ? end + 1 : end;
		btf_type_str(btf, btf_skip_mods(btf, type_id), ts, sizeof(ts),
			     NULL, 0);
		if (n == 1 && (kind == 10 || kind == 11)) {
			/* enumval_exists, _value: the enumerator's index */
			if ((!btf_is_enum(t) && !btf_is_enum64(t)) ||
			    idx >= btf_vlen(t) || *p) {
				snprintf(why, wlen, "its access string '%.16s' "
					 "names no enumerator of %s", access, ts);
				return -1;
			}
		} else if (n == 1 && !core_kind_is_field(kind)) {
			if (idx || *p) {
				snprintf(why, wlen, "its access string '%.16s' "
					 "is not the \"0\" of a type "
					 "relocation", access);
				return -1;
			}
		} else if (n == 1) {
			/* a field's first index steps over the pointer */
		} else if (btf_is_composite(t)) {
			const struct btf_member *m = btf_members(t) + idx;
			const char *nm;

			if (idx >= btf_vlen(t)) {
				snprintf(why, wlen, "its access string '%.16s' "
					 "steps past the type: %s has no member "
					 "%lu", access, ts, idx);
				return -1;
			}
			nm = btf__name_by_offset(btf, m->name_off);
			if (nm && *nm)
				snprintf(out + strlen(out), len - strlen(out),
					 "%s%s", out[0] ? "." : "", nm);
			type_id = m->type;
		} else if (btf_is_array(t)) {
			const struct btf_array *a = btf_array(t);

			if (a->nelems && idx >= a->nelems) {
				snprintf(why, wlen, "its access string '%.16s' "
					 "steps past the type: %s has no "
					 "element %lu", access, ts, idx);
				return -1;
			}
			snprintf(out + strlen(out), len - strlen(out), "[%lu]",
				 idx);
			type_id = a->type;
		} else {
			snprintf(why, wlen, "its access string '%.16s' steps "
				 "into %s, which has no members", access, ts);
			return -1;
		}
		t = btf__type_by_id(btf, btf_skip_mods(btf, type_id));
		if (!t)
			break;
	}
	if (*p || !n) {
		snprintf(why, wlen, "its access string '%.16s' is not a list of "
			 "indexes (\"0:1:2\")", access);
		return -1;
	}
	return 0;
}

/*
 * "tp_btf/sched_switch" -> attach "tp_btf", target "sched_switch". A
 * leading '?' (libbpf: not loaded unless the loader asks) changes neither.
 */
static void parse_section(struct core_prog *p)
{
	static const char *const kinds[] = {
		"tp_btf", "raw_tp", "raw_tracepoint", "tp", "tracepoint",
		"fentry", "fexit", "fmod_ret", "lsm", "kprobe", "kretprobe",
		"iter", NULL,
	};
	const char *sec = p->section + (p->section[0] == '?');
	const char *slash = strchr(sec, '/');

	p->ctx_args = -1;
	if (!slash)
		return;
	for (const char *const *k = kinds; *k; k++) {
		if (strlen(*k) != (size_t)(slash - sec) ||
		    strncmp(sec, *k, slash - sec))
			continue;
		snprintf(p->attach, sizeof(p->attach), "%s",
			 !strcmp(*k, "raw_tracepoint") ? "raw_tp" :
			 !strcmp(*k, "tracepoint") ? "tp" : *k);
		/* tp/CATEGORY/NAME: the name */
		if (!strcmp(p->attach, "tp") && strchr(slash + 1, '/'))
			slash = strchr(slash + 1, '/');
		snprintf(p->target, sizeof(p->target), "%s", slash + 1);
		return;
	}
}

/*
 * How many u64 arguments a raw_tp or tp_btf program reads from its context: follow
 * the registers that hold ctx (r1 at entry, and its copies) through the
 * instructions and take the highest offset loaded from one. Enough for
 * BPF_PROG()-style code, which loads its arguments up front.
 */
static int ctx_args_read(const struct bpf_insn *insn, size_t n)
{
	unsigned int ctx = 1u << 1;
	int max = 0;

	for (size_t i = 0; i < n; i++) {
		const struct bpf_insn *in = &insn[i];
		__u8 cls = BPF_CLASS(in->code);

		if (in->code == (BPF_ALU64 | BPF_MOV | BPF_X)) {
			if (ctx & (1u << in->src_reg))
				ctx |= 1u << in->dst_reg;
			else
				ctx &= ~(1u << in->dst_reg);
			continue;
		}
		if (cls == BPF_LDX && BPF_MODE(in->code) == BPF_MEM &&
		    (ctx & (1u << in->src_reg)) && in->off >= 0 &&
		    in->off / 8 + 1 > max)
			max = in->off / 8 + 1;
		if (in->code == (BPF_JMP | BPF_CALL)) {
			ctx &= ~0x3fu; /* r0-r5 clobbered */
			continue;
		}
		if (cls == BPF_LDX || cls == BPF_ALU || cls == BPF_ALU64 ||
		    cls == BPF_LD)
			ctx &= ~(1u << in->dst_reg);
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW))
			i++; /* two slots */
	}
	return max;
}

static int add_subprog(struct core_object *o, const char *name,
		       const GElf_Sym *sym)
{
	struct core_subprog *s = o->subprogs;

	if (array_room(&o->subprogs, o->nsubprogs, &o->subprogs_cap,
		       sizeof(*s), 4))
		return -1;
	s = &o->subprogs[o->nsubprogs++];
	snprintf(s->name, sizeof(s->name), "%s", name ? name : "?");
	s->off = sym->st_value;
	s->size = sym->st_size;
	return 0;
}

/*
 * A .BTF or .BTF.ext section without data to read (SHT_NOBITS, or its
 * bytes past the file): libbpf's btf__parse_elf() copies from NULL there
 * (found by fuzz_object), so such an object is refused before.
 */
static bool btf_section_broken(Elf *elf, size_t shstrndx, Elf_Scn *scn,
			       const GElf_Shdr *sh)
{
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);
	Elf_Data *d;

	if (!name || (strcmp(name, ".BTF") && strcmp(name, ".BTF.ext")))
		return false;
	d = elf_getdata(scn, NULL);
	return sh->sh_type == SHT_NOBITS || !d || !d->d_buf;
}

/* Programs: FUNC symbols in executable sections, from the ELF symbol table. */
static int read_progs(Elf *elf, const char *path, struct core_object *o,
		      char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = -1;
	size_t cap = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "'%s' is not an ELF BPF object", path);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (btf_section_broken(elf, shstrndx, scn, &sh)) {
			snprintf(err, errlen, "'%s': its %s section holds no "
				 "data: the object is broken; rebuild it", path,
				 elf_strptr(elf, shstrndx, sh.sh_name));
			goto out;
		}
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize &&
				   i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr psh;
			Elf_Scn *ps;
			Elf_Data *pd;
			struct core_prog *p;
			const char *sec, *name;

			if (!gelf_getsym(d, i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			ps = elf_getscn(elf, sym.st_shndx);
			if (!ps || !gelf_getshdr(ps, &psh) ||
			    !(psh.sh_flags & SHF_EXECINSTR))
				continue;
			sec = elf_strptr(elf, shstrndx, psh.sh_name);
			if (!sec)
				continue;
			if (!strcmp(sec, ".text")) {
				if (add_subprog(o, elf_strptr(elf, sh.sh_link,
							      sym.st_name),
						&sym)) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				continue;
			}
			if (array_room(&o->progs, o->nprogs, &cap, sizeof(*p),
				       16)) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			p = &o->progs[o->nprogs++];
			memset(p, 0, sizeof(*p));
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			snprintf(p->name, sizeof(p->name), "%s", name ? name : "?");
			snprintf(p->section, sizeof(p->section), "%s", sec);
			p->sec_idx = sym.st_shndx;
			p->off = sym.st_value;
			p->size = sym.st_size;
			parse_section(p);
			pd = elf_getdata(ps, NULL);
			if (!pd || !pd->d_buf || p->size % sizeof(struct bpf_insn) ||
			    (size_t)p->off + p->size > pd->d_size) {
				snprintf(err, errlen, "'%s': program %s is not "
					 "whole in section %s: a broken object; "
					 "rebuild it", path, p->name, sec);
				goto out;
			}
			p->insns = malloc(p->size + 1);
			if (!p->insns) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			memcpy(p->insns, (char *)pd->d_buf + p->off, p->size);
			if (!strcmp(p->attach, "raw_tp") || !strcmp(p->attach, "tp_btf"))
				p->ctx_args = ctx_args_read(p->insns, p->size /
							    sizeof(struct bpf_insn));
		}
	}
	ret = 0;
out:
	return ret;
}

/* The data of section name (.BTF, .BTF.ext), or NULL. */
static const void *section_data(Elf *elf, const char *name, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n || strcmp(n, name))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size > UINT32_MAX)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/*
 * The object's BTF and .BTF.ext as libbpf's btf__parse_elf() reads them
 * (the same two constructors), from an ELF already open: a file or memory.
 */
static struct btf *object_btf(Elf *elf, struct btf_ext **ext)
{
	size_t bsize = 0, esize = 0;
	const void *b = section_data(elf, ".BTF", &bsize);
	const void *e = section_data(elf, ".BTF.ext", &esize);
	struct btf *btf;

	*ext = NULL;
	if (!b)
		return NULL;
	btf = btf__new(b, bsize);
	if (!btf || !e)
		return btf;
	*ext = btf_ext__new(e, esize);
	if (!*ext) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

/* Programs and subprograms within the budget for one object: 0, or -1 with err. */
static int count_ok(const char *path, const struct core_object *o, char *err,
		    size_t errlen)
{
	if (o->nprogs + o->nsubprogs <= CORE_MAX_PROGS)
		return 0;
	snprintf(err, errlen, "'%s' has more than %d programs and subprograms, "
		 "abicap's budget for one object (abicap's own has 23): split it",
		 path, CORE_MAX_PROGS);
	return -1;
}

static int prog_at(const struct core_object *o, const char *sec, __u32 off)
{
	for (int i = 0; i < o->nprogs; i++)
		if (!strcmp(o->progs[i].section, sec) && off >= o->progs[i].off &&
		    off < o->progs[i].off + o->progs[i].size)
			return i;
	return -1;
}

static const char *subprog_at(const struct core_object *o, const char *sec,
			      __u32 off)
{
	if (strcmp(sec, ".text"))
		return "?";
	for (int i = 0; i < o->nsubprogs; i++)
		if (off >= o->subprogs[i].off &&
		    off < o->subprogs[i].off + o->subprogs[i].size)
			return o->subprogs[i].name;
	return "?";
}

static int read_relos(const char *path, const struct btf_ext *ext,
		      struct core_object *o, char *err, size_t errlen)
{
	const struct ext_header *h;
	const unsigned char *raw, *p, *end;
	__u32 size, rec_size;
	size_t cap = 0;

	raw = ext_raw(ext, &size);
	h = (const void *)raw;
	if (!raw || size < sizeof(*h) || h->magic != 0xeB9F ||
	    h->hdr_len < offsetof(struct ext_header, core_relo_len) + 4)
		return 0; /* an old header without CO-RE relocations */
	if (h->hdr_len > size || h->core_relo_off > size - h->hdr_len ||
	    h->core_relo_len > size - h->hdr_len - h->core_relo_off ||
	    h->core_relo_len < 4)
		return 0; /* none (libbpf has checked the sections' bounds) */
	p = raw + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	memcpy(&rec_size, p, 4);
	p += 4;
	while (p + 8 <= end && rec_size >= sizeof(struct relo_rec)) {
		__u32 sec_off, num;
		const char *sec;

		memcpy(&sec_off, p, 4);
		memcpy(&num, p + 4, 4);
		p += 8;
		sec = btf__name_by_offset(o->btf, sec_off);
		for (__u32 i = 0; i < num && (size_t)(end - p) >= rec_size;
		     i++, p += rec_size) {
			struct relo_rec r;
			struct core_access *a;
			const struct btf_type *t;
			const char *root, *suffix, *acc;
			char why[192];

			memcpy(&r, p, sizeof(r));
			if (o->nrelos == CORE_MAX_RELOS) {
				snprintf(err, errlen, "'%s' has more than %d CO-RE "
					 "relocations, abicap's budget for one "
					 "object (abicap's own has about 500): "
					 "split it", path, CORE_MAX_RELOS);
				return -1;
			}
			if (array_room(&o->relos, o->nrelos, &cap, sizeof(*a),
				       64)) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			a = &o->relos[o->nrelos++];
			memset(a, 0, sizeof(*a));
			snprintf(a->section, sizeof(a->section), "%s", sec ? sec : "?");
			a->prog = prog_at(o, a->section, r.insn_off);
			if (a->prog >= 0)
				snprintf(a->program, sizeof(a->program), "%s",
					 o->progs[a->prog].name);
			else
				snprintf(a->program, sizeof(a->program),
					 "%s (subprogram)",
					 subprog_at(o, a->section, r.insn_off));
			a->insn_off = r.insn_off;
			a->type_id = r.type_id;
			a->kind = r.kind;
			acc = btf__name_by_offset(o->btf, r.access_str_off);
			if (access_path(o->btf, r.type_id, r.kind, acc, a->path,
					sizeof(a->path), why, sizeof(why))) {
				snprintf(err, errlen, "'%s': CO-RE relocation %d "
					 "(%s, instruction %u) %s: the object is "
					 "broken; rebuild it", path, o->nrelos,
					 a->program, r.insn_off / 8, why);
				return -1;
			}
			snprintf(a->access, sizeof(a->access), "%s", acc);
			t = btf__type_by_id(o->btf, btf_skip_mods(o->btf, r.type_id));
			root = btf__name_by_offset(o->btf, t->name_off);
			snprintf(a->flavour, sizeof(a->flavour), "%s", root);
			suffix = strstr(root, "___");
			snprintf(a->root, sizeof(a->root), "%.*s",
				 suffix ? (int)(suffix - root) : (int)strlen(root),
				 root);
		}
	}
	return 0;
}

static int open_elf(Elf *elf, const char *obj, struct core_object *o,
		    char *err, size_t errlen)
{
	struct btf_ext *ext = NULL;
	const char *id = elf ? elf_getident(elf, NULL) : NULL;
	unsigned char host = HOST_BIG_ENDIAN ? ELFDATA2MSB : ELFDATA2LSB;
	char why[128];

	/*
	 * instructions and .BTF.ext are in the object's byte order, and
	 * libbpf 1.1 reads .BTF.ext in the host's only
	 */
	if (id && (id[EI_DATA] == ELFDATA2LSB || id[EI_DATA] == ELFDATA2MSB) &&
	    id[EI_DATA] != host) {
		const char *order = HOST_BIG_ENDIAN ? "little-endian" : "big-endian";

		snprintf(err, errlen, "'%s' is a %s BPF object (clang -target "
			 "%s), and this abicap reads objects of its machine's "
			 "byte order only (%s): check it with abicap on a %s "
			 "machine (s390x), or check here the same source built "
			 "with -target %s (its relocations are the same)", obj,
			 order, HOST_BIG_ENDIAN ? "bpfel" : "bpfeb",
			 HOST_BYTE_ORDER, order,
			 HOST_BIG_ENDIAN ? "bpfeb" : "bpfel");
		core_object_close(o);
		return -1;
	}
	if (read_progs(elf, obj, o, err, errlen) ||
	    count_ok(obj, o, err, errlen)) {
		core_object_close(o);
		return -1;
	}
	o->btf = object_btf(elf, &ext);
	if (!o->btf) {
		snprintf(err, errlen, "'%s' has no BTF: build it with clang -g",
			 obj);
		core_object_close(o);
		return -1;
	}
	if (!btf_well_formed(o->btf, why, sizeof(why))) {
		snprintf(err, errlen, "'%s': its BTF is not valid (%s): the "
			 "object is broken; rebuild it", obj, why);
		btf_ext__free(ext);
		core_object_close(o);
		return -1;
	}
	if (ext && read_relos(obj, ext, o, err, errlen)) {
		btf_ext__free(ext);
		core_object_close(o);
		return -1;
	}
	btf_ext__free(ext);
	return 0;
}

int core_object_open(const char *obj, struct core_object *o, char *err,
		     size_t errlen)
{
	Elf *elf;
	int fd, ret;

	memset(o, 0, sizeof(*o));
	elf_version(EV_CURRENT);
	fd = open(obj, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open BPF object '%s': %s", obj,
			 strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ret = open_elf(elf, obj, o, err, errlen);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int core_object_open_mem(const void *buf, size_t len, const char *name,
			 struct core_object *o, char *err, size_t errlen)
{
	char *copy = malloc(len ? len : 1); /* libelf may write to it */
	Elf *elf;
	int ret;

	memset(o, 0, sizeof(*o));
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(copy, buf, len);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, len);
	ret = open_elf(elf, name, o, err, errlen);
	if (elf)
		elf_end(elf);
	free(copy);
	return ret;
}

void core_object_close(struct core_object *o)
{
	btf__free(o->btf);
	for (int i = 0; i < o->nprogs; i++)
		free(o->progs[i].insns);
	free(o->relos);
	free(o->progs);
	free(o->subprogs);
	memset(o, 0, sizeof(*o));
}

int core_relos_read(const char *obj, struct core_access **out, char *err,
		    size_t errlen)
{
	struct core_object o;
	int n;

	*out = NULL;
	if (core_object_open(obj, &o, err, errlen))
		return -1;
	*out = o.relos;
	n = o.nrelos;
	o.relos = NULL;
	core_object_close(&o);
	return n;
}
