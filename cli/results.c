/* SPDX-License-Identifier: MIT */
/* Grouping and summarising runs. */
#include "results.h"

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

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void set_count(struct guest_result *r, enum result_field f, uint64_t v)
{
	memcpy((char *)r + result_fields[f].offset, &v, sizeof(v));
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

void summarise_runs(const struct guest_result *runs, size_t n, struct result_row *row)
{
	uint64_t *values = calloc(n, sizeof(*values));
	double *per = calloc(n, sizeof(*per));
	enum result_field denom;

	if (!values || !per)
		abort();
	memset(row, 0, sizeof(*row));
	row->median = runs[0];
	row->repeats = (unsigned)n;
	row->counts_identical = true;
	row->present = ~UINT64_C(0);
	for (size_t i = 0; i < n; i++)
		row->present &= runs[i].present;
	row->median.present = row->present;
	for (size_t i = 0; i < n; i++)
		row->integrity_errors_all_runs += runs[i].integrity_errors;

	for (int f = 0; f < RESULT_FIELD_COUNT; f++) {
		if (result_fields[f].type != FIELD_COUNT || !(row->present & (UINT64_C(1) << f)))
			continue;
		for (size_t i = 0; i < n; i++) {
			values[i] = result_count(&runs[i], (enum result_field)f);
			if (f != RESULT_ticks && f != RESULT_repeat && values[i] != values[0])
				row->counts_identical = false;
		}
		qsort(values, n, sizeof(*values), compare_u64);
		set_count(&row->median, (enum result_field)f, values[(n - 1) / 2]);
	}

	row->ticks_per = result_has(&row->median, RESULT_ticks)
				 ? ticks_denominator(&runs[0], &denom) : NULL;
	for (size_t i = 0; row->ticks_per && i < n; i++) {
		uint64_t d = result_count(&runs[i], denom);
		if (d == 0) {
			row->ticks_per = NULL;
			break;
		}
		per[i] = (double)runs[i].ticks / (double)d;
	}
	if (row->ticks_per) {
		qsort(per, n, sizeof(*per), compare_double);
		row->ticks_median = per[(n - 1) / 2];
		row->ticks_min = per[0];
		row->ticks_max = per[n - 1];
	}
	free(values);
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
	       result_has(a, RESULT_cpus) == result_has(b, RESULT_cpus) && a->cpus == b->cpus;
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
		if (!strcmp(rows[i].median.policy, "eager"))
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
