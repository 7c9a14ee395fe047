/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Hand-built records for the analysis and report tests. */
#ifndef ABICAP_TESTS_RECFIX_H
#define ABICAP_TESTS_RECFIX_H

#include <stdint.h>
#include "event/record.h"

/* A sched_switch on cpu at ts; a NULL comm is "t<pid>". */
union abicap_rec recfix_switch(uint64_t ts, uint32_t cpu, int32_t prev,
			       const char *pcomm, uint32_t state, int32_t next,
			       const char *ncomm, uint8_t flags);
/* A wakeup record of type (wakeup, waking, wakeup_new) of pid by waker. */
union abicap_rec recfix_wakeup(unsigned int type, uint64_t ts, int32_t pid,
			       const char *comm, int32_t waker);

/* A cpu_idle record on cpu about cpu: entry into state, or exit (UINT32_MAX). */
union abicap_rec recfix_idle(uint64_t ts, uint32_t cpu, uint32_t state);

#endif
