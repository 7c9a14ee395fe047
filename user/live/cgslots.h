/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * serve's cgroup slots (bpf/abicap.bpf.c, cg_owner and cg_slots): a
 * cgroup's statistics found by its id's low bits instead of a hash lookup.
 * User space alone writes the owners: it gives a free slot to each id that
 * has an entry in cg_stats (the entry stays its registration under
 * --max-cgroups), and takes the slot back when the entry is deleted: held
 * (no program writes it once it sees the owner change), zeroed a second
 * later, then free. A cgroup's statistics are its entry's plus its slot's.
 */
#ifndef ABICAP_CGSLOTS_H
#define ABICAP_CGSLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abicap.h"

/* a slot taken back is zeroed and freed this long after (ns) */
#define CGSLOTS_HOLD_NS 1000000000ull

/* The slots for --max-cgroups max (0: the default): a power of 2. */
uint32_t cg_slots_for(unsigned int max);

struct cgslots {
	uint32_t n; /* slots; 0: none (their maps could not be used) */
	int slots_fd, ncpus;
	volatile uint64_t *owner; /* cg_owner, mapped */
	size_t map_len;
	struct abicap_cg_stats *buf; /* one slot's values, ncpus */
	struct cg_held {
		uint32_t slot;
		uint64_t at_ns;
	} *held;
	size_t nheld;
};

/*
 * Map cg_owner (owner_fd) for n slots, cg_slots being slots_fd. 0, or -1
 * with errno (the caller goes on without slots: the programs then use
 * cg_stats alone only if no owner is ever written, which is so).
 */
int cgslots_open(struct cgslots *s, int owner_fd, int slots_fd, uint32_t n,
		 int ncpus);
void cgslots_close(struct cgslots *s);

/*
 * id's slot: 1 with its values (one a CPU, until the next call) in *v, 0
 * if it has none, -1 if they cannot be read.
 */
int cgslots_values(struct cgslots *s, uint64_t id,
		   const struct abicap_cg_stats **v);
/* Give id its slot if that is free; true if id holds it now. */
bool cgslots_claim(struct cgslots *s, uint64_t id);
/* id's entry in cg_stats was deleted: its slot, if any, is held. */
void cgslots_release(struct cgslots *s, uint64_t id, uint64_t now_ns);
/* Zero and free the slots held CGSLOTS_HOLD_NS before now_ns. */
void cgslots_maintain(struct cgslots *s, uint64_t now_ns);

#endif
