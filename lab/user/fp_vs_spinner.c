/* SPDX-License-Identifier: MIT */
/*
 * fp-vs-spinner, ring 3 (seed 000: "an FP program doing a simple benchmark
 * while a non-FP program ran in a tight loop"). The FP task adds 1.0 to
 * both lanes of XMM0 FP_UNIT_ADDS times per unit of work, for a fixed number
 * of units, keeping the sum in the register the whole run: every timer
 * preemption must give it back intact. At the end the sum must be exactly
 * units * FP_UNIT_ADDS (doubles are exact far beyond that), else it is an
 * integrity error. The spinner never touches the FPU.
 */
#include "../exp.h"
#include "ulib.h"

static void fp_task(const struct spinner_args *a)
{
	static const double one[2] __attribute__((aligned(16))) = { 1.0, 1.0 };
	double sum[2] __attribute__((aligned(16)));

	__asm__ volatile("xorpd %%xmm0, %%xmm0\n\t"
			 "movapd %0, %%xmm1"
			 :
			 : "m"(one));
	for (uint64_t u = 0; u < a->units; u++)
		__asm__ volatile("mov %0, %%ecx\n\t"
				 "1: addpd %%xmm1, %%xmm0\n\t"
				 "dec %%ecx\n\t"
				 "jnz 1b"
				 :
				 : "i"(FP_UNIT_ADDS)
				 : "rcx", "cc");
	__asm__ volatile("movapd %%xmm0, %0" : "=m"(sum));

	/* Compare as integers: this C code is compiled without SSE. */
	uint64_t want = a->units * FP_UNIT_ADDS;
	for (int lane = 0; lane < 2; lane++) {
		uint64_t got;
		__asm__ volatile("cvttsd2si %1, %0" : "=r"(got) : "m"(sum[lane]));
		if (got != want) {
			struct integrity_report r = { .count = 1,
						      .task = a->task,
						      .regset = REGSET_SSE,
						      .reg = (unsigned int)lane,
						      .expected = want,
						      .got = got };
			sys_integrity(&r);
		}
	}
	__atomic_store_n(&a->shared->stop, 1, __ATOMIC_RELAXED);
}

void spinner_main(void *p)
{
	const struct spinner_args *a = p;

	if (a->fp) {
		fp_task(a);
		return;
	}
	while (!__atomic_load_n(&a->shared->stop, __ATOMIC_RELAXED))
		;
}
