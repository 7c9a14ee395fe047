/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * sched_switch's prev_state as tracefs prints it, from the raw task state
 * bits: the kernel's __trace_sched_switch_state() and __task_state_index()
 * (include/trace/events/sched.h, include/linux/sched.h). Plain C shared by
 * the BPF programs and the unit tests.
 *
 * Bit values (stable since 4.14 for the low byte):
 *   0x0001 INTERRUPTIBLE, 0x0002 UNINTERRUPTIBLE, 0x0004 __STOPPED,
 *   0x0008 __TRACED, 0x0010 EXIT_DEAD, 0x0020 EXIT_ZOMBIE, 0x0040 PARKED
 *   (the TASK_REPORT mask 0x7f); 0x0400 NOLOAD, TASK_IDLE = 0x0402;
 *   0x1000 TASK_RTLOCK_WAIT (5.15, "sched/wakeup: Introduce the
 *   TASK_RTLOCK_WAIT state bit"; TASK_STATE_MAX before);
 *   0x2000 TASK_FREEZABLE, 0x8000 TASK_FROZEN (6.1, commit f5d39b020809
 *   "freezer,sched: Rewrite core freezer logic"; unused before).
 *
 * How the kernel maps them:
 * - up to 6.0: TASK_IDLE and TASK_RTLOCK_WAIT are compared with ==;
 * - 6.1 (f5d39b020809): bit tests, since TASK_FREEZABLE may now accompany
 *   TASK_IDLE (a freezable idle kthread is "I", not "D");
 * - f718faf3940e ("freezer, sched: Report frozen tasks as 'D' instead of
 *   'R'", 2025; stable backports seen for 6.12.y; this machine's 6.18 has
 *   it): TASK_FROZEN reports as TASK_UNINTERRUPTIBLE. Before it a frozen
 *   task's state (0x8000 alone) printed "R". No BTF fact tells whether a
 *   kernel has it (an inline function).
 * One function covers every kernel of the matrix: before 6.1 no bit that
 * the bit tests would add to TASK_IDLE or TASK_RTLOCK_WAIT can be set (none
 * exists above TASK_STATE_MAX), so bit tests and == agree there. A frozen
 * task is reported "D" everywhere, where tracefs of a 6.1+ kernel
 * without f718faf3940e says "R": a frozen task is not
 * runnable, and reporting it R would count its frozen time as run-queue
 * wait.
 */
#ifndef ABICAP_TASK_STATE_H
#define ABICAP_TASK_STATE_H

#define ABICAP_K_TASK_UNINTERRUPTIBLE 0x0002u
#define ABICAP_K_TASK_REPORT 0x007fu
#define ABICAP_K_TASK_NOLOAD 0x0400u
#define ABICAP_K_TASK_IDLE (ABICAP_K_TASK_UNINTERRUPTIBLE | ABICAP_K_TASK_NOLOAD)
#define ABICAP_K_TASK_RTLOCK_WAIT 0x1000u
#define ABICAP_K_TASK_FREEZABLE 0x2000u
#define ABICAP_K_TASK_FROZEN 0x8000u
#define ABICAP_K_TASK_REPORT_IDLE 0x0080u /* "I" */
#define ABICAP_K_TASK_REPORT_MAX 0x0100u /* preempted: "R+" */

/*
 * The tracefs prev_state of a task switched out with raw state `state` and
 * exit_state `exit_state`: 0 (R), one TASK_REPORT bit, 0x80 (I) or 0x100
 * (preempted).
 */
static inline __u32 abicap_report_state(int preempt, __u32 state,
					__u32 exit_state)
{
	__u32 s;

	if (preempt)
		return ABICAP_K_TASK_REPORT_MAX;
	s = (state | exit_state) & ABICAP_K_TASK_REPORT;
	if ((state & ABICAP_K_TASK_IDLE) == ABICAP_K_TASK_IDLE)
		s = ABICAP_K_TASK_REPORT_IDLE;
	if (state & (ABICAP_K_TASK_RTLOCK_WAIT | ABICAP_K_TASK_FROZEN))
		s = ABICAP_K_TASK_UNINTERRUPTIBLE;
	/* keep the highest set bit, as the kernel's fls() does */
	s |= s >> 1;
	s |= s >> 2;
	s |= s >> 4;
	return s - (s >> 1);
}

#endif /* ABICAP_TASK_STATE_H */
