// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * prev_state from raw task state bits (bpf/task_state.h, the function the
 * BPF programs run): the letters tracefs prints for the states tasks are
 * really in, including the freezer's and PREEMPT_RT's.
 */
#include <criterion/criterion.h>
#include <linux/types.h>
#include "task_state.h"

/* tracefs's letter for a prev_state value ("R+" as '+') */
static char letter(__u32 v)
{
	static const char l[] = "RSDTtXZPI";

	if (v == 0x100)
		return '+';
	for (int i = 0; i < 8; i++)
		if (v == 1u << i)
			return l[i + 1];
	return v ? '?' : 'R';
}

struct state_case {
	const char *what;
	__u32 state, exit_state;
	char want;
};

Test(task_state, letters_of_real_states)
{
	static const struct state_case c[] = {
		{ "running", 0, 0, 'R' },
		{ "TASK_INTERRUPTIBLE", 0x1, 0, 'S' },
		{ "TASK_UNINTERRUPTIBLE", 0x2, 0, 'D' },
		{ "TASK_KILLABLE", 0x102, 0, 'D' },
		{ "TASK_STOPPED", 0x104, 0, 'T' },
		{ "TASK_TRACED (6.1+)", 0x8, 0, 't' },
		{ "TASK_TRACED (before 6.1)", 0x108, 0, 't' },
		{ "TASK_PARKED", 0x40, 0, 'P' },
		{ "TASK_DEAD, EXIT_ZOMBIE", 0x80, 0x20, 'Z' },
		{ "TASK_DEAD, EXIT_DEAD", 0x80, 0x10, 'X' },
		{ "TASK_IDLE", 0x402, 0, 'I' },
		{ "TASK_IDLE | TASK_FREEZABLE", 0x2402, 0, 'I' },
		{ "TASK_INTERRUPTIBLE | TASK_FREEZABLE", 0x2001, 0, 'S' },
		{ "TASK_UNINTERRUPTIBLE | TASK_FREEZABLE", 0x2002, 0, 'D' },
		{ "TASK_FROZEN (cgroup v1 freezer)", 0x8000, 0, 'D' },
		{ "TASK_FROZEN | __TASK_FREEZABLE_UNSAFE", 0xc000, 0, 'D' },
		{ "TASK_RTLOCK_WAIT", 0x1000, 0, 'D' },
		{ "TASK_INTERRUPTIBLE | TASK_NOLOAD", 0x401, 0, 'S' },
		{ "TASK_NEW", 0x800, 0, 'R' },
		{ "TASK_WAKING", 0x200, 0, 'R' },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char got = letter(abicap_report_state(0, c[i].state,
						      c[i].exit_state));

		cr_expect_eq(got, c[i].want, "%s (%#x, exit %#x): '%c', "
			     "tracefs prints '%c'", c[i].what, c[i].state,
			     c[i].exit_state, got, c[i].want);
	}
}

Test(task_state, preempted_is_r_plus_whatever_the_state)
{
	cr_assert_eq(abicap_report_state(1, 0x1, 0), 0x100);
	cr_assert_eq(abicap_report_state(1, 0x8000, 0), 0x100);
	cr_assert_eq(abicap_report_state(1, 0, 0x20), 0x100);
}

/*
 * Every combination of the 16 state bits: always one letter, and the
 * kernel's rules (6.1+ __task_state_index, f718faf3940e) written directly.
 */
Test(task_state, every_bit_combination_gives_one_letter)
{
	for (__u32 st = 0; st < 0x10000; st++) {
		__u32 got = abicap_report_state(0, st, 0), want;

		if (st & 0x9000)
			want = 0x2;
		else if ((st & 0x402) == 0x402)
			want = 0x80;
		else if (st & 0x7f)
			want = 1u << (31 - __builtin_clz(st & 0x7f));
		else
			want = 0;
		cr_assert_eq(got, want, "state %#x: %#x, expected %#x", st,
			     got, want);
		cr_assert_neq(letter(got), '?');
	}
}
