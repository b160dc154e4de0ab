/* SPDX-License-Identifier: MIT */
/*
 * What entering the kernel and leaving it again costs here, the part of an
 * #NM trap user mode can time (docs/host.md "costs"):
 *  - syscall: a raw getppid, SYSCALL in and SYSRET out; an #NM enters
 *    through the IDT and leaves by IRET, which costs more, so this is a
 *    lower bound;
 *  - fault: a read of an anonymous page never written, just unmapped by
 *    MADV_DONTNEED: a #PF through the IDT, the kernel maps the shared zero
 *    page (no allocation, no copy, no I/O, no signal), IRET. The handler's
 *    page-table work is more than an #NM handler's dispatch, so this is an
 *    estimate from above;
 *  - umip: SMSW with CR4.UMIP set: a #GP, the kernel decodes and emulates
 *    the instruction (arch/x86/kernel/umip.c), IRET, no signal; the decode
 *    is extra work again. Only where the CPU has UMIP and Linux emulates it.
 * Each run times a batch between CLOCK_MONOTONIC readings; a first run
 * warms up and is discarded.
 */
#include <cpuid.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "fpulab/abi.h"
#include "common/util.h"
#include "host_costs.h"

#define SYSCALL_OPS 1000u /* getppid calls per run */
#define FAULT_PAGES 128u  /* pages faulted in per run */
#define UMIP_OPS 200u     /* SMSW per run */

static inline long raw_getppid(void)
{
	long ret = SYS_getppid;
	__asm__ volatile("syscall" : "+a"(ret) : : "rcx", "r11", "memory");
	return ret;
}

static void measure_syscall(struct host_cost *c, unsigned int repeat)
{
	double v[FPULAB_MAX_REPEAT];

	for (unsigned int r = 0; r <= repeat; r++) {
		uint64_t t0 = host_now_ns();
		for (unsigned int i = 0; i < SYSCALL_OPS; i++)
			raw_getppid();
		if (r)
			v[r - 1] = (double)(host_now_ns() - t0) / SYSCALL_OPS;
	}
	costs_sample(c, v, repeat, SYSCALL_OPS);
	snprintf(c->note, sizeof(c->note), "%u raw getppid per run", SYSCALL_OPS);
}

static long minor_faults(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_minflt;
}

/* One run: unmap, then read one byte of each page. ns per fault, or < 0 when not all faulted. */
static double fault_run(volatile const char *m, long *faults)
{
	long f0;
	uint64_t t0;

	if (madvise((void *)m, FAULT_PAGES * 4096ul, MADV_DONTNEED))
		return -1;
	f0 = minor_faults();
	t0 = host_now_ns();
	for (unsigned int i = 0; i < FAULT_PAGES; i++)
		(void)m[i * 4096ul];
	t0 = host_now_ns() - t0;
	*faults = minor_faults() - f0;
	return (double)t0 / FAULT_PAGES;
}

static void measure_fault(struct host_cost *c, unsigned int repeat)
{
	double v[FPULAB_MAX_REPEAT];
	unsigned int n = 0, short_runs = 0;
	char *m = mmap(NULL, FAULT_PAGES * 4096ul, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		snprintf(c->note, sizeof(c->note), "mmap: %s", strerror(errno));
		return;
	}
	/* one PTE per fault: no transparent huge page (the huge zero page) */
	madvise(m, FAULT_PAGES * 4096ul, MADV_NOHUGEPAGE);
	for (unsigned int r = 0; r <= repeat; r++) {
		long faults = 0;
		double ns = fault_run(m, &faults);
		if (ns < 0 || faults != FAULT_PAGES)
			short_runs += r > 0;
		else if (r)
			v[n++] = ns;
	}
	munmap(m, FAULT_PAGES * 4096ul);
	costs_sample(c, v, n, FAULT_PAGES);
	snprintf(c->note, sizeof(c->note),
		 "%u pages per run, each fault counted by getrusage(RUSAGE_THREAD); %u run%s "
		 "left out (not every read faulted)",
		 FAULT_PAGES, short_runs, plural(short_runs));
	if (!n)
		c->have = false;
}

static sigjmp_buf umip_jmp;

static void umip_segv(int sig)
{
	siglongjmp(umip_jmp, 1);
}

static inline void smsw(void)
{
	unsigned long msw;
	__asm__ volatile("smsw %0" : "=r"(msw) : : "memory");
}

/* Whether SMSW runs here without a signal: 1, 0 (SIGSEGV), -1 (no UMIP). */
static int umip_probe(void)
{
	struct sigaction sa = { .sa_handler = umip_segv }, old;
	unsigned int a, b, c, d;
	volatile int ok = 0;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(c & (1u << 2)))
		return -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);
	if (!sigsetjmp(umip_jmp, 1)) {
		smsw();
		ok = 1;
	}
	sigaction(SIGSEGV, &old, NULL);
	return ok;
}

static void measure_umip(struct host_cost *c, unsigned int repeat, double syscall_ns)
{
	double v[FPULAB_MAX_REPEAT];
	int p = umip_probe();

	if (p <= 0) {
		snprintf(c->note, sizeof(c->note), "%s",
			 p < 0 ? "no UMIP on this CPU (CPUID.7:ECX[2]): SMSW does not trap"
			       : "UMIP on and SMSW not emulated by this kernel (SIGSEGV)");
		return;
	}
	for (unsigned int r = 0; r <= repeat; r++) {
		uint64_t t0 = host_now_ns();
		for (unsigned int i = 0; i < UMIP_OPS; i++)
			smsw();
		if (r)
			v[r - 1] = (double)(host_now_ns() - t0) / UMIP_OPS;
	}
	costs_sample(c, v, repeat, UMIP_OPS);
	if (c->ns.median < syscall_ns / 2) {
		c->have = false;
		snprintf(c->note, sizeof(c->note),
			 "SMSW took %.1f ns, under half a syscall: it did not trap (CR4.UMIP "
			 "clear)",
			 c->ns.median);
		return;
	}
	snprintf(c->note, sizeof(c->note),
		 "%u SMSW per run; Linux logs \"umip: ... SMSW instruction cannot be used by "
		 "applications\" (rate-limited) to the kernel log",
		 UMIP_OPS);
}

void costs_trap_measure(struct host_costs *hc)
{
	measure_syscall(&hc->c[HOST_COST_SYSCALL], hc->repeat);
	measure_fault(&hc->c[HOST_COST_FAULT], hc->repeat);
	measure_umip(&hc->c[HOST_COST_UMIP], hc->repeat, hc->c[HOST_COST_SYSCALL].ns.median);
}
