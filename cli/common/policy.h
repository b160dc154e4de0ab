/* SPDX-License-Identifier: MIT */
/*
 * Policy properties for the tools that compare policies, read from libfpu
 * (fpu_policy_flags, include/fpu/fpu.h): never from a policy's name.
 */
#ifndef FPULAB_CLI_COMMON_POLICY_H
#define FPULAB_CLI_COMMON_POLICY_H

#include <stdbool.h>

/* policy_is_static - @name is a policy that decides by fixed rules (all but adaptive); false for an unknown name. */
bool policy_is_static(const char *name);

/* policy_is_adaptive - @name is a known policy that decides by the costs it is given (not static). */
bool policy_is_adaptive(const char *name);

/* policy_is_baseline - @name is the policy the others are measured against (eager). */
bool policy_is_baseline(const char *name);

/* policy_has_break_even - @name trades #NM traps for the baseline's work: it has a break-even trap cost against it. */
bool policy_has_break_even(const char *name);

/*
 * policy_break_even_first - the first policy in libfpu's list with a
 * break-even ("lazy"): the one the summary shows the baseline against.
 */
const char *policy_break_even_first(void);

/* policy_traps - @name may set CR0.TS: its #NM traps depend on where tasks use the FPU. */
bool policy_traps(const char *name);

/* policy_linux - the policy Linux's own counts are checked against ("deferred"). */
const char *policy_linux(void);

/* policy_baseline - the baseline policy's name, from libfpu's list ("eager"); libfpu always has one. */
const char *policy_baseline(void);

#endif
