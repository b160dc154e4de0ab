/* SPDX-License-Identifier: MIT */
/*
 * Test helpers: load known values into x87, MXCSR, XMM/YMM/ZMM and opmask
 * registers with plain instructions, and read them back without any XSAVE-
 * family instruction (FNSAVE/FRSTOR, STMXCSR, VMOVDQU*, KMOVQ).
 *
 * Between xregs_load() and the instruction under test, the test code must
 * call nothing that may touch vector registers (glibc string functions do).
 */
#ifndef TESTS_XREGS_H
#define TESTS_XREGS_H

#include <stdint.h>
#include <string.h>
#include <fpu/xstate.h>

struct xregs {
	uint8_t zmm[32][64]; /* XMM = bytes 0..15, YMM = 0..31 */
	uint64_t k[8];
	uint32_t mxcsr;
	uint8_t fsave[108]; /* FNSAVE image: FCW at 0, FSW at 4, FTW at 8, ST0..7 at 28 */
	double st[3];       /* values pushed by xregs_load(): ST0 = st[0] */
	uint16_t fcw;
} __attribute__((aligned(64)));

#define XR_ZMM 0
#define XR_K 2048
#define XR_MXCSR 2112

static inline void xregs_fill(struct xregs *r, unsigned int seed)
{
	memset(r, 0, sizeof(*r));
	for (unsigned int i = 0; i < 32; i++)
		for (unsigned int b = 0; b < 64; b++)
			r->zmm[i][b] = (uint8_t)(seed * 31u + i * 7u + b * 3u + 1u) | 1u;
	for (unsigned int i = 0; i < 8; i++)
		r->k[i] = 0x0123456789abcdefull * (seed + i + 1);
	r->mxcsr = MXCSR_DEFAULT | (seed & 1 ? 0x2000u : 0x4000u) | (seed & 2 ? 0x8000u : 0);
	r->fcw = (uint16_t)(seed & 1 ? 0x067f : 0x0a7f);
	r->st[0] = 1.5 + seed;
	r->st[1] = -0.25 * (seed + 3);
	r->st[2] = 1e10 + seed;
}

/* Which vector width the enabled mask allows. */
static inline int xregs_width(uint64_t mask)
{
	if ((mask & XFEATURE_MASK_AVX512) == XFEATURE_MASK_AVX512)
		return 64;
	if (mask & XFEATURE_MASK(XFEATURE_YMM))
		return 32;
	return 16;
}

/* clang-format off */
#define XR_CLOBBERS "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

__attribute__((noinline, unused)) static void xregs_load(const struct xregs *r, uint64_t mask)
{
	int w = xregs_width(mask);

	__asm__ volatile("fninit\n\tfldcw %0\n\tfldl %3\n\tfldl %2\n\tfldl %1\n\tldmxcsr %4"
			 : : "m"(r->fcw), "m"(r->st[0]), "m"(r->st[1]), "m"(r->st[2]), "m"(r->mxcsr));
	if (w == 64) {
		__asm__ volatile(
		"vmovdqu64 0(%0), %%zmm0\n"
		"vmovdqu64 64(%0), %%zmm1\n"
		"vmovdqu64 128(%0), %%zmm2\n"
		"vmovdqu64 192(%0), %%zmm3\n"
		"vmovdqu64 256(%0), %%zmm4\n"
		"vmovdqu64 320(%0), %%zmm5\n"
		"vmovdqu64 384(%0), %%zmm6\n"
		"vmovdqu64 448(%0), %%zmm7\n"
		"vmovdqu64 512(%0), %%zmm8\n"
		"vmovdqu64 576(%0), %%zmm9\n"
		"vmovdqu64 640(%0), %%zmm10\n"
		"vmovdqu64 704(%0), %%zmm11\n"
		"vmovdqu64 768(%0), %%zmm12\n"
		"vmovdqu64 832(%0), %%zmm13\n"
		"vmovdqu64 896(%0), %%zmm14\n"
		"vmovdqu64 960(%0), %%zmm15\n"
		"vmovdqu64 1024(%0), %%zmm16\n"
		"vmovdqu64 1088(%0), %%zmm17\n"
		"vmovdqu64 1152(%0), %%zmm18\n"
		"vmovdqu64 1216(%0), %%zmm19\n"
		"vmovdqu64 1280(%0), %%zmm20\n"
		"vmovdqu64 1344(%0), %%zmm21\n"
		"vmovdqu64 1408(%0), %%zmm22\n"
		"vmovdqu64 1472(%0), %%zmm23\n"
		"vmovdqu64 1536(%0), %%zmm24\n"
		"vmovdqu64 1600(%0), %%zmm25\n"
		"vmovdqu64 1664(%0), %%zmm26\n"
		"vmovdqu64 1728(%0), %%zmm27\n"
		"vmovdqu64 1792(%0), %%zmm28\n"
		"vmovdqu64 1856(%0), %%zmm29\n"
		"vmovdqu64 1920(%0), %%zmm30\n"
		"vmovdqu64 1984(%0), %%zmm31\n"
		"kmovq 2048(%0), %%k0\n"
		"kmovq 2056(%0), %%k1\n"
		"kmovq 2064(%0), %%k2\n"
		"kmovq 2072(%0), %%k3\n"
		"kmovq 2080(%0), %%k4\n"
		"kmovq 2088(%0), %%k5\n"
		"kmovq 2096(%0), %%k6\n"
		"kmovq 2104(%0), %%k7\n"
		: : "r"(r) : XR_CLOBBERS);
	} else if (w == 32) {
		__asm__ volatile(
		"vmovdqu 0(%0), %%ymm0\n"
		"vmovdqu 64(%0), %%ymm1\n"
		"vmovdqu 128(%0), %%ymm2\n"
		"vmovdqu 192(%0), %%ymm3\n"
		"vmovdqu 256(%0), %%ymm4\n"
		"vmovdqu 320(%0), %%ymm5\n"
		"vmovdqu 384(%0), %%ymm6\n"
		"vmovdqu 448(%0), %%ymm7\n"
		"vmovdqu 512(%0), %%ymm8\n"
		"vmovdqu 576(%0), %%ymm9\n"
		"vmovdqu 640(%0), %%ymm10\n"
		"vmovdqu 704(%0), %%ymm11\n"
		"vmovdqu 768(%0), %%ymm12\n"
		"vmovdqu 832(%0), %%ymm13\n"
		"vmovdqu 896(%0), %%ymm14\n"
		"vmovdqu 960(%0), %%ymm15\n"
		: : "r"(r) : XR_CLOBBERS);
	} else {
		__asm__ volatile(
		"movdqu 0(%0), %%xmm0\n"
		"movdqu 64(%0), %%xmm1\n"
		"movdqu 128(%0), %%xmm2\n"
		"movdqu 192(%0), %%xmm3\n"
		"movdqu 256(%0), %%xmm4\n"
		"movdqu 320(%0), %%xmm5\n"
		"movdqu 384(%0), %%xmm6\n"
		"movdqu 448(%0), %%xmm7\n"
		"movdqu 512(%0), %%xmm8\n"
		"movdqu 576(%0), %%xmm9\n"
		"movdqu 640(%0), %%xmm10\n"
		"movdqu 704(%0), %%xmm11\n"
		"movdqu 768(%0), %%xmm12\n"
		"movdqu 832(%0), %%xmm13\n"
		"movdqu 896(%0), %%xmm14\n"
		"movdqu 960(%0), %%xmm15\n"
		: : "r"(r) : XR_CLOBBERS);
	}
}

/* Read back what the registers hold; leaves them unchanged. */
__attribute__((noinline, unused)) static void xregs_read(struct xregs *r, uint64_t mask)
{
	int w = xregs_width(mask);

	memset(r, 0, sizeof(*r));
	__asm__ volatile("fnsave %0\n\tfrstor %0\n\tstmxcsr %1" : "+m"(r->fsave), "=m"(r->mxcsr) : : "memory");
	if (w == 64) {
		__asm__ volatile(
		"vmovdqu64 %%zmm0, 0(%0)\n"
		"vmovdqu64 %%zmm1, 64(%0)\n"
		"vmovdqu64 %%zmm2, 128(%0)\n"
		"vmovdqu64 %%zmm3, 192(%0)\n"
		"vmovdqu64 %%zmm4, 256(%0)\n"
		"vmovdqu64 %%zmm5, 320(%0)\n"
		"vmovdqu64 %%zmm6, 384(%0)\n"
		"vmovdqu64 %%zmm7, 448(%0)\n"
		"vmovdqu64 %%zmm8, 512(%0)\n"
		"vmovdqu64 %%zmm9, 576(%0)\n"
		"vmovdqu64 %%zmm10, 640(%0)\n"
		"vmovdqu64 %%zmm11, 704(%0)\n"
		"vmovdqu64 %%zmm12, 768(%0)\n"
		"vmovdqu64 %%zmm13, 832(%0)\n"
		"vmovdqu64 %%zmm14, 896(%0)\n"
		"vmovdqu64 %%zmm15, 960(%0)\n"
		"vmovdqu64 %%zmm16, 1024(%0)\n"
		"vmovdqu64 %%zmm17, 1088(%0)\n"
		"vmovdqu64 %%zmm18, 1152(%0)\n"
		"vmovdqu64 %%zmm19, 1216(%0)\n"
		"vmovdqu64 %%zmm20, 1280(%0)\n"
		"vmovdqu64 %%zmm21, 1344(%0)\n"
		"vmovdqu64 %%zmm22, 1408(%0)\n"
		"vmovdqu64 %%zmm23, 1472(%0)\n"
		"vmovdqu64 %%zmm24, 1536(%0)\n"
		"vmovdqu64 %%zmm25, 1600(%0)\n"
		"vmovdqu64 %%zmm26, 1664(%0)\n"
		"vmovdqu64 %%zmm27, 1728(%0)\n"
		"vmovdqu64 %%zmm28, 1792(%0)\n"
		"vmovdqu64 %%zmm29, 1856(%0)\n"
		"vmovdqu64 %%zmm30, 1920(%0)\n"
		"vmovdqu64 %%zmm31, 1984(%0)\n"
		"kmovq %%k0, 2048(%0)\n"
		"kmovq %%k1, 2056(%0)\n"
		"kmovq %%k2, 2064(%0)\n"
		"kmovq %%k3, 2072(%0)\n"
		"kmovq %%k4, 2080(%0)\n"
		"kmovq %%k5, 2088(%0)\n"
		"kmovq %%k6, 2096(%0)\n"
		"kmovq %%k7, 2104(%0)\n"
		: : "r"(r) : "memory");
	} else if (w == 32) {
		__asm__ volatile(
		"vmovdqu %%ymm0, 0(%0)\n"
		"vmovdqu %%ymm1, 64(%0)\n"
		"vmovdqu %%ymm2, 128(%0)\n"
		"vmovdqu %%ymm3, 192(%0)\n"
		"vmovdqu %%ymm4, 256(%0)\n"
		"vmovdqu %%ymm5, 320(%0)\n"
		"vmovdqu %%ymm6, 384(%0)\n"
		"vmovdqu %%ymm7, 448(%0)\n"
		"vmovdqu %%ymm8, 512(%0)\n"
		"vmovdqu %%ymm9, 576(%0)\n"
		"vmovdqu %%ymm10, 640(%0)\n"
		"vmovdqu %%ymm11, 704(%0)\n"
		"vmovdqu %%ymm12, 768(%0)\n"
		"vmovdqu %%ymm13, 832(%0)\n"
		"vmovdqu %%ymm14, 896(%0)\n"
		"vmovdqu %%ymm15, 960(%0)\n"
		: : "r"(r) : "memory");
	} else {
		__asm__ volatile(
		"movdqu %%xmm0, 0(%0)\n"
		"movdqu %%xmm1, 64(%0)\n"
		"movdqu %%xmm2, 128(%0)\n"
		"movdqu %%xmm3, 192(%0)\n"
		"movdqu %%xmm4, 256(%0)\n"
		"movdqu %%xmm5, 320(%0)\n"
		"movdqu %%xmm6, 384(%0)\n"
		"movdqu %%xmm7, 448(%0)\n"
		"movdqu %%xmm8, 512(%0)\n"
		"movdqu %%xmm9, 576(%0)\n"
		"movdqu %%xmm10, 640(%0)\n"
		"movdqu %%xmm11, 704(%0)\n"
		"movdqu %%xmm12, 768(%0)\n"
		"movdqu %%xmm13, 832(%0)\n"
		"movdqu %%xmm14, 896(%0)\n"
		"movdqu %%xmm15, 960(%0)\n"
		: : "r"(r) : "memory");
	}
}

/* Number of vector registers and bytes of each the mask covers. */
static inline void xregs_shape(uint64_t mask, int *nregs, int *width)
{
	*width = xregs_width(mask);
	*nregs = *width == 64 ? 32 : 16;
}

/* x87 part of the FNSAVE image that must survive a round trip: FCW, FSW, FTW, ST0..7. */
static inline int xregs_x87_cmp(const struct xregs *a, const struct xregs *b)
{
	if (memcmp(a->fsave + 0, b->fsave + 0, 2) || memcmp(a->fsave + 4, b->fsave + 4, 2) ||
	    memcmp(a->fsave + 8, b->fsave + 8, 2))
		return 1;
	return memcmp(a->fsave + 28, b->fsave + 28, 80);
}

/* clang-format on */

#endif
