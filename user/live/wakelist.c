// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sched_wakeup's wakers from the wakelists (bpf/waker.bpf.h): where the
 * contract's csd_* items hold (6.3+) and sched_wakeup has its tp_btf
 * program, record keeps the wakers of the wakeups queued on another CPU's
 * wakelist only, and no sched_waking program runs unless its records are
 * asked for. Chosen, configured, attached and detached here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "live/capture_int.h"
#include "abi/contract_deps.h"

/* The kernel's address of sched_ttwu_pending (kallsyms), 0 if unknown. */
static __u64 ttwu_pending_address(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long a, found = 0;
	char type, name[128];

	if (!f)
		return 0;
	while (fscanf(f, "%llx %c %127s%*[^\n]", &a, &type, name) == 3)
		if (!strcmp(name, "sched_ttwu_pending")) {
			found = a;
			break;
		}
	fclose(f);
	return found;
}

/* Records of sched_wakeup to be written: where its wakers matter. */
static bool wakers_wanted(const struct capture_opts *o, unsigned int load)
{
	return !o->aggregate && (load & (1u << ABICAP_EV_SCHED_WAKEUP));
}

/*
 * The wakelists' programs are held to the contract where it declares them;
 * a contract without them keeps sched_waking's program.
 */
unsigned int wakelist_needs(const struct contract *con,
			    const struct capture_opts *o, unsigned int load)
{
	return wakers_wanted(o, load) ?
	       contract_deps_declared(con) & DEP_WAKELIST : 0;
}

bool capture_wakelist(const struct capture *c)
{
	return c->wakelist;
}

void wakelist_choose(struct capture *c, const struct capture_opts *o,
		     unsigned int *load)
{
	c->ttwu_fn = 0;
	c->wakelist = false;
	if (!wakers_wanted(o, *load) || !c->plan.wakelist_ok)
		return;
	/* hidden addresses (kptr_restrict): the programs could not tell it */
	c->ttwu_fn = ttwu_pending_address();
	if (!c->ttwu_fn)
		return;
	c->wakelist = true;
	if (!(o->events & (1u << ABICAP_EV_SCHED_WAKING)))
		*load &= ~(1u << ABICAP_EV_SCHED_WAKING);
}

/* The three programs, in wl_link's order (WL_QUEUE, WL_ENTRY, WL_EXIT). */
static void programs(const struct capture *c, struct bpf_program *p[WL_PROGS])
{
	p[WL_QUEUE] = c->skel->progs.raw_tp_csd_queue_cpu;
	p[WL_ENTRY] = c->skel->progs.raw_tp_csd_function_entry;
	p[WL_EXIT] = c->skel->progs.raw_tp_csd_function_exit;
}

void wakelist_programs(const struct capture *c,
		       struct bpf_program *p[WL_PROGS])
{
	programs(c, p);
	for (int i = 0; !c->wakelist && i < WL_PROGS; i++)
		p[i] = NULL;
}

void wakelist_configure(struct capture *c)
{
	struct abicap_bpf *s = c->skel;
	struct bpf_program *p[WL_PROGS];

	s->rodata->wakelist_wakers = c->wakelist;
	s->rodata->ttwu_fn = c->ttwu_fn;
	bpf_map__set_max_entries(s->maps.wl_slots,
				 c->wakelist ? (__u32)c->ncpus : 1);
	programs(c, p);
	for (int i = 0; i < WL_PROGS; i++)
		bpf_program__set_autoload(p[i], c->wakelist);
}

static int attach_one(struct capture *c, int i, char *err, size_t errlen)
{
	struct bpf_program *p[WL_PROGS];

	programs(c, p);
	c->wl_link[i] = bpf_program__attach(p[i]);
	if (c->wl_link[i])
		return 0;
	snprintf(err, errlen, "cannot attach to tracepoint csd:%s (raw_tp): %s "
		 "(run with -v for libbpf's log)",
		 bpf_program__name(p[i]) + strlen("raw_tp_"), strerror(errno));
	return EXIT_RUNTIME;
}

/*
 * Before sched_wakeup's program: the marks of CPUs running their wakelists
 * (exit first, so no mark outlives its list), so that every list run
 * sched_wakeup sees is marked.
 */
int wakelist_attach_marks(struct capture *c, char *err, size_t errlen)
{
	if (!c->wakelist)
		return 0;
	if (attach_one(c, WL_EXIT, err, errlen))
		return EXIT_RUNTIME;
	return attach_one(c, WL_ENTRY, err, errlen);
}

/* After it: every slot claimed from now on is taken by a sched_wakeup. */
int wakelist_attach_queue(struct capture *c, char *err, size_t errlen)
{
	if (!c->wakelist)
		return 0;
	return attach_one(c, WL_QUEUE, err, errlen);
}

/* The queue's program first, the marks' last (the reverse order). */
void wakelist_detach(struct capture *c)
{
	for (int i = 0; i < WL_PROGS; i++) {
		bpf_link__destroy(c->wl_link[i]);
		c->wl_link[i] = NULL;
	}
}
