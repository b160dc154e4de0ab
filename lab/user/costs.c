/* SPDX-License-Identifier: MIT */
/*
 * costs, ring 3: the #NM round trip. Each operation is a system call that
 * writes CR0 (SYS_COSTS_TS: TS set, or for the baseline clear) and one SSE
 * instruction. With TS set the instruction takes #NM, the kernel's probe
 * handler clears TS and returns, and it runs again; the baseline loop is
 * the same without the trap. The first SSE use comes before both loops, so
 * whatever the policy does at a first use is done by then.
 */
#include "../exp.h"
#include "ulib.h"

static inline uint64_t user_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline void op(long trap)
{
	syscall2(SYS_COSTS_TS, trap, 0);
	__asm__ volatile("xorps %%xmm0, %%xmm0" : :);
}

static uint64_t loop(long trap, uint64_t n)
{
	uint64_t t0 = user_rdtsc();
	for (uint64_t i = 0; i < n; i++)
		op(trap);
	return user_rdtsc() - t0;
}

void costs_main(void *p)
{
	struct costs_args *a = p;

	__asm__ volatile("xorps %%xmm0, %%xmm0" : :); /* the first use */
	loop(0, a->warmup);
	loop(1, a->warmup);
	sys_mark(MARK_START);
	a->base_ticks = loop(0, a->ops);
	a->ticks = loop(1, a->ops);
	sys_mark(MARK_END);
}
