/* SPDX-License-Identifier: MIT */
/* The median, min and max (stats.h): one definition of the median for the whole tree. */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

double median(double *x, size_t n)
{
	if (!n)
		return NAN;
	qsort(x, n, sizeof(*x), cmp_double);
	return x[median_index(n)];
}

uint64_t median_u64(uint64_t *x, size_t n)
{
	if (!n)
		return 0;
	qsort(x, n, sizeof(*x), cmp_u64);
	return x[median_index(n)];
}

uint64_t median_hist(const uint32_t *h, size_t nbins, uint64_t n)
{
	uint64_t below = 0, v = 0;

	if (!n)
		return 0;
	while (v + 1 < nbins && below + h[v] <= median_index(n))
		below += h[v++];
	return v;
}

struct stats_summary stats_summarise(double *x, size_t n)
{
	struct stats_summary s = { 0, 0, 0, n };

	if (!n)
		return s;
	s.median = median(x, n);
	s.min = x[0];
	s.max = x[n - 1];
	return s;
}
