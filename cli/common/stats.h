/* SPDX-License-Identifier: MIT */
/*
 * One median for every figure fpulab prints (docs/runner.md): of n values,
 * the lower middle one, (n - 1) / 2 in sorted order, so that for an even n
 * the median is a value that was measured (a real run), never the mean of
 * two. With it the min and max, and the sort orders qsort() takes.
 */
#ifndef FPULAB_CLI_COMMON_STATS_H
#define FPULAB_CLI_COMMON_STATS_H

#include <stddef.h>
#include <stdint.h>

/* median_index - the median's index among @n sorted values: (n - 1) / 2, the lower middle; 0 for none. */
static inline size_t median_index(size_t n)
{
	return n ? (n - 1) / 2 : 0;
}

/* cmp_double, cmp_u64 - qsort() orders: ascending doubles, ascending uint64_t. */
int cmp_double(const void *a, const void *b);
int cmp_u64(const void *a, const void *b);

/*
 * median - of the @n values at @x, sorted in place (ascending, so x[0] and
 * x[n - 1] are then the min and the max): x[median_index(n)]. NAN for none.
 */
double median(double *x, size_t n);

/* median_u64 - the same for @n uint64_t values at @x (sorted in place); 0 for none. */
uint64_t median_u64(uint64_t *x, size_t n);

/*
 * median_hist - the same for @n values counted by value: @h[v] of them
 * equal v, for v below @nbins (what a histogram of small integers holds,
 * in place of the values themselves). 0 for none.
 */
uint64_t median_hist(const uint32_t *h, size_t nbins, uint64_t n);

/* The median, min and max of n values: what every measured figure prints. */
struct stats_summary {
	double median, min, max;
	size_t n;
};

/* stats_summarise - median(), min and max of the @n values at @x (sorted in place); zeros for none. */
struct stats_summary stats_summarise(double *x, size_t n);

#endif
