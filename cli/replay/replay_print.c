/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's output for one trace: the comments before its table, its
 * rows, and the comments after it (ranking, break-even, libfpu's own cost).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fpu/xstate.h>

#include "replay.h"
#include "common/cpu_model.h"
#include "common/policy.h"
#include "common/result_file.h"
#include "common/util.h"

/* The overhead is a share of the floor only where the floor is at least this (ns per switch). */
#define FLOOR_RATIO_MIN_NS 1.0

/* The trace's first comments: the trace, this CPU, the batch and the floor. */
static void print_header_trace(const struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	struct output *out = o->out;
	char xcr0[64];

	output_comment(out,
		       "fpulab replay %s: workload %.24s, %u CPU%s, %u task%s, %" PRIu64
		       " switch%s, %" PRIu64 " FPU use%s",
		       tr->path, tr->t.hdr.workload, tr->t.hdr.ncpus, plural(tr->t.hdr.ncpus),
		       tr->t.hdr.ntasks, plural(tr->t.hdr.ntasks), tr->oc.switches,
		       tr->oc.switches == 1 ? "" : "es", tr->oc.uses, plural(tr->oc.uses));
	output_comment(out,
		       "native: this CPU, user mode, %s (%s format, %u bytes), %s"
		       ", TSC %.3f MHz; one thread plays every traced CPU",
		       fpu_insn_name(xstate_cfg.save_insn),
		       xstate_cfg.compacted ? "compacted" : "standard", xstate_cfg.kernel_size,
		       xcr0_text(xcr0, sizeof(xcr0)), tr->tpn * 1000);
	if (o->batch_rows)
		output_comment(
			out,
			"batch: native save %.1f ns, restore %.1f ns (mask 0x%x dirty), from "
			"--batch-costs %s, not timed again: the oracle's costs%s",
			tr->save_ns, tr->rest_ns, tr->umask, o->batch_file,
			o->adaptive_builtin ? "" : " and adaptive's");
	else
		output_comment(out,
			       "batch: native save %.1f ns, restore %.1f ns (mask 0x%x dirty, one "
			       "buffer, median of 201 batches of 16): the oracle's costs%s",
			       tr->save_ns, tr->rest_ns, tr->umask,
			       o->adaptive_builtin ? "" : " and adaptive's");
	output_comment(
		out,
		"floor: each policy's own saves and restores (same areas, masks, order and registers), "
		"replayed without libfpu in the same timed regions, minus those regions timed empty "
		"(the timing residue, below); overhead = native - floor - residue: libfpu's own; ns per "
		"switch, medians of %lu run%s interleaved with the policy's",
		o->repeat, plural(o->repeat));
}

/* The timing residue's comment: one empty region's ticks by entry point any policy timed. */
static void print_header_residue(const struct trace_replay *tr)
{
	const struct runs *rs = &tr->runs;
	char regions[256] = "";
	size_t rl = 0;

	for (int h = 0; h < REPLAY_HOOK_NR; h++)
		for (int p = 0; p < tr->np; p++)
			if (runs_of(rs, rs->native, p)->regions[h] && rl < sizeof(regions)) {
				rl += (size_t)snprintf(regions + rl, sizeof(regions) - rl,
						       "%s%s %.2f", rl ? ", " : "",
						       replay_hook_names[h], tr->empty_region[h]);
				break;
			}
	output_comment(tr->o->out,
		       "timing residue: one empty timed region, TSC ticks beyond the %" PRIu64
		       "-tick overhead subtracted, by entry point: %s (pooled over the empty runs "
		       "of all %d policies, median of %lu run%s); a policy's residue is its timed "
		       "regions at these costs; the same regions each holding a call of an empty "
		       "out-of-line function read %.2f native TSC ticks (%.2f ns) more than empty "
		       "(%s's empty runs, median of %lu run%s): the least an entry point that is "
		       "a call adds to a policy's overhead",
		       replay_timer_overhead(tr->rp), regions, tr->np, rs->repeat,
		       plural(rs->repeat), tr->empty_call, tr->empty_call / tr->tpn, tr->pols[0],
		       rs->repeat, plural(rs->repeat));
	for (int h = 0; h < REPLAY_HOOK_NR; h++)
		if (tr->empty_region[h] < 0) {
			output_comment(
				tr->o->out,
				"WARNING: an empty region timed below the %" PRIu64
				"-tick overhead (%s %.2f ticks): the overhead was measured a "
				"step high, so the natives here read low by that step per "
				"region, and the floor's residue is negative; run again",
				replay_timer_overhead(tr->rp), replay_hook_names[h],
				tr->empty_region[h]);
			break;
		}
}

/* The costs' comments: charged per event, what adaptive decides by, the lab's, the columns. */
static void print_header_costs(const struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	struct output *out = o->out;
	const struct fpu_costs *fc = &tr->fc;

	output_comment(
		out,
		"costs per event: #NM trap %.1f ns (%s), CR0 write %.1f ns (%s), IPI %.1f ns (%s)",
		o->trap.ns, o->trap.source, o->cr0.ns, o->cr0.source, o->ipi.ns, o->ipi.source);
	costs_host_comment(o, out);
	for (int p = 0; p < tr->np; p++)
		if (policy_is_adaptive(tr->rows[p].policy))
			output_comment(
				out,
				"%s decides by: #NM trap %u ns, CR0 write %u ns, IPI %u ns, "
				"save %u ns, restore %u ns (%s)",
				tr->rows[p].policy, fc->trap_ns, fc->cr0_ns, fc->ipi_ns,
				fc->save_ns, fc->restore_ns,
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
		"ns per switch; native: median, min, max of %lu run%s (policies interleaved); priced: the counts alone at this CPU's batch save and restore and the per-event costs (deterministic for a trace and cost set); params: the per-event costs above (#NM x trap + TS writes x CR0 + IPIs x IPI) per switch; residue: what the timing itself adds to native (its timed regions x the pooled empty-region cost below); total = native median - residue + params; vsOracle: total / the oracle's priced (its saves and restores at the batch costs, not run); vsBest: the median over the runs of total / the best static policy's total, run k against run k (so not the ratio of the medians shown); work/or: saves + restores / the oracle's; costs: each cost's source",
		o->repeat, plural(o->repeat));
}

/* The comments before the trace's table. */
void trace_print_header(const struct trace_replay *tr)
{
	print_header_trace(tr);
	print_header_residue(tr);
	print_header_costs(tr);
}

/* Policy @p's break-even against eager, where it is one of the pair; NULL otherwise. */
static const struct break_even *break_even_of(const struct trace_replay *tr, int p)
{
	return policy_has_break_even(tr->rows[p].policy) ? &tr->be[p] : NULL;
}

/* The trace's rows: the oracle's, then a row per policy; each to the plot as well. */
void trace_print_rows(struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	struct output *out = o->out;
	bool table = out->format == OUTPUT_TABLE;

	out->table_heading_done = false; /* a heading per trace */
	if (out->plot_rows)
		output_plot_row(out, oracle_row(&tr->ti, o, &tr->oc, tr->oracle_ns, false));
	output_row(out, linux_row_keys(tr, RESULT_ORACLE_ROW,
				       oracle_row(&tr->ti, o, &tr->oc, tr->oracle_ns, table)));
	if (tr->t.lx) {
		if (out->plot_rows)
			output_plot_row(out, linux_row(&tr->ti, o, &tr->oc, tr->t.lx, false));
		output_row(out, linux_row_keys(tr, RESULT_LINUX_ROW,
					       linux_row(&tr->ti, o, &tr->oc, tr->t.lx, table)));
	}
	for (int p = 0; p < tr->np; p++) {
		const struct prow *w = &tr->rows[p];
		const struct break_even *b = break_even_of(tr, p);
		if (out->plot_rows)
			output_plot_row(out, policy_row(&tr->ti, o, w, &tr->oc, tr->oracle_ns,
							tr->best, b, false));
		output_row(out, linux_row_keys(tr, w->policy,
					       policy_row(&tr->ti, o, w, &tr->oc, tr->oracle_ns,
							  tr->best, b, table)));
	}
}

/* After the table: clipped calls, the best static policy, adaptive against it, the control. */
static void print_footer_ranking(const struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	struct output *out = o->out;
	uint64_t clipped = 0;

	for (int p = 0; p < tr->np; p++)
		clipped += tr->rows[p].clipped;
	output_comment(
		out,
		"hook calls over 20000 ticks (interrupted or preempted) left out of native: %" PRIu64
		" over %lu run%s of %d policies",
		clipped, o->repeat, plural(o->repeat), tr->np);
	if (isfinite(tr->best))
		output_comment(out, "best static policy: %s (%.1f ns per switch)", tr->best_name,
			       tr->best);
	else
		output_comment(out, "best static policy: none (no static policy among --policy)");
	for (int p = 0; p < tr->np; p++)
		if (policy_is_adaptive(tr->rows[p].policy) && tr->rows[p].vs_best.n) {
			const struct paired *q = &tr->rows[p].vs_best;
			char ci[128] = "";
			if (q->conf > 0)
				snprintf(ci, sizeof(ci),
					 " (%.1f%% interval of the median: %.3fx to %.3fx)",
					 100 * q->conf, q->lo, q->hi);
			output_comment(out,
				       "%s / best static (%s), total of run k over total of "
				       "run k: median %.3fx%s, min %.3fx, max %.3fx of %lu run%s",
				       tr->rows[p].policy, tr->best_name, q->med, ci, q->min,
				       q->max, q->n, plural(q->n));
		}
	if (tr->ctl >= 0 && tr->control.n)
		output_comment(out,
			       "resolution: %s (the static policy best by counts) replayed again "
			       "after every round, its total of run k over its own of run k: "
			       "median %.3fx, min %.3fx, max %.3fx of %lu run%s (1x if replay "
			       "resolved everything)",
			       tr->pols[tr->ctl], tr->control.med, tr->control.min, tr->control.max,
			       tr->control.n, plural(tr->control.n));
}

/* Adaptive's figures on this trace, into the targets over every trace. */
static void add_targets(const struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	double best_priced = INFINITY;

	for (int p = 0; p < tr->np; p++)
		if (policy_is_static(tr->rows[p].policy))
			best_priced = fmin(best_priced, costs_priced(o, &tr->rows[p].n, tr->save_ns,
								     tr->rest_ns));
	for (int p = 0; p < tr->np; p++) {
		const struct prow *w = &tr->rows[p];
		if (!policy_is_adaptive(w->policy))
			continue;
		targets_add(
			o->targets,
			&(struct target_input){
				.trace = tr->path,
				.switches = tr->oc.switches,
				.vs_best = w->vs_best,
				.control = tr->control,
				.adaptive = w->total,
				.best = tr->best,
				.adaptive_priced = costs_priced(o, &w->n, tr->save_ns, tr->rest_ns),
				.best_priced = best_priced,
				.oracle = tr->oracle_ns,
				.work = (double)(w->n.saves + w->n.restores),
				.oracle_work = (double)(tr->oc.saves + tr->oc.restores),
				.trap_ns = o->trap.ns,
			});
	}
}

/* The break-even trap costs of the baseline (eager) against lazy and lazy-counter, and the trap cost used. */
static void print_footer_break_even(const struct trace_replay *tr)
{
	const struct opts *o = tr->o;

	for (int p = 0; p < tr->np; p++) {
		const struct break_even *b = &tr->be[p];
		if (!b->have)
			continue;
		char *text = break_even_text(b), verdict[256];
		verdict_of(o, b, verdict, sizeof(verdict));
		output_comment(o->out, "break-even trap cost, %s vs %s: %s", b->baseline, b->other,
			       text);
		output_comment(o->out, "  verdict: %s", verdict);
		free(text);
	}
	output_comment(o->out, "(trap cost charged %.1f ns: %s)", o->trap.ns, o->trap.source);
}

/* One line per policy: libfpu's own cost against its floor, by entry point. */
static void print_footer_libfpu(const struct trace_replay *tr, const struct prow *w)
{
	const struct opts *o = tr->o;
	double fl = w->floor_med;
	char skip[256] = "", hooks[256] = "", share[48];
	size_t hl = 0;

	for (int h = 0; h < REPLAY_HOOK_NR; h++)
		if (w->hook_calls[h] && hl < sizeof(hooks))
			hl += (size_t)snprintf(hooks + hl, sizeof(hooks) - hl, "%s %s %.1f",
					       hl ? "," : "; by entry point:", replay_hook_names[h],
					       unsigned_zero(w->hook_overhead[h], 0.05));
	if (w->skip_med >= 0)
		snprintf(skip, sizeof(skip),
			 "; skipped-restore switch: libfpu %.1f TSC ticks (mean over the %" PRIu64
			 " switches that only skipped a restore, no save or load in them: fewer "
			 "than the skipped column's; native minus floor, median of %lu run%s; "
			 "per-call median "
			 "%.0f native ticks)",
			 unsigned_zero(w->skip_lib, 0.05), w->nskip, o->repeat, plural(o->repeat),
			 w->skip_med);
	share_of(share, sizeof(share), w->overhead, fl, FLOOR_RATIO_MIN_NS, "floor");
	output_comment(
		o->out,
		"libfpu %-13s native %.1f ns/switch, floor %.1f (batch estimate %.1f), timing "
		"residue %.1f, overhead %.1f ns/switch (%s%s)%s",
		w->policy, unsigned_zero(w->native_med, 0.05), unsigned_zero(fl, 0.05),
		unsigned_zero(batch_floor_ns(&tr->ti, &w->n), 0.05),
		unsigned_zero(w->residue, 0.05), unsigned_zero(w->overhead, 0.05), share, hooks,
		skip);
}

/* The comments after the trace's table (and adaptive's figures into the targets). */
void trace_print_footer(const struct trace_replay *tr)
{
	print_footer_ranking(tr);
	add_targets(tr);
	print_footer_break_even(tr);
	for (int p = 0; p < tr->np; p++)
		print_footer_libfpu(tr, &tr->rows[p]);
	linux_print_footer(tr);
	sweep_print(tr);
}
