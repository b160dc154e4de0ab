/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's targets over every trace (issue 12): adaptive against the
 * best static policy and the oracle.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay.h"
#include "common/result_file.h"
#include "common/stats.h"
#include "common/util.h"

static void worst(double x, const char *trace, double *w, const char **wt)
{
	if (x > *w) {
		*w = x;
		if (wt)
			*wt = trace;
	}
}

/* Adaptive's priced cost over the best static policy's (1 where both are 0). */
static double priced_ratio(const struct target_input *in)
{
	return in->best_priced > 0 ? in->adaptive_priced / in->best_priced
				   : (in->adaptive_priced > 0 ? INFINITY : 1);
}

/* By counts alone (exact, no timing). */
static void targets_add_priced(struct targets *tg, const struct target_input *in)
{
	double rp = priced_ratio(in);
	double *r = realloc(tg->priced_ratio, (tg->priced_traces + 1) * sizeof(*r));

	if (!r)
		return;
	tg->priced_ratio = r;
	r[tg->priced_traces++] = rp;
	tg->near_best_priced += rp <= 1.02;
	worst(rp, in->trace, &tg->worst_best_priced, &tg->worst_priced_trace);
	/* Whole-trace ns: where 2% of the best is less than one trap, one decision decides. */
	double sw = (double)in->switches;
	tg->trap_ns = in->trap_ns;
	tg->priced_within_trap += 0.02 * in->best_priced * sw < in->trap_ns;
	tg->priced_over_by_trap += rp > 1.02 &&
				   (in->adaptive_priced - in->best_priced) * sw < in->trap_ns;
	if (in->oracle > 0 && in->best_priced <= 1.15 * in->oracle) {
		tg->priced_oracle_cases++;
		tg->priced_oracle_met += in->adaptive_priced <= 1.15 * in->oracle;
		worst(in->adaptive_priced / in->oracle, in->trace, &tg->worst_priced_oracle,
		      &tg->worst_priced_oracle_trace);
	}
}

/*
 * A trace of a handful of switches, apart from the targets: its timings say
 * nothing, and by counts it is mostly adaptive's first, watched slices.
 */
static void targets_add_short(struct targets *tg, const struct target_input *in)
{
	tg->short_traces++;
	if (!isfinite(in->best_priced))
		return;
	double rp = priced_ratio(in);
	tg->short_priced++;
	tg->short_near_best_priced += rp <= 1.02;
	worst(rp, in->trace, &tg->short_worst_priced, &tg->short_worst_priced_trace);
}

void targets_add(struct targets *tg, const struct target_input *in)
{
	if (in->switches < REPLAY_MIN_SWITCHES) {
		targets_add_short(tg, in);
		return;
	}
	if (isfinite(in->best_priced))
		targets_add_priced(tg, in);
	if (!isfinite(in->best) || in->best <= 0 || !isfinite(in->best_priced) || !in->vs_best.n)
		return;
	double rb = in->vs_best.med;
	tg->traces++;
	tg->near_best += rb <= 1.02;
	if (in->vs_best.conf > 0) {
		if (!tg->with_interval || in->vs_best.conf < tg->conf_min)
			tg->conf_min = in->vs_best.conf;
		tg->with_interval++;
		tg->interval_below += in->vs_best.hi <= 1.02;
		tg->interval_above += in->vs_best.lo > 1.02;
	}
	if (in->control.n) {
		double dev = fabs(in->control.med - 1);
		if (!tg->controls || in->control.med < tg->control_lo)
			tg->control_lo = in->control.med;
		if (!tg->controls || in->control.med > tg->control_hi)
			tg->control_hi = in->control.med;
		double *d = realloc(tg->control_dev, (tg->controls + 1) * sizeof(*d));
		if (d) {
			tg->control_dev = d;
			d[tg->controls++] = dev;
		}
		tg->control_over_2pc += dev > 0.02;
		tg->undecided += fabs(rb - 1.02) <= dev;
	}
	worst(rb, in->trace, &tg->worst_best, &tg->worst_best_trace);
	worst(in->adaptive - in->best, in->trace, &tg->worst_gap, &tg->worst_gap_trace);
	if (in->oracle <= 0 || in->oracle_work <= 0)
		return;
	double ro = in->adaptive / in->oracle, rw = in->work / in->oracle_work;
	tg->with_oracle++;
	tg->near_oracle_work += rw <= 1.15;
	worst(rw, in->trace, &tg->worst_oracle_work, NULL);
	tg->near_oracle += ro <= 1.15;
	worst(ro, in->trace, &tg->worst_oracle, &tg->worst_oracle_trace);
}

void targets_print(struct output *out, const struct targets *tg, unsigned long repeat)
{
	if (tg->traces) {
		char gap[512] = "none: adaptive's is at or below the best static's on every trace";
		if (tg->worst_gap_trace)
			snprintf(gap, sizeof(gap), "%.1f ns per switch: %s", tg->worst_gap,
				 tg->worst_gap_trace);
		output_comment(out,
			       "targets over %u trace%s (totals in ns per switch: native less the "
			       "timing residue, plus the per-event costs; adaptive's total over "
			       "the best static policy's, run k against run k, median of %lu "
			       "paired run%s): adaptive within 1.02x of the best static policy on "
			       "%u (worst %.3fx: %s; largest gap of the median totals %s)",
			       tg->traces, plural(tg->traces), repeat, plural(repeat),
			       tg->near_best, tg->worst_best, tg->worst_best_trace, gap);
		if (tg->with_interval)
			output_comment(
				out,
				"targets: adaptive / best static, the interval of the median of its "
				"paired runs (k-th least to k-th greatest of %lu, at least %.1f%% "
				"confidence) at or below 1.02x on %u of %u trace%s, above 1.02x on "
				"%u, across 1.02x (not resolved) on %u",
				repeat, 100 * tg->conf_min, tg->interval_below, tg->with_interval,
				plural(tg->with_interval), tg->interval_above,
				tg->with_interval - tg->interval_below - tg->interval_above);
		if (tg->controls) {
			double dev_med = median(tg->control_dev, tg->controls);
			output_comment(
				out,
				"targets: resolution: on each trace the static policy best by "
				"counts replayed again after every round, against itself paired by "
				"run (median of %lu run%s): from %.3fx to %.3fx over %u trace%s "
				"(median deviation from 1x %.1f%%, largest %.1f%%; over 2%% on %u); "
				"adaptive's median is nearer 1.02x than that trace's deviation, "
				"so its verdict is not resolved, on %u",
				repeat, plural(repeat), tg->control_lo, tg->control_hi,
				tg->controls, plural(tg->controls), 100 * dev_med,
				100 * tg->control_dev[tg->controls - 1], tg->control_over_2pc,
				tg->undecided);
		}
	}
	if (tg->priced_traces) {
		output_comment(out,
			       "targets: by counts alone (saves and restores at the batch costs "
			       "plus the per-event costs: its decisions without its bookkeeping), "
			       "adaptive within 1.02x of the best static policy on %u of %u "
			       "(median %.3fx, worst %.3fx: %s)",
			       tg->near_best_priced, tg->priced_traces,
			       median(tg->priced_ratio, tg->priced_traces), tg->worst_best_priced,
			       tg->worst_priced_trace);
		output_comment(
			out,
			"targets: by counts alone, 2%% of the best static policy's total over "
			"the whole trace is less than one #NM trap (%.1f ns) on %u of the %u "
			"(one trap more than the best puts adaptive past 1.02x there); over "
			"1.02x by less than one trap over the whole trace: %u of the %u over",
			tg->trap_ns, tg->priced_within_trap, tg->priced_traces,
			tg->priced_over_by_trap, tg->priced_traces - tg->near_best_priced);
		if (tg->priced_oracle_cases)
			output_comment(out,
				       "targets: by counts alone, where a static policy is within "
				       "1.15x of the oracle (%u trace%s), adaptive is too on %u "
				       "(worst %.3fx of the oracle: %s)",
				       tg->priced_oracle_cases, plural(tg->priced_oracle_cases),
				       tg->priced_oracle_met, tg->worst_priced_oracle,
				       tg->worst_priced_oracle_trace);
	}
	if (tg->with_oracle)
		output_comment(
			out,
			"targets: adaptive within 1.15x of the oracle on %u of the %u trace%s "
			"where the oracle does any work (worst %.2fx: %s); in work (saves + "
			"restores) on %u (worst %.2fx)",
			tg->near_oracle, tg->with_oracle, plural(tg->with_oracle), tg->worst_oracle,
			tg->worst_oracle_trace, tg->near_oracle_work, tg->worst_oracle_work);
	if (tg->short_traces) {
		char judged[512] = "no static policy among --policy to judge them by";
		if (tg->short_priced)
			snprintf(judged, sizeof(judged),
				 "by counts alone adaptive is within 1.02x of the best static "
				 "policy on %u of %u of them (worst %.3fx: %s), where its first, "
				 "watched slices are most of what it does",
				 tg->short_near_best_priced, tg->short_priced,
				 tg->short_worst_priced, tg->short_worst_priced_trace);
		output_comment(out,
			       "targets: %u trace%s of fewer than %d switches left out%s "
			       "(timings of a handful of switches say nothing); %s",
			       tg->short_traces, plural(tg->short_traces), REPLAY_MIN_SWITCHES,
			       tg->traces ? " of the targets above" : "", judged);
	}
}
