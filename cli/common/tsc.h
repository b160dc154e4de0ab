/* SPDX-License-Identifier: MIT */
/*
 * The TSC, read from user mode: a timed region opens with tsc_begin()
 * (LFENCE; RDTSC; LFENCE: earlier work done, later work not started) and
 * closes with tsc_end() (RDTSCP; LFENCE: the region's work done first), as
 * Intel's "How to Benchmark Code Execution Times" white paper does it.
 */
#ifndef FPULAB_CLI_COMMON_TSC_H
#define FPULAB_CLI_COMMON_TSC_H

#include <stdint.h>

/* tsc_begin - TSC ticks at the start of a timed region. */
static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* tsc_end - TSC ticks at the end of a timed region. */
static inline uint64_t tsc_end(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * tsc_per_ns - TSC ticks per ns of CLOCK_MONOTONIC: the median (stats.h)
 * of 5 windows of 20 ms (about 100 ms). Measured on this host, not read
 * from CPUID.
 */
double tsc_per_ns(void);

#endif
