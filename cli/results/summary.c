/* SPDX-License-Identifier: MIT */
/*
 * fpulab summary: what a kernel developer reads first. For each experiment
 * and each class of configuration (every configuration that differs only in
 * its last varying key, e.g. the register set), which policy wins, by how
 * much against eager and against the runner-up, in which unit, and whether
 * the win is beyond the min-max ranges of the runs. A correctness experiment
 * (its abi.h figure is a count, e.g. integrity errors) gets its totals. Rows
 * of `fpulab replay` get one line per workload (summarise_replay).
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/catalog.h"
#include "cli.h"
#include "common/plot.h"
#include "common/policy.h"
#include "common/result_file.h"
#include "common/stats.h"
#include "common/util.h"
#include "summary.h"

/* The configuration keys of @rows that take more than one value, in row order. */
static json_t *varying_keys(json_t *rows)
{
	json_t *keys = json_array(), *row, *v;
	const char *key;
	size_t i;

	json_object_foreach(json_array_get(rows, 0), key, v)
	{
		if (!json_is_string(v) || !strcmp(key, "policy") || !strcmp(key, "experiment"))
			continue;
		char *id = result_identity(json_array_get(rows, 0));
		char *word = xasprintf(" %s=", key);
		bool in_identity = strstr(id, word) != NULL;
		free(id);
		free(word);
		if (!in_identity)
			continue;
		json_array_foreach(rows, i, row)
		{
			if (strcmp(result_str(row, key, ""), json_string_value(v))) {
				json_array_append_new(keys, json_string(key));
				break;
			}
		}
	}
	return keys;
}

/* The runs a row's figures summarise (result_file.h), 0 unknown. */
static long long row_runs(const json_t *row)
{
	return result_runs(row);
}

/* The beyond-the-ranges answer: one run has no range to be beyond. */
static const char *beyond_answer(bool one_run, bool beyond)
{
	if (one_run)
		return "one run: no range";
	return beyond ? "yes" : "no: the ranges overlap the runner-up's";
}

/* "placement=same-cpu fp_users=one": the class of a row. */
static char *class_of(const json_t *row, json_t *class_keys)
{
	char *s = xstrdup("");
	size_t i;
	json_t *k;

	json_array_foreach(class_keys, i, k)
	{
		const char *key = json_string_value(k);
		char *next = xasprintf("%s%s%s=%s", s, *s ? " " : "", key,
				       result_str(row, key, "-"));
		free(s);
		s = next;
	}
	return s;
}

struct policy_score {
	const char *policy;
	double log_ratio_sum; /* sum over configurations of log(median / eager's median) */
	size_t n;
	bool beyond; /* its range is apart from the runner-up's in every configuration */
};

/* @policy's slot among the @ns of @sc, added if new; NULL when all @cap are taken. */
static struct policy_score *score_of(struct policy_score *sc, size_t *ns, size_t cap,
				     const char *policy)
{
	for (size_t k = 0; k < *ns; k++)
		if (!strcmp(sc[k].policy, policy))
			return &sc[k];
	if (*ns == cap)
		return NULL;
	sc[*ns] = (struct policy_score){ policy, 0, 0, true };
	return &sc[(*ns)++];
}

static json_t *rows_of(json_t *rows, const char *experiment, const char *class, json_t *keys)
{
	json_t *out = json_array(), *row;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		char *c = class_of(row, keys);
		if (!strcmp(result_str(row, "experiment", ""), experiment) && !strcmp(c, class))
			json_array_append(out, row);
		free(c);
	}
	return out;
}

/* The row of the same configuration as @like under @policy. */
static const json_t *twin(json_t *rows, const json_t *like, const char *policy)
{
	char *want = result_identity(like);
	char *p = strstr(want, " policy=");
	const json_t *found = NULL;
	size_t i;
	json_t *row;

	/* identity with the policy replaced */
	char *end = p ? p + 8 + strcspn(p + 8, " ") : NULL;
	char *key = p ? xasprintf("%.*s policy=%s%s", (int)(p - want), want, policy, end) : NULL;
	json_array_foreach(rows, i, row)
	{
		char *id = result_identity(row);
		if (key && !strcmp(id, key))
			found = row;
		free(id);
	}
	free(key);
	free(want);
	return found;
}

/* One class: the policies by the geometric mean of their median over eager's. */
static void summarise_class(FILE *out, json_t *crows, const char *class, const char *unit)
{
	struct policy_score sc[32] = { 0 };
	size_t ns = 0, i;
	json_t *row;
	struct result_figure f, fe;

	json_array_foreach(crows, i, row)
	{
		const json_t *eager = twin(crows, row, policy_baseline());
		if (!eager || !result_figure(row, &f) || !result_figure(eager, &fe) ||
		    fe.median <= 0)
			continue;
		struct policy_score *k = score_of(sc, &ns, sizeof(sc) / sizeof(sc[0]),
						  result_str(row, "policy", "-"));
		if (!k)
			continue;
		k->log_ratio_sum += log(f.median / fe.median);
		k->n++;
	}
	if (ns < 2)
		return;
	size_t best = 0, second = SIZE_MAX;
	for (size_t k = 1; k < ns; k++)
		if (sc[k].log_ratio_sum / sc[k].n < sc[best].log_ratio_sum / sc[best].n)
			best = k;
	for (size_t k = 0; k < ns; k++)
		if (k != best &&
		    (second == SIZE_MAX ||
		     sc[k].log_ratio_sum / sc[k].n < sc[second].log_ratio_sum / sc[second].n))
			second = k;
	/* beyond noise: the winner's max below the runner-up's min in every configuration */
	bool beyond = true, one_run = false;
	size_t configs = 0;
	json_array_foreach(crows, i, row)
	{
		struct result_figure fb, fr;
		if (strcmp(result_str(row, "policy", ""), sc[best].policy))
			continue;
		const json_t *r2 = twin(crows, row, sc[second].policy);
		if (!r2 || !result_figure(row, &fb) || !result_figure(r2, &fr))
			continue;
		configs++;
		if (!(fb.max < fr.min))
			beyond = false;
		one_run |= row_runs(row) == 1 || row_runs(r2) == 1;
	}
	double vs_eager = exp(sc[best].log_ratio_sum / sc[best].n);
	double vs_second = exp(sc[best].log_ratio_sum / sc[best].n -
			       sc[second].log_ratio_sum / sc[second].n);
	char runner[48];
	snprintf(runner, sizeof(runner), "%.2fx %s", vs_second, sc[second].policy);
	fprintf(out, "  %-34s %-12s %5.2fx   %-19s %s\n", class, sc[best].policy, vs_eager, runner,
		beyond_answer(one_run, beyond));
	(void)unit;
	(void)configs;
}

/* The row of @policy replayed from the same trace as @like. */
static const json_t *replay_twin(json_t *rows, const json_t *like, const char *policy)
{
	const char *trace = result_str(like, "trace", "");
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		if (!strcmp(result_str(row, "trace", "-"), trace) &&
		    !strcmp(result_str(row, "policy", ""), policy))
			return row;
	}
	return NULL;
}

static double row_number(const json_t *row, const char *key)
{
	const json_t *v = json_object_get(row, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* @stat of figure @figure (result_file.h's schema, older keys too), or NaN. */
static double row_stat(const json_t *row, const char *figure, enum result_stat stat)
{
	double v;
	return result_stat(row, figure, stat, &v) ? v : NAN;
}

/*
 * One workload of `fpulab replay` rows (docs/model.md): its traces of at
 * least REPLAY_MIN_SWITCHES switches; the static policy with the lowest
 * geometric mean over them of its projected ns per switch / eager's, the
 * runner-up, adaptive against the winner, whether the winner's max is below
 * the runner-up's min on every trace, and the median over the traces of
 * the break-even trap cost of eager against lazy.
 */
static void summarise_replay_workload(FILE *out, json_t *rows, const char *workload)
{
	struct policy_score sc[16] = { 0 };
	size_t ns = 0, i, traces = 0, nbe = 0, base_won = 0, other_won = 0, undecided = 0;
	double be[512];
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		const char *policy = result_str(row, "policy", "-");
		if (strcmp(result_str(row, "workload", ""), workload) ||
		    !strcmp(policy, RESULT_ORACLE_ROW) ||
		    row_number(row, "switches") < REPLAY_MIN_SWITCHES)
			continue;
		const json_t *eager = replay_twin(rows, row, policy_baseline());
		double x = row_stat(row, "ns_per_switch", RESULT_MEDIAN);
		double xe = eager ? row_stat(eager, "ns_per_switch", RESULT_MEDIAN) : NAN;
		if (!(x > 0) || !(xe > 0))
			continue;
		if (policy_is_baseline(policy))
			traces++;
		if (!strcmp(policy, policy_break_even_first())) { /* replay_verdict.c's words */
			const char *v = result_str(row, "verdict", "");
			char base[64];
			snprintf(base, sizeof(base), "decided: %s beats", policy_baseline());
			bool base_wins = !strncmp(v, base, strlen(base));
			base_won += base_wins;
			other_won += !strncmp(v, "decided: ", 9) && !base_wins;
			undecided += !strncmp(v, "undecided", 9);
			/* no break-even where one wins at any trap cost: -inf or +inf, not left out */
			double x_be = row_number(row, "break_even_trap_ns");
			if (!isfinite(x_be) && strstr(v, "at any trap cost"))
				x_be = base_wins ? -INFINITY : INFINITY;
			if (!isnan(x_be) && nbe < sizeof(be) / sizeof(be[0]))
				be[nbe++] = x_be;
		}
		struct policy_score *k = score_of(sc, &ns, sizeof(sc) / sizeof(sc[0]), policy);
		if (!k)
			continue;
		k->log_ratio_sum += log(x / xe);
		k->n++;
	}
	size_t best = SIZE_MAX, second = SIZE_MAX, adaptive = SIZE_MAX;
	for (size_t k = 0; k < ns; k++) {
		double m = sc[k].log_ratio_sum / (double)sc[k].n;
		if (policy_is_adaptive(sc[k].policy))
			adaptive = k;
		else if (best == SIZE_MAX || m < sc[best].log_ratio_sum / (double)sc[best].n) {
			second = best;
			best = k;
		} else if (second == SIZE_MAX ||
			   m < sc[second].log_ratio_sum / (double)sc[second].n)
			second = k;
	}
	if (best == SIZE_MAX || second == SIZE_MAX) {
		fprintf(out, "  %-16s %6zu  (no trace of at least %d switches)\n", workload, traces,
			REPLAY_MIN_SWITCHES);
		return;
	}
	bool beyond = true, one_run = false;
	json_array_foreach(rows, i, row)
	{
		if (strcmp(result_str(row, "workload", ""), workload) ||
		    strcmp(result_str(row, "policy", ""), sc[best].policy) ||
		    row_number(row, "switches") < REPLAY_MIN_SWITCHES)
			continue;
		const json_t *r2 = replay_twin(rows, row, sc[second].policy);
		if (!r2 || !(row_stat(row, "ns_per_switch", RESULT_MAX) <
			     row_stat(r2, "ns_per_switch", RESULT_MIN)))
			beyond = false;
		one_run |= row_runs(row) == 1 || (r2 && row_runs(r2) == 1);
	}
	double mb = sc[best].log_ratio_sum / (double)sc[best].n;
	char runner[48], vs_adaptive[24] = "-", breakeven[32] = "-";
	snprintf(runner, sizeof(runner), "%.2fx %s",
		 exp(mb - sc[second].log_ratio_sum / (double)sc[second].n), sc[second].policy);
	if (adaptive != SIZE_MAX)
		snprintf(vs_adaptive, sizeof(vs_adaptive), "%.2fx",
			 exp(sc[adaptive].log_ratio_sum / (double)sc[adaptive].n - mb));
	if (nbe) {
		double m = median(be, nbe);
		/* below zero, eager runs less than lazy even with free traps */
		if (isinf(m))
			snprintf(breakeven, sizeof(breakeven), "none (%s)",
				 m < 0 ? policy_baseline() : policy_break_even_first());
		else
			snprintf(breakeven, sizeof(breakeven), m < 0 ? "any (%.0f ns)" : "%.0f ns",
				 m);
	}
	char verdicts[64] = "-";
	if (base_won + other_won + undecided)
		snprintf(verdicts, sizeof(verdicts), "%s %zu, %s %zu, undecided %zu",
			 policy_baseline(), base_won, policy_break_even_first(), other_won,
			 undecided);
	fprintf(out, "  %-16s %6zu  %-12s %5.2fx   %-19s %-9s %-15s %-30s %s\n", workload, traces,
		sc[best].policy, exp(mb), runner, vs_adaptive, breakeven, verdicts,
		beyond_answer(one_run, beyond));
}

/* Whether a replay row has what the section reads: its trace, policy, switches, runs and figures. */
static bool replay_usable(const json_t *row)
{
	static const char *const strings[] = { "policy", "workload", "trace" };
	static const char *const numbers[] = { "switches", "trap_ns", "cr0_ns", "ipi_ns" };

	for (size_t k = 0; k < sizeof(strings) / sizeof(strings[0]); k++)
		if (!json_is_string(json_object_get(row, strings[k])))
			return false;
	for (size_t k = 0; k < sizeof(numbers) / sizeof(numbers[0]); k++)
		if (!isfinite(row_number(row, numbers[k])))
			return false;
	return result_runs(row) > 0 && isfinite(row_stat(row, "ns_per_switch", RESULT_MEDIAN));
}

/*
 * Whether the policy rows of @rows differ in a cost or in their runs (files
 * of different replays given together): the header says so, with the
 * ranges, rather than name the first row's as everyone's.
 */
static bool replay_rows_mixed(FILE *out, const json_t *rows)
{
	static const char *const keys[] = { "trap_ns", "cr0_ns", "ipi_ns" };
	double lo[4] = { 0 }, hi[4] = { 0 };
	bool mixed = false, any = false;
	const json_t *row;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		if (!strcmp(result_str(row, "policy", RESULT_ORACLE_ROW), RESULT_ORACLE_ROW))
			continue;
		for (int k = 0; k < 4; k++) {
			double v = k < 3 ? row_number(row, keys[k]) : (double)result_runs(row);
			lo[k] = any ? fmin(lo[k], v) : v;
			hi[k] = any ? fmax(hi[k], v) : v;
		}
		any = true;
	}
	for (int k = 0; any && k < 4; k++)
		mixed |= lo[k] != hi[k];
	if (mixed)
		fprintf(out,
			"replay: MIXED: these rows come from replays at different costs or runs "
			"(#NM %.0f to %.0f ns, CR0 %.1f to %.1f ns, IPI %.0f to %.0f ns, %.0f to %.0f runs); the "
			"figures below pool them: summarise one replay's rows to read them\n",
			lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3]);
	return mixed;
}

/* Rows of `fpulab replay --format json`: one line per workload. */
static void summarise_replay(FILE *out, json_t *rows)
{
	json_t *mine = json_array(), *workloads = json_array(), *row, *w;
	size_t i, j, skipped = 0;

	size_t linux_rows = 0;
	json_array_foreach(rows, i, row)
	{
		if (strcmp(result_str(row, "experiment", ""), "replay"))
			continue;
		if (summary_linux_row(row)) { /* summarise_linux's */
			linux_rows++;
			continue;
		}
		if (!replay_usable(row)) {
			skipped++;
			continue;
		}
		json_array_append(mine, row);
		bool seen = false;
		json_array_foreach(workloads, j, w)
		{
			seen |= !strcmp(json_string_value(w), result_str(row, "workload", "-"));
		}
		if (!seen)
			json_array_append_new(workloads,
					      json_string(result_str(row, "workload", "-")));
	}
	const json_t *first = NULL; /* the first policy row: the machine and the costs */
	json_array_foreach(mine, i, row)
	{
		if (strcmp(result_str(row, "policy", RESULT_ORACLE_ROW), RESULT_ORACLE_ROW)) {
			first = row;
			break;
		}
	}
	if (first) {
		if (!replay_rows_mixed(out, mine))
			fprintf(out,
				"replay: ns per switch on this CPU (%s, %s, libfpu's XCR0 mask %s): libfpu's native time "
				"less the timing's own, plus #NM %.0f ns (%s), CR0 write %.0f ns (%s), IPI "
				"%.0f ns (%s); medians of %.0f run%s; traces of at least %d switches\n",
				result_str(first, "host_cpu", "-"),
				result_str(first, "save_insn", "-"), result_str(first, "xcr0", "-"),
				row_number(first, "trap_ns"), result_str(first, "trap_source", "-"),
				row_number(first, "cr0_ns"), result_str(first, "cr0_source", "-"),
				row_number(first, "ipi_ns"), result_str(first, "ipi_source", "-"),
				(double)result_runs(first),
				plural((unsigned long long)result_runs(first)),
				REPLAY_MIN_SWITCHES);
		fprintf(out,
			"  the static policy with the lowest geometric mean over the traces of its "
			"ns per switch / %s's (lower is better); adaptive against it; %s beats "
			"%s above the break-even trap cost (median over the traces; one where a "
			"policy wins at any trap cost counts as below or above every other):\n",
			policy_baseline(), policy_baseline(), policy_break_even_first());
		if (isfinite(row_number(first, "trap_range_lo_ns")))
			fprintf(out,
				"  this host's trap range: %.0f ns (syscall round trip, lower bound) "
				"to %.0f ns (%s, estimate); %s vs %s is decided on a trace only "
				"where its break-even, over the runs, lies outside it, its low end "
				"at the syscall's fastest run (traces decided each way, and "
				"undecided)\n",
				row_number(first, "trap_range_lo_ns"),
				row_number(first, "trap_range_hi_ns"),
				result_str(first, "trap_range_estimate", "-"), policy_baseline(),
				policy_break_even_first());
		fprintf(out, "  %-16s %6s  %-12s %-8s %-19s %-9s %-15s %-30s %s\n", "workload",
			"traces", "wins", "vs eager", "vs the runner-up", "adaptive", "break-even",
			"verdict", "beyond the min-max ranges of the runs?");
		json_array_foreach(workloads, j, w)
		{
			summarise_replay_workload(out, mine, json_string_value(w));
		}
	} else if (!linux_rows) {
		fprintf(out, "replay: no row to summarise\n");
	}
	if (skipped)
		fprintf(out,
			"  %zu replay row%s left out: without its policy, workload, trace, switches, "
			"repeats, ns_per_switch or per-event costs\n",
			skipped, plural(skipped));
	json_decref(workloads);
	json_decref(mine);
	summarise_linux(out, rows);
}

/* "N runs", or "N to M runs": the range of the per-policy run counts in @runs (an object). */
static void runs_range(json_t *runs, char *buf, size_t len)
{
	json_int_t lo = LLONG_MAX, hi = 0;
	const char *p;
	json_t *n;

	json_object_foreach(runs, p, n)
	{
		json_int_t k = json_integer_value(n);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	if (lo == hi)
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT " run%s", lo,
			 plural((unsigned long long)lo));
	else
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT " to %" JSON_INTEGER_FORMAT " runs", lo,
			 hi);
}

/* @obj[@key] += @add (an integer; absent is 0). */
static void add_to(json_t *obj, const char *key, json_int_t add)
{
	json_int_t had = json_integer_value(json_object_get(obj, key));
	json_object_set_new(obj, key, json_integer(had + add));
}

/* A count experiment (abi.h's figure is not ticks): each policy's total over its runs. */
static void summarise_counts(FILE *out, json_t *mine, const char *experiment,
			     const struct fpulab_experiment *info)
{
	bool integrity = !strcmp(info->figure, "integrity_errors");
	json_t *totals = json_object(), *runs = json_object(), *row, *v;
	const char *policy;
	char over[64];
	size_t i;

	json_array_foreach(mine, i, row)
	{
		v = integrity ? json_object_get(row, "integrity_errors_all_runs") : NULL;
		if (!v)
			v = json_object_get(row, info->figure);
		policy = result_str(row, "policy", "-");
		add_to(totals, policy, json_is_integer(v) ? json_integer_value(v) : 0);
		add_to(runs, policy, row_runs(row) ? row_runs(row) : 1);
	}
	/* each policy's total is over its own runs: say how many those are */
	runs_range(runs, over, sizeof(over));
	fprintf(out,
		"%s: %s per policy, every event counted (not sampled; a count may differ "
		"between runs where the schedule does), each policy's total over its %s (%s is "
		"better):\n ",
		experiment, info->unit, over, info->better);
	json_object_foreach(totals, policy, v)
	{
		fprintf(out, " %s %" JSON_INTEGER_FORMAT, policy, json_integer_value(v));
	}
	fprintf(out, "\n");
	json_decref(totals);
	json_decref(runs);
}

/* The classes of @mine by @keys, in first-seen order. */
static json_t *classes_of(json_t *mine, json_t *keys)
{
	json_t *classes = json_array(), *row;
	size_t i;

	json_array_foreach(mine, i, row)
	{
		char *c = class_of(row, keys);
		bool seen = false;
		size_t j;
		json_t *v;
		json_array_foreach(classes, j, v)
		{
			seen |= !strcmp(json_string_value(v), c);
		}
		if (!seen)
			json_array_append_new(classes, json_string(c));
		free(c);
	}
	return classes;
}

/* A timed experiment: per class of configuration, the winning policy and by how much. */
static void summarise_timed(FILE *out, json_t *mine, const char *experiment)
{
	struct result_figure f;
	json_t *keys, *classes, *c;
	size_t i;

	if (!result_figure(json_array_get(mine, 0), &f))
		return;
	keys = varying_keys(mine);
	if (json_array_size(keys) >= 2) /* classes: all but the last varying key */
		json_array_remove(keys, json_array_size(keys) - 1);
	else
		json_array_clear(keys);
	long long r = result_runs(json_array_get(mine, 0));
	size_t runs = r > 0 ? (size_t)r : 1;
	fprintf(out, "%s: %s, %s; medians of %zu run%s\n", experiment, f.unit,
		result_source_description(result_source(json_array_get(mine, 0))), runs,
		plural(runs));
	fprintf(out,
		"  the policy with the lowest geometric mean of its median / eager's (%s is "
		"better):\n",
		f.better < 0 ? "lower" : "higher");
	classes = classes_of(mine, keys);
	fprintf(out, "  %-34s %-12s %-8s %-19s %s\n",
		json_array_size(keys) ? "class" : "configuration", "wins", "vs eager",
		"vs the runner-up", "beyond the min-max ranges of the runs?");
	json_array_foreach(classes, i, c)
	{
		json_t *crows = rows_of(mine, experiment, json_string_value(c), keys);
		summarise_class(out, crows, *json_string_value(c) ? json_string_value(c) : "all",
				f.unit);
		json_decref(crows);
	}
	json_decref(classes);
	json_decref(keys);
}

/*
 * `replay --sweep` rows: one trace's totals at 11 costs of one event, not
 * configurations; a winner over their geometric mean would average costs
 * that no machine has at once. One line says they are left out, which
 * cost was swept over what range and how many traces.
 */
static void summarise_sweep(FILE *out, json_t *mine)
{
	json_t *params = json_object(), *traces = json_object(), *row;
	double lo = INFINITY, hi = -INFINITY;
	const char *param;
	size_t i;

	json_array_foreach(mine, i, row)
	{
		json_object_set_new(params, result_str(row, "sweep", "?"), json_true());
		json_object_set_new(traces, result_str(row, "trace", "?"), json_true());
		double x = row_number(row, "sweep_ns");
		lo = fmin(lo, x);
		hi = fmax(hi, x);
	}
	char *swept = xstrdup("");
	json_t *v;
	json_object_foreach(params, param, v)
	{
		char *next = xasprintf("%s%s%s", swept, *swept ? ", " : "", param);
		free(swept);
		swept = next;
	}
	size_t nt = json_object_size(traces);
	fprintf(out,
		"%s: %zu row%s of replay --sweep (%s cost from %.0f to %.0f ns, %zu trace%s) left "
		"out of the winner tables: a sweep's points are one trace at other costs, not "
		"configurations (replay --sweep prints each point and where eager crosses lazy)\n",
		RESULT_SWEEP_EXPERIMENT, json_array_size(mine), plural(json_array_size(mine)),
		swept, lo, hi, nt, plural(nt));
	free(swept);
	json_decref(params);
	json_decref(traces);
}

/* One experiment's lines of the summary: replay's, a sweep's, a count's or a timing's. */
static void summarise_experiment(FILE *out, json_t *rows, const char *experiment)
{
	const struct fpulab_experiment *info = experiment_info(experiment);
	json_t *mine, *row;
	size_t i;

	if (!strcmp(experiment, "replay")) {
		summarise_replay(out, rows);
		return;
	}
	mine = json_array();
	json_array_foreach(rows, i, row)
	{
		if (!strcmp(result_str(row, "experiment", ""), experiment))
			json_array_append(mine, row);
	}
	if (!strcmp(experiment, RESULT_SWEEP_EXPERIMENT))
		summarise_sweep(out, mine);
	else if (info && strcmp(info->figure, "ticks"))
		summarise_counts(out, mine, experiment, info);
	else
		summarise_timed(out, mine, experiment);
	json_decref(mine);
}

static int summary_print(FILE *out, json_t *rows)
{
	json_t *experiments = json_array(), *row;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		const char *e = result_str(row, "experiment", NULL);
		bool seen = false;
		size_t j;
		json_t *v;
		if (!e)
			continue;
		json_array_foreach(experiments, j, v)
		{
			seen |= !strcmp(json_string_value(v), e);
		}
		if (!seen)
			json_array_append_new(experiments, json_string(e));
	}
	json_array_foreach(experiments, i, row)
	{
		summarise_experiment(out, rows, json_string_value(row));
	}
	json_decref(experiments);
	return 0;
}

/*
 * 2, said, where two of @rows measure one configuration (the same file
 * given twice, two runs of one matrix, a file of two concatenated): a
 * summary ranks one row per configuration, and two would each be divided
 * by the first one's eager and counted twice. @where[i] names row i's file
 * and its row number in it ("o2.json row 3"); 0 when every row is its own.
 */
static int one_row_each(const json_t *rows, const json_t *where)
{
	size_t i, j;
	char *id;

	if (!result_same_twice(rows, &i, &j, &id))
		return 0;
	fprintf(stderr,
		"fpulab summary: %s and %s hold one configuration twice (%s): summarise one "
		"run's file, or compare the two with fpulab compare A B\n",
		json_string_value(json_array_get(where, i)),
		json_string_value(json_array_get(where, j)), id);
	free(id);
	return 2;
}

/*
 * The rows of @files (@n of them) into @rows, a line for each partial file
 * into @partials: 0, or 2 said (a file refused, one configuration twice).
 */
static int load_files(char **files, int n, json_t *rows, json_t *partials)
{
	json_t *where = json_array(); /* "FILE row N" of each row */
	char err[512];
	int rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		char partial[256];
		json_t *got = result_file_load_partial(files[i], err, sizeof(err), partial,
						       sizeof(partial));
		if (!got) {
			fprintf(stderr, "fpulab summary: %s\n", err);
			rc = 2;
			break;
		}
		if (*partial)
			json_array_append_new(
				partials,
				json_sprintf("%s holds partial results (%s)", files[i], partial));
		for (size_t k = 0; k < json_array_size(got); k++)
			json_array_append_new(where, json_sprintf("%s row %zu", files[i], k + 1));
		json_array_extend(rows, got);
		json_decref(got);
	}
	if (!rc)
		rc = one_row_each(rows, where);
	json_decref(where);
	return rc;
}

int cmd_summary(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plot", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *plot_dir = NULL;
	char err[512];
	int c, rc = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			plot_dir = optarg;
			break;
		case 'h':
			printf("usage: fpulab summary [--plot DIR] FILE...\n"
			       "For each experiment in the result files, which policy wins each class\n"
			       "of configuration and by how much; for the rows of `fpulab replay`, which\n"
			       "static policy wins each workload on this CPU, adaptive against it and the\n"
			       "break-even trap cost; for a replay of a recorded Linux workload, Linux's\n"
			       "own counts beside deferred's and the oracle's and each policy's #NM and\n"
			       "share of the CPU time at both --fp-use bounds; then where the results\n"
			       "and plots are.\n"
			       "Exit status: 0 ok; 1 a plot could not be made; 2 usage error (also a\n"
			       "FILE unreadable or not fpulab's rows, a --plot DIR that cannot be\n"
			       "made, two rows of one configuration: summarise one run's file).\n");
			return 0;
		default:
			return getopt_failed("summary", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("summary", "needs at least one result file");
	if (plot_dir && plot_dir_prepare(plot_dir, err, sizeof(err))) {
		fprintf(stderr, "fpulab summary: %s\n", err);
		return 2;
	}
	json_t *rows = json_array(), *partials = json_array();
	if (load_files(argv + optind, argc - optind, rows, partials)) {
		json_decref(rows);
		json_decref(partials);
		return 2;
	}
	summary_print(stdout, rows);
	json_t *p;
	size_t k;
	json_array_foreach(partials, k, p)
	{
		printf("PARTIAL: %s: only the rows it holds are summarised above\n",
		       json_string_value(p));
	}
	json_decref(partials);
	printf("full results: ");
	for (int i = optind; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
	if (plot_dir) {
		int plots = plot_summary(rows, plot_dir);
		if (plots < 0)
			rc = 1;
		else
			printf("plots: %s/ (%d SVG)\n", plot_dir, plots);
	}
	json_decref(rows);
	return rc;
}
