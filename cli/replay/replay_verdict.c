/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's verdicts against this host's trap range, and the sweep:
 * each policy's total per switch as one per-event cost (--sweep trap=LO..HI,
 * ipi=LO..HI) moves, the other costs as charged. A total is linear in each
 * cost, native median - residue + (traps x trap + TS writes x CR0 + IPIs x
 * IPI) / switches, the figures break_even() solves, so the sweep's crossing
 * of eager and lazy is the break-even trap cost (docs/model.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plot.h"
#include "common/policy.h"
#include "common/util.h"
#include "host/host_costs.h"
#include "replay.h"
#include "common/result_file.h"

/*
 * The range's low end over its runs is the lower bound's fastest run: a
 * trap costs at least that much. Its high end stays the estimate's median:
 * the estimate (an emulated instruction, a fault) already does more than an
 * #NM does, and its slowest runs are the scheduler's (one of 11 UMIP runs
 * read 15,323 ns here against a median of 438).
 */
enum verdict verdict_of(const struct opts *o, const struct break_even *b, char *text, size_t len)
{
	const char *base = b->baseline, *other = b->other;
	double lo = o->trap_lo, hi = o->trap_hi, lo_min = o->trap_lo_min;

	*text = 0;
	if (!b->have)
		return VERDICT_NONE;
	if (b->switches < REPLAY_MIN_SWITCHES) { /* as the targets leave them out */
		snprintf(text, len,
			 "not decided: %llu switches, fewer than %d (timings of a handful of "
			 "switches say nothing)",
			 (unsigned long long)b->switches, REPLAY_MIN_SWITCHES);
		return VERDICT_NONE;
	}
	if (b->none) {
		snprintf(text, len, "decided: %s beats %s here at any trap cost",
			 b->eager_wins ? base : other, b->eager_wins ? other : base);
		return b->eager_wins ? VERDICT_BASELINE : VERDICT_OTHER;
	}
	if (!o->have_range) {
		snprintf(text, len, "no measured trap range to decide over");
		return VERDICT_NONE;
	}
	if (b->ns_max < lo_min) {
		snprintf(text, len,
			 "decided: %s beats %s here (break-even %.1f ns, %.1f to %.1f over the "
			 "runs' ranges, below this host's trap range %.1f-%.1f ns, its lower "
			 "bound %.1f at its fastest run)",
			 base, other, b->ns, b->ns_min, b->ns_max, lo, hi, lo_min);
		return VERDICT_BASELINE;
	}
	if (b->ns_min > hi) {
		snprintf(text, len,
			 "decided: %s beats %s here (break-even %.1f ns, %.1f to %.1f over the "
			 "runs' ranges, above this host's trap range %.1f-%.1f ns)",
			 other, base, b->ns, b->ns_min, b->ns_max, lo, hi);
		return VERDICT_OTHER;
	}
	if (b->ns < lo || b->ns > hi) {
		snprintf(
			text, len,
			"undecided between %.1f and %.1f ns: the break-even %.1f ns lies %s this "
			"host's trap range, but over the runs (the break-even %.1f to %.1f ns, the "
			"range from %.1f) they meet (%s wins above it, %s below)",
			lo, hi, b->ns, b->ns < lo ? "below" : "above", b->ns_min, b->ns_max, lo_min,
			base, other);
		return VERDICT_UNDECIDED;
	}
	snprintf(text, len,
		 "undecided between %.1f and %.1f ns: the break-even %.1f ns lies inside this "
		 "host's trap range (%s wins above it, %s below)",
		 lo, hi, b->ns, base, other);
	return VERDICT_UNDECIDED;
}

int sweep_parse(const char *v, struct sweep *s)
{
	const char *eq = strchr(v, '='), *dots = eq ? strstr(eq, "..") : NULL;
	char lo_text[64], *end, *end2;
	double lo, hi;

	if (!eq || (strncmp(v, "trap=", 5) && strncmp(v, "ipi=", 4)))
		return usage_error("replay", "--sweep: '%s' is not trap=LO..HI or ipi=LO..HI", v);
	if (!dots || dots == eq + 1 || (size_t)(dots - eq) >= sizeof(lo_text))
		return usage_error("replay", "--sweep: '%s': LO..HI, two costs in ns", v);
	snprintf(lo_text, sizeof(lo_text), "%.*s", (int)(dots - eq - 1), eq + 1);
	lo = strtod(lo_text, &end);
	hi = strtod(dots + 2, &end2);
	if (*end || end2 == dots + 2 || *end2 || !(lo >= 0 && hi > lo && hi <= 1e9))
		return usage_error("replay", "--sweep: '%s': needs 0 <= LO < HI <= 1e9 (ns)", v);
	s->param = v[0] == 't' ? "trap" : "ipi";
	s->lo = lo;
	s->hi = hi;
	return 0;
}

double sweep_total(const struct opts *o, const struct prow *w, const char *param, double x)
{
	double sw = (double)(w->n.switches ? w->n.switches : 1);
	double trap = !strcmp(param, "trap") ? x : o->trap.ns;
	double ipi = !strcmp(param, "ipi") ? x : o->ipi.ns;

	return w->native_med - w->residue +
	       (trap * (double)w->n.nm_traps + o->cr0.ns * (double)w->n.ts_writes +
		ipi * (double)w->n.flush_ipis) /
		       sw;
}

/* The sweep's @i-th point of @SWEEP_POINTS. */
static double sweep_x(const struct sweep *s, int i)
{
	return s->lo + (s->hi - s->lo) * i / (SWEEP_POINTS - 1);
}

/* The baseline's row (eager), or NULL when it did not run. */
static const struct prow *baseline_row(const struct prow *rows, int n)
{
	for (int i = 0; i < n; i++)
		if (policy_is_baseline(rows[i].policy))
			return &rows[i];
	return NULL;
}

bool sweep_crossover(const struct opts *o, const struct prow *rows, int n, int other, double *x)
{
	const struct prow *e = baseline_row(rows, n), *l = &rows[other];
	const struct sweep *s = &o->sweep;
	double d0, d1;

	if (!e || !s->param)
		return false;
	d0 = sweep_total(o, e, s->param, s->lo) - sweep_total(o, l, s->param, s->lo);
	for (int i = 1; i < SWEEP_POINTS; i++, d0 = d1) {
		double x0 = sweep_x(s, i - 1), x1 = sweep_x(s, i);
		d1 = sweep_total(o, e, s->param, x1) - sweep_total(o, l, s->param, x1);
		if (d0 == 0) {
			*x = x0;
			return true;
		}
		if ((d0 < 0) != (d1 < 0) || d1 == 0) {
			*x = x0 + (x1 - x0) * d0 / (d0 - d1);
			return true;
		}
	}
	return false;
}

/* The x range of the sweep's parameter this host measured: @lo..@hi; false: none. */
static bool measured_range(const struct opts *o, double *lo, double *hi)
{
	const struct host_cost *ipi = o->host ? &o->host->c[HOST_COST_IPI] : NULL;

	if (!strcmp(o->sweep.param, "trap")) {
		*lo = o->trap_lo;
		*hi = o->trap_hi;
		return o->have_range;
	}
	if (!ipi || !ipi->have)
		return false;
	*lo = ipi->ns.min;
	*hi = ipi->ns.max;
	return true;
}

/* The table's sweep: a line per point, a column per policy, then the crossings. */
static void sweep_comments(const struct trace_replay *tr, const double *y, bool ranged, double lo,
			   double hi)
{
	const struct opts *o = tr->o;
	const struct sweep *s = &o->sweep;
	char line[64 + 14 * MAX_POLICIES], range[64] = "none measured";
	size_t l;

	if (ranged)
		snprintf(range, sizeof(range), "%.1f-%.1f ns", lo, hi);
	output_comment(o->out,
		       "sweep: total ns per switch as the %s cost runs %.1f..%.1f ns, the other "
		       "costs as charged (each policy's native median of %lu run%s, its counts "
		       "exact); this host's measured range: %s",
		       s->param, s->lo, s->hi, o->repeat, o->repeat == 1 ? "" : "s", range);
	l = (size_t)snprintf(line, sizeof(line), "%9s ns", s->param);
	for (int p = 0; p < tr->np; p++)
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %13s", tr->rows[p].policy);
	output_comment(o->out, "%s", line);
	for (int i = 0; i < SWEEP_POINTS; i++) {
		l = (size_t)snprintf(line, sizeof(line), "%12.1f", sweep_x(s, i));
		for (int p = 0; p < tr->np; p++)
			l += (size_t)snprintf(line + l, sizeof(line) - l, " %13.1f",
					      y[p * SWEEP_POINTS + i]);
		output_comment(o->out, "%s%s", line,
			       ranged && sweep_x(s, i) >= lo && sweep_x(s, i) <= hi
				       ? "  (in this host's range)"
				       : "");
	}
}

/*
 * Where the baseline (eager) crosses each policy with a break-even against
 * it, into @cross[p] (@have[p]), said beside the break-even in the table.
 */
static void sweep_crossings(const struct trace_replay *tr, double *cross, bool *have)
{
	const struct opts *o = tr->o;
	const char *base = policy_baseline();

	for (int p = 0; p < tr->np; p++) {
		const struct break_even *b = &tr->be[p];
		const char *other = tr->rows[p].policy;
		have[p] = policy_has_break_even(other) &&
			  sweep_crossover(o, tr->rows, tr->np, p, &cross[p]);
		if (!policy_has_break_even(other) || !baseline_row(tr->rows, tr->np) ||
		    o->out->format != OUTPUT_TABLE)
			continue;
		if (!have[p])
			output_comment(o->out, "sweep: %s and %s do not cross in %.1f..%.1f ns",
				       base, other, o->sweep.lo, o->sweep.hi);
		else if (!strcmp(o->sweep.param, "trap") && b->have && !b->none)
			output_comment(o->out,
				       "sweep crossover, %s vs %s: %.1f ns (the break-even trap "
				       "cost: %.1f ns)",
				       base, other, cross[p], b->ns);
		else
			output_comment(o->out, "sweep crossover, %s vs %s: %s %.1f ns", base, other,
				       o->sweep.param, cross[p]);
	}
}

/* The sweep as JSON rows: one per policy and point. */
static void sweep_rows(const struct trace_replay *tr, const double *y, bool ranged, double lo,
		       double hi, const double *cross, const bool *have)
{
	const struct opts *o = tr->o;

	for (int p = 0; p < tr->np; p++) {
		const char *pol = tr->rows[p].policy;
		for (int i = 0; i < SWEEP_POINTS; i++) {
			json_t *r = json_object();
			double x = sweep_x(&o->sweep, i);
			json_object_set_new(r, "experiment", json_string(RESULT_SWEEP_EXPERIMENT));
			json_object_set_new(r, "policy", json_string(pol));
			json_object_set_new(r, "workload", json_string(tr->ti.workload));
			json_object_set_new(r, "trace", json_string(tr->path));
			json_object_set_new(r, "trace_name", json_string(tr->name));
			json_object_set_new(r, "sweep", json_string(o->sweep.param));
			json_object_set_new(r, "sweep_ns", json_real(x));
			json_object_set_new(r, "source", json_string(tr->ti.source));
			json_object_set_new(r, "repeats", json_integer((json_int_t)o->repeat));
			/* the total at the medians' counts: one figure, no range of runs */
			result_put_stats(r, "ns_per_switch", json_real(y[p * SWEEP_POINTS + i]),
					 NULL, NULL);
			json_object_set_new(r, "unit", json_string("ns per switch"));
			json_object_set_new(r, "in_measured_range",
					    json_boolean(ranged && x >= lo && x <= hi));
			json_object_set_new(r, "crossover_baseline_ns",
					    have[p] ? json_real(cross[p]) : json_null());
			output_row(o->out, r);
		}
	}
}

/* The sweep's SVG in --plot DIR: a line per policy, this host's measured range shaded. */
static void sweep_plot(const struct trace_replay *tr, const double *x, const double *y, bool ranged,
		       double lo, double hi)
{
	const struct opts *o = tr->o;
	const char *base = tr->name; /* "syn1/boot.trace" where two traces share a file name */
	size_t n = strlen(base);
	if (n > strlen(".trace") && !strcmp(base + n - strlen(".trace"), ".trace"))
		n -= strlen(".trace");
	char *name = xasprintf("sweep-%s-%.*s", o->sweep.param, (int)n, base);
	for (char *c = name; *c; c++)
		if (*c == '/')
			*c = '-';
	char *title = xasprintf("%s: total ns per switch against the %s cost", base,
				o->sweep.param);
	char *xl = xasprintf("%s cost, ns per %s", o->sweep.param,
			     strcmp(o->sweep.param, "trap") ? "IPI" : "#NM trap");
	char *src = xasprintf("native replay on this CPU (median of %lu run%s) + per-event costs; "
			      "shaded: this host's measured range",
			      o->repeat, plural(o->repeat));
	const char *series[MAX_POLICIES];
	struct plot_lines pl = { name,
				 title,
				 src,
				 xl,
				 "ns per switch (total)",
				 SWEEP_POINTS,
				 (size_t)tr->np,
				 x,
				 series,
				 y,
				 ranged ? lo : 1,
				 ranged ? hi : 0,
				 "this host's measured range" };

	for (int p = 0; p < tr->np; p++)
		series[p] = tr->rows[p].policy;
	if (plot_lines(&pl, o->plot_dir, "replay") == 0)
		o->out->plots_beside++;
	free(name);
	free(title);
	free(xl);
	free(src);
}

void sweep_print(const struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	double x[SWEEP_POINTS], y[MAX_POLICIES * SWEEP_POINTS], lo = 0, hi = 0, cross[MAX_POLICIES];
	bool ranged, have[MAX_POLICIES];

	if (!o->sweep.param)
		return;
	ranged = measured_range(o, &lo, &hi);
	for (int i = 0; i < SWEEP_POINTS; i++)
		x[i] = sweep_x(&o->sweep, i);
	for (int p = 0; p < tr->np; p++)
		for (int i = 0; i < SWEEP_POINTS; i++)
			y[p * SWEEP_POINTS + i] = sweep_total(o, &tr->rows[p], o->sweep.param,
							      x[i]);
	if (o->out->format == OUTPUT_TABLE)
		sweep_comments(tr, y, ranged, lo, hi);
	sweep_crossings(tr, cross, have);
	if (o->out->format == OUTPUT_JSON)
		sweep_rows(tr, y, ranged, lo, hi, cross, have);
	if (o->plot_dir)
		sweep_plot(tr, x, y, ranged, lo, hi);
}
