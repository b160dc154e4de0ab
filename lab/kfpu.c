/* SPDX-License-Identifier: MIT */
/*
 * Kernel-mode FPU users. The kernel is compiled -mgeneral-regs-only, so the
 * SIMD code is inline asm, and it runs only between kernel_fpu_begin() and
 * kernel_fpu_end(): outside, the registers belong to some task (or to the
 * policy's idea of who owns them).
 */
#include "kfpu.h"
#include "boot_info.h"
#include "cpu.h"
#include "csum.h"
#include "fputrace.h"
#include "io.h"
#include "lab.h"
#include "syscall.h"

extern char __kernel_start[];

/* kernel_fpu_begin/end, recorded in a trace (fputrace.c). */
static void kfpu_begin(void)
{
	bool step = fputrace_step_begin();
	fputrace_kfpu(true);
	kernel_fpu_begin();
	fputrace_step_end(step);
}

static void kfpu_end(void)
{
	bool step = fputrace_step_begin();
	kernel_fpu_end();
	fputrace_kfpu(false);
	fputrace_step_end(step);
}

static int avx2 = -1; /* unknown yet; racing first callers compute the same value */

bool kfpu_uses_avx2(void)
{
	if (avx2 < 0) {
		uint32_t a, b, c, d, max;
		cpuid(0, 0, &max, &b, &c, &d);
		b = 0;
		if (max >= 7)
			cpuid(7, 0, &a, &b, &c, &d);
		avx2 = (xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM)) && (b & (1u << 5));
	}
	return avx2;
}

/* Sum of @n 32-byte blocks as four 64-bit lanes, folded. VEX loads need no alignment. */
static uint64_t sum_avx2(const void *p, uint64_t n)
{
	uint64_t sum;
	__asm__ volatile("vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
			 "1: vpaddq (%[p]), %%ymm0, %%ymm0\n\t"
			 "addq $32, %[p]\n\t"
			 "decq %[n]\n\t"
			 "jnz 1b\n\t"
			 "vextracti128 $1, %%ymm0, %%xmm1\n\t"
			 "vpaddq %%xmm1, %%xmm0, %%xmm0\n\t"
			 "vpshufd $0x4e, %%xmm0, %%xmm1\n\t"
			 "vpaddq %%xmm1, %%xmm0, %%xmm0\n\t"
			 "vmovq %%xmm0, %[sum]"
			 : [sum] "=r"(sum), [p] "+r"(p), [n] "+r"(n)
			 :
			 : "memory", "cc");
	return sum;
}

/* Sum of @n 16-byte blocks as two 64-bit lanes, folded. */
static uint64_t sum_sse2(const void *p, uint64_t n)
{
	uint64_t sum;
	__asm__ volatile("pxor %%xmm0, %%xmm0\n\t"
			 "1: movdqu (%[p]), %%xmm1\n\t"
			 "paddq %%xmm1, %%xmm0\n\t"
			 "addq $16, %[p]\n\t"
			 "decq %[n]\n\t"
			 "jnz 1b\n\t"
			 "pshufd $0x4e, %%xmm0, %%xmm1\n\t"
			 "paddq %%xmm1, %%xmm0\n\t"
			 "movq %%xmm0, %[sum]"
			 : [sum] "=r"(sum), [p] "+r"(p), [n] "+r"(n)
			 :
			 : "memory", "cc");
	return sum;
}

uint64_t kfpu_csum(const void *buf, uint64_t bytes)
{
	uint64_t block = kfpu_uses_avx2() ? 32 : 16, n = bytes / block, sum = 0;

	kfpu_begin();
	if (n)
		sum = block == 32 ? sum_avx2(buf, n) : sum_sse2(buf, n);
	kfpu_end();
	/* The blocks end on a word boundary: the tail is whole words and padding. */
	return sum + csum64_ref((const char *)buf + n * block, bytes - n * block);
}

long sys_kernel_csum(uint64_t buf, uint64_t bytes, uint64_t impl)
{
	uint64_t lo = (uint64_t)__kernel_start, hi = boot_info.ram_end;
	if (bytes > CSUM_MAX_BYTES || buf < lo || buf > hi || bytes > hi - buf)
		return -1;
	if (impl == KCSUM_SCALAR)
		return (long)csum64_ref((const void *)buf, bytes);
	if (impl != KCSUM_SIMD)
		return -1;
	return (long)kfpu_csum((const void *)buf, bytes);
}

/* ---- the kernel thread ---- */

#define WORKER_WORDS 72

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void worker_section(struct kfpu_worker *w, uint64_t *rng)
{
	uint64_t buf[WORKER_WORDS];
	uint64_t bytes = xorshift(rng) % (sizeof(buf) + 1);

	for (unsigned int i = 0; i < WORKER_WORDS; i++)
		buf[i] = xorshift(rng);
	uint64_t want = csum64_ref(buf, bytes), got = kfpu_csum(buf, bytes);
	if (got != want) {
		struct integrity_report r = {
			.count = 1,
			.task = 0,
			.regset = REPORT_CSUM,
			.reg = w->id,
			.expected = want,
			.got = got,
		};
		exp_integrity_error(&r);
	}
}

/*
 * A section runs only when some other task waits for this CPU, so that it
 * lands between two tasks' slices. With nothing else to run the thread
 * leaves the registers alone (whatever a task that exited left there stays
 * for its successor to not see) and waits for an interrupt rather than
 * spin, which would slow the other vCPUs under TCG. Wakers IPI only idle
 * CPUs, so the wait may last until the next tick. Kernel code runs with
 * interrupts off: the sti windows also let flush and call IPIs in.
 */
void kfpu_worker_main(void *arg)
{
	struct kfpu_worker *w = arg;
	uint64_t rng = w->seed | 1;

	while (!READ_ONCE(*w->stop)) {
		if (READ_ONCE(this_cpu()->rq.nr)) {
			worker_section(w, &rng);
			irq_window();
		} else {
			__asm__ volatile("sti; hlt; cli" ::: "memory");
		}
		if (w->poll)
			w->poll();
		yield();
	}
	sem_up(w->done);
}

void kfpu_probe_scrub(struct x87_ptrs *out)
{
	*out = (struct x87_ptrs){ 0 };
	kfpu_begin();
	if (xstate_scrub_fxsave_leak()) {
		struct {
			uint16_t fcw, r0, fsw, r1, ftw, r2;
			uint32_t fip, fcs_fop, fdp, fds;
		} env; /* FNSTENV, 32-bit format */
		__asm__ volatile("fnstenv %0" : "=m"(env));
		*out = (struct x87_ptrs){ .fip = env.fip,
					  .fdp = env.fdp,
					  .fop = (uint16_t)((env.fcs_fop >> 16) & 0x7ff),
					  .valid = true };
		__asm__ volatile("fninit");
	}
	kfpu_end();
}
