/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay TRACE...: every policy over a trace, natively on this CPU
 * (cli/replay_engine.c), against the oracle (cli/oracle.c), with the costs
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

#include "cli.h"
#include "oracle.h"
#include "replay_engine.h"
#include "result_file.h"
#include "trace_io.h"
#include "util.h"

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
	const char *costs_file; /* --costs FILE of the lab's costs experiment */
	int insn;
};

struct prow {
	const char *policy;
	struct replay_counts n;
	double native_med, native_min, native_max; /* ns per switch */
	double assumed;                            /* ns per switch */
	double total;
	double skip_med; /* ticks; < 0: no skipped-restore switches */
	uint64_t nskip;  /* skipped-restore switches timed (the first run) */
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
		"object with trap_ns, cr0_ns and ipi_ns (any of them).\n",
		REPEAT_DEFAULT, TRAP_NS_DEFAULT, CR0_NS_DEFAULT, IPI_NS_DEFAULT);
}

static int parse_ns(const char *opt, const char *v, struct param *p)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (!*v || *end || errno || !(x >= 0) || x > 1e9)
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

		if (strcmp(result_str(row, "experiment", ""), "costs") || !cost)
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
		if (!json_is_number(ns) || json_number_value(ns) < 0) {
			fprintf(stderr, "fpulab replay: --costs %s: %s has no ns_per_op\n", path,
				cost);
			return 1;
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
		if (!json_is_number(v) || json_number_value(v) < 0) {
			fprintf(stderr,
				"fpulab replay: --costs %s: %s is not a non-negative number\n",
				path, keys[i]);
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

static bool is_static(const char *policy)
{
	return strcmp(policy, "adaptive") != 0;
}

static void print_break_even(const struct prow *rows, int n, const char *other, double cr0,
			     double ipi)
{
	const struct prow *e = NULL, *l = NULL;

	for (int i = 0; i < n; i++) {
		if (!strcmp(rows[i].policy, "eager"))
			e = &rows[i];
		if (!strcmp(rows[i].policy, other))
			l = &rows[i];
	}
	if (!e || !l)
		return;
	double sw = (double)e->n.switches;
	double traps = ((double)l->n.nm_traps - (double)e->n.nm_traps) / sw;
	double rest = (e->native_med - l->native_med) +
		      cr0 * ((double)e->n.ts_writes - (double)l->n.ts_writes) / sw +
		      ipi * ((double)e->n.flush_ipis - (double)l->n.flush_ipis) / sw;
	printf("break-even trap cost, eager vs %s: ", other);
	if (traps <= 0) {
		printf("none: %s takes no more traps than eager; eager %s at any trap cost\n",
		       other, rest < 0 ? "wins" : "loses");
		return;
	}
	double be = rest / traps;
	if (be < 0)
		printf("%.1f ns per trap: negative, eager wins at any trap cost (%.3f traps per switch)\n",
		       be, traps);
	else
		printf("%.1f ns per trap: eager wins above it (%.3f more traps per switch under %s)\n",
		       be, traps, other);
}

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
	/* adaptive decides by the costs this replay charges (fpu_set_costs) */
	struct fpu_costs fc = { (uint32_t)lround(o->trap.ns), (uint32_t)lround(o->cr0.ns),
				(uint32_t)lround(o->ipi.ns), (uint32_t)lround(save_ns),
				(uint32_t)lround(rest_ns) };
	fpu_set_costs(&fc);

	struct prow rows[MAX_POLICIES];
	struct replay_result *res = calloc((size_t)np * o->repeat, sizeof(*res));
	uint64_t *skips = malloc((oc.switches + 1) * sizeof(*skips));
	double *samples = malloc(o->repeat * sizeof(*samples));
	if (!res || !skips || !samples) {
		fprintf(stderr, "fpulab replay: out of memory\n");
		rc = 1;
		goto out;
	}
	/* interleaved: run k of every policy, then run k+1 */
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
		}
	for (int p = 0; p < np; p++) {
		struct replay_result *r = &res[(size_t)p * o->repeat];
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
		double sw = (double)(w->n.switches ? w->n.switches : 1);
		w->assumed = (o->trap.ns * (double)w->n.nm_traps +
			      o->cr0.ns * (double)w->n.ts_writes +
			      o->ipi.ns * (double)w->n.flush_ipis) /
			     sw;
		w->total = w->native_med + w->assumed;
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

	printf("# fpulab replay %s: workload %.24s, %u CPUs, %u tasks, %" PRIu64
	       " switches, %" PRIu64 " FPU uses\n",
	       path, t.hdr.workload, t.hdr.ncpus, t.hdr.ntasks, oc.switches, oc.uses);
	printf("# native: this CPU, user mode, %s (%s format, %u bytes), XCR0 0x%" PRIx64
	       ", TSC %.3f MHz; one thread plays every traced CPU\n",
	       fpu_insn_name(xstate_cfg.save_insn), xstate_cfg.compacted ? "compacted" : "standard",
	       xstate_cfg.kernel_size, xstate_cfg.xcr0, tpn * 1000);
	printf("# native save %.1f ns, restore %.1f ns (mask 0x%x dirty, median of 201 batches of 16)\n",
	       save_ns, rest_ns, umask);
	printf("# costs per event: #NM trap %.1f ns (%s), CR0 write %.1f ns (%s), IPI %.1f ns (%s)\n",
	       o->trap.ns, o->trap.source, o->cr0.ns, o->cr0.source, o->ipi.ns, o->ipi.source);
	if (o->costs_file)
		printf("# lab costs from %s: the median ns per operation of each cost's runs (#NM trap %u, CR0 write %u, IPI %u runs; 0: not in the file)\n",
		       o->costs_file, o->trap.runs, o->cr0.runs, o->ipi.runs);
	printf("# ns per switch; native: median, min, max of %lu runs (policies interleaved); params: the per-event costs above (#NM x trap + TS writes x CR0 + IPIs x IPI) per switch; total = native median + params; costs: each cost's source\n",
	       o->repeat);
	printf("%-13s %8s %8s %8s %8s %8s %8s %6s %5s %9s %8s %8s %9s %9s %8s %8s %8s %s\n",
	       "policy", "switches", "#NM", "saves", "restores", "skipped", "TSwrites", "IPIs",
	       "integ", "native", "min", "max", "params", "total", "vsOracle", "vsBest", "work/or",
	       "costs");
	printf("%-13s %8" PRIu64 " %8s %8" PRIu64 " %8" PRIu64
	       " %8s %8s %6s %5s %9.1f %8s %8s %9.1f %9.1f %8s %8s %8s\n",
	       "oracle", oc.switches, "0", oc.saves, oc.restores, "-", "0", "0", "-", oracle_ns,
	       "-", "-", 0.0, oracle_ns, "1.00x", "-", "1.00x");
	char *src = xasprintf("trap %s; cr0 %s; ipi %s", o->trap.source, o->cr0.source,
			      o->ipi.source);
	for (int p = 0; p < np; p++) {
		const struct prow *w = &rows[p];
		double work = (double)(w->n.saves + w->n.restores);
		double owork = (double)(oc.saves + oc.restores);
		printf("%-13s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		       " %8" PRIu64 " %6" PRIu64 " %5" PRIu64
		       " %9.1f %8.1f %8.1f %9.1f %9.1f %7.2fx %7.3fx %7.2fx %s%s%s\n",
		       w->policy, w->n.switches, w->n.nm_traps, w->n.saves, w->n.restores,
		       w->n.restores_skipped, w->n.ts_writes, w->n.flush_ipis,
		       w->n.integrity_errors, w->native_med, w->native_min, w->native_max,
		       w->assumed, w->total, oracle_ns > 0 ? w->total / oracle_ns : 0,
		       w->total / best, owork > 0 ? work / owork : 0, src,
		       w->counts_differ ? "  COUNTS DIFFER" : "",
		       w->n.integrity_errors ? "  INTEGRITY ERRORS" : "");
	}
	free(src);
	uint64_t clipped = 0;
	for (int p = 0; p < np; p++)
		clipped += rows[p].clipped;
	printf("# hook calls over 20000 ticks (interrupted or preempted) left out of native: %" PRIu64
	       " over %lu runs of %d policies\n",
	       clipped, o->repeat, np);
	printf("best static policy: %s (%.1f ns per switch)\n", best_name, best);
	print_break_even(rows, np, "lazy", o->cr0.ns, o->ipi.ns);
	print_break_even(rows, np, "lazy-counter", o->cr0.ns, o->ipi.ns);
	printf("(trap cost used %.1f ns, %s; the default %.0f ns is assumed)\n", o->trap.ns,
	       o->trap.source, TRAP_NS_DEFAULT);
	for (int p = 0; p < np; p++) {
		const struct prow *w = &rows[p];
		double sw = (double)(w->n.switches ? w->n.switches : 1);
		double floor = (save_ns * (double)w->n.saves + rest_ns * (double)w->n.restores) /
			       sw;
		printf("libfpu %-13s native %.1f ns/switch (median of %lu runs), save/restore floor "
		       "%.1f ns/switch, overhead %.1f ns (%s%.0f%% of the floor)",
		       w->policy, w->native_med, o->repeat, floor, w->native_med - floor,
		       floor > 0 ? "" : "n/a ",
		       floor > 0 ? 100 * (w->native_med - floor) / floor : 0);
		if (w->skip_med >= 0)
			printf("; skipped-restore switch median %.0f native TSC ticks (of %" PRIu64
			       " in run 1)",
			       w->skip_med, w->nskip);
		printf("\n");
	}
	printf("\n");
out:
	free(res);
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
			  .trap = { TRAP_NS_DEFAULT, "assumed" },
			  .cr0 = { CR0_NS_DEFAULT, "assumed" },
			  .ipi = { IPI_NS_DEFAULT, "assumed" },
			  .insn = FPU_INSN_AUTO };
	const char *pols[MAX_POLICIES];
	int first, rc = parse_args(argc, argv, &o, &first);

	if (rc >= 0)
		return rc;
	int np = policy_list(o.policies, pols);
	if (np < 0)
		return 2;
	double tpn = tsc_per_ns();
	rc = 0;
	for (int i = first; i < argc; i++) {
		if (argv[i][0] == '-') {
			i++;
			continue;
		}
		rc |= replay_trace(argv[i], &o, pols, np, tpn);
	}
	return rc;
}
