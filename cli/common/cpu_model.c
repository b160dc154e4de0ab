/* SPDX-License-Identifier: MIT */
#include "cpu_model.h"

#include <cpuid.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <fpu/xstate.h>

bool cpu_model(char *buf, size_t len)
{
	uint32_t r[13] = { 0 }; /* 48 bytes of brand string and a NUL */
	const char *s = (const char *)r;
	size_t n;

	if ((unsigned int)__get_cpuid_max(0x80000000, NULL) < 0x80000004) {
		snprintf(buf, len, "unknown");
		return false;
	}
	for (unsigned int i = 0; i < 3; i++)
		__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
	s += strspn(s, " ");
	for (n = strlen(s); n && s[n - 1] == ' '; n--)
		;
	snprintf(buf, len, "%.*s", (int)n, s);
	return true;
}

const char *xcr0_text(char *buf, size_t len)
{
	uint32_t a, b, c, d;
	uint64_t os = xstate_cfg.xcr0;

	__cpuid(1, a, b, c, d);
	if (c & bit_OSXSAVE)
		os = xstate_xgetbv(0);
	if (os == xstate_cfg.xcr0)
		snprintf(buf, len, "XCR0 0x%" PRIx64, os);
	else
		snprintf(buf, len, "XCR0 0x%" PRIx64 ", libfpu's 0x%" PRIx64, os, xstate_cfg.xcr0);
	return buf;
}
