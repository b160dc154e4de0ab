/* SPDX-License-Identifier: MIT */
/* Kernel-mode FPU users: the checksum behind SYS_KERNEL_CSUM, and a kernel thread looping on it. */
#ifndef LAB_KFPU_H
#define LAB_KFPU_H

#include "kernel.h"

struct semaphore;

/* csum64_ref() of @buf, computed with AVX2 or SSE2 inside kernel_fpu_begin/end. */
uint64_t kfpu_csum(const void *buf, uint64_t bytes);

/*
 * SYS_KERNEL_CSUM: @impl KCSUM_SIMD (kfpu_csum()) or KCSUM_SCALAR (csum64_ref(),
 * no FPU). -1 for a range outside the kernel image and RAM, one too long, or
 * an unknown @impl.
 */
long sys_kernel_csum(uint64_t buf, uint64_t bytes, uint64_t impl);

/* Whether kfpu_csum() uses AVX2 (else SSE2). */
bool kfpu_uses_avx2(void);

/*
 * A kernel thread: checksums a buffer it refills each time in a kernel-mode
 * FPU section, checks the result against csum64_ref(), calls @poll, and
 * yields, until *@stop; then ups @done. A wrong checksum is reported as an
 * integrity error.
 */
struct kfpu_worker {
	volatile int *stop;
	void (*poll)(void);
	struct semaphore *done;
	uint64_t seed;
	unsigned int id;
};

void kfpu_worker_main(void *worker);

/* What libfpu's AMD pointer scrub leaves in FIP/FDP/FOP; valid false if it does not run. */
struct x87_ptrs;
void kfpu_probe_scrub(struct x87_ptrs *out);

#endif
