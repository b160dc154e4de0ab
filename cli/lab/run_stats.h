/* SPDX-License-Identifier: MIT */
/* Grouping the guest's runs by configuration and policy, and summarising the
 * repeats of each group: medians, min and max. */
#ifndef FPULAB_CLI_LAB_RUN_STATS_H
#define FPULAB_CLI_LAB_RUN_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "guest_records.h"

/* One configuration under one policy, summarised over its runs. */
struct result_row {
	/* The median run: the run whose ticks per round trip (or switch) is the
	 * median, the lower middle one for an even number of runs. Every count of
	 * the row is this one run's, so a row is always one that was measured. */
	struct guest_result median;
	uint64_t present;                   /* fields every run sent (others are not reported) */
	unsigned repeats;                   /* runs summarised */
	bool counts_identical;              /* every count except ticks equal in every run */
	uint64_t integrity_errors_all_runs; /* summed: one bad run must not hide in a median */
	const char *ticks_per; /* "round_trip", "switch", or NULL: nothing to divide by */
	double ticks_median, ticks_min, ticks_max; /* ticks per ticks_per, over the runs */
	bool has_vs_eager;
	double vs_eager; /* ticks_median / eager's ticks_median, same configuration */
};

/* Called with the rows of one configuration (one per policy) once all of its
 * runs have arrived. */
typedef int (*rows_ready_fn)(void *ctx, const struct result_row *rows, size_t n);

struct policy_runs {
	struct guest_result *runs;
	size_t n, cap;
};

struct result_collector {
	rows_ready_fn rows_ready;
	void *ctx;
	struct policy_runs *policies; /* of the configuration in progress */
	size_t npolicies, policies_cap;
	size_t runs_total, configs_done;
	int emit_error; /* first non-zero return of rows_ready */
	/* One run of each completed configuration: the guest must send each
	 * configuration's runs together, or its rows would be split. */
	struct guest_result *completed;
	size_t completed_cap;
	bool out_of_order;            /* a completed configuration got more runs */
	struct guest_result late_run; /* the first such run */
};

void collector_init(struct result_collector *c, rows_ready_fn fn, void *ctx);
/* Add one run. A run of a new configuration completes the previous one. */
void collector_add(struct result_collector *c, const struct guest_result *r);
/* The guest said done: the configuration in progress is complete. */
void collector_complete(struct result_collector *c);
/* Runs of the configuration in progress (not reported if the guest fails). */
size_t collector_pending_runs(const struct result_collector *c);
/* Drop the runs of the configuration in progress (a hung run: it will not be
 * complete). Returns how many. */
size_t collector_discard(struct result_collector *c);
void collector_free(struct result_collector *c);

/* Summarise runs of one configuration and policy (exposed for tests). */
void summarise_runs(const struct guest_result *runs, size_t n, struct result_row *row);

#endif
