/* SPDX-License-Identifier: MIT */
#include "host_cpu.h"

#include <cpuid.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fpu/xstate.h>

#include "common/cpu_model.h"

const char *const host_regset_names[] = { "none", "x87", "sse", "avx", "avx512", NULL };

void host_cpu_probe(struct host_cpu *c)
{
	uint32_t a, b, cx, d;
	bool osxsave, avx, avx512f = false, avx512bw = false;

	memset(c, 0, sizeof(*c));
	cpu_model(c->model, sizeof(c->model));
	__cpuid(1, a, b, cx, d);
	c->hypervisor = cx >> 31;
	osxsave = cx & bit_OSXSAVE;
	avx = cx & bit_AVX;
	if (__get_cpuid_max(0, NULL) >= 7) {
		uint32_t b7;
		__cpuid_count(7, 0, a, b7, cx, d);
		avx512f = b7 & bit_AVX512F;
		avx512bw = b7 & bit_AVX512BW;
	}
	if (osxsave) {
		c->xcr0 = xstate_xgetbv(0);
		__cpuid_count(0xd, 1, a, b, cx, d);
		c->xgetbv1 = a & (1u << 2); /* CPUID.(0DH,1):EAX[2] */
	} else {
		c->xcr0 = 0x3; /* FXSAVE only: x87 and SSE, always on x86-64 */
	}
	c->regset_ok[HOST_REGSET_NONE] = true;
	c->regset_ok[HOST_REGSET_X87] = true;
	c->regset_ok[HOST_REGSET_SSE] = true;
	if (!avx)
		c->why_not[HOST_REGSET_AVX] = "the CPU has no AVX (CPUID.1:ECX[28])";
	else if ((c->xcr0 & 0x7) != 0x7)
		c->why_not[HOST_REGSET_AVX] = "the kernel does not enable AVX state (XCR0[2])";
	else
		c->regset_ok[HOST_REGSET_AVX] = true;
	if (!avx512f || !avx512bw)
		c->why_not[HOST_REGSET_AVX512] =
			"the CPU has no AVX-512F/BW (CPUID.(7,0):EBX[16,30])";
	else if ((c->xcr0 & 0xe7) != 0xe7)
		c->why_not[HOST_REGSET_AVX512] =
			"the kernel does not enable opmask/ZMM state (XCR0[7:5])";
	else
		c->regset_ok[HOST_REGSET_AVX512] = true;
}

uint64_t host_regset_mask(enum host_regset set)
{
	static const uint64_t m[HOST_REGSET_NR] = { 0, 0x1, 0x3, 0x7, 0xe7 };
	return set < HOST_REGSET_NR ? m[set] : 0;
}

/* splitmix64: a different, never-zero-for-long stream per seed. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void host_regs_fill(struct host_regs *r, uint64_t seed)
{
	uint64_t s = seed * 0x100000001b3ull + 1;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 8; i++) {
		/* A normal extended value: integer bit set, exponent near 1.0. */
		uint64_t mant = mix(&s) | (1ull << 63);
		uint16_t se = (uint16_t)(0x3fff + i);
		memcpy(r->st[i], &mant, 8);
		memcpy(r->st[i] + 8, &se, 2);
	}
	for (int i = 0; i < 32; i++)
		for (int l = 0; l < 8; l++) {
			uint64_t v = mix(&s) | 1; /* every 8-byte lane non-zero */
			memcpy(r->zmm[i] + 8 * l, &v, 8);
		}
	for (int i = 0; i < 8; i++)
		r->k[i] = mix(&s) | 1;
}

static bool lane_diff(const uint8_t *w, const uint8_t *g, unsigned int bytes, const char *name,
		      int idx, struct host_mismatch *m, unsigned int n)
{
	if (!memcmp(w, g, bytes))
		return false;
	if (m && n == 0) {
		for (unsigned int l = 0; l * 8 < bytes; l++) {
			uint64_t a = 0, b = 0;
			unsigned int len = bytes - l * 8 < 8 ? bytes - l * 8 : 8;
			memcpy(&a, w + 8 * l, len);
			memcpy(&b, g + 8 * l, len);
			if (a != b) {
				snprintf(m->reg, sizeof(m->reg), "%s%d", name, idx);
				m->lane = l;
				m->expected = a;
				m->found = b;
				break;
			}
		}
	}
	return true;
}

unsigned int host_regs_diff(enum host_regset set, const struct host_regs *want,
			    const struct host_regs *got, struct host_mismatch *m)
{
	unsigned int n = 0, vbytes = 0, nvec = 0;

	if (set == HOST_REGSET_NONE)
		return 0;
	for (int i = 0; i < 8; i++)
		n += lane_diff(want->st[i], got->st[i], 10, "st", i, m, n);
	if (set == HOST_REGSET_SSE)
		vbytes = 16, nvec = 16;
	else if (set == HOST_REGSET_AVX)
		vbytes = 32, nvec = 16;
	else if (set == HOST_REGSET_AVX512)
		vbytes = 64, nvec = 32;
	for (unsigned int i = 0; i < nvec; i++)
		n += lane_diff(want->zmm[i], got->zmm[i], vbytes,
			       set == HOST_REGSET_SSE   ? "xmm"
			       : set == HOST_REGSET_AVX ? "ymm"
							: "zmm",
			       (int)i, m, n);
	if (set == HOST_REGSET_AVX512)
		for (int i = 0; i < 8; i++)
			n += lane_diff((const uint8_t *)&want->k[i], (const uint8_t *)&got->k[i], 8,
				       "k", i, m, n);
	if (m)
		m->nregs = n;
	return n;
}

int host_pin(int tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set);
}

int host_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

bool host_cpu_allowed(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(set), &set))
		return false;
	return CPU_ISSET(cpu, &set);
}

uint64_t host_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *host_clocksource(char *buf, size_t len)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	snprintf(buf, len, "unknown");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf;
}
