// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* serve's cgroup slots: see cgslots.h and bpf/abicap.bpf.c (cg_owner). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "live/cgslots.h"

uint32_t cg_slots_for(unsigned int max)
{
	uint32_t n = 1, want = max ? max : ABICAP_MAX_CGROUPS_DEFAULT;

	while (n * 2 <= want && n * 2 <= ABICAP_CG_SLOTS_MAX)
		n *= 2;
	return n;
}

int cgslots_open(struct cgslots *s, int owner_fd, int slots_fd, uint32_t n,
		 int ncpus)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	memset(s, 0, sizeof(*s));
	s->slots_fd = -1;
	if (owner_fd < 0 || slots_fd < 0 || !n || (n & (n - 1)) || ncpus < 1) {
		errno = EINVAL;
		return -1;
	}
	s->map_len = ((size_t)n * sizeof(uint64_t) + (size_t)page - 1) /
		     (size_t)page * (size_t)page;
	p = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 owner_fd, 0);
	if (p == MAP_FAILED)
		return -1;
	s->buf = calloc((size_t)ncpus, sizeof(*s->buf));
	s->held = calloc(n, sizeof(*s->held));
	if (!s->buf || !s->held) {
		munmap(p, s->map_len);
		free(s->buf);
		free(s->held);
		memset(s, 0, sizeof(*s));
		errno = ENOMEM;
		return -1;
	}
	s->owner = p;
	s->n = n;
	s->slots_fd = slots_fd;
	s->ncpus = ncpus;
	return 0;
}

void cgslots_close(struct cgslots *s)
{
	if (s->owner)
		munmap((void *)s->owner, s->map_len);
	free(s->buf);
	free(s->held);
	memset(s, 0, sizeof(*s));
}

static uint32_t slot_of(const struct cgslots *s, uint64_t id)
{
	return (uint32_t)id & (s->n - 1);
}

int cgslots_values(struct cgslots *s, uint64_t id,
		   const struct abicap_cg_stats **v)
{
	uint32_t k;

	if (!s->n || !id || s->owner[slot_of(s, id)] != id)
		return 0;
	k = slot_of(s, id);
	if (bpf_map_lookup_elem(s->slots_fd, &k, s->buf))
		return -1;
	*v = s->buf;
	return 1;
}

bool cgslots_claim(struct cgslots *s, uint64_t id)
{
	uint32_t k;

	if (!s->n || !id || id == ABICAP_CG_SLOT_HELD)
		return false;
	k = slot_of(s, id);
	if (!s->owner[k])
		s->owner[k] = id;
	return s->owner[k] == id;
}

void cgslots_release(struct cgslots *s, uint64_t id, uint64_t now_ns)
{
	uint32_t k;

	if (!s->n || !id || s->owner[slot_of(s, id)] != id)
		return;
	k = slot_of(s, id);
	s->owner[k] = ABICAP_CG_SLOT_HELD;
	s->held[s->nheld].slot = k; /* at most one per slot: n entries */
	s->held[s->nheld++].at_ns = now_ns;
}

void cgslots_maintain(struct cgslots *s, uint64_t now_ns)
{
	size_t w = 0;

	for (size_t i = 0; i < s->nheld; i++) {
		struct cg_held h = s->held[i];

		if (now_ns - h.at_ns < CGSLOTS_HOLD_NS) {
			s->held[w++] = h;
			continue;
		}
		/* no program has written it for a second: zeroed, then free */
		memset(s->buf, 0, (size_t)s->ncpus * sizeof(*s->buf));
		if (bpf_map_update_elem(s->slots_fd, &h.slot, s->buf, BPF_ANY)) {
			s->held[w++] = h; /* tried again later; the slot stays held */
			continue;
		}
		s->owner[h.slot] = 0;
	}
	s->nheld = w;
}
