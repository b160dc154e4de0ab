/* SPDX-License-Identifier: MIT */
/*
 * fpulab report's claims measured on a recorded Linux workload: the rows
 * `fpulab replay` writes for a trace imported from Linux (its policies at
 * the every-return bound, their *_evidence keys at the evidence bound, the
 * oracle's and Linux's own row; docs/linux-traces.md). Counts are exact
 * (replay's counts are the same in every run); times are medians of the
 * replay's runs with their min-max ranges.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/policy.h"
#include "common/result_file.h"
#include "common/util.h"
#include "report.h"
#include "summary.h"

#define LINUX_ROW RESULT_LINUX_ROW

/* A figure at both --fp-use bounds; have_* false where the rows lack it. */
struct bounds {
	bool have_hi, have_lo;
	double hi, lo; /* every-return (the upper bound), evidence (the lower) */
};

/* The row of @policy in the replay of @trace; NULL when it did not run. */
static json_t *row_of(json_t *rows, const char *trace, const char *policy)
{
	return report_find(rows, "replay", policy, "trace", trace, NULL, NULL, NULL, NULL);
}

static bool num(const json_t *row, const char *key, double *v)
{
	const json_t *j = json_object_get(row, key);

	if (json_is_number(j))
		*v = json_number_value(j);
	return json_is_number(j);
}

/* @key at the every-return bound and @key_evidence at the evidence bound; a trace imported
 * with --fp-use evidence holds the lower bound only, in @key. */
static struct bounds bounds_of(const json_t *row, const char *key)
{
	struct bounds b = { 0 };
	char *ev = xasprintf("%s_evidence", key);
	if (summary_linux_evidence_only(row)) {
		b.have_lo = num(row, key, &b.lo);
	} else {
		b.have_hi = num(row, key, &b.hi);
		b.have_lo = num(row, ev, &b.lo);
	}
	free(ev);
	return b;
}

/* "H .. L" of @b (a missing end is "?"), each with @fmt, scaled by @k. */
static void bounds_text(char *buf, size_t len, const struct bounds *b, const char *fmt, double k)
{
	char hi[32] = "?", lo[32] = "?";

	if (b->have_hi)
		snprintf(hi, sizeof(hi), fmt, b->hi * k);
	if (b->have_lo)
		snprintf(lo, sizeof(lo), fmt, b->lo * k);
	snprintf(buf, len, "%s .. %s", hi, lo);
}

/* The Linux row of the first recorded Linux workload in @rows, and its trace; or NULL. */
static json_t *linux_of(json_t *rows, const char **trace)
{
	json_t *lr = report_find(rows, "replay", LINUX_ROW, NULL, NULL, NULL, NULL, NULL, NULL);

	*trace = lr ? result_str(lr, "trace", "") : NULL;
	return lr;
}

static bool lossy(const json_t *lr)
{
	return json_is_true(json_object_get(lr, "linux_lossy"));
}

static const char *linux_source(const json_t *lr)
{
	return lossy(lr) ? "recorded Linux workload, lossy" : "recorded Linux workload";
}

/* What was recorded and how: the note's first part. */
static void context(char *buf, size_t len, const json_t *lr)
{
	double d = 0, lost = 0, resyncs = 0;

	num(lr, "linux_duration_ns", &d);
	num(lr, "linux_perf_lost", &lost);
	num(lr, "linux_resyncs", &resyncs);
	snprintf(buf, len, "workload %s, %.3f s recorded%s", result_str(lr, "workload", "?"),
		 d / 1e9, lossy(lr) ? "" : " (not lossy)");
	if (lossy(lr))
		snprintf(
			buf + strlen(buf), len - strlen(buf),
			", LOSSY: perf lost %.0f event%s, %.0f impossible sequence%s resynchronised",
			lost, plural((unsigned long long)lost), resyncs,
			plural((unsigned long long)resyncs));
}

/* No Linux replay in @rows: not measured (report.c's note says why, when it knows). */
static json_t *need_linux(json_t *rows, const char **trace, struct finding *f)
{
	json_t *lr = linux_of(rows, trace);

	if (!lr)
		report_not_measured(f, "needs a recorded Linux workload (%s)",
				    "--linux-trace FILE, or a compile the report records");
	return lr;
}

/* Per 1000 forks (processes and threads): *@per 0 with the reason in @why otherwise. */
static bool per_process(const json_t *lr, double *forks, char *why, size_t len)
{
	double execs = 0;

	if (!num(lr, "linux_forks", forks)) {
		snprintf(why, len,
			 "forks not counted (the trace was imported before they "
			 "were: import it again)");
		return false;
	}
	num(lr, "linux_execs", &execs);
	snprintf(why, len, "%.0f fork%s of user tasks (processes and threads); %.0f exec%s", *forks,
		 plural((unsigned long long)*forks), execs, plural((unsigned long long)execs));
	return *forks > 0;
}

/* Seed 002's #NM saved: @c->a's traps minus the baseline's, both bounds, per 1000 forks. */
void measure_linux_traps(const struct claim *c, json_t *rows, struct finding *f)
{
	const char *trace, *base = policy_baseline();
	json_t *lr = need_linux(rows, &trace, f);
	if (!lr)
		return;
	json_t *pa = row_of(rows, trace, c->a), *pe = row_of(rows, trace, base);
	struct bounds a = bounds_of(pa, "nm_traps"), e = bounds_of(pe, "nm_traps");
	if (!pa || !pe || !(a.have_hi || a.have_lo) || a.have_hi != e.have_hi ||
	    a.have_lo != e.have_lo) {
		report_not_measured(f, "the Linux replay lacks %s's or eager's #NM counts", c->a);
		return;
	}
	struct bounds s = { a.have_hi, a.have_lo, a.hi - e.hi, a.lo - e.lo };
	char at[48], ae[48], saved[48], per[48] = "", procs[120], ctx[240];
	double forks = 0;
	bounds_text(at, sizeof(at), &a, "%.0f", 1);
	bounds_text(ae, sizeof(ae), &e, "%.0f", 1);
	bounds_text(saved, sizeof(saved), &s, "%.0f", 1);
	if (per_process(lr, &forks, procs, sizeof(procs)))
		bounds_text(per, sizeof(per), &s, "%.0f", 1000 / forks);
	f->measured = true;
	f->value = s.have_hi ? s.hi : s.lo;
	f->unit = "#NM traps";
	f->source = linux_source(lr);
	if (*per)
		snprintf(f->figure, sizeof(f->figure),
			 "%s #NM saved (%s %s, %s %s; every-return .. evidence bound): %s per "
			 "1000 forks (%s); exact counts",
			 saved, c->a, at, base, ae, per, procs);
	else
		snprintf(f->figure, sizeof(f->figure),
			 "%s #NM saved (%s %s, %s %s; every-return .. evidence bound); per 1000 "
			 "forks: none, %s; exact counts",
			 saved, c->a, at, base, ae, procs);
	bool hi = !s.have_hi || s.hi > 0, lo = !s.have_lo || s.lo > 0;
	f->agrees = hi && lo ? "yes" : hi || lo ? "undecided" : "no";
	context(ctx, sizeof(ctx), lr);
	snprintf(
		f->note, sizeof(f->note),
		"%s%s; not the seed's whole kernel compile: compare "
		"the traps per 1000 forks",
		f->agrees[0] == 'u'
			? "the bounds disagree: the recording cannot tell which slices used the FPU; "
			: "",
		ctx);
}

/* -1, 0 or 1: @a's total cheaper than @b's beyond their min-max ranges, overlapping, costlier. */
static int beyond(const json_t *a, const json_t *b, const char *key)
{
	char *kmin = xasprintf("%s_min", key), *kmax = xasprintf("%s_max", key);
	double amin, amax, bmin, bmax;
	int r = 2; /* unknown */

	if (num(a, kmin, &amin) && num(a, kmax, &amax) && num(b, kmin, &bmin) &&
	    num(b, kmax, &bmax))
		r = amax < bmin ? -1 : amin > bmax ? 1 : 0;
	free(kmin);
	free(kmax);
	return r;
}

/* Each policy's FPU cost as a share of the workload's CPU time, both bounds; eager vs @c->a. */
void measure_linux_share(const struct claim *c, json_t *rows, struct finding *f)
{
	const char *trace,
		*pols[] = { policy_baseline(), c->a, c->b, policy_linux(), RESULT_ORACLE_ROW };
	json_t *lr = need_linux(rows, &trace, f);
	if (!lr)
		return;
	json_t *pe = row_of(rows, trace, pols[0]), *pa = row_of(rows, trace, c->a);
	struct bounds be = bounds_of(pe, "cpu_time_share");
	double busy = 0, runs = 0;
	size_t n = 0;
	if (pa && !be.have_hi && be.have_lo) {
		report_not_measured(f,
				    "the trace holds the evidence bound only (imported with "
				    "--fp-use %s), and the claim weighs both: import it with "
				    "every-return",
				    "evidence");
		return;
	}
	if (!pa || !be.have_hi || !num(lr, "linux_busy_ns", &busy)) {
		report_not_measured(f, "the Linux replay lacks %s's or eager's CPU-time share",
				    c->a);
		return;
	}
	num(pe, "repeats", &runs);
	for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]) && n < sizeof(f->figure); i++) {
		struct bounds b = bounds_of(row_of(rows, trace, pols[i]), "cpu_time_share");
		char t[64];
		bounds_text(t, sizeof(t), &b, "%.3f%%", 100);
		n += (size_t)snprintf(f->figure + n, sizeof(f->figure) - n, "%s%s %s",
				      i ? ", " : "", pols[i], t);
	}
	if (n < sizeof(f->figure))
		snprintf(f->figure + n, sizeof(f->figure) - n,
			 " of %.3f s of CPU time (every-return .. evidence bound; medians of %.0f "
			 "runs)",
			 busy / 1e9, runs);
	const int d[2] = { beyond(pe, pa, "ns_per_switch"),
			   beyond(pe, pa, "ns_per_switch_evidence") };
	bool cheaper = false, costlier = false, overlap = false;
	for (int i = 0; i < 2; i++) {
		cheaper |= d[i] == -1;
		costlier |= d[i] == 1;
		overlap |= d[i] == 0;
	}
	f->measured = true;
	f->value = round(be.hi * 1e5) / 1e3;
	f->unit = "% of CPU time";
	f->source = linux_source(lr);
	f->agrees = cheaper && costlier                  ? "undecided"
		    : overlap || (!cheaper && !costlier) ? "within noise"
		    : cheaper                            ? "yes"
							 : "no";
	char ctx[240], why[160] = "";
	context(ctx, sizeof(ctx), lr);
	if (!strcmp(f->agrees, "undecided"))
		snprintf(why, sizeof(why),
			 "%s is cheaper than %s at one bound, costlier at the other: the recording "
			 "cannot tell which slices used the FPU; ",
			 pols[0], c->a);
	else if (!strcmp(f->agrees, "within noise"))
		snprintf(why, sizeof(why), "the min-max ranges of %s and %s overlap at a bound; ",
			 pols[0], c->a);
	snprintf(f->note, sizeof(f->note), "%s%s", why, ctx);
}

/* Linux's saves and restores, deferred's beside them (within the tolerance, and what the
 * causes replay prints leave unexplained), the oracle's. */
void measure_linux_work(const struct claim *c, json_t *rows, struct finding *f)
{
	const char *trace;
	json_t *lr = need_linux(rows, &trace, f);
	if (!lr)
		return;
	json_t *pd = row_of(rows, trace, policy_linux()),
	       *po = row_of(rows, trace, RESULT_ORACLE_ROW);
	double ls, lrs, ds, drs, win = 0, frames = 0, ends = 0;
	if (!pd || !po || !num(lr, "saves", &ls) || !num(lr, "restores", &lrs) ||
	    !num(pd, "saves", &ds) || !num(pd, "restores", &drs)) {
		report_not_measured(f, "the Linux replay lacks %s's or the oracle's rows",
				    policy_linux());
		return;
	}
	bool causes = num(lr, "linux_window_loads", &win) &&
		      num(lr, "linux_sigframe_loads", &frames);
	if (!num(lr, "linux_end_loads", &ends)) /* (result files before it was counted) */
		ends = 0;
	double other = lrs > 0 ? summary_linux_other_loads(lr, drs) / lrs : 0; /* replay's */
	struct bounds os = bounds_of(po, "saves"), orr = bounds_of(po, "restores");
	char s[48], r[48], ctx[240], why[160] = "";
	double diff = lrs > 0 ? (drs - lrs) / lrs : 0;
	bool within = fabs(diff) <= LINUX_LOADS_TOLERANCE;
	bounds_text(s, sizeof(s), &os, "%.0f", 1);
	bounds_text(r, sizeof(r), &orr, "%.0f", 1);
	char end[48] = "";
	if (ends > 0)
		snprintf(end, sizeof(end), ", recording's end -%.0f", ends);
	if (causes)
		snprintf(why, sizeof(why),
			 "; by cause: window start %+.0f, signal frames -%.0f%s, other %+.0f (%s "
			 "%.0f%%)",
			 win, frames, end, other * lrs,
			 fabs(other) <= LINUX_LOADS_TOLERANCE ? "within" : "NOT within",
			 100 * LINUX_LOADS_TOLERANCE);
	f->measured = true;
	f->value = round(diff * 1e4) / 1e2;
	f->unit = "%";
	f->source = linux_source(lr);
	snprintf(f->figure, sizeof(f->figure),
		 "Linux %.0f saves, %.0f restores; %s %.0f, %.0f (restores %+.2f%%, %s %.0f%%%s); "
		 "oracle %s saves, %s restores (every-return .. evidence bound); exact counts",
		 ls, lrs, policy_linux(), ds, drs, 100 * diff, within ? "within" : "NOT within",
		 100 * LINUX_LOADS_TOLERANCE, why, s, r);
	/* the signal frames are Linux's own extra loads (it XSAVEs the frame from the registers;
	 * libfpu copies from memory): agreement is on what the known causes leave */
	f->agrees = fabs(causes ? other : diff) <= LINUX_LOADS_TOLERANCE ? "yes" : "no";
	context(ctx, sizeof(ctx), lr);
	snprintf(f->note, sizeof(f->note),
		 "%s%s; `fpulab replay` of the trace prints the "
		 "difference by cause",
		 !within && causes ? "the signal frames and the window "
				     "start explain the difference (yes on what they leave); "
				   : "",
		 ctx);
}
