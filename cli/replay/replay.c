/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay TRACE...: every policy over a trace, natively on this CPU
 * (cli/replay/replay_engine.c), against the oracle (cli/replay/oracle.c), with the costs
 * user mode cannot run added from stated parameters (docs/model.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <fpu/fpu.h>
#include <fpu/xstate.h>

#include "fpulab/abi.h"
#include "cli.h"
#include "oracle.h"
#include "common/output.h"
#include "replay_engine.h"
#include "common/result_file.h"
#include "trace/trace_io.h"
#include "common/util.h"

#define REPEAT_DEFAULT 5
#define MAX_POLICIES 16

/*
 * Assumed costs (docs/model.md cites where they come from). ns per event:
 * an #NM round trip (exception entry, handler dispatch, IRET), one CR0
 * write (CLTS or MOV to CR0, serializing), one IPI round trip.
 */
#define TRAP_NS_DEFAULT 150.0
#define CR0_NS_DEFAULT 30.0
#define IPI_NS_DEFAULT 1000.0

struct param {
	double ns;
	const char *source; /* "assumed", "--trap-ns", a file name, "lab costs, emulated (TCG)" */
	unsigned runs;      /* lab costs: runs its median summarises; 0 otherwise */
};

struct opts {
	const char *policies; /* comma list, or "all" */
	unsigned long repeat;
	struct param trap, cr0, ipi;
	const char *costs_file;   /* --costs FILE of the lab's costs experiment */
	bool adaptive_builtin;    /* --adaptive-costs default: libfpu's, as the lab */
	struct fpu_costs builtin; /* libfpu's built-in costs, read before any is set */
	int insn;
	enum output_format format;
	const char *output_path; /* --output; NULL: stdout */
	const char *plot_dir;    /* --plot DIR; NULL: none */
	struct output *out;
	struct targets *targets;
};

/*
 * Issue 12's targets over every trace replayed: adaptive's total within
 * 1.02x of the best static policy's and within 1.15x of the oracle's, the
 * latter in ns and in work (saves + restores, exact). Beside the totals,
 * the same comparison by counts alone ("priced": each policy's saves and
 * restores at the batch costs plus its per-event costs, no bookkeeping and
 * no timing noise), which separates adaptive's decisions from its
 * bookkeeping. A trace of fewer than TARGET_MIN_SWITCHES switches is left
 * out (per-switch figures of a handful of switches say nothing), and so is
 * a trace where the oracle does no work from the oracle's ratios.
 */
#define TARGET_MIN_SWITCHES 200
struct targets {
	unsigned int traces, near_best, near_best_priced, near_oracle, near_oracle_work,
		with_oracle, short_traces;
	double worst_best, worst_best_priced, worst_gap, worst_oracle, worst_oracle_work;
	const char *worst_best_trace, *worst_priced_trace, *worst_gap_trace, *worst_oracle_trace;
	/* resolution: the control's paired medians (a policy against its own second copy) */
	unsigned int controls, control_over_2pc, undecided;
	/* adaptive's interval of the median against 1.02x: all at or below, all above, across */
	unsigned int with_interval, interval_below, interval_above;
	double conf_min;
	double control_lo, control_hi, *control_dev; /* |median - 1|, one per trace */
};

/* Ratios of run k of one policy's total to run k of another's: median, min, max of n runs. */
struct paired {
	double med, min, max;
	unsigned long n;
	double lo, hi, conf; /* an interval of the median of confidence @conf; conf 0: none */
};

/* One trace's figures for the targets; ns per switch. */
struct target_input {
	const char *trace;
	uint64_t switches;
	struct paired vs_best, control;      /* adaptive / best static; the control / itself */
	double adaptive, best;               /* totals */
	double adaptive_priced, best_priced; /* by counts alone */
	double oracle, work, oracle_work;    /* the oracle's ns; saves + restores */
};

static int cmp_double(const void *a, const void *b);

static void worst(double x, const char *trace, double *w, const char **wt)
{
	if (x > *w) {
		*w = x;
		if (wt)
			*wt = trace;
	}
}

static void targets_add(struct targets *tg, const struct target_input *in)
{
	if (in->switches < TARGET_MIN_SWITCHES) {
		tg->short_traces++;
		return;
	}
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
	double rp = in->best_priced > 0 ? in->adaptive_priced / in->best_priced
					: (in->adaptive_priced > 0 ? INFINITY : 1);
	tg->near_best_priced += rp <= 1.02;
	worst(rp, in->trace, &tg->worst_best_priced, &tg->worst_priced_trace);
	if (in->oracle <= 0 || in->oracle_work <= 0)
		return;
	double ro = in->adaptive / in->oracle, rw = in->work / in->oracle_work;
	tg->with_oracle++;
	tg->near_oracle_work += rw <= 1.15;
	worst(rw, in->trace, &tg->worst_oracle_work, NULL);
	tg->near_oracle += ro <= 1.15;
	worst(ro, in->trace, &tg->worst_oracle, &tg->worst_oracle_trace);
}

static void targets_print(struct output *out, const struct targets *tg, unsigned long repeat)
{
	if (tg->traces) {
		output_comment(out,
			       "targets over %u traces (totals in ns per switch: native less the "
			       "timing residue, plus the per-event costs; adaptive's total over "
			       "the best static policy's, run k against run k, median of %lu "
			       "paired runs): adaptive within 1.02x of the best static policy on "
			       "%u (worst %.3fx: %s; largest gap of the median totals %.1f ns per "
			       "switch: %s)",
			       tg->traces, repeat, tg->near_best, tg->worst_best,
			       tg->worst_best_trace, tg->worst_gap, tg->worst_gap_trace);
		if (tg->with_interval)
			output_comment(
				out,
				"targets: adaptive / best static, the interval of the median of its "
				"paired runs (k-th least to k-th greatest of %lu, at least %.1f%% "
				"confidence) at or below 1.02x on %u of %u traces, above 1.02x on "
				"%u, across 1.02x (not resolved) on %u",
				repeat, 100 * tg->conf_min, tg->interval_below, tg->with_interval,
				tg->interval_above,
				tg->with_interval - tg->interval_below - tg->interval_above);
		if (tg->controls) {
			qsort(tg->control_dev, tg->controls, sizeof(*tg->control_dev), cmp_double);
			output_comment(
				out,
				"targets: resolution: on each trace the static policy best by "
				"counts replayed again after every round, against itself paired by "
				"run (median of %lu runs): from %.3fx to %.3fx over %u traces "
				"(median deviation from 1x %.1f%%, largest %.1f%%; over 2%% on %u); "
				"adaptive's median is nearer 1.02x than that trace's deviation, "
				"so its verdict is not resolved, on %u",
				repeat, tg->control_lo, tg->control_hi, tg->controls,
				100 * tg->control_dev[tg->controls / 2],
				100 * tg->control_dev[tg->controls - 1], tg->control_over_2pc,
				tg->undecided);
		}
		output_comment(out,
			       "targets: by counts alone (saves and restores at the batch costs "
			       "plus the per-event costs: its decisions without its bookkeeping), "
			       "adaptive within 1.02x of the best static policy on %u of %u "
			       "(worst %.3fx: %s)",
			       tg->near_best_priced, tg->traces, tg->worst_best_priced,
			       tg->worst_priced_trace);
	}
	if (tg->with_oracle)
		output_comment(
			out,
			"targets: adaptive within 1.15x of the oracle on %u of the %u traces "
			"where the oracle does any work (worst %.2fx: %s); in work (saves + "
			"restores) on %u (worst %.2fx)",
			tg->near_oracle, tg->with_oracle, tg->worst_oracle, tg->worst_oracle_trace,
			tg->near_oracle_work, tg->worst_oracle_work);
	if (tg->short_traces)
		output_comment(out, "targets: %u traces of fewer than %d switches left out",
			       tg->short_traces, TARGET_MIN_SWITCHES);
}

/* The table: the keys of each row it shows (JSON and CSV carry every key). */
static const struct output_column table_columns[] = {
	{ "policy", NULL, -13, 0 },
	{ "switches", NULL, 8, 0 },
	{ "nm_traps", "#NM", 8, 0 },
	{ "saves", NULL, 8, 0 },
	{ "restores", NULL, 8, 0 },
	{ "restores_skipped", "skipped", 8, 0 },
	{ "ts_writes", "TSwrites", 8, 0 },
	{ "flush_ipis", "IPIs", 6, 0 },
	{ "integrity_errors", "integ", 5, 0 },
	{ "native_ns_per_switch", "native", 9, 1 },
	{ "native_ns_min", "min", 8, 1 },
	{ "native_ns_max", "max", 8, 1 },
	{ "timing_residue_ns_per_switch", "residue", 8, 1 },
	{ "params_ns_per_switch", "params", 9, 1 },
	{ "ns_per_switch", "total", 9, 1 },
	{ "vs_oracle", "vsOracle", 8, 0 },
	{ "vs_best", "vsBest", 8, 0 },
	{ "work_vs_oracle", "work/or", 8, 0 },
	{ "costs", NULL, -1, 0 },
};

struct prow {
	const char *policy;
	struct replay_counts n;
	double native_med, native_min, native_max; /* ns per switch */
	double assumed;                            /* ns per switch */
	double total;
	/* ns per switch, medians: its log replayed bare, and its empty timed regions */
	double bare_med, floor_med; /* floor = bare - residue */
	double residue;        /* its timed regions x the trace's pooled cost of an empty one */
	uint64_t regions;      /* its timed regions (hook calls timed), every run the same */
	struct paired vs_best; /* its total over the best static policy's, run by run */
	double overhead;       /* native - bare: libfpu's own */
	double hook_overhead[REPLAY_HOOK_NR]; /* the same, by entry point */
	uint64_t hook_calls[REPLAY_HOOK_NR];  /* calls timed in run 1 */
	double skip_med;                      /* ticks; < 0: no skipped-restore switches */
	uint64_t nskip;                       /* skipped-restore switches timed (the first run) */
	double skip_lib; /* ticks of libfpu per such switch: native mean - bare mean */
	bool counts_differ;
	uint64_t clipped; /* over all runs */
};

static double tsc_per_ns(void)
{
	struct timespec a, b, d = { 0, 20 * 1000 * 1000 };
	uint32_t lo, hi;
	uint64_t c0, c1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi));
	c0 = ((uint64_t)hi << 32) | lo;
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi));
	c1 = ((uint64_t)hi << 32) | lo;
	return (double)(c1 - c0) / ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab replay TRACE... [--policy LIST|all] [--repeat K] [--trap-ns NS]\n"
		"                     [--cr0-ns NS] [--ipi-ns NS] [--costs FILE] [--insn auto|xsave|...]\n"
		"                     [--adaptive-costs measured|default]\n"
		"                     [--format table|json|csv] [--output FILE] [--plot DIR]\n"
		"Replays each trace natively on this CPU under each policy, through libfpu with\n"
		"real saves and restores (one thread plays every traced CPU; docs/model.md).\n"
		"Per policy: counts, the native ns per switch inside libfpu (median, min, max of\n"
		"K runs, policies interleaved; default K %d), the assumed cost of what user mode\n"
		"cannot run (#NM traps, CR0 writes, IPIs) at the stated per-event costs, the\n"
		"total, and its ratio to the oracle and to the best static policy; then the\n"
		"break-even trap cost of eager against lazy and lazy-counter.\n"
		"Defaults: --trap-ns %.0f, --cr0-ns %.0f, --ipi-ns %.0f (assumed; docs/model.md).\n"
		"--costs FILE: the JSON of `fpulab run --experiment costs --format json` (its\n"
		"medians, labelled lab costs, emulated (TCG) or hardware (KVM)), or a JSON\n"
		"object with trap_ns, cr0_ns and ipi_ns (any of them).\n"
		"--adaptive-costs: what adaptive decides by (fpu_set_costs): measured (default):\n"
		"the per-event costs above and this CPU's batch save and restore; default:\n"
		"libfpu's built-in costs, as the lab kernel uses them (to replay a lab row of\n"
		"adaptive exactly). The costs charged are the same either way.\n"
		"--format, --output: the rows (an oracle row and a row per policy and trace)\n"
		"as a table (default), JSON lines or CSV, with provenance; `fpulab compare`\n"
		"reads two such files (docs/model.md). --plot DIR: an SVG of each policy's\n"
		"projected ns per switch per trace, min-max bars (gnuplot).\n",
		REPEAT_DEFAULT, TRAP_NS_DEFAULT, CR0_NS_DEFAULT, IPI_NS_DEFAULT);
}

/* A per-event cost in ns: 0..COST_NS_MAX, as --trap-ns, --cr0-ns and --ipi-ns take. */
#define COST_NS_MAX 1e9
static bool cost_ns_ok(double x)
{
	return x >= 0 && x <= COST_NS_MAX;
}

/* --costs FILE's value @x of @what out of range: the options' message. */
static int cost_file_error(const char *path, const char *what, double x)
{
	fprintf(stderr, "fpulab replay: --costs %s: %s %g is not a cost in ns (0..1e9)\n", path,
		what, x);
	return 1;
}

static int parse_ns(const char *opt, const char *v, struct param *p)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (!*v || *end || errno || !cost_ns_ok(x))
		return usage_error("replay", "--%s: '%s' is not a cost in ns (0..1e9)", opt, v);
	p->ns = x;
	p->source = opt;
	return 0;
}

/*
 * The rows of `fpulab run --experiment costs`: each cost's ns_per_op (the
 * median of its runs) for the parameter it measures, labelled with where it
 * was measured. Ticks under --icount are instructions: refused.
 */
static int load_lab_costs(const char *path, json_t *rows, struct opts *o)
{
	static const char *const costs[] = { "nm-trap", "cr0-write", "ipi" };
	struct param *ps[] = { &o->trap, &o->cr0, &o->ipi };
	bool seen[3] = { false, false, false };
	size_t i;
	json_t *row;
	int found = 0;

	json_array_foreach(rows, i, row)
	{
		const char *cost = result_str(row, "cost", NULL);
		const char *clock = result_str(row, "clock", "");
		const json_t *ns = json_object_get(row, "ns_per_op");
		int k = -1;

		if (strcmp(result_str(row, "experiment", ""),
			   fpulab_experiments[FPULAB_EXP_costs].name) ||
		    !cost)
			continue;
		for (int c = 0; c < 3; c++)
			if (!strcmp(cost, costs[c]))
				k = c;
		if (k < 0)
			continue;
		if (seen[k]) {
			fprintf(stderr, "fpulab replay: --costs %s: two rows for %s\n", path, cost);
			return 1;
		}
		seen[k] = true;
		if (!strcmp(clock, "icount")) {
			fprintf(stderr,
				"fpulab replay: --costs %s: %s was measured under --icount: "
				"instructions, not time\n",
				path, cost);
			return 1;
		}
		if (!json_is_number(ns)) {
			fprintf(stderr, "fpulab replay: --costs %s: %s has no ns_per_op\n", path,
				cost);
			return 1;
		}
		if (!cost_ns_ok(json_number_value(ns))) {
			char what[64];
			snprintf(what, sizeof(what), "%s's ns_per_op", cost);
			return cost_file_error(path, what, json_number_value(ns));
		}
		ps[k]->ns = json_number_value(ns);
		ps[k]->source = !strcmp(clock, "hardware-tsc")   ? "lab costs, hardware (KVM)"
				: !strcmp(clock, "emulated-tsc") ? "lab costs, emulated (TCG)"
								 : "lab costs, unknown clock";
		ps[k]->runs = (unsigned)json_integer_value(json_object_get(row, "repeats"));
		found++;
	}
	if (!found) {
		fprintf(stderr,
			"fpulab replay: --costs %s: no row of the costs experiment with a cost "
			"(nm-trap, cr0-write, ipi)\n",
			path);
		return 1;
	}
	o->costs_file = path;
	return 0;
}

static int load_costs(const char *path, struct opts *o)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	static const char *const keys[] = { "trap_ns", "cr0_ns", "ipi_ns" };
	struct param *ps[] = { &o->trap, &o->cr0, &o->ipi };
	int found = 0;

	if (!j || json_is_array(j) || json_object_get(j, "experiment")) {
		/* JSON lines (or an array) of result rows: the costs experiment's */
		char err[512];
		json_t *rows = result_file_load(path, err, sizeof(err));
		int rc;
		json_decref(j);
		if (!rows) {
			fprintf(stderr, "fpulab replay: --costs: %s\n", err);
			return 1;
		}
		rc = load_lab_costs(path, rows, o);
		json_decref(rows);
		return rc;
	}
	if (!json_is_object(j)) {
		fprintf(stderr, "fpulab replay: --costs %s: not a JSON object\n", path);
		json_decref(j);
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		json_t *v = json_object_get(j, keys[i]);
		if (!v)
			continue;
		if (!json_is_number(v)) {
			fprintf(stderr,
				"fpulab replay: --costs %s: %s is not a non-negative number\n",
				path, keys[i]);
			json_decref(j);
			return 1;
		}
		if (!cost_ns_ok(json_number_value(v))) {
			cost_file_error(path, keys[i], json_number_value(v));
			json_decref(j);
			return 1;
		}
		ps[i]->ns = json_number_value(v);
		ps[i]->source = path;
		found++;
	}
	json_decref(j);
	if (!found) {
		fprintf(stderr, "fpulab replay: --costs %s: none of trap_ns, cr0_ns, ipi_ns\n",
			path);
		return 1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o, int *first_trace)
{
	*first_trace = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if (a[0] != '-') {
			if (!*first_trace)
				*first_trace = i;
			continue;
		}
		if (*first_trace && *first_trace < i && argv[i - 1][0] != '-') {
			/* options may come before or after the traces */
		}
		if (!v)
			return usage_error("replay", "%s: unknown option or missing value", a);
		i++;
		if (!strcmp(a, "--policy")) {
			o->policies = v;
		} else if (!strcmp(a, "--repeat")) {
			uint64_t k;
			if (parse_u64_arg("replay", "repeat", v, 1, 1000, &k))
				return 2;
			o->repeat = (unsigned long)k;
		} else if (!strcmp(a, "--trap-ns")) {
			if (parse_ns("trap-ns", v, &o->trap))
				return 2;
		} else if (!strcmp(a, "--cr0-ns")) {
			if (parse_ns("cr0-ns", v, &o->cr0))
				return 2;
		} else if (!strcmp(a, "--ipi-ns")) {
			if (parse_ns("ipi-ns", v, &o->ipi))
				return 2;
		} else if (!strcmp(a, "--costs")) {
			if (load_costs(v, o))
				return 1;
		} else if (!strcmp(a, "--adaptive-costs")) {
			if (strcmp(v, "measured") && strcmp(v, "default"))
				return usage_error(
					"replay",
					"--adaptive-costs: '%s' is not measured or default", v);
			o->adaptive_builtin = !strcmp(v, "default");
		} else if (!strcmp(a, "--format")) {
			int f = -1;
			for (int k = 0; output_format_names[k]; k++)
				if (!strcmp(v, output_format_names[k]))
					f = k;
			if (f < 0)
				return usage_error("replay",
						   "--format: '%s' is not table, json or csv", v);
			o->format = (enum output_format)f;
		} else if (!strcmp(a, "--output")) {
			o->output_path = v;
		} else if (!strcmp(a, "--plot")) {
			o->plot_dir = v;
		} else if (!strcmp(a, "--insn")) {
			o->insn = -1;
			if (!strcmp(v, "auto"))
				o->insn = FPU_INSN_AUTO;
			for (int k = 0; k < FPU_INSN_NR; k++)
				if (k != FPU_INSN_XSAVES && !strcmp(v, fpu_insn_name(k)))
					o->insn = k;
			if (o->insn < 0)
				return usage_error(
					"replay",
					"--insn: '%s' is not auto, fxsave, xsave, xsaveopt or xsavec",
					v);
		} else {
			return usage_error("replay", "unknown option '%s'", a);
		}
	}
	if (!*first_trace)
		return usage_error("replay", "needs a TRACE");
	return -1;
}

/* The policy names to run; NULL after a usage error. */
static int policy_list(const char *spec, const char **out)
{
	const char *const *all = replay_policy_names();
	int n = 0;

	if (!strcmp(spec, "all")) {
		for (int i = 0; all[i] && n < MAX_POLICIES; i++)
			out[n++] = all[i];
		return n;
	}
	for (const char *p = spec; *p && n < MAX_POLICIES;) {
		size_t len = strcspn(p, ",");
		int found = -1;
		for (int i = 0; all[i]; i++)
			if (strlen(all[i]) == len && !strncmp(all[i], p, len))
				found = i;
		if (found < 0) {
			char *names = list_join(all, ", ");
			usage_error("replay", "--policy: unknown policy '%.*s' (one of: %s, all)",
				    (int)len, p, names);
			free(names);
			return -1;
		}
		out[n++] = all[found];
		p += len + (p[len] == ',');
	}
	return n;
}

static bool same_counts(const struct replay_counts *a, const struct replay_counts *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The per-event costs of @n, ns per switch: #NM x trap + TS writes x CR0 + IPIs x IPI. */
static double assumed_ns(const struct opts *o, const struct replay_counts *n)
{
	double sw = (double)(n->switches ? n->switches : 1);
	return (o->trap.ns * (double)n->nm_traps + o->cr0.ns * (double)n->ts_writes +
		o->ipi.ns * (double)n->flush_ipis) /
	       sw;
}

/* A policy's cost by its counts alone: saves and restores at the batch costs, plus params. */
static double priced(const struct opts *o, const struct replay_counts *n, double save_ns,
		     double rest_ns)
{
	double sw = (double)(n->switches ? n->switches : 1);
	return (save_ns * (double)n->saves + rest_ns * (double)n->restores) / sw + assumed_ns(o, n);
}

static bool is_static(const char *policy)
{
	return strcmp(policy, "adaptive") != 0;
}

/* The trap cost above which eager beats @other (docs/model.md), or why there is none. */
struct break_even {
	bool have;       /* @other and eager both ran */
	bool none;       /* @other takes no more traps than eager */
	double ns;       /* the break-even trap cost, ns per trap (may be negative) */
	double traps;    /* more traps per switch under @other */
	bool eager_wins; /* none: eager wins at any trap cost */
};

static struct break_even break_even(const struct prow *rows, int n, const char *other, double cr0,
				    double ipi)
{
	const struct prow *e = NULL, *l = NULL;
	struct break_even b = { 0 };

	for (int i = 0; i < n; i++) {
		if (!strcmp(rows[i].policy, "eager"))
			e = &rows[i];
		if (!strcmp(rows[i].policy, other))
			l = &rows[i];
	}
	if (!e || !l || !e->n.switches)
		return b;
	double sw = (double)e->n.switches;
	double rest = ((e->native_med - e->residue) - (l->native_med - l->residue)) +
		      cr0 * ((double)e->n.ts_writes - (double)l->n.ts_writes) / sw +
		      ipi * ((double)e->n.flush_ipis - (double)l->n.flush_ipis) / sw;
	b.have = true;
	b.traps = ((double)l->n.nm_traps - (double)e->n.nm_traps) / sw;
	b.none = b.traps <= 0;
	b.eager_wins = rest < 0;
	b.ns = b.none ? 0 : rest / b.traps;
	return b;
}

static char *break_even_text(const struct break_even *b, const char *other)
{
	if (b->none)
		return xasprintf("none: %s takes no more traps than eager; eager %s at any trap "
				 "cost",
				 other, b->eager_wins ? "wins" : "loses");
	if (b->ns < 0)
		return xasprintf("%.1f ns per trap: negative, eager wins at any trap cost (%.3f "
				 "traps per switch)",
				 b->ns, b->traps);
	return xasprintf("%.1f ns per trap: eager wins above it (%.3f more traps per switch "
			 "under %s)",
			 b->ns, b->traps, other);
}

/* What every row of one trace's replay shares. */
struct trace_info {
	const char *path, *workload;
	unsigned cpus, tasks;
	const char *source; /* result_file.h's: native, native-emulated-costs, ... */
	double save_ns, rest_ns, tpn;
	const char *control;   /* the static policy best by counts, replayed twice; NULL: none */
	struct paired resolve; /* its second copy against it, run by run */
};

/* ns per switch of @n's saves and restores at the batch save and restore costs. */
static double batch_floor_ns(const struct trace_info *ti, const struct replay_counts *n)
{
	double sw = (double)(n->switches ? n->switches : 1);
	return (ti->save_ns * (double)n->saves + ti->rest_ns * (double)n->restores) / sw;
}

static json_t *ns1(double v)
{
	return json_real(round(v * 10) / 10);
}

static json_t *ratio(double v)
{
	return json_real(round(v * 1000) / 1000);
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

/* The keys that open every row: what was replayed, where the figures come from. */
static json_t *row_head(const struct trace_info *ti, const char *policy, unsigned long repeats)
{
	json_t *r = json_object();
	if (!r)
		abort();
	set(r, "experiment", json_string("replay"));
	set(r, "policy", json_string(policy));
	set(r, "workload", json_string(ti->workload));
	set(r, "cpus", json_integer(ti->cpus));
	set(r, "tasks", json_integer(ti->tasks));
	set(r, "trace", json_string(ti->path));
	set(r, "source", json_string(ti->source));
	set(r, "unit", json_string("ns per switch"));
	set(r, "repeats", json_integer((json_int_t)repeats));
	return r;
}

static void row_counts(json_t *r, const struct replay_counts *n)
{
	set(r, "switches", json_integer((json_int_t)n->switches));
	set(r, "nm_traps", json_integer((json_int_t)n->nm_traps));
	set(r, "saves", json_integer((json_int_t)n->saves));
	set(r, "restores", json_integer((json_int_t)n->restores));
	set(r, "restores_skipped", json_integer((json_int_t)n->restores_skipped));
	set(r, "ts_writes", json_integer((json_int_t)n->ts_writes));
	set(r, "flush_ipis", json_integer((json_int_t)n->flush_ipis));
	set(r, "integrity_errors", json_integer((json_int_t)n->integrity_errors));
}

/* The per-event costs and their sources, in every row. */
static void row_costs(json_t *r, const struct opts *o, bool table)
{
	set(r, "trap_ns", json_real(o->trap.ns));
	set(r, "trap_source", json_string(o->trap.source));
	set(r, "cr0_ns", json_real(o->cr0.ns));
	set(r, "cr0_source", json_string(o->cr0.source));
	set(r, "ipi_ns", json_real(o->ipi.ns));
	set(r, "ipi_source", json_string(o->ipi.source));
	set(r, "adaptive_costs", json_string(o->adaptive_builtin ? "default" : "measured"));
	if (table)
		set(r, "costs",
		    json_sprintf("trap %s; cr0 %s; ipi %s", o->trap.source, o->cr0.source,
				 o->ipi.source));
}

/* The trace's resolution: the control policy against its own second copy, run by run. */
static void row_control(json_t *r, const struct trace_info *ti)
{
	bool have = ti->control && ti->resolve.n;
	set(r, "control_policy", ti->control ? json_string(ti->control) : NULL);
	set(r, "control_ratio", have ? ratio(ti->resolve.med) : NULL);
	set(r, "control_ratio_min", have ? ratio(ti->resolve.min) : NULL);
	set(r, "control_ratio_max", have ? ratio(ti->resolve.max) : NULL);
}

/* Machine facts, last. */
static void row_machine(json_t *r, const struct trace_info *ti)
{
	set(r, "save_insn", json_string(fpu_insn_name(xstate_cfg.save_insn)));
	set(r, "xcr0", json_sprintf("0x%" PRIx64, xstate_cfg.xcr0));
	set(r, "tsc_mhz", json_real(round(ti->tpn * 1e6) / 1e3));
	set(r, "save_ns", ns1(ti->save_ns));
	set(r, "restore_ns", ns1(ti->rest_ns));
}

/* The rows as the table shows them (@table: ratios as text, the sources in one cell) or as data. */
static json_t *oracle_row(const struct trace_info *ti, const struct opts *o,
			  const struct oracle_counts *oc, double oracle_ns, bool table)
{
	json_t *r = row_head(ti, "oracle", 1);
	struct replay_counts n = { .switches = oc->switches,
				   .saves = oc->saves,
				   .restores = oc->restores };

	row_counts(r, &n);
	set(r, "restores_skipped", NULL);
	set(r, "integrity_errors", NULL);
	set(r, "native_ns_per_switch", ns1(oracle_ns));
	set(r, "native_ns_min", NULL);
	set(r, "native_ns_max", NULL);
	set(r, "params_ns_per_switch", ns1(0));
	set(r, "ns_per_switch", ns1(oracle_ns));
	set(r, "ns_per_switch_min", NULL);
	set(r, "ns_per_switch_max", NULL);
	set(r, "vs_oracle", ratio(1));
	set(r, "vs_best", NULL);
	set(r, "work_vs_oracle", ratio(1));
	set(r, "vs_best_min", NULL);
	set(r, "vs_best_max", NULL);
	set(r, "vs_best_runs", NULL);
	set(r, "vs_best_median_lo", NULL);
	set(r, "vs_best_median_hi", NULL);
	set(r, "vs_best_median_conf", NULL);
	row_control(r, ti);
	row_costs(r, o, table);
	set(r, "counts_identical", NULL); /* the policy rows' keys, for CSV's header */
	set(r, "break_even_trap_ns", NULL);
	set(r, "floor_ns_per_switch", ns1(oracle_ns));
	set(r, "timing_residue_ns_per_switch", NULL);
	set(r, "timed_regions", NULL);
	set(r, "floor_batch_ns_per_switch", ns1(oracle_ns));
	set(r, "overhead_ns_per_switch", NULL);
	set(r, "skipped_restore_ticks", NULL);
	set(r, "skipped_restore_ticks_median", NULL);
	set(r, "hook_calls_clipped", NULL);
	row_machine(r, ti);
	if (table) {
		set(r, "vs_oracle", json_string("1.00x"));
		set(r, "work_vs_oracle", json_string("1.00x"));
		set(r, "costs", NULL);
	}
	return r;
}

static json_t *policy_row(const struct trace_info *ti, const struct opts *o, const struct prow *w,
			  const struct oracle_counts *oc, double oracle_ns, double best,
			  const struct break_even *be, bool table)
{
	json_t *r = row_head(ti, w->policy, o->repeat);
	double work = (double)(w->n.saves + w->n.restores);
	double owork = (double)(oc->saves + oc->restores);
	double fl = w->floor_med;

	row_counts(r, &w->n);
	set(r, "native_ns_per_switch", ns1(w->native_med));
	set(r, "native_ns_min", ns1(w->native_min));
	set(r, "native_ns_max", ns1(w->native_max));
	set(r, "params_ns_per_switch", ns1(w->assumed));
	set(r, "ns_per_switch", ns1(w->total));
	set(r, "ns_per_switch_min", ns1(w->native_min - w->residue + w->assumed));
	set(r, "ns_per_switch_max", ns1(w->native_max - w->residue + w->assumed));
	bool paired = w->vs_best.n > 0;
	if (table) {
		set(r, "vs_oracle",
		    json_sprintf("%.2fx", oracle_ns > 0 ? w->total / oracle_ns : 0));
		set(r, "vs_best",
		    paired ? json_sprintf("%.3fx", w->vs_best.med) : json_string("-"));
		set(r, "work_vs_oracle", json_sprintf("%.2fx", owork > 0 ? work / owork : 0));
	} else {
		set(r, "vs_oracle", oracle_ns > 0 ? ratio(w->total / oracle_ns) : NULL);
		set(r, "vs_best", paired ? ratio(w->vs_best.med) : NULL);
		set(r, "work_vs_oracle", owork > 0 ? ratio(work / owork) : NULL);
	}
	set(r, "vs_best_min", paired ? ratio(w->vs_best.min) : NULL);
	set(r, "vs_best_max", paired ? ratio(w->vs_best.max) : NULL);
	set(r, "vs_best_runs", json_integer((json_int_t)w->vs_best.n));
	bool ci = paired && w->vs_best.conf > 0;
	set(r, "vs_best_median_lo", ci ? ratio(w->vs_best.lo) : NULL);
	set(r, "vs_best_median_hi", ci ? ratio(w->vs_best.hi) : NULL);
	set(r, "vs_best_median_conf", ci ? ratio(w->vs_best.conf) : NULL);
	row_control(r, ti);
	row_costs(r, o, table);
	if (table && (w->counts_differ || w->n.integrity_errors))
		set(r, "costs",
		    json_sprintf("%s%s%s", json_string_value(json_object_get(r, "costs")),
				 w->counts_differ ? "  COUNTS DIFFER" : "",
				 w->n.integrity_errors ? "  INTEGRITY ERRORS" : ""));
	set(r, "counts_identical", json_boolean(!w->counts_differ));
	set(r, "break_even_trap_ns", be && be->have && !be->none ? ns1(be->ns) : NULL);
	set(r, "floor_ns_per_switch", ns1(fl));
	set(r, "timing_residue_ns_per_switch", ns1(w->residue));
	set(r, "timed_regions", json_integer((json_int_t)w->regions));
	set(r, "floor_batch_ns_per_switch", ns1(batch_floor_ns(ti, &w->n)));
	set(r, "overhead_ns_per_switch", ns1(w->overhead));
	set(r, "skipped_restore_ticks",
	    w->skip_med >= 0 ? json_real(round(w->skip_lib * 10) / 10) : NULL);
	set(r, "skipped_restore_ticks_median", w->skip_med >= 0 ? json_real(w->skip_med) : NULL);
	set(r, "hook_calls_clipped", json_integer((json_int_t)w->clipped));
	row_machine(r, ti);
	return r;
}

/*
 * A distribution-free interval of the median of @n sorted @x: the k-th
 * least to the k-th greatest, which holds the median with probability
 * 1 - 2 P(Binomial(n, 1/2) < k); the narrowest with at least 90%. None
 * (conf 0) for fewer than 5 runs.
 */
static void median_interval(const double *x, unsigned long n, struct paired *q)
{
	double pk = ldexp(1, -(int)fmin((double)n, 1000)), cdf = 0; /* P(Bin = 0) */
	q->conf = 0;
	for (unsigned long k = 1; 2 * k <= n && n <= 1000; k++) {
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
static struct paired pair_runs(const struct replay_result *a, const struct prow *wa,
			       const struct replay_result *b, const struct prow *wb,
			       unsigned long repeat, double tpn, double *samples)
{
	struct paired q = { NAN, NAN, NAN, 0, NAN, NAN, 0 };
	for (unsigned long k = 0; k < repeat; k++) {
		double x = run_total(&a[k], wa, tpn), y = run_total(&b[k], wb, tpn);
		if (y > 0 && isfinite(x))
			samples[q.n++] = x / y;
	}
	if (!q.n)
		return q;
	qsort(samples, q.n, sizeof(*samples), cmp_double);
	q.med = samples[q.n / 2];
	q.min = samples[0];
	q.max = samples[q.n - 1];
	median_interval(samples, q.n, &q);
	return q;
}

/*
 * The cost of one empty timed region by entry point, in TSC ticks beyond the
 * subtracted overhead, pooled over every policy's empty runs of the trace:
 * per run k, all policies' empty-region ticks over their regions; the
 * median of the K. Policies with the same timed regions get the same
 * residue. @samples has room for @repeat values.
 */
static void empty_region_ticks(const struct replay_result *eres, int np, unsigned long repeat,
			       double *samples, double *ticks)
{
	for (int h = 0; h < REPLAY_HOOK_NR; h++) {
		unsigned long n = 0;
		for (unsigned long k = 0; k < repeat; k++) {
			int64_t sum = 0;
			uint64_t calls = 0;
			for (int p = 0; p < np; p++) {
				sum += eres[(size_t)p * repeat + k].hook_ticks[h];
				calls += eres[(size_t)p * repeat + k].hook_calls[h];
			}
			if (calls)
				samples[n++] = (double)sum / (double)calls;
		}
		qsort(samples, n, sizeof(*samples), cmp_double);
		ticks[h] = n ? samples[n / 2] : 0;
	}
}

/* The overhead is a share of the floor only where the floor is at least this (ns per switch). */
#define FLOOR_RATIO_MIN_NS 1.0

static int replay_trace(const char *path, const struct opts *o, const char **pols, int np,
			double tpn)
{
	struct trace t;
	struct oracle_counts oc;
	char err[512];
	int rc = 0;

	if (trace_read(path, &t, err, sizeof(err))) {
		fprintf(stderr, "fpulab replay: %s\n", err);
		return 1;
	}
	if (oracle_run(&t, &oc)) {
		fprintf(stderr, "fpulab replay: out of memory\n");
		trace_free(&t);
		return 1;
	}
	struct replay *rp = replay_new(&t, o->insn);
	if (!rp) {
		trace_free(&t);
		return 1;
	}
	uint32_t umask = 0;
	for (uint64_t i = 0; i < t.hdr.nevents; i++)
		if (t.ev[i].type == FPULAB_EV_USE)
			umask |= t.ev[i].mask;
	uint64_t save_t, rest_t;
	replay_floor(rp, umask ? umask : 3, 201, &save_t, &rest_t);
	double save_ns = (double)save_t / tpn, rest_ns = (double)rest_t / tpn;
	/* adaptive decides by the costs this replay charges (fpu_set_costs), or by
	 * libfpu's built-in ones as in the lab (--adaptive-costs default) */
	struct fpu_costs fc = { (uint32_t)lround(o->trap.ns), (uint32_t)lround(o->cr0.ns),
				(uint32_t)lround(o->ipi.ns), (uint32_t)lround(save_ns),
				(uint32_t)lround(rest_ns) };
	if (o->adaptive_builtin)
		fc = o->builtin;
	fpu_set_costs(&fc);

	struct prow rows[MAX_POLICIES];
	struct replay_log *logs[MAX_POLICIES] = { NULL };
	struct replay_result *res = calloc((size_t)np * o->repeat, sizeof(*res));
	struct replay_result *bres = calloc((size_t)np * o->repeat, sizeof(*bres));
	struct replay_result *eres = calloc((size_t)np * o->repeat, sizeof(*eres));
	struct replay_result *cres = calloc(o->repeat, sizeof(*cres)); /* the control's copy */
	int ctl = -1; /* the control: the static policy best by counts */
	double ctl_priced = INFINITY;
	uint64_t *skips = malloc((oc.switches + 1) * sizeof(*skips));
	double *samples = malloc(o->repeat * sizeof(*samples));
	if (!res || !bres || !eres || !cres || !skips || !samples) {
		fprintf(stderr, "fpulab replay: out of memory\n");
		rc = 1;
		goto out;
	}
	/* each policy's saves and restores, logged for its floor (replay_bare) */
	for (int p = 0; p < np; p++) {
		struct replay_result r = { 0 };
		logs[p] = replay_log_new(&t);
		if (!logs[p] || replay_record(rp, pols[p], logs[p], &r)) {
			fprintf(stderr, "fpulab replay: out of memory\n");
			rc = 1;
			goto out;
		}
		if (replay_log_saves(logs[p]) != r.n.saves ||
		    replay_log_restores(logs[p]) != r.n.restores) {
			fprintf(stderr,
				"fpulab replay: %s: %s: the floor's log has %" PRIu64
				" saves and %" PRIu64 " restores, the policy counted %" PRIu64
				" and %" PRIu64 "\n",
				path, pols[p], replay_log_saves(logs[p]),
				replay_log_restores(logs[p]), r.n.saves, r.n.restores);
			rc = 1;
		}
		if (is_static(pols[p]) && priced(o, &r.n, save_ns, rest_ns) < ctl_priced) {
			ctl_priced = priced(o, &r.n, save_ns, rest_ns);
			ctl = p;
		}
	}
	/* interleaved: run k of every policy and its bare floor, then run k+1 */
	for (unsigned long k = 0; k < o->repeat; k++)
		for (int p = 0; p < np; p++) {
			struct replay_result *r = &res[(size_t)p * o->repeat + k];
			r->skip_ticks = k == 0 ? skips : NULL;
			replay_run(rp, pols[p], r);
			if (k == 0) {
				rows[p].skip_med = -1;
				if (r->nskip) {
					qsort(skips, r->nskip, sizeof(*skips), cmp_u64);
					rows[p].skip_med = (double)skips[r->nskip / 2];
					rows[p].nskip = r->nskip;
				}
			}
			r->skip_ticks = NULL;
			replay_bare(rp, logs[p], false, &bres[(size_t)p * o->repeat + k]);
			replay_bare(rp, logs[p], true, &eres[(size_t)p * o->repeat + k]);
			if (p == np - 1 && ctl >= 0) /* the round's last: the control again */
				replay_run(rp, pols[ctl], &cres[k]);
		}
	double empty_region[REPLAY_HOOK_NR];
	empty_region_ticks(eres, np, o->repeat, samples, empty_region);
	for (int p = 0; p < np; p++) {
		struct replay_result *r = &res[(size_t)p * o->repeat];
		struct replay_result *b = &bres[(size_t)p * o->repeat];
		struct prow *w = &rows[p];
		w->policy = pols[p];
		w->n = r[0].n;
		w->counts_differ = false;
		w->clipped = 0;
		for (unsigned long k = 0; k < o->repeat; k++) {
			samples[k] = (double)r[k].ticks / tpn /
				     (double)(r[k].n.switches ? r[k].n.switches : 1);
			w->clipped += r[k].clipped;
			if (!same_counts(&r[k].n, &w->n))
				w->counts_differ = true;
		}
		qsort(samples, o->repeat, sizeof(*samples), cmp_double);
		w->native_min = samples[0];
		w->native_max = samples[o->repeat - 1];
		w->native_med = samples[o->repeat / 2];
		for (unsigned long k = 0; k < o->repeat; k++) {
			samples[k] = (double)b[k].ticks / tpn /
				     (double)(b[k].n.switches ? b[k].n.switches : 1);
			if (b[k].desync || b[k].n.integrity_errors || b[k].n.saves != w->n.saves ||
			    b[k].n.restores != w->n.restores) {
				fprintf(stderr,
					"fpulab replay: %s: %s: the bare floor run did not replay "
					"the policy's saves and restores (%" PRIu64
					" calls unmatched, %" PRIu64 " integrity errors)\n",
					path, w->policy, b[k].desync, b[k].n.integrity_errors);
				rc = 1;
			}
		}
		qsort(samples, o->repeat, sizeof(*samples), cmp_double);
		w->bare_med = samples[o->repeat / 2];
		/* its timed regions at the trace's pooled empty-region cost */
		w->residue = 0;
		w->regions = 0;
		for (int h = 0; h < REPLAY_HOOK_NR; h++) {
			w->residue += (double)r[0].regions[h] * empty_region[h];
			w->regions += r[0].regions[h];
		}
		w->residue /= tpn * (double)(w->n.switches ? w->n.switches : 1);
		w->floor_med = w->bare_med - w->residue;
		w->overhead = w->native_med - w->bare_med;
		for (int h = 0; h < REPLAY_HOOK_NR; h++) {
			for (unsigned long k = 0; k < o->repeat; k++)
				samples[k] = (double)(r[k].hook_ticks[h] - b[k].hook_ticks[h]) /
					     tpn / (double)(r[k].n.switches ? r[k].n.switches : 1);
			qsort(samples, o->repeat, sizeof(*samples), cmp_double);
			w->hook_overhead[h] = samples[o->repeat / 2];
			w->hook_calls[h] = r[0].hook_calls[h];
		}
		/* libfpu's own ticks per skipped-restore switch: native mean minus bare mean */
		for (unsigned long k = 0; k < o->repeat; k++)
			samples[k] = r[k].nskip && b[k].nskip
					     ? (double)r[k].skip_sum / (double)r[k].nskip -
						       (double)b[k].skip_sum / (double)b[k].nskip
					     : 0;
		qsort(samples, o->repeat, sizeof(*samples), cmp_double);
		w->skip_lib = samples[o->repeat / 2];
		w->assumed = assumed_ns(o, &w->n);
		/* The timing's residue is the harness's, not libfpu's: left out of the total. */
		w->total = w->native_med - w->residue + w->assumed;
		if (w->n.integrity_errors || w->counts_differ)
			rc = 1;
	}
	double oracle_ns = (save_ns * (double)oc.saves + rest_ns * (double)oc.restores) /
			   (double)(oc.switches ? oc.switches : 1);
	double best = INFINITY;
	const char *best_name = "-";
	for (int p = 0; p < np; p++)
		if (is_static(rows[p].policy) && rows[p].total < best) {
			best = rows[p].total;
			best_name = rows[p].policy;
		}

	/* run k against run k: each policy against the best static, the control against itself */
	int best_p = -1;
	for (int p = 0; p < np; p++)
		if (rows[p].policy == best_name)
			best_p = p;
	for (int p = 0; p < np; p++)
		rows[p].vs_best = best_p < 0 ? (struct paired){ NAN, NAN, NAN, 0, NAN, NAN, 0 }
					     : pair_runs(&res[(size_t)p * o->repeat], &rows[p],
							 &res[(size_t)best_p * o->repeat],
							 &rows[best_p], o->repeat, tpn, samples);
	struct paired control = { NAN, NAN, NAN, 0, NAN, NAN, 0 };
	if (ctl >= 0) {
		for (unsigned long k = 0; k < o->repeat; k++)
			if (!same_counts(&cres[k].n, &rows[ctl].n)) {
				fprintf(stderr,
					"fpulab replay: %s: %s: the control's copy counted differently\n",
					path, pols[ctl]);
				rc = 1;
			}
		control = pair_runs(cres, &rows[ctl], &res[(size_t)ctl * o->repeat], &rows[ctl],
				    o->repeat, tpn, samples);
	}

	/* The source of the row's figures: native, plus lab costs measured where. */
	const char *source = "native";
	const struct param *const params[] = { &o->trap, &o->cr0, &o->ipi };
	for (int k = 0; k < 3; k++) {
		const struct param *q = params[k];
		if (!strcmp(q->source, "lab costs, emulated (TCG)"))
			source = "native-emulated-costs";
		else if (!strcmp(q->source, "lab costs, hardware (KVM)") &&
			 !strcmp(source, "native"))
			source = "native-hardware-costs";
	}
	struct trace_info ti = { path,
				 t.hdr.workload,
				 t.hdr.ncpus,
				 t.hdr.ntasks,
				 source,
				 save_ns,
				 rest_ns,
				 tpn,
				 ctl >= 0 ? pols[ctl] : NULL,
				 control };
	struct output *out = o->out;
	output_comment(out,
		       "fpulab replay %s: workload %.24s, %u CPUs, %u tasks, %" PRIu64
		       " switches, %" PRIu64 " FPU uses",
		       path, t.hdr.workload, t.hdr.ncpus, t.hdr.ntasks, oc.switches, oc.uses);
	output_comment(out,
		       "native: this CPU, user mode, %s (%s format, %u bytes), XCR0 0x%" PRIx64
		       ", TSC %.3f MHz; one thread plays every traced CPU",
		       fpu_insn_name(xstate_cfg.save_insn),
		       xstate_cfg.compacted ? "compacted" : "standard", xstate_cfg.kernel_size,
		       xstate_cfg.xcr0, tpn * 1000);
	output_comment(
		out,
		"batch: native save %.1f ns, restore %.1f ns (mask 0x%x dirty, one buffer, median of 201 "
		"batches of 16): the oracle's costs%s",
		save_ns, rest_ns, umask, o->adaptive_builtin ? "" : " and adaptive's");
	output_comment(
		out,
		"floor: each policy's own saves and restores (same areas, masks, order and registers), "
		"replayed without libfpu in the same timed regions, minus those regions timed empty "
		"(the timing residue, below); overhead = native - floor - residue: libfpu's own; ns per "
		"switch, medians of %lu runs interleaved with the policy's",
		o->repeat);
	char regions[256] = "";
	size_t rl = 0;
	for (int h = 0; h < REPLAY_HOOK_NR; h++)
		for (int p = 0; p < np; p++)
			if (res[(size_t)p * o->repeat].regions[h] && rl < sizeof(regions)) {
				rl += (size_t)snprintf(regions + rl, sizeof(regions) - rl,
						       "%s%s %.2f", rl ? ", " : "",
						       replay_hook_names[h], empty_region[h]);
				break;
			}
	output_comment(out,
		       "timing residue: one empty timed region, TSC ticks beyond the %" PRIu64
		       "-tick overhead subtracted, by entry point: %s (pooled over the empty runs "
		       "of all %d policies, median of %lu runs); a policy's residue is its timed "
		       "regions at these costs",
		       replay_timer_overhead(rp), regions, np, o->repeat);
	output_comment(
		out,
		"costs per event: #NM trap %.1f ns (%s), CR0 write %.1f ns (%s), IPI %.1f ns (%s)",
		o->trap.ns, o->trap.source, o->cr0.ns, o->cr0.source, o->ipi.ns, o->ipi.source);
	for (int p = 0; p < np; p++)
		if (!strcmp(rows[p].policy, "adaptive"))
			output_comment(
				out,
				"adaptive decides by: #NM trap %u ns, CR0 write %u ns, IPI %u ns, "
				"save %u ns, restore %u ns (%s)",
				fc.trap_ns, fc.cr0_ns, fc.ipi_ns, fc.save_ns, fc.restore_ns,
				o->adaptive_builtin
					? "--adaptive-costs default: libfpu's built-in costs, as "
					  "the lab kernel uses them"
					: "--adaptive-costs measured: the per-event costs above "
					  "and the batch save and restore, rounded");
	if (o->costs_file)
		output_comment(
			out,
			"lab costs from %s: the median ns per operation of each cost's runs (#NM trap %u, CR0 write %u, IPI %u runs; 0: not in the file)",
			o->costs_file, o->trap.runs, o->cr0.runs, o->ipi.runs);
	output_comment(
		out,
		"ns per switch; native: median, min, max of %lu runs (policies interleaved); params: the per-event costs above (#NM x trap + TS writes x CR0 + IPIs x IPI) per switch; residue: what the timing itself adds to native (its timed regions x the pooled empty-region cost below); total = native median - residue + params; costs: each cost's source",
		o->repeat);
	out->table_heading_done = false; /* a heading per trace */
	bool table = out->format == OUTPUT_TABLE;
	if (out->plot_rows)
		output_plot_row(out, oracle_row(&ti, o, &oc, oracle_ns, false));
	output_row(out, oracle_row(&ti, o, &oc, oracle_ns, table));
	struct break_even be[2] = { break_even(rows, np, "lazy", o->cr0.ns, o->ipi.ns),
				    break_even(rows, np, "lazy-counter", o->cr0.ns, o->ipi.ns) };
	for (int p = 0; p < np; p++) {
		const struct break_even *b = !strcmp(rows[p].policy, "lazy")           ? &be[0]
					     : !strcmp(rows[p].policy, "lazy-counter") ? &be[1]
										       : NULL;
		if (out->plot_rows)
			output_plot_row(
				out, policy_row(&ti, o, &rows[p], &oc, oracle_ns, best, b, false));
		output_row(out, policy_row(&ti, o, &rows[p], &oc, oracle_ns, best, b, table));
	}
	uint64_t clipped = 0;
	for (int p = 0; p < np; p++)
		clipped += rows[p].clipped;
	output_comment(
		out,
		"hook calls over 20000 ticks (interrupted or preempted) left out of native: %" PRIu64
		" over %lu runs of %d policies",
		clipped, o->repeat, np);
	output_comment(out, "best static policy: %s (%.1f ns per switch)", best_name, best);
	for (int p = 0; p < np; p++)
		if (!strcmp(rows[p].policy, "adaptive") && rows[p].vs_best.n) {
			const struct paired *q = &rows[p].vs_best;
			char ci[128] = "";
			if (q->conf > 0)
				snprintf(ci, sizeof(ci),
					 " (%.1f%% interval of the median: %.3fx to %.3fx)",
					 100 * q->conf, q->lo, q->hi);
			output_comment(out,
				       "adaptive / best static (%s), total of run k over total of "
				       "run k: median %.3fx%s, min %.3fx, max %.3fx of %lu runs",
				       best_name, q->med, ci, q->min, q->max, q->n);
		}
	if (ctl >= 0 && control.n)
		output_comment(out,
			       "resolution: %s (the static policy best by counts) replayed again "
			       "after every round, its total of run k over its own of run k: "
			       "median %.3fx, min %.3fx, max %.3fx of %lu runs (1x if replay "
			       "resolved everything)",
			       pols[ctl], control.med, control.min, control.max, control.n);
	double best_priced = INFINITY;
	for (int p = 0; p < np; p++)
		if (is_static(rows[p].policy))
			best_priced = fmin(best_priced, priced(o, &rows[p].n, save_ns, rest_ns));
	for (int p = 0; p < np; p++)
		if (!strcmp(rows[p].policy, "adaptive"))
			targets_add(
				o->targets,
				&(struct target_input){
					.trace = path,
					.switches = oc.switches,
					.vs_best = rows[p].vs_best,
					.control = control,
					.adaptive = rows[p].total,
					.best = best,
					.adaptive_priced = priced(o, &rows[p].n, save_ns, rest_ns),
					.best_priced = best_priced,
					.oracle = oracle_ns,
					.work = (double)(rows[p].n.saves + rows[p].n.restores),
					.oracle_work = (double)(oc.saves + oc.restores),
				});
	for (int i = 0; i < 2; i++) {
		if (!be[i].have)
			continue;
		const char *other = i ? "lazy-counter" : "lazy";
		char *text = break_even_text(&be[i], other);
		output_comment(out, "break-even trap cost, eager vs %s: %s", other, text);
		free(text);
	}
	output_comment(out, "(trap cost used %.1f ns, %s; the default %.0f ns is assumed)",
		       o->trap.ns, o->trap.source, TRAP_NS_DEFAULT);
	for (int p = 0; p < np; p++) {
		const struct prow *w = &rows[p];
		double fl = w->floor_med;
		char skip[256] = "", hooks[256] = "";
		size_t hl = 0;
		for (int h = 0; h < REPLAY_HOOK_NR; h++)
			if (w->hook_calls[h] && hl < sizeof(hooks))
				hl += (size_t)snprintf(
					hooks + hl, sizeof(hooks) - hl, "%s %s %.1f",
					hl ? "," : "; by entry point:", replay_hook_names[h],
					unsigned_zero(w->hook_overhead[h], 0.05));
		if (w->skip_med >= 0)
			snprintf(
				skip, sizeof(skip),
				"; skipped-restore switch: libfpu %.1f TSC ticks (mean over %" PRIu64
				" switches, native minus floor, median of %lu runs; per-call median "
				"%.0f native ticks)",
				unsigned_zero(w->skip_lib, 0.05), w->nskip, o->repeat, w->skip_med);
		char share[48];
		share_of(share, sizeof(share), w->overhead, fl, FLOOR_RATIO_MIN_NS, "floor");
		output_comment(
			out,
			"libfpu %-13s native %.1f ns/switch, floor %.1f (batch estimate %.1f), timing "
			"residue %.1f, overhead %.1f ns/switch (%s%s)%s",
			w->policy, unsigned_zero(w->native_med, 0.05), unsigned_zero(fl, 0.05),
			unsigned_zero(batch_floor_ns(&ti, &w->n), 0.05),
			unsigned_zero(w->residue, 0.05), unsigned_zero(w->overhead, 0.05), share,
			hooks, skip);
	}
out:
	for (int p = 0; p < np; p++)
		replay_log_free(logs[p]);
	free(res);
	free(bres);
	free(eres);
	free(cres);
	free(skips);
	free(samples);
	replay_free(rp);
	trace_free(&t);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	struct opts o = { .policies = "all",
			  .repeat = REPEAT_DEFAULT,
			  .trap = { .ns = TRAP_NS_DEFAULT, .source = "assumed" },
			  .cr0 = { .ns = CR0_NS_DEFAULT, .source = "assumed" },
			  .ipi = { .ns = IPI_NS_DEFAULT, .source = "assumed" },
			  .insn = FPU_INSN_AUTO };
	const char *pols[MAX_POLICIES];
	int first, rc = parse_args(argc, argv, &o, &first);

	if (rc >= 0)
		return rc;
	fpu_get_costs(&o.builtin); /* before any trace sets them */
	int np = policy_list(o.policies, pols);
	if (np < 0)
		return 2;
	/* every trace read and checked before anything is printed or written */
	for (int i = first; i < argc; i++) {
		struct trace t;
		char err[512];
		if (argv[i][0] == '-') {
			i++;
			continue;
		}
		if (trace_read(argv[i], &t, err, sizeof(err))) {
			fprintf(stderr, "fpulab replay: %s\n", err);
			rc = 1;
		}
		trace_free(&t);
	}
	if (rc > 0)
		return rc;
	struct output out;
	if (output_open(&out, o.format, o.output_path, "replay") < 0 ||
	    (o.plot_dir && output_plot(&out, o.plot_dir) < 0)) {
		fprintf(stderr, "fpulab replay: %s\n", out.error);
		output_close(&out);
		return 2;
	}
	o.out = &out;
	output_provenance_host(&out, argc, argv);
	output_columns(&out, table_columns, sizeof(table_columns) / sizeof(table_columns[0]));
	json_t *pv = out.provenance;
	output_comment(&out, "fpulab %s (git %s); host %s, Linux %s; %s",
		       json_string_value(json_object_get(pv, "fpulab_version")),
		       json_string_value(json_object_get(pv, "fpulab_git")),
		       json_string_value(json_object_get(pv, "host_cpu")),
		       json_string_value(json_object_get(pv, "host_kernel")),
		       json_string_value(json_object_get(pv, "date")));
	output_comment(&out, "command: %s", json_string_value(json_object_get(pv, "command")));
	double tpn = tsc_per_ns();
	struct targets tg = { 0 };
	o.targets = &tg;
	rc = 0;
	for (int i = first; i < argc; i++) {
		if (argv[i][0] == '-') {
			i++;
			continue;
		}
		rc |= replay_trace(argv[i], &o, pols, np, tpn);
	}
	targets_print(&out, &tg, o.repeat);
	free(tg.control_dev);
	size_t rows = out.rows;
	if (output_close(&out) < 0)
		return 1;
	if (o.output_path && rows)
		fprintf(stderr, "fpulab replay: %zu rows written to %s\n", rows, o.output_path);
	else if (o.output_path)
		fprintf(stderr, "fpulab replay: no rows: %s not written\n", o.output_path);
	return rc;
}
