/* SPDX-License-Identifier: MIT */
/* The TSC's rate against CLOCK_MONOTONIC (tsc.h). */
#include <time.h>

#include "stats.h"
#include "tsc.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double tsc_per_ns(void)
{
	double r[5];

	for (int i = 0; i < 5; i++) {
		struct timespec d = { 0, 20 * 1000 * 1000 };
		double t0 = now_ns();
		uint64_t c0 = tsc_begin();
		nanosleep(&d, NULL);
		double t1 = now_ns();
		uint64_t c1 = tsc_end();
		r[i] = (double)(c1 - c0) / (t1 - t0);
	}
	return median(r, 5);
}
