/* SPDX-License-Identifier: MIT */
/*
 * fpulab summary's section for a recorded Linux workload: the rows `fpulab
 * replay` writes for a trace imported from Linux (docs/linux-traces.md).
 * Per trace: what was recorded, Linux's own saves and restores beside
 * deferred's and the oracle's, and each policy's #NM traps (also per 1000
 * forks: processes and threads) and FPU cost as a share of the workload's
 * CPU time at both --fp-use bounds, and the cheapest policy at each.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fpu/fpu.h>

#include "common/policy.h"
#include "common/result_file.h"
#include "common/util.h"
#include "summary.h"

#define LINUX_ROW RESULT_LINUX_ROW

bool summary_linux_row(const json_t *row)
{
	return json_is_string(json_object_get(row, "linux_fp_use")) ||
	       !strcmp(result_str(row, "source", ""), "recorded Linux workload");
}

static double number(const json_t *row, const char *key)
{
	const json_t *v = json_object_get(row, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const json_t *row_of(json_t *rows, const char *trace, const char *policy)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		if (!strcmp(result_str(row, "experiment", ""), "replay") &&
		    !strcmp(result_str(row, "trace", ""), trace) &&
		    !strcmp(result_str(row, "policy", ""), policy))
			return row;
	}
	return NULL;
}

/* The runs a policy row of @trace summarises (the oracle's and Linux's are one each); NAN if none. */
static double policy_runs(json_t *rows, const char *trace)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		const char *p = result_str(row, "policy", "");
		if (!strcmp(result_str(row, "experiment", ""), "replay") &&
		    !strcmp(result_str(row, "trace", ""), trace) && strcmp(p, RESULT_ORACLE_ROW) &&
		    strcmp(p, LINUX_ROW) && json_is_number(json_object_get(row, "repeats")))
			return json_number_value(json_object_get(row, "repeats"));
	}
	return NAN;
}

bool summary_linux_evidence_only(const json_t *row)
{
	return !strcmp(result_str(row, "linux_fp_use", ""), "evidence");
}

double summary_linux_other_loads(const json_t *lr, double deferred_restores)
{
	double win = number(lr, "linux_window_loads"), fr = number(lr, "linux_sigframe_loads"),
	       ends = number(lr, "linux_end_loads");

	if (!isfinite(win) || !isfinite(fr))
		return NAN;
	return deferred_restores - number(lr, "restores") - win + fr + (isfinite(ends) ? ends : 0);
}

/* "H .. L" of @key and @key_evidence in @row, scaled by @k; "-" for a missing end. */
static void both(char *buf, size_t len, const json_t *row, const char *key, const char *fmt,
		 double k)
{
	char ev[64], hi[32] = "-", lo[32] = "-";
	double h = number(row, key), l;

	snprintf(ev, sizeof(ev), "%s_evidence", key);
	l = number(row, ev);
	if (summary_linux_evidence_only(row)) {
		l = h;
		h = NAN;
	}
	if (isfinite(h))
		snprintf(hi, sizeof(hi), fmt, h * k);
	if (isfinite(l))
		snprintf(lo, sizeof(lo), fmt, l * k);
	snprintf(buf, len, "%s .. %s", hi, lo);
}

/* "every policy", or the policies @rows replayed @trace under ("lazy, deferred"): malloc'ed. */
static char *replayed_under(json_t *rows, const char *trace)
{
	char *names = xstrdup("");
	bool all = true;

	for (const char *const *p = fpu_policy_names(); *p; p++) {
		if (!row_of(rows, trace, *p)) {
			all = false;
			continue;
		}
		char *next = xasprintf("%s%s%s", names, *names ? ", " : "", *p);
		free(names);
		names = next;
	}
	if (all || !*names) {
		free(names);
		return xstrdup(all ? "every policy" : "no policy");
	}
	return names;
}

/* The recording and Linux's own counts beside deferred's and the oracle's. */
static void linux_head(FILE *out, json_t *rows, const json_t *lr, const char *trace)
{
	const json_t *d = row_of(rows, trace, policy_linux()),
		     *o = row_of(rows, trace, RESULT_ORACLE_ROW);
	double forks = number(lr, "linux_forks"), la = number(lr, "restores");
	char procs[80] = "forks not counted", os[48], orr[48];

	if (isfinite(forks))
		snprintf(procs, sizeof(procs), "%.0f fork%s (processes and threads), %.0f exec%s",
			 forks, forks == 1 ? "" : "s", number(lr, "linux_execs"),
			 number(lr, "linux_execs") == 1 ? "" : "s");
	char *under = replayed_under(rows, trace);
	fprintf(out,
		"linux: a recorded Linux workload replayed under %s (%s): %s, %.3f s "
		"on %.0f CPUs, %.0f switches, %s%s",
		under, trace, result_str(lr, "workload", "-"),
		number(lr, "linux_duration_ns") / 1e9, number(lr, "cpus"), number(lr, "switches"),
		procs, json_is_true(json_object_get(lr, "linux_lossy")) ? ", LOSSY" : "");
	free(under);
	if (json_is_true(json_object_get(lr, "linux_lossy"))) {
		double lost = number(lr, "linux_perf_lost"), resyncs = number(lr, "linux_resyncs");
		fprintf(out, " (perf lost %.0f event%s, %.0f resync%s)", lost, lost == 1 ? "" : "s",
			resyncs, resyncs == 1 ? "" : "s");
	}
	double runs = policy_runs(rows, trace);
	fprintf(out, "; #NM counts exact, times medians of %.0f run%s\n", runs,
		runs == 1 ? "" : "s");
	both(os, sizeof(os), o, "saves", "%.0f", 1);
	both(orr, sizeof(orr), o, "restores", "%.0f", 1);
	fprintf(out, "  Linux's own: %.0f saves, %.0f restores", number(lr, "saves"), la);
	if (d) {
		double diff = la > 0 ? (number(d, "restores") - la) / la : NAN;
		double other = summary_linux_other_loads(lr, number(d, "restores")),
		       ends = number(lr, "linux_end_loads");
		fprintf(out, "; %s %.0f, %.0f (restores %+.2f%% of Linux's", policy_linux(),
			number(d, "saves"), number(d, "restores"), 100 * diff);
		if (isfinite(other)) {
			/* the signal frames are Linux's own loads (it XSAVEs the frame from the
			 * registers): agreement is on what the causes leave, as the report's */
			fprintf(out, "; window start %+.0f, signal frames -%.0f",
				number(lr, "linux_window_loads"),
				number(lr, "linux_sigframe_loads"));
			if (ends > 0)
				fprintf(out, ", recording's end -%.0f", ends);
			fprintf(out, ", other %+.0f: that is %s %.0f%%", other,
				fabs(other / la) <= LINUX_LOADS_TOLERANCE ? "within" : "NOT within",
				100 * LINUX_LOADS_TOLERANCE);
		} else {
			fprintf(out, ": %s %.0f%%",
				fabs(diff) <= LINUX_LOADS_TOLERANCE ? "within" : "NOT within",
				100 * LINUX_LOADS_TOLERANCE);
		}
		fprintf(out, ")");
	}
	if (o)
		fprintf(out, "; oracle %s saves, %s restores", os, orr);
	fprintf(out, " (every-return .. evidence bound)\n");
}

/* One policy's line: its #NM, per 1000 forks, its share of the CPU time. */
static void linux_policy(FILE *out, const json_t *row, double forks)
{
	char nm[48] = "-", per[48] = "-", share[48];

	if (isfinite(number(row, "nm_traps")) || isfinite(number(row, "nm_traps_evidence")))
		both(nm, sizeof(nm), row, "nm_traps", "%.0f", 1);
	if (forks > 0 && strcmp(nm, "-"))
		both(per, sizeof(per), row, "nm_traps", "%.0f", 1000 / forks);
	both(share, sizeof(share), row, "cpu_time_share", "%.3f%%", 100);
	fprintf(out, "  %-16s %-24s %-24s %s\n", result_str(row, "policy", "-"), nm, per, share);
}

/* A row's total ns per switch at the every-return bound (its median) or the evidence bound;
 * NAN where the trace lacks that bound. */
static double total_at(const json_t *row, bool evidence)
{
	double v;

	if (summary_linux_evidence_only(row) != evidence)
		return evidence ? number(row, "ns_per_switch_evidence") : NAN;
	return result_stat(row, "ns_per_switch", RESULT_MEDIAN, &v) ? v : NAN;
}

/* The cheapest row at a bound (a policy, not the oracle or Linux's row) of @trace. */
static const char *cheapest(json_t *rows, const char *trace, bool evidence)
{
	const char *best = "-";
	double bv = INFINITY;
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		const char *p = result_str(row, "policy", "");
		if (strcmp(result_str(row, "trace", ""), trace) || !strcmp(p, RESULT_ORACLE_ROW) ||
		    !strcmp(p, LINUX_ROW) || !(total_at(row, evidence) < bv))
			continue;
		bv = total_at(row, evidence);
		best = p;
	}
	return best;
}

static void summarise_trace(FILE *out, json_t *rows, const json_t *lr)
{
	const char *trace = result_str(lr, "trace", "-");
	double forks = number(lr, "linux_forks");
	size_t i;
	json_t *row;

	linux_head(out, rows, lr, trace);
	fprintf(out, "  every-return .. evidence bound:\n");
	fprintf(out, "  %-16s %-24s %-24s %s\n", "policy", "#NM traps", "per 1000 forks",
		"FPU cost, share of the CPU time");
	json_array_foreach(rows, i, row)
	{
		if (!strcmp(result_str(row, "trace", ""), trace) &&
		    strcmp(result_str(row, "policy", ""), LINUX_ROW))
			linux_policy(out, row, forks);
	}
	const char *hi = cheapest(rows, trace, false), *lo = cheapest(rows, trace, true);
	fprintf(out, "  cheapest (total ns per switch): %s at every-return, %s at evidence: %s\n",
		hi, lo,
		summary_linux_evidence_only(lr) ? "the trace holds the evidence bound only"
		: !strcmp(hi, lo)               ? "the same at both bounds"
						: "the bounds disagree (undecided)");
}

void summarise_linux(FILE *out, json_t *rows)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		if (!strcmp(result_str(row, "experiment", ""), "replay") &&
		    !strcmp(result_str(row, "policy", ""), LINUX_ROW))
			summarise_trace(out, rows, row);
	}
}
