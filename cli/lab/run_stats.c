/* SPDX-License-Identifier: MIT */
/* Grouping and summarising runs. */
#include "run_stats.h"
#include "common/policy.h"
#include "common/stats.h"

#include <stdlib.h>
#include <string.h>

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 4;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * elem);
	if (!p)
		abort();
	return p;
}

/* Per-run ticks are divided by round trips, or by switches when a run has no
 * round trips (e.g. stress). */
static const char *ticks_denominator(const struct guest_result *r, enum result_field *f)
{
	if (result_has(r, RESULT_round_trips) && r->round_trips > 0) {
		*f = RESULT_round_trips;
		return "round_trip";
	}
	if (result_has(r, RESULT_switches) && r->switches > 0) {
		*f = RESULT_switches;
		return "switch";
	}
	return NULL;
}

/*
 * Every count of a row comes from one real run, the median run: the one whose
 * ticks per round trip (or switch) is the median, the lower middle one for an
 * even number of runs (common/stats.h's median_index). Medians taken field by
 * field could mix runs (switches from one, saves from another) into a row no
 * run ever produced.
 */
void summarise_runs(const struct guest_result *runs, size_t n, struct result_row *row)
{
	size_t *order = calloc(n, sizeof(*order));
	double *per = calloc(n, sizeof(*per));
	enum result_field denom;
	size_t median_run = 0;

	if (!order || !per)
		abort();
	memset(row, 0, sizeof(*row));
	row->repeats = (unsigned)n;
	row->counts_identical = true;
	row->present = ~UINT64_C(0);
	for (size_t i = 0; i < n; i++) {
		row->present &= runs[i].present;
		row->integrity_errors_all_runs += runs[i].integrity_errors;
		order[i] = i;
	}
	for (int f = 0; f < RESULT_FIELD_COUNT; f++) {
		if (result_fields[f].type != FIELD_COUNT || !(row->present & (UINT64_C(1) << f)) ||
		    f == RESULT_ticks || f == RESULT_repeat || f == RESULT_base_ticks)
			continue;
		for (size_t i = 1; i < n; i++)
			if (result_count(&runs[i], (enum result_field)f) !=
			    result_count(&runs[0], (enum result_field)f))
				row->counts_identical = false;
	}

	/* Per-run ticks are divided by round trips, or by switches when a run has
	 * no round trips (e.g. stress). */
	row->ticks_per = (row->present & (UINT64_C(1) << RESULT_ticks))
				 ? ticks_denominator(&runs[0], &denom)
				 : NULL;
	for (size_t i = 0; row->ticks_per && i < n; i++) {
		uint64_t d = result_count(&runs[i], denom);
		if (d == 0) {
			row->ticks_per = NULL;
			break;
		}
		per[i] = (double)runs[i].ticks / (double)d;
	}
	if (!row->ticks_per) /* nothing to divide by: the median of the raw ticks, if any */
		for (size_t i = 0; i < n; i++)
			per[i] = (row->present & (UINT64_C(1) << RESULT_ticks))
					 ? (double)runs[i].ticks
					 : 0;
	/* Stable order by ticks: with no ticks at all the median run is the first. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && per[order[j - 1]] > per[order[j]]; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (row->present & (UINT64_C(1) << RESULT_ticks))
		median_run = order[median_index(n)];
	row->median = runs[median_run];
	row->median.present = row->present;
	if (row->ticks_per) {
		row->ticks_median = per[order[median_index(n)]];
		row->ticks_min = per[order[0]];
		row->ticks_max = per[order[n - 1]];
	}
	free(order);
	free(per);
}

static bool same_string(const struct guest_result *a, const struct guest_result *b,
			enum result_field f)
{
	return result_has(a, f) == result_has(b, f) &&
	       !strcmp(result_string(a, f), result_string(b, f));
}

/* Configuration: everything that names a row except the policy. */
static bool same_configuration(const struct guest_result *a, const struct guest_result *b)
{
	return same_string(a, b, RESULT_experiment) && same_string(a, b, RESULT_placement) &&
	       same_string(a, b, RESULT_fp_users) && same_string(a, b, RESULT_regset) &&
	       same_string(a, b, RESULT_variant) && same_string(a, b, RESULT_cost) &&
	       result_has(a, RESULT_cpus) == result_has(b, RESULT_cpus) && a->cpus == b->cpus &&
	       result_has(a, RESULT_tasks) == result_has(b, RESULT_tasks) && a->tasks == b->tasks;
}

void collector_init(struct result_collector *c, rows_ready_fn fn, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->rows_ready = fn;
	c->ctx = ctx;
}

void collector_complete(struct result_collector *c)
{
	struct result_row *rows;
	const struct result_row *eager = NULL;

	if (c->npolicies == 0)
		return;
	rows = calloc(c->npolicies, sizeof(*rows));
	if (!rows)
		abort();
	for (size_t i = 0; i < c->npolicies; i++) {
		summarise_runs(c->policies[i].runs, c->policies[i].n, &rows[i]);
		if (policy_is_baseline(rows[i].median.policy))
			eager = &rows[i];
	}
	for (size_t i = 0; i < c->npolicies; i++) {
		if (eager && eager->ticks_per && rows[i].ticks_per &&
		    !strcmp(eager->ticks_per, rows[i].ticks_per) && eager->ticks_median > 0) {
			rows[i].has_vs_eager = true;
			rows[i].vs_eager = rows[i].ticks_median / eager->ticks_median;
		}
	}
	c->completed = grow(c->completed, &c->completed_cap, c->configs_done + 1,
			    sizeof(*c->completed));
	c->completed[c->configs_done] = c->policies[0].runs[0];
	int rc = c->rows_ready(c->ctx, rows, c->npolicies);
	if (rc && !c->emit_error)
		c->emit_error = rc;
	free(rows);
	for (size_t i = 0; i < c->npolicies; i++)
		free(c->policies[i].runs);
	c->npolicies = 0;
	c->configs_done++;
}

void collector_add(struct result_collector *c, const struct guest_result *r)
{
	struct policy_runs *p = NULL;

	if (c->npolicies && !same_configuration(&c->policies[0].runs[0], r))
		collector_complete(c);
	for (size_t i = 0; c->npolicies == 0 && i < c->configs_done; i++) {
		if (same_configuration(&c->completed[i], r) && !c->out_of_order) {
			c->out_of_order = true;
			c->late_run = *r;
		}
	}
	for (size_t i = 0; i < c->npolicies; i++)
		if (!strcmp(c->policies[i].runs[0].policy, r->policy))
			p = &c->policies[i];
	if (!p) {
		c->policies = grow(c->policies, &c->policies_cap, c->npolicies + 1,
				   sizeof(*c->policies));
		p = &c->policies[c->npolicies++];
		memset(p, 0, sizeof(*p));
	}
	p->runs = grow(p->runs, &p->cap, p->n + 1, sizeof(*p->runs));
	p->runs[p->n++] = *r;
	c->runs_total++;
}

size_t collector_pending_runs(const struct result_collector *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->npolicies; i++)
		n += c->policies[i].n;
	return n;
}

void collector_free(struct result_collector *c)
{
	for (size_t i = 0; i < c->npolicies; i++)
		free(c->policies[i].runs);
	free(c->policies);
	free(c->completed);
	memset(c, 0, sizeof(*c));
}
