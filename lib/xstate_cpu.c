/* SPDX-License-Identifier: MIT */
/*
 * libfpu: enabling the xstate xstate_init() chose on one CPU (ring 0): CR0,
 * CR4, XCR0, IA32_XSS, MXCSR_MASK, then the registers in init state.
 * Intel SDM Vol. 1 §13.3, Vol. 3A §2.5; AMD APM Vol. 2 §11.5.2.
 *
 * Above xstate.c (the configuration) and xsave.c (xstate_load_init()).
 */
#include <fpu/xstate.h>
#include "internal.h"

#define CR0_MP (1ul << 1)
#define CR0_EM (1ul << 2)
#define CR0_TS (1ul << 3)
#define CR0_NE (1ul << 5)
#define CR4_OSFXSR (1ul << 9)
#define CR4_OSXMMEXCPT (1ul << 10)
#define CR4_OSXSAVE (1ul << 18)
#define MSR_IA32_XSS 0xda0

void xstate_cpu_enable(void)
{
	const struct xstate_config *cfg = &xstate_cfg;
	unsigned long cr0, cr4;

	/* x87 present and native: no emulation, #MF reporting, TS clear. */
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	cr0 = (cr0 & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE;
	__asm__ volatile("mov %0, %%cr0" : : "r"(cr0) : "memory");

	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	cr4 |= CR4_OSFXSR | CR4_OSXMMEXCPT;
	if (cfg->caps.xsave)
		cr4 |= CR4_OSXSAVE;
	__asm__ volatile("mov %0, %%cr4" : : "r"(cr4) : "memory");

	if (cfg->caps.xsave) {
		/* With FXSAVE forced, XCR0 = x87|SSE: AVX then #UDs instead of leaking. */
		uint64_t x = cfg->xcr0;
		__asm__ volatile("xsetbv"
				 :
				 : "c"(0), "a"((uint32_t)x), "d"((uint32_t)(x >> 32))
				 : "memory");
	}
	if (cfg->caps.xsaves) {
		uint64_t x = cfg->xss;
		__asm__ volatile("wrmsr"
				 :
				 : "c"(MSR_IA32_XSS), "a"((uint32_t)x), "d"((uint32_t)(x >> 32)));
	}
	/* Same value on every CPU; benign if CPUs race here. */
	xstate_cfg.caps.mxcsr_mask = xstate_read_mxcsr_mask();
	xstate_load_init();
}
