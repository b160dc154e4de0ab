/* SPDX-License-Identifier: MIT */
/*
 * short-tasks, ring 3 (seed 002: "applications complete their work within
 * the first 5 task switches"). A task runs its slices, each ended by a
 * yield at a known point, so it knows its slice number. In each of its
 * first fp_slices slices it copies a buffer with SSE loads and stores, as a
 * glibc memcpy would, after checking that the XMM pattern it left at the
 * end of its previous slice is still there. The copy itself is checked with
 * integer code. The companion never touches the FPU: it only yields.
 */
#include "../exp.h"
#include "ulib.h"

static void sse_copy(void *dst, const void *src, uint64_t bytes)
{
	for (uint64_t i = 0; i < bytes; i += 64)
		__asm__ volatile("movdqu 0(%1), %%xmm0\n\t"
				 "movdqu 16(%1), %%xmm1\n\t"
				 "movdqu 32(%1), %%xmm2\n\t"
				 "movdqu 48(%1), %%xmm3\n\t"
				 "movdqu %%xmm0, 0(%0)\n\t"
				 "movdqu %%xmm1, 16(%0)\n\t"
				 "movdqu %%xmm2, 32(%0)\n\t"
				 "movdqu %%xmm3, 48(%0)"
				 :
				 : "r"((char *)dst + i), "r"((const char *)src + i)
				 : "memory");
}

static void copy_slice(const struct short_args *a, uint64_t slice)
{
	uint64_t src[SHORT_COPY_BYTES / 8], dst[SHORT_COPY_BYTES / 8];

	if (slice)
		regs_check(REGSET_SSE, a->task, slice - 1);
	for (unsigned int i = 0; i < SHORT_COPY_BYTES / 8; i++) {
		src[i] = ((uint64_t)a->task << 32) ^ (slice << 16) ^ i;
		dst[i] = 0;
	}
	sse_copy(dst, src, SHORT_COPY_BYTES);
	for (unsigned int i = 0; i < SHORT_COPY_BYTES / 8; i++) {
		if (dst[i] != src[i]) {
			struct integrity_report r = { .count = 1,
						      .task = a->task,
						      .regset = REGSET_SSE,
						      .reg = i % 16,
						      .expected = src[i],
						      .got = dst[i] };
			sys_integrity(&r);
			break;
		}
	}
	regs_write(REGSET_SSE, a->task, slice);
}

void short_main(void *p)
{
	struct short_args *a = p;

	for (uint64_t s = 0; s < a->slices; s++) {
		if (s < a->fp_slices)
			copy_slice(a, s);
		if (s + 1 < a->slices)
			sys_yield();
	}
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
}

void companion_main(void *p)
{
	const struct short_args *a = p;

	while (!__atomic_load_n(a->stop, __ATOMIC_RELAXED))
		sys_yield();
}
