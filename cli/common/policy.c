/* SPDX-License-Identifier: MIT */
/* Policy properties from libfpu's flags (policy.h). */
#include <stdlib.h>

#include <fpu/fpu.h>

#include "policy.h"

/* @name's flags, or 0 for an unknown name (no property holds). */
static unsigned int flags_of(const char *name)
{
	int f = fpu_policy_flags(name);
	return f < 0 ? 0 : (unsigned int)f;
}

bool policy_is_static(const char *name)
{
	return flags_of(name) & FPU_POLICY_STATIC;
}

bool policy_is_adaptive(const char *name)
{
	return fpu_policy_flags(name) >= 0 && !policy_is_static(name);
}

bool policy_is_baseline(const char *name)
{
	return flags_of(name) & FPU_POLICY_BASELINE;
}

bool policy_has_break_even(const char *name)
{
	return flags_of(name) & FPU_POLICY_BREAK_EVEN;
}

const char *policy_break_even_first(void)
{
	for (const char *const *p = fpu_policy_names(); *p; p++)
		if (policy_has_break_even(*p))
			return *p;
	abort(); /* libfpu has two (tests/unit/test_policies.c) */
}

const char *policy_baseline(void)
{
	for (const char *const *p = fpu_policy_names(); *p; p++)
		if (policy_is_baseline(*p))
			return *p;
	abort(); /* libfpu has one baseline (tests/unit/test_policies.c) */
}

bool policy_traps(const char *name)
{
	return flags_of(name) & FPU_POLICY_TRAPS;
}

const char *policy_linux(void)
{
	for (const char *const *p = fpu_policy_names(); *p; p++)
		if (flags_of(*p) & FPU_POLICY_LINUX)
			return *p;
	abort(); /* libfpu has one (tests/unit/test_policies.c) */
}
