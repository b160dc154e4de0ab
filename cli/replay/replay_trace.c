/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay of one trace: its setup, each policy's log, the interleaved
 * runs, each policy's summary and the ranking, then replay_print.c's output.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fpu/fpu.h>

#include "fpulab/abi.h"
#include "replay.h"
#include "common/policy.h"
#include "common/stats.h"

static bool same_counts(const struct replay_counts *a, const struct replay_counts *b)
{
	return !memcmp(a, b, sizeof(*a));
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
		ticks[h] = n ? median(samples, n) : 0;
	}
}

/* One run's ticks per timed region, every entry point together. */
static double ticks_per_region(const struct replay_result *r)
{
	int64_t sum = 0;
	uint64_t n = 0;
	for (int h = 0; h < REPLAY_HOOK_NR; h++) {
		sum += r->hook_ticks[h];
		n += r->hook_calls[h];
	}
	return n ? (double)sum / (double)n : 0;
}

/*
 * What a call of an empty out-of-line function adds to an empty timed
 * region, in TSC ticks: per run k, the first policy's regions with the call
 * in them less the same regions empty; the median of the K.
 */
static double empty_call_ticks(const struct runs *rs)
{
	for (unsigned long k = 0; k < rs->repeat; k++)
		rs->samples[k] = ticks_per_region(&rs->calls[k]) - ticks_per_region(&rs->empty[k]);
	return median(rs->samples, rs->repeat);
}

/* Room for @np policies' @repeat runs; -1: out of memory. */
static int runs_alloc(struct runs *r, int np, unsigned long repeat)
{
	size_t n = (size_t)np * repeat;

	*r = (struct runs){ .np = np, .repeat = repeat };
	r->native = calloc(n, sizeof(*r->native));
	r->bare = calloc(n, sizeof(*r->bare));
	r->empty = calloc(n, sizeof(*r->empty));
	r->control = calloc(repeat, sizeof(*r->control));
	r->calls = calloc(repeat, sizeof(*r->calls));
	r->skips = malloc(REPLAY_SKIP_HIST * sizeof(*r->skips));
	r->samples = malloc(repeat * sizeof(*r->samples));
	if (!r->native || !r->bare || !r->empty || !r->control || !r->calls || !r->skips ||
	    !r->samples)
		return -1;
	return 0;
}

static void runs_free(struct runs *r)
{
	for (int p = 0; p < r->np; p++)
		replay_log_free(r->logs[p]);
	free(r->native);
	free(r->bare);
	free(r->empty);
	free(r->control);
	free(r->calls);
	free(r->skips);
	free(r->samples);
}

/* Every use's mask in @t: 0, or -1 when its file could not be read again (said on stderr). */
static int use_mask(const struct trace *t, uint32_t *umask)
{
	struct fpulab_trace_event *buf = malloc(TRACE_CHUNK * sizeof(*buf));
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	char err[200];

	if (!buf) {
		fprintf(stderr, "fpulab replay: out of memory\n");
		return -1;
	}
	if (!trace_iter_begin(&it, t, buf))
		for (size_t n; (n = trace_iter_next(&it, &ev)) > 0;)
			for (size_t j = 0; j < n; j++)
				if (ev[j].type == FPULAB_EV_USE)
					*umask |= ev[j].mask;
	free(buf);
	if (!it.err)
		return 0;
	trace_iter_strerror(&it, err, sizeof(err));
	fprintf(stderr, "fpulab replay: %s: %s\n", t->file ? t->file->path : "trace", err);
	return -1;
}

/* Runs the oracle over @tr->t, times the batch save and restore and sets adaptive's costs. */
static int trace_prepare(struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	int rc;

	if ((rc = oracle_run(&tr->t, &tr->oc))) {
		if (rc == -1)
			fprintf(stderr, "fpulab replay: out of memory\n");
		else
			fprintf(stderr, "fpulab replay: %s: changed since it was checked\n",
				tr->path);
		trace_free(&tr->t);
		return 1;
	}
	tr->rp = replay_new(&tr->t, o->insn);
	if (!tr->rp || use_mask(&tr->t, &tr->umask)) {
		replay_free(tr->rp);
		tr->rp = NULL;
		trace_free(&tr->t);
		return 1;
	}
	if (o->batch_rows) { /* an earlier replay's: the same decisions and prices */
		if (batch_costs_find(o, tr->path, &tr->save_ns, &tr->rest_ns)) {
			replay_free(tr->rp);
			tr->rp = NULL;
			trace_free(&tr->t);
			return 1;
		}
	} else {
		uint64_t save_t, rest_t;
		replay_floor(tr->rp, tr->umask ? tr->umask : 3, 201, &save_t, &rest_t);
		/* to 0.1 ns, as the rows print them: priced = counts x the printed unit costs */
		tr->save_ns = round((double)save_t / tr->tpn * 10) / 10;
		tr->rest_ns = round((double)rest_t / tr->tpn * 10) / 10;
	}
	/* adaptive decides by the costs this replay charges (fpu_set_costs), or by
	 * libfpu's built-in ones as in the lab (--adaptive-costs default) */
	tr->fc = (struct fpu_costs){ (uint32_t)lround(o->trap.ns), (uint32_t)lround(o->cr0.ns),
				     (uint32_t)lround(o->ipi.ns), (uint32_t)lround(tr->save_ns),
				     (uint32_t)lround(tr->rest_ns) };
	if (o->adaptive_builtin)
		tr->fc = o->builtin;
	fpu_set_costs(&tr->fc);
	return 0;
}

/* Opens and checks @tr->path (its events stay in the file, read on each pass), then trace_prepare(). */
static int trace_setup(struct trace_replay *tr)
{
	char err[512];

	if (trace_open(tr->path, &tr->t, err, sizeof(err))) {
		fprintf(stderr, "fpulab replay: %s\n", err);
		return 1;
	}
	return trace_prepare(tr);
}

static void trace_teardown(struct trace_replay *tr)
{
	runs_free(&tr->runs);
	replay_free(tr->rp);
	trace_free(&tr->t);
}

/*
 * Each policy replayed once to log its saves and restores (its floor,
 * replay_bare), and the control chosen: the static policy best by counts.
 * -1: out of memory (nothing printed); -2: a recording failed (said on
 * stderr); 1: a log does not match its counts.
 */
static int record_logs(struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	double ctl_priced = INFINITY;
	int rc = 0;

	tr->ctl = -1;
	for (int p = 0; p < tr->np; p++) {
		struct replay_result r = { 0 };
		struct replay_log *log = replay_log_new(&tr->t);
		tr->runs.logs[p] = log;
		if (!log)
			return -1;
		if (replay_record(tr->rp, tr->pols[p], log, &r))
			return -2;
		rc |= replay_say_integrity(tr, tr->pols[p], "recording run", 0, &r);
		if (replay_log_saves(log) != r.n.saves ||
		    replay_log_restores(log) != r.n.restores) {
			fprintf(stderr,
				"fpulab replay: %s: %s: the floor's log has %" PRIu64
				" saves and %" PRIu64 " restores, the policy counted %" PRIu64
				" and %" PRIu64 "\n",
				tr->path, tr->pols[p], replay_log_saves(log),
				replay_log_restores(log), r.n.saves, r.n.restores);
			rc = 1;
		}
		double pr = costs_priced(o, &r.n, tr->save_ns, tr->rest_ns);
		if (policy_is_static(tr->pols[p]) && pr < ctl_priced) {
			ctl_priced = pr;
			tr->ctl = p;
		}
	}
	return rc;
}

/* Run 1 of policy @p: the median of its skipped-restore switches' ticks, kept in its row. */
static void skip_ticks(struct trace_replay *tr, int p, const struct replay_result *r)
{
	struct prow *w = &tr->rows[p];

	w->skip_med = -1;
	if (!r->nskip)
		return;
	w->skip_med = (double)median_hist(tr->runs.skips, REPLAY_SKIP_HIST, r->nskip);
	w->nskip = r->nskip;
}

/*
 * Interleaved: run k of every policy, its bare floor and its empty regions,
 * then the control again; then run k + 1. Run k of each shares the host's
 * conditions, which is what pairing run k against run k relies on.
 */
static int interleaved_runs(struct trace_replay *tr)
{
	struct runs *rs = &tr->runs;
	int rc = 0;

	for (unsigned long k = 0; k < rs->repeat && !rc; k++)
		for (int p = 0; p < tr->np && !rc; p++) {
			struct replay_result *r = &runs_of(rs, rs->native, p)[k];
			r->skip_hist = k == 0 ? rs->skips : NULL;
			rc |= replay_run(tr->rp, tr->pols[p], r);
			if (k == 0)
				skip_ticks(tr, p, r);
			r->skip_hist = NULL;
			rc |= replay_bare(tr->rp, rs->logs[p], false, &runs_of(rs, rs->bare, p)[k]);
			rc |= replay_bare(tr->rp, rs->logs[p], true, &runs_of(rs, rs->empty, p)[k]);
			if (p == 0)
				rc |= replay_empty_calls(tr->rp, rs->logs[p], &rs->calls[k]);
			if (p == tr->np - 1 &&
			    tr->ctl >= 0) /* the round's last: the control again */
				rc |= replay_run(tr->rp, tr->pols[tr->ctl], &rs->control[k]);
		}
	return rc; /* nonzero: a run failed, said on stderr */
}

/* ns per switch of @r's ticks. */
static double per_switch(const struct replay_result *r, double ticks, double tpn)
{
	return ticks / tpn / (double)(r->n.switches ? r->n.switches : 1);
}

/* @w's native ns per switch (median, min, max of the runs at @r), its counts and clipped calls. */
static void summarise_native(struct trace_replay *tr, struct prow *w, const struct replay_result *r)
{
	double *s = tr->runs.samples;
	unsigned long n = tr->runs.repeat;

	w->n = r[0].n;
	w->counts_differ = false;
	w->clipped = 0;
	for (unsigned long k = 0; k < n; k++) {
		s[k] = per_switch(&r[k], (double)r[k].ticks, tr->tpn);
		w->clipped += r[k].clipped;
		if (!same_counts(&r[k].n, &w->n))
			w->counts_differ = true;
	}
	struct stats_summary st = stats_summarise(s, n);
	w->native_med = st.median;
	w->native_min = st.min;
	w->native_max = st.max;
}

/* @w's bare floor (the runs at @b): its median; 1 where a run did not replay its saves and restores. */
static int summarise_bare(struct trace_replay *tr, struct prow *w, const struct replay_result *b,
			  const struct replay_result *e)
{
	double *s = tr->runs.samples;
	int rc = 0;

	for (unsigned long k = 0; k < tr->runs.repeat; k++) {
		s[k] = per_switch(&b[k], (double)b[k].ticks, tr->tpn);
		replay_say_integrity(tr, w->policy, "floor run", k, &b[k]);
		rc |= replay_say_integrity(tr, w->policy, "empty-region run", k, &e[k]);
		if (b[k].desync || b[k].n.integrity_errors || b[k].n.saves != w->n.saves ||
		    b[k].n.restores != w->n.restores) {
			fprintf(stderr,
				"fpulab replay: %s: %s: the bare floor run did not replay "
				"the policy's saves and restores (%" PRIu64
				" calls unmatched, %" PRIu64 " integrity errors)\n",
				tr->path, w->policy, b[k].desync, b[k].n.integrity_errors);
			rc = 1;
		}
	}
	w->bare_med = median(s, tr->runs.repeat);
	return rc;
}

/* @w's timed regions (run 1 at @r) at the trace's pooled empty-region cost, ns per switch. */
static void summarise_residue(struct trace_replay *tr, struct prow *w,
			      const struct replay_result *r)
{
	w->residue = 0;
	w->regions = 0;
	for (int h = 0; h < REPLAY_HOOK_NR; h++) {
		w->residue += (double)r[0].regions[h] * tr->empty_region[h];
		w->regions += r[0].regions[h];
	}
	w->residue /= tr->tpn * (double)(w->n.switches ? w->n.switches : 1);
}

/*
 * libfpu's own share by entry point (native @r less bare @b, ns per switch,
 * median of the runs), and its own ticks per skipped-restore switch (native
 * mean less bare mean, median of the runs).
 */
static void summarise_overheads(struct trace_replay *tr, struct prow *w,
				const struct replay_result *r, const struct replay_result *b)
{
	double *s = tr->runs.samples;
	unsigned long n = tr->runs.repeat;

	for (int h = 0; h < REPLAY_HOOK_NR; h++) {
		for (unsigned long k = 0; k < n; k++)
			s[k] = per_switch(&r[k], (double)(r[k].hook_ticks[h] - b[k].hook_ticks[h]),
					  tr->tpn);
		w->hook_overhead[h] = median(s, n);
		w->hook_calls[h] = r[0].hook_calls[h];
	}
	for (unsigned long k = 0; k < n; k++)
		s[k] = r[k].nskip && b[k].nskip ? (double)r[k].skip_sum / (double)r[k].nskip -
							  (double)b[k].skip_sum / (double)b[k].nskip
						: 0;
	w->skip_lib = median(s, n);
}

/* Policy @p's row from its runs; 1 where its counts or its floor do not hold. */
static int summarise_policy(struct trace_replay *tr, int p)
{
	struct runs *rs = &tr->runs;
	const struct replay_result *r = runs_of(rs, rs->native, p), *b = runs_of(rs, rs->bare, p);
	struct prow *w = &tr->rows[p];
	int rc;

	w->policy = tr->pols[p];
	summarise_native(tr, w, r);
	rc = summarise_bare(tr, w, b, runs_of(rs, rs->empty, p));
	for (unsigned long k = 0; k < rs->repeat; k++)
		rc |= replay_say_integrity(tr, w->policy, "run", k, &r[k]);
	summarise_residue(tr, w, r);
	w->floor_med = w->bare_med - w->residue;
	w->overhead = w->native_med - w->bare_med;
	summarise_overheads(tr, w, r, b);
	w->assumed = costs_assumed_ns(tr->o, &w->n);
	/* The timing's residue is the harness's, not libfpu's: left out of the total. */
	w->total = w->native_med - w->residue + w->assumed;
	if (w->n.integrity_errors || w->counts_differ)
		rc = 1;
	return rc;
}

static const struct paired no_pair = { NAN, NAN, NAN, 0, NAN, NAN, 0 };

/*
 * The oracle's ns per switch, the best static policy, every policy against
 * it run by run, the control against its own second copy, and the
 * break-even trap costs. 1 where the control's copy counted differently.
 */
static int rank(struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	struct runs *rs = &tr->runs;
	struct prow *rows = tr->rows;
	int best_p = -1, rc = 0;

	tr->oracle_ns = (tr->save_ns * (double)tr->oc.saves +
			 tr->rest_ns * (double)tr->oc.restores) /
			(double)(tr->oc.switches ? tr->oc.switches : 1);
	tr->best = INFINITY;
	tr->best_name = "-";
	for (int p = 0; p < tr->np; p++)
		if (policy_is_static(rows[p].policy) && rows[p].total < tr->best) {
			tr->best = rows[p].total;
			tr->best_name = rows[p].policy;
		}
	for (int p = 0; p < tr->np; p++)
		if (rows[p].policy == tr->best_name)
			best_p = p;
	/* run k against run k: each policy against the best static, the control against itself */
	for (int p = 0; p < tr->np; p++)
		rows[p].vs_best = best_p < 0 ? no_pair
					     : pair_runs(runs_of(rs, rs->native, p), &rows[p],
							 runs_of(rs, rs->native, best_p),
							 &rows[best_p], rs->repeat, tr->tpn,
							 rs->samples);
	tr->control = no_pair;
	if (tr->ctl >= 0) {
		const struct prow *c = &rows[tr->ctl];
		for (unsigned long k = 0; k < rs->repeat; k++)
			if (replay_say_integrity(tr, c->policy, "control run", k,
						 &rs->control[k]) ||
			    !same_counts(&rs->control[k].n, &c->n)) {
				fprintf(stderr,
					"fpulab replay: %s: %s: the control's copy counted differently\n",
					tr->path, c->policy);
				rc = 1;
			}
		tr->control = pair_runs(rs->control, c, runs_of(rs, rs->native, tr->ctl), c,
					rs->repeat, tr->tpn, rs->samples);
	}
	for (int p = 0; p < tr->np; p++)
		tr->be[p] = break_even(rows, tr->np, p, o->cr0.ns, o->ipi.ns);
	return rc;
}

/* What every row of the trace shares. */
static void trace_info_fill(struct trace_replay *tr)
{
	tr->ti = (struct trace_info){ tr->path,
				      tr->name,
				      tr->t.hdr.workload,
				      tr->t.hdr.ncpus,
				      tr->t.hdr.ntasks,
				      costs_source(tr->o),
				      tr->save_ns,
				      tr->rest_ns,
				      tr->tpn,
				      tr->ctl >= 0 ? tr->pols[tr->ctl] : NULL,
				      tr->control,
				      linux_busy_ns(&tr->t) };
}

/*
 * Every step after the trace is read: the runs, their summaries, the rank.
 * 0, 1 after an error of the runs (their rows still print), -1 out of
 * memory or a run that failed (said; nothing to print).
 */
static int replay_steps(struct trace_replay *tr)
{
	const struct opts *o = tr->o;
	int rc;

	if (runs_alloc(&tr->runs, tr->np, o->repeat) < 0 || (rc = record_logs(tr)) == -1) {
		fprintf(stderr, "fpulab replay: out of memory\n");
		return -1;
	}
	if (rc < 0 || interleaved_runs(tr))
		return -1;                 /* a run failed: said */
	for (int p = 0; p < tr->np; p++) { /* their bare runs are done */
		replay_log_free(tr->runs.logs[p]);
		tr->runs.logs[p] = NULL;
	}
	empty_region_ticks(tr->runs.empty, tr->np, o->repeat, tr->runs.samples, tr->empty_region);
	tr->empty_call = empty_call_ticks(&tr->runs);
	for (int p = 0; p < tr->np; p++)
		rc |= summarise_policy(tr, p);
	rc |= rank(tr);
	trace_info_fill(tr);
	return rc;
}

/*
 * A Linux trace of the every-return model: the lazy-style policies and
 * deferred replayed again over its evidence bound (replay_linux.c), their
 * rows kept in @tr->lower. 0 also when there is nothing to do.
 */
static int replay_lower_bound(struct trace_replay *tr)
{
	struct trace_replay *lo;
	int rc;

	tr->lower.np = 0;
	if (tr->t.lx->fp_use != FPULAB_FP_USE_EVERY_RETURN || !linux_bound_policies(tr, NULL))
		return 0;
	lo = calloc(1, sizeof(*lo));
	if (!lo || linux_lower_trace(&tr->t, &lo->t)) {
		fprintf(stderr, "fpulab replay: out of memory\n");
		free(lo);
		return -1;
	}
	lo->path = tr->path;
	lo->o = tr->o;
	lo->tpn = tr->tpn;
	lo->pols = tr->lower.pols;
	lo->np = linux_bound_policies(tr, tr->lower.pols);
	rc = trace_prepare(lo);
	if (!rc)
		rc = replay_steps(lo);
	if (rc >= 0) {
		tr->lower.np = lo->np;
		memcpy(tr->lower.rows, lo->rows, sizeof(lo->rows));
		tr->lower.oc = lo->oc;
		tr->lower.oracle_ns = lo->oracle_ns;
	}
	trace_teardown(lo);
	free(lo);
	return rc;
}

/*
 * Replays the trace at @path under each of @np policies @pols, @o->repeat
 * runs interleaved, and prints its header, rows and footer to @o->out.
 * @tpn: TSC ticks per ns. 0, or 1 after an error (said on stderr); a trace
 * that cannot be read or replayed prints nothing.
 */
int replay_trace(const char *path, const char *name, const struct opts *o, const char **pols,
		 int np, double tpn)
{
	struct trace_replay *tr = calloc(1, sizeof(*tr));
	int rc;

	if (!tr) {
		fprintf(stderr, "fpulab replay: out of memory\n");
		return 1;
	}
	*tr = (struct trace_replay){
		.path = path, .name = name, .o = o, .pols = pols, .np = np, .tpn = tpn
	};
	if (trace_setup(tr)) {
		free(tr);
		return 1;
	}
	rc = replay_steps(tr);
	if (rc >= 0 && tr->t.lx)
		rc |= replay_lower_bound(tr);
	if (rc >= 0) {
		trace_print_header(tr);
		trace_print_rows(tr);
		trace_print_footer(tr);
	}
	trace_teardown(tr);
	free(tr);
	return rc < 0 ? 1 : rc;
}
