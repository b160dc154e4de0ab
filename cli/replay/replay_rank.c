/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's statistics: the median, policies paired run by run (with an
 * interval of the median), and the break-even trap cost of eager against a lazy policy.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/abi.h"
#include "replay.h"
#include "common/policy.h"
#include "common/stats.h"
#include "common/util.h"

struct break_even break_even(const struct prow *rows, int n, int other, double cr0, double ipi)
{
	const struct prow *e = NULL, *l = &rows[other];
	struct break_even b = { .baseline = policy_baseline(), .other = l->policy };

	for (int i = 0; i < n; i++)
		if (policy_is_baseline(rows[i].policy))
			e = &rows[i];
	if (!e || !policy_has_break_even(l->policy) || !e->n.switches)
		return b;
	double sw = (double)e->n.switches;
	b.switches = e->n.switches;
	double rest = ((e->native_med - e->residue) - (l->native_med - l->residue)) +
		      cr0 * ((double)e->n.ts_writes - (double)l->n.ts_writes) / sw +
		      ipi * ((double)e->n.flush_ipis - (double)l->n.flush_ipis) / sw;
	b.have = true;
	b.traps = ((double)l->n.nm_traps - (double)e->n.nm_traps) / sw;
	b.none = b.traps <= 0;
	b.eager_wins = rest < 0;
	b.ns = b.none ? 0 : rest / b.traps;
	/* eager's slowest run against the other's fastest, and the other way round */
	double spread_hi = (e->native_max - e->native_med) + (l->native_med - l->native_min),
	       spread_lo = (e->native_med - e->native_min) + (l->native_max - l->native_med);
	b.ns_min = b.none ? 0 : (rest - spread_lo) / b.traps;
	b.ns_max = b.none ? 0 : (rest + spread_hi) / b.traps;
	return b;
}

char *break_even_text(const struct break_even *b)
{
	if (b->none)
		return xasprintf("none: %s takes no more traps than %s; %s %s at any trap cost",
				 b->other, b->baseline, b->baseline,
				 b->eager_wins ? "wins" : "loses");
	if (b->ns < 0)
		return xasprintf("%.1f ns per trap: negative, %s wins at any trap cost (%.3f "
				 "traps per switch)",
				 b->ns, b->baseline, b->traps);
	return xasprintf("%.1f ns per trap: %s wins above it (%.3f more traps per switch "
			 "under %s)",
			 b->ns, b->baseline, b->traps, b->other);
}

/*
 * A distribution-free interval of the median of @n sorted @x: the k-th
 * least to the k-th greatest, which holds the median with probability
 * 1 - 2 P(Binomial(n, 1/2) < k); the narrowest with at least 90%. None
 * (conf 0) for fewer than 5 runs. P(Bin = 0) = 2^-n is a normal double for
 * n up to 1022, so for every --repeat (at most FPULAB_MAX_REPEAT).
 */
_Static_assert(FPULAB_MAX_REPEAT <= 1022, "2^-repeat must be a normal double");
static void median_interval(const double *x, unsigned long n, struct paired *q)
{
	double pk = ldexp(1, -(int)fmin((double)n, FPULAB_MAX_REPEAT)), cdf = 0; /* P(Bin = 0) */
	q->conf = 0;
	for (unsigned long k = 1; 2 * k <= n && n <= FPULAB_MAX_REPEAT; k++) {
		cdf += pk; /* P(Bin < k) */
		if (1 - 2 * cdf < 0.9)
			break;
		q->conf = 1 - 2 * cdf;
		q->lo = x[k - 1];
		q->hi = x[n - k];
		pk = pk * (double)(n - k + 1) / (double)k; /* P(Bin = k) */
	}
}

/* One run's total, ns per switch: its native figure less @w's residue, plus @w's params. */
static double run_total(const struct replay_result *r, const struct prow *w, double tpn)
{
	return (double)r->ticks / tpn / (double)(r->n.switches ? r->n.switches : 1) - w->residue +
	       w->assumed;
}

/*
 * Run k of @a's totals over run k of @b's (the runs of a round are
 * interleaved, so run k of each shares the host's conditions): median, min,
 * max of the @repeat ratios. @samples has room for @repeat values.
 */
struct paired pair_runs(const struct replay_result *a, const struct prow *wa,
			const struct replay_result *b, const struct prow *wb, unsigned long repeat,
			double tpn, double *samples)
{
	struct paired q = { NAN, NAN, NAN, 0, NAN, NAN, 0 };
	for (unsigned long k = 0; k < repeat; k++) {
		double x = run_total(&a[k], wa, tpn), y = run_total(&b[k], wb, tpn);
		if (y > 0 && isfinite(x))
			samples[q.n++] = x / y;
	}
	if (!q.n)
		return q;
	q.med = median(samples, q.n);
	q.min = samples[0];
	q.max = samples[q.n - 1];
	median_interval(samples, q.n, &q);
	return q;
}
