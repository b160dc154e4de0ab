/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay over a trace imported from Linux (docs/linux-traces.md):
 * Linux's own counts as a row of their own, deferred (Linux since 5.2)
 * against them by cause, each policy's FPU cost as a share of the
 * workload's CPU time, and the lazy-style policies at both --fp-use bounds.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/policy.h"
#include "common/result_file.h"
#include "common/util.h"
#include "replay.h"

double linux_busy_ns(const struct trace *t)
{
	double ns = 0;

	for (unsigned int c = 0; t->lx && c < t->hdr.ncpus; c++)
		ns += (double)t->lx->busy_ns[c];
	return ns;
}

json_t *linux_row(const struct trace_info *ti, const struct opts *o, const struct oracle_counts *oc,
		  const struct fpulab_trace_linux *lx, bool table)
{
	json_t *r = oracle_row(ti, o, oc, 0, table);
	static const char *const none[] = {
		"nm_traps",
		"ts_writes",
		"flush_ipis",
		"native_ns_per_switch_median",
		"params_ns_per_switch",
		"ns_per_switch_median",
		"vs_oracle",
		"work_vs_oracle",
		"floor_ns_per_switch",
		"floor_batch_ns_per_switch",
		"cpu_time_share",
		"costs",
	};

	json_object_set_new(r, "policy", json_string(RESULT_LINUX_ROW));
	json_object_set_new(r, "source", json_string(RESULT_SOURCE_RECORDED));
	json_object_set_new(r, "saves", json_integer((json_int_t)lx->switch_saves));
	json_object_set_new(r, "restores", json_integer((json_int_t)lx->activations));
	/* its counts at this CPU's batch costs, as every row's priced figure (no traps, TS, IPIs) */
	json_object_set_new(r, "priced_ns_per_switch",
			    json_real((ti->save_ns * (double)lx->switch_saves +
				       ti->rest_ns * (double)lx->activations) /
				      (double)(oc->switches ? oc->switches : 1)));
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (json_object_get(r, none[i]))
			json_object_set_new(r, none[i], json_null());
	if (table)
		json_object_set_new(r, "costs",
				    json_string("Linux's own: restores = x86_fpu_regs_activated, "
						"saves = switch saves"));
	return r;
}

int linux_bound_policies(const struct trace_replay *tr, const char **pols)
{
	int n = 0;
	bool lazy = false;

	for (int p = 0; p < tr->np; p++)
		if (policy_traps(tr->pols[p]) || policy_is_baseline(tr->pols[p]) ||
		    !strcmp(tr->pols[p], policy_linux())) {
			lazy |= policy_traps(tr->pols[p]);
			if (pols)
				pols[n] = tr->pols[p];
			n++;
		}
	return lazy ? n : 0;
}

int linux_lower_trace(const struct trace *t, struct trace *out)
{
	uint16_t carry[FPULAB_TRACE_MAX_CPUS] = { 0 }; /* a dropped use's returned flag, per CPU */
	struct fpulab_trace_event *buf = t->file ? malloc(TRACE_CHUNK * sizeof(*buf)) : NULL;
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	uint64_t n = 0;

	*out = (struct trace){ .hdr = t->hdr };
	out->ev = malloc((t->hdr.nevents ? t->hdr.nevents : 1) * sizeof(*out->ev));
	out->lx = malloc(sizeof(*out->lx));
	if (!out->ev || !out->lx || (t->file && !buf) || trace_iter_begin(&it, t, buf)) {
		free(buf);
		trace_free(out);
		return -1;
	}
	*out->lx = *t->lx;
	out->lx->fp_use = FPULAB_FP_USE_EVIDENCE;
	for (size_t got; (got = trace_iter_next(&it, &ev)) > 0;)
		for (size_t j = 0; j < got; j++) {
			struct fpulab_trace_event e = ev[j];
			if (e.type == FPULAB_EV_USE && !(e.flags & FPULAB_EVF_EVIDENCE)) {
				carry[e.cpu] |= e.flags & FPULAB_EVF_RETURNED;
				continue;
			}
			if (e.type != FPULAB_EV_FLUSH_IPI) {
				e.flags |= carry[e.cpu];
				carry[e.cpu] = 0;
			}
			e.seq = (uint32_t)(n + 1);
			out->ev[n++] = e;
		}
	free(buf);
	out->hdr.nevents = n;
	if (it.err) {
		trace_free(out);
		return -1;
	}
	return 0;
}

static const struct prow *row_of(const struct prow *rows, int n, const char *policy)
{
	for (int p = 0; p < n; p++)
		if (!strcmp(rows[p].policy, policy))
			return &rows[p];
	return NULL;
}

static json_t *count_or_null(bool have, uint64_t n)
{
	return have ? json_integer((json_int_t)n) : json_null();
}

json_t *linux_row_keys(const struct trace_replay *tr, const char *policy, json_t *r)
{
	const struct fpulab_trace_linux *x = tr->t.lx;
	const struct prow *lo = row_of(tr->lower.rows, tr->lower.np, policy);
	bool procs = x && (x->flags & FPULAB_LINUX_F_PROCS);
	bool oracle = tr->lower.np && !strcmp(policy, RESULT_ORACLE_ROW);
	double sw = (double)tr->lower.oc.switches, busy = tr->ti.busy_ns;
	double ns = lo ? lo->total : tr->lower.oracle_ns;

	json_object_set_new(r, "linux_fp_use",
			    x ? json_string(trace_fp_use_name(x->fp_use)) : json_null());
	json_object_set_new(r, "linux_lossy",
			    x ? json_boolean(tr->t.hdr.flags & FPULAB_TRACE_F_LOSSY) : json_null());
	json_object_set_new(r, "linux_perf_lost", count_or_null(x, x ? x->perf_lost : 0));
	json_object_set_new(r, "linux_resyncs", count_or_null(x, x ? x->resyncs : 0));
	/* the known causes of deferred's loads against Linux's (print_loads) */
	json_object_set_new(r, "linux_window_loads", count_or_null(x, x ? x->window_loads : 0));
	json_object_set_new(r, "linux_sigframe_loads", count_or_null(x, x ? x->act_sigframe : 0));
	json_object_set_new(r, "linux_end_loads", count_or_null(x, x ? x->end_loads : 0));
	json_object_set_new(r, "linux_forks", count_or_null(procs, procs ? x->forks : 0));
	json_object_set_new(r, "linux_execs", count_or_null(procs, procs ? x->execs : 0));
	json_object_set_new(r, "linux_busy_ns", count_or_null(x, (uint64_t)busy));
	json_object_set_new(r, "linux_duration_ns", count_or_null(x, x ? x->duration_ns : 0));
	json_object_set_new(r, "nm_traps_evidence",
			    count_or_null(lo || oracle, lo ? lo->n.nm_traps : 0));
	json_object_set_new(r, "saves_evidence",
			    count_or_null(lo || oracle, lo ? lo->n.saves : tr->lower.oc.saves));
	json_object_set_new(
		r, "restores_evidence",
		count_or_null(lo || oracle, lo ? lo->n.restores : tr->lower.oc.restores));
	json_object_set_new(r, "ns_per_switch_evidence",
			    lo || oracle ? json_real(round(ns * 10) / 10) : json_null());
	/* as policy_row's ns_per_switch_min and _max: native's range, less the residue */
	json_object_set_new(r, "ns_per_switch_evidence_min",
			    lo ? json_real(round(prow_total_min(lo) * 10) / 10) : json_null());
	json_object_set_new(r, "ns_per_switch_evidence_max",
			    lo ? json_real(round(prow_total_max(lo) * 10) / 10) : json_null());
	json_object_set_new(r, "cpu_time_share_evidence",
			    (lo || oracle) && busy > 0 ? json_real(ns * sw / busy) : json_null());
	return r;
}

/* deferred's loads against Linux's activations, the difference by cause. */
static void print_loads(const struct trace_replay *tr)
{
	const struct fpulab_trace_linux *x = tr->t.lx;
	struct output *out = tr->o->out;
	const struct prow *d = row_of(tr->rows, tr->np, policy_linux());

	if (!d) {
		output_comment(out,
			       "linux: %s (Linux since 5.2) not replayed: no check of its loads "
			       "against Linux's (--policy %s)",
			       policy_linux(), policy_linux());
		return;
	}
	int64_t diff = (int64_t)d->n.restores - (int64_t)x->activations;
	double share = x->activations ? (double)diff / (double)x->activations : 0;
	int64_t other = diff - (int64_t)x->window_loads + (int64_t)x->act_sigframe +
			(int64_t)x->end_loads;
	char ends[160] = "";
	if (x->end_loads)
		snprintf(ends, sizeof(ends),
			 "recording's end -%" PRIu64 " (returns after a CPU's last event: the "
			 "evidence bound dropped the use that carried them), ",
			 x->end_loads);
	output_comment(out,
		       "linux: %s loads the registers %" PRIu64 " times, Linux %" PRIu64
		       " (x86_fpu_regs_activated): %+" PRId64 " (%+.2f%%); by cause: window "
		       "start +%" PRIu64 " (registers Linux loaded before the recording began), "
		       "signals -%" PRIu64 " (Linux loads the registers to write the signal frame "
		       "from them), inferred kernel FPU 0 (%" PRIu64 " sections in the trace, "
		       "after each %s reloads as Linux did), %sother %+" PRId64 ": %s %.0f%%",
		       d->policy, d->n.restores, x->activations, diff, 100 * share, x->window_loads,
		       x->act_sigframe, x->kfpu_inferred, d->policy, ends, other,
		       x->activations && (double)llabs(other) >
						 LINUX_LOADS_TOLERANCE * (double)x->activations
			       ? "NOT within"
			       : "within",
		       100 * LINUX_LOADS_TOLERANCE);
	output_comment(
		out,
		"linux: saves: Linux %" PRIu64 " at switches (%" PRIu64
		" of them a dead task's final switch, which no policy saves), %s %" PRIu64
		" (at switches, and before each export, import, reset and kernel-FPU section, "
		"where Linux's saves have no tracepoint)",
		x->switch_saves, x->exit_saves, d->policy, d->n.saves);
	if (tr->t.hdr.flags & FPULAB_TRACE_F_LOSSY)
		output_comment(
			out,
			"linux: LOSSY recording: perf lost %" PRIu64 " event%s, %" PRIu64
			" impossible sequence%s resynchronised; counts near those are guesses",
			x->perf_lost, plural(x->perf_lost), x->resyncs, plural(x->resyncs));
}

/* Each policy's FPU cost (total ns per switch x switches) as a share of the CPU time. */
static void print_shares(const struct trace_replay *tr)
{
	struct output *out = tr->o->out;
	char line[1024];
	size_t n = 0;
	double sw = (double)tr->oc.switches, busy = tr->ti.busy_ns;

	if (busy <= 0)
		return;
	n += (size_t)snprintf(line, sizeof(line), "oracle %.3f%%", 100 * tr->oracle_ns * sw / busy);
	for (int p = 0; p < tr->np && n < sizeof(line); p++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, ", %s %.3f%%", tr->rows[p].policy,
				      100 * tr->rows[p].total * sw / busy);
	output_comment(
		out,
		"linux: FPU cost as a share of the workload's CPU time (%.3f s busy, not idle, "
		"over %u CPUs in %.3f s recorded; total ns per switch x %" PRIu64 " switches): %s",
		busy / 1e9, tr->t.hdr.ncpus, (double)tr->t.lx->duration_ns / 1e9, tr->oc.switches,
		line);
}

/* "cheaper" or "costlier" than Linux's policy @d, beyond both min-max ranges over the runs
 * (as report's claims); NULL where the ranges overlap. */
static const char *verdict(const struct prow *p, const struct prow *d)
{
	return prow_total_max(p) < prow_total_min(d)   ? "cheaper"
	       : prow_total_min(p) > prow_total_max(d) ? "costlier"
						       : NULL;
}

/* The lazy-style policies at both --fp-use bounds, against deferred, decided only at both. */
static void print_bounds(const struct trace_replay *tr)
{
	struct output *out = tr->o->out;
	const struct prow *du = row_of(tr->rows, tr->np, policy_linux()),
			  *dl = row_of(tr->lower.rows, tr->lower.np, policy_linux());

	if (tr->t.lx->fp_use == FPULAB_FP_USE_EVIDENCE) {
		output_comment(out,
			       "linux: the trace holds the evidence bound only (imported with "
			       "--fp-use evidence): import it with every-return for both bounds");
		return;
	}
	if (!tr->lower.np)
		return;
	output_comment(out,
		       "linux: --fp-use bounds: every-return (each return to ring 3 uses the FPU, "
		       "%" PRIu64 " uses) and evidence (only slices whose XINUSE grew, %" PRIu64
		       " uses); a verdict against %s (Linux) is decided only if it holds at "
		       "both",
		       tr->oc.uses, tr->lower.oc.uses, policy_linux());
	for (int p = 0; p < tr->lower.np; p++) {
		const struct prow *lo = &tr->lower.rows[p],
				  *up = row_of(tr->rows, tr->np, lo->policy);
		if (!policy_traps(lo->policy) || !up)
			continue;
		if (!du || !dl) {
			output_comment(
				out,
				"linux: %-12s #NM traps %" PRIu64 " (every-return) .. %" PRIu64
				" (evidence), total %.1f .. %.1f ns per switch: no verdict, %s "
				"not replayed (--policy %s)",
				lo->policy, up->n.nm_traps, lo->n.nm_traps, up->total, lo->total,
				policy_linux(), policy_linux());
			continue;
		}
		const char *vu = verdict(up, du), *vl = verdict(lo, dl);
		char v[200];
		if (vu && vl && !strcmp(vu, vl))
			snprintf(v, sizeof(v),
				 "decided: %s than %s at both bounds, beyond the "
				 "runs' min-max ranges",
				 vu, policy_linux());
		else
			snprintf(v, sizeof(v),
				 "undecided: %s %s %s at every-return, %s at evidence (min-max "
				 "over the runs)",
				 vu ? vu : "ranges overlap with", vu ? "than" : "those of",
				 policy_linux(), vl ? vl : "ranges overlap");
		output_comment(
			out,
			"linux: %-12s #NM traps %" PRIu64 " (every-return) .. %" PRIu64
			" (evidence), total %.1f .. %.1f ns per switch (%s %.1f .. %.1f): %s",
			lo->policy, up->n.nm_traps, lo->n.nm_traps, up->total, lo->total,
			policy_linux(), du->total, dl->total, v);
	}
}

void linux_print_footer(const struct trace_replay *tr)
{
	if (!tr->t.lx)
		return;
	print_loads(tr);
	print_shares(tr);
	print_bounds(tr);
}
