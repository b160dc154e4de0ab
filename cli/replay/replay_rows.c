/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's result rows: the oracle's and each policy's, as JSON objects
 * for output.c (JSON lines, CSV, or the table).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include <fpu/xstate.h>

#include "host/host_costs.h"
#include "replay.h"
#include "common/result_file.h"

/* The table: the keys of each row it shows (JSON and CSV carry every key). */
const struct output_column replay_table_columns[] = {
	{ "policy", NULL, -16, 0 }, /* "linux (recorded)" */
	{ "switches", NULL, 8, 0 },
	{ "nm_traps", "#NM", 8, 0 },
	{ "saves", NULL, 8, 0 },
	{ "restores", NULL, 8, 0 },
	{ "restores_skipped", "skipped", 8, 0 },
	{ "ts_writes", "TSwrites", 8, 0 },
	{ "flush_ipis", "IPIs", 6, 0 },
	{ "integrity_errors", "integ", 5, 0 },
	{ "native_ns_per_switch_median", "native", 9, 1 },
	{ "native_ns_per_switch_min", "min", 8, 1 },
	{ "native_ns_per_switch_max", "max", 8, 1 },
	{ "priced_ns_per_switch", "priced", 8, 1 },
	{ "timing_residue_ns_per_switch", "residue", 8, 1 },
	{ "params_ns_per_switch", "params", 9, 1 },
	{ "ns_per_switch_median", "total", 9, 1 },
	{ "vs_oracle", "vsOracle", 8, 0 },
	{ "vs_best_median", "vsBest", 8, 0 },
	{ "work_vs_oracle", "work/or", 8, 0 },
	{ "costs", NULL, -1, 0 },
};
const size_t replay_table_ncolumns = sizeof(replay_table_columns) / sizeof(replay_table_columns[0]);

/* ns per switch of @n's saves and restores at the batch save and restore costs. */
double batch_floor_ns(const struct trace_info *ti, const struct replay_counts *n)
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

/* A Linux trace's FPU cost, @ns per switch over @switches, as a share of its CPU time; null
 * for any other trace. */
static json_t *cpu_share(const struct trace_info *ti, double ns, uint64_t switches)
{
	return ti->busy_ns > 0 ? json_real(ns * (double)switches / ti->busy_ns) : NULL;
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
	set(r, "trace_name", json_string(ti->name));
	set(r, "source", json_string(ti->source));
	set(r, "unit", json_string("ns per switch"));
	set(r, RESULT_RUNS, json_integer((json_int_t)repeats));
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
	set(r, "trap_range_lo_ns", o->have_range ? ns1(o->trap_lo) : NULL);
	set(r, "trap_range_hi_ns", o->have_range ? ns1(o->trap_hi) : NULL);
	set(r, "trap_range_estimate", o->have_range ? json_string(o->trap_est) : NULL);
	set(r, "costs_hypervisor", o->host ? json_boolean(o->host->hypervisor) : NULL);
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
	set(r, "control_ratio_median", have ? ratio(ti->resolve.med) : NULL);
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
json_t *oracle_row(const struct trace_info *ti, const struct opts *o,
		   const struct oracle_counts *oc, double oracle_ns, bool table)
{
	json_t *r = row_head(ti, RESULT_ORACLE_ROW, 1);
	struct replay_counts n = { .switches = oc->switches,
				   .saves = oc->saves,
				   .restores = oc->restores };

	row_counts(r, &n);
	set(r, "restores_skipped", NULL);
	set(r, "integrity_errors", NULL);
	result_put_stats(r, "native_ns_per_switch", NULL, NULL, NULL); /* not run: priced only */
	set(r, "priced_ns_per_switch", json_real(oracle_ns));
	set(r, "params_ns_per_switch", ns1(0));
	result_put_stats(r, "ns_per_switch", ns1(oracle_ns), NULL, NULL);
	set(r, "vs_oracle", ratio(1));
	set(r, "vs_best_median", NULL);
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
	set(r, "break_even_trap_ns_min", NULL);
	set(r, "break_even_trap_ns_max", NULL);
	set(r, "verdict", NULL);
	set(r, "floor_ns_per_switch", ns1(oracle_ns));
	set(r, "timing_residue_ns_per_switch", NULL);
	set(r, "timed_regions", NULL);
	set(r, "floor_batch_ns_per_switch", ns1(oracle_ns));
	set(r, "overhead_ns_per_switch", NULL);
	set(r, "skipped_restore_ticks", NULL);
	set(r, "skipped_restore_ticks_median", NULL);
	set(r, "hook_calls_clipped", NULL);
	set(r, "cpu_time_share", cpu_share(ti, oracle_ns, oc->switches));
	row_machine(r, ti);
	if (table) {
		set(r, "vs_oracle", json_string("1.00x"));
		set(r, "work_vs_oracle", json_string("1.00x"));
		set(r, "costs", NULL);
	}
	return r;
}

json_t *policy_row(const struct trace_info *ti, const struct opts *o, const struct prow *w,
		   const struct oracle_counts *oc, double oracle_ns, double best,
		   const struct break_even *be, bool table)
{
	json_t *r = row_head(ti, w->policy, o->repeat);
	double work = (double)(w->n.saves + w->n.restores);
	double owork = (double)(oc->saves + oc->restores);
	double fl = w->floor_med;

	row_counts(r, &w->n);
	result_put_stats(r, "native_ns_per_switch", ns1(w->native_med), ns1(w->native_min),
			 ns1(w->native_max));
	set(r, "priced_ns_per_switch", json_real(costs_priced(o, &w->n, ti->save_ns, ti->rest_ns)));
	set(r, "params_ns_per_switch", ns1(w->assumed));
	result_put_stats(r, "ns_per_switch", ns1(w->total), ns1(prow_total_min(w)),
			 ns1(prow_total_max(w)));
	bool paired = w->vs_best.n > 0;
	if (table) {
		set(r, "vs_oracle",
		    json_sprintf("%.2fx", oracle_ns > 0 ? w->total / oracle_ns : 0));
		set(r, "vs_best_median",
		    paired ? json_sprintf("%.3fx", w->vs_best.med) : json_string("-"));
		set(r, "work_vs_oracle", json_sprintf("%.2fx", owork > 0 ? work / owork : 0));
	} else {
		set(r, "vs_oracle", oracle_ns > 0 ? ratio(w->total / oracle_ns) : NULL);
		set(r, "vs_best_median", paired ? ratio(w->vs_best.med) : NULL);
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
	bool have_be = be && be->have && !be->none;
	set(r, "break_even_trap_ns", have_be ? ns1(be->ns) : NULL);
	set(r, "break_even_trap_ns_min", have_be ? ns1(be->ns_min) : NULL);
	set(r, "break_even_trap_ns_max", have_be ? ns1(be->ns_max) : NULL);
	char verdict[256] = "";
	if (be)
		verdict_of(o, be, verdict, sizeof(verdict));
	set(r, "verdict", *verdict ? json_string(verdict) : NULL);
	set(r, "floor_ns_per_switch", ns1(fl));
	set(r, "timing_residue_ns_per_switch", ns1(w->residue));
	set(r, "timed_regions", json_integer((json_int_t)w->regions));
	set(r, "floor_batch_ns_per_switch", ns1(batch_floor_ns(ti, &w->n)));
	set(r, "overhead_ns_per_switch", ns1(w->overhead));
	set(r, "skipped_restore_ticks",
	    w->skip_med >= 0 ? json_real(round(w->skip_lib * 10) / 10) : NULL);
	set(r, "skipped_restore_ticks_median", w->skip_med >= 0 ? json_real(w->skip_med) : NULL);
	set(r, "hook_calls_clipped", json_integer((json_int_t)w->clipped));
	set(r, "cpu_time_share", cpu_share(ti, w->total, w->n.switches));
	row_machine(r, ti);
	return r;
}
