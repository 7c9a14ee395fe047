/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A task's cgroup v2: task_struct.cgroups -> css_set.dfl_cgrp -> cgroup.kn
 * -> kernfs_node.id, and the walk up its ancestors for --cgroup
 * (cgroup.level and cgroup.self.parent). Every one of these items is
 * optional in the contract, so each read is gated twice: by a flag the
 * loader sets from the contract's verdicts (cgroup_ids, cgroup_walk: false
 * unless every item of the chain checked ok), and by CO-RE exists-checks on
 * each member, resolved by libbpf at load time. On a kernel that lacks one
 * (kernfs_node.id is a u64 only since Linux 5.5), both make the read dead
 * code that the verifier removes before its failed relocation could reject
 * the load: cgroup ids are 0 and --cgroup never matches (the loader
 * refuses --cgroup and serve there).
 */
#ifndef ABICAP_CGROUP_BPF_H
#define ABICAP_CGROUP_BPF_H

#include <bpf/bpf_core_read.h>
#include "abicap.h"

/* Set by the loader (user/live/capture.c) from the contract's verdicts. */
const volatile bool cgroup_ids = false;
const volatile bool cgroup_walk = false;

/* Every member of task_struct.cgroups->dfl_cgrp->kn->id is there. */
static __always_inline bool cgroup_id_readable(void)
{
	return cgroup_ids && bpf_core_field_exists(struct task_struct, cgroups) &&
	       bpf_core_field_exists(struct css_set, dfl_cgrp) &&
	       bpf_core_field_exists(struct cgroup, kn) &&
	       bpf_core_field_exists(struct kernfs_node, id);
}

/* And those of the walk up the tree. */
static __always_inline bool cgroup_walkable(void)
{
	return cgroup_walk && cgroup_id_readable() &&
	       bpf_core_field_exists(struct cgroup, level) &&
	       bpf_core_field_exists(struct cgroup, self) &&
	       bpf_core_field_exists(struct cgroup, self.parent);
}

/*
 * The task's cgroup v2 id: the kernfs node id of its default-hierarchy
 * cgroup, what bpf_get_current_cgroup_id() returns for current and the
 * inode number of the cgroup's directory. 0 where any item of the chain
 * does not hold (CONFIG_CGROUPS off, say: the contract calls that degraded).
 */
static __always_inline __u64 task_cgroup_id(struct task_struct *t,
					    const bool direct)
{
	if (!cgroup_id_readable())
		return 0;
	if (direct)
		return t->cgroups->dfl_cgrp->kn->id;
	return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

/*
 * The task's cgroup is `id` (at depth `level`) or below it: walk up from
 * its cgroup to that depth through each cgroup's own css parent.
 */
static __always_inline bool task_in_cgroup(struct task_struct *t, __u64 id,
					   int level)
{
	struct cgroup *cg;
	int at;

	if (!cgroup_walkable())
		return false;
	cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	if (!cg)
		return false;
	at = BPF_CORE_READ(cg, level);
	if (at < level || at - level >= ABICAP_CGROUP_MAX_DEPTH)
		return false;
	for (int i = 0; i < ABICAP_CGROUP_MAX_DEPTH && at > level; i++, at--) {
		struct cgroup_subsys_state *css = BPF_CORE_READ(cg, self.parent);

		if (!css)
			return false;
		/* cgroup.self is the cgroup's own css: step back to the cgroup */
		cg = (void *)css - bpf_core_field_offset(struct cgroup, self);
	}
	return BPF_CORE_READ(cg, kn, id) == id;
}

#endif /* ABICAP_CGROUP_BPF_H */
