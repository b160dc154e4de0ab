/* SPDX-License-Identifier: MIT */
/*
 * Helpers of `fpulab host`: which register sets this CPU and kernel offer,
 * register images with unique non-zero values, the asm runner that holds
 * them in the registers across raw syscalls (cli/host/host_regs.S), the check of
 * what came back, CPU pinning, clocks and summaries.
 */
#ifndef FPULAB_CLI_HOST_HOST_CPU_H
#define FPULAB_CLI_HOST_HOST_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Register sets, each including the ones before it (x87 < sse < avx < avx512). */
enum host_regset {
	HOST_REGSET_NONE,   /* no FP/vector register touched */
	HOST_REGSET_X87,    /* ST(0)-ST(7) */
	HOST_REGSET_SSE,    /* + XMM0-15 */
	HOST_REGSET_AVX,    /* + YMM0-15 (x87, XMM and the upper halves) */
	HOST_REGSET_AVX512, /* + ZMM0-31 and k0-k7 (instead of YMM) */
	HOST_REGSET_NR,
};
extern const char *const host_regset_names[]; /* "none", "x87", ...; NULL-terminated */

/*
 * A register image: the values the runner loads, or what it stored back.
 * st[i] holds ST(i) in its first 10 bytes; zmm[i] holds XMMi in bytes 0-15,
 * YMMi in 0-31, ZMMi in 0-63. Offsets are fixed: host_regs.S uses them.
 */
struct host_regs {
	uint8_t st[8][16];   /* offset 0 */
	uint8_t zmm[32][64]; /* offset 128 */
	uint64_t k[8];       /* offset 2176 */
	uint64_t xinuse;     /* offset 2240: XGETBV(1) read while the registers were loaded */
	uint8_t pad[56];
} __attribute__((aligned(64)));

/* One step of the runner, between loading and storing the registers. */
enum host_step_kind {
	HOST_STEP_END,        /* the list ends */
	HOST_STEP_SYSCALL,    /* raw syscall nr(arg0..arg3), retried on -EINTR; must return
			       * expect (HOST_EXPECT_NONNEG: any value >= 0) */
	HOST_STEP_STORE32,    /* *(uint32_t *)arg0 = arg1 */
	HOST_STEP_FUTEX_WAIT, /* while (*(uint32_t *)arg0 == arg1) futex(arg0, arg2, arg1, NULL) */
	HOST_STEP_SPIN,       /* arg0 PAUSE instructions */
};

#define HOST_EXPECT_NONNEG INT64_MIN

struct host_step {
	uint64_t kind; /* enum host_step_kind */
	uint64_t nr;
	uint64_t arg[4];
	int64_t expect;
};

struct host_run {
	uint64_t regset;               /* enum host_regset */
	struct host_regs *fill;        /* loaded before the steps */
	struct host_regs *dump;        /* stored after them, with xinuse */
	const struct host_step *steps; /* ends with HOST_STEP_END */
	int64_t sys_ret;               /* out: what the failing syscall returned */
	uint64_t xgetbv1;              /* read XINUSE (only where CPUID offers XGETBV(1)) */
};

/*
 * host_regs_run - in asm: load the registers of @r->regset from @r->fill,
 * run the steps (only raw syscalls, no compiled code), read XGETBV(1) into
 * @r->dump->xinuse (0 without xgetbv1), store the registers into @r->dump.
 * Returns 0, or 1 + the index of the syscall step that returned something
 * other than its expect (its value in @r->sys_ret). x87: FNINIT first, so
 * the FPU control word is the default. SDM Vol. 1 §13.6 (XINUSE).
 */
long host_regs_run(struct host_run *r);

/* The instructions between these labels run with every register of the set loaded. */
extern const char host_regs_window_start[], host_regs_window_end[];

/* What the host offers: CPUID, XCR0 (XGETBV(0)), XGETBV(1). */
struct host_cpu {
	bool regset_ok[HOST_REGSET_NR];
	const char *why_not[HOST_REGSET_NR]; /* reason a set is not offered */
	uint64_t xcr0;
	bool xgetbv1;
	bool hypervisor; /* CPUID.1:ECX[31]: this Linux is a guest, its timings a VM's */
	char model[128];
};

/* host_cpu_probe - fill @c from CPUID and XGETBV; never fails (x87 and SSE always exist). */
void host_cpu_probe(struct host_cpu *c);

/* host_regset_mask - the XCR0/XINUSE bits that @set puts in use (0x1, 0x3, 0x7, 0xe7). */
uint64_t host_regset_mask(enum host_regset set);

/* host_regs_fill - unique non-zero values for every register, from @seed (no two seeds alike). */
void host_regs_fill(struct host_regs *r, uint64_t seed);

/* A difference between an expected and a found image. */
struct host_mismatch {
	char reg[16];      /* "zmm17", "st3", "k5" */
	unsigned int lane; /* 8-byte lane of the register that differs first */
	uint64_t expected; /* that lane's expected and found values */
	uint64_t found;
	unsigned int nregs; /* registers that differ in all */
};

/*
 * host_regs_diff - compare the registers of @set in @want and @got. Returns
 * the number of registers that differ, with the first in @m (may be NULL).
 */
unsigned int host_regs_diff(enum host_regset set, const struct host_regs *want,
			    const struct host_regs *got, struct host_mismatch *m);

/*
 * host_pin - restrict thread @tid (0: the caller) to CPU @cpu. Returns 0, or
 * -1 with errno (EINVAL for a CPU outside the process's allowed set).
 */
int host_pin(int tid, int cpu);

/*
 * The most host CPUs the host commands read from this process's affinity mask
 * (not the lab's guest CPUs, FPULAB_MAX_CPUS).
 */
#define HOST_MAX_CPUS 1024

/* host_allowed_cpus - the CPUs this process may use, ascending, into @cpus[@max]; returns the count. */
int host_allowed_cpus(int *cpus, int max);

/* host_cpu_allowed - whether @cpu is in this process's affinity mask. */
bool host_cpu_allowed(int cpu);

/* host_now_ns - CLOCK_MONOTONIC in ns (real time, from the kernel's clocksource). */
uint64_t host_now_ns(void);

/* host_clocksource - the kernel's current clocksource ("tsc", "kvm-clock"), into @buf. */
const char *host_clocksource(char *buf, size_t len);

#endif
