/* SPDX-License-Identifier: MIT */
/*
 * Reading result files back: the JSON lines that `fpulab run`, `calibrate`,
 * `host` and `replay` write (one object a line; a JSON array is accepted
 * too). What compare, report, plot and the summary need of a row: which
 * configuration it is, its main figure with its range, unit, better direction
 * and source, and its counts.
 */
#ifndef FPULAB_CLI_COMMON_RESULT_FILE_H
#define FPULAB_CLI_COMMON_RESULT_FILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The most a result or costs file may hold, in bytes: what a replay of a
 * thousand traces writes (about 65 KB of JSON lines per trace, 8 rows),
 * and what stops /dev/zero or an endless FIFO from filling memory.
 */
#define RESULT_FILE_MAX_BYTES (64u << 20)

/*
 * result_file_read - the bytes of the file at @path, NUL-terminated, their
 * count in *@n; read as a stream (a FIFO, a device) as well as a file, never
 * more than RESULT_FILE_MAX_BYTES + 1. Returns a buffer to free(), or NULL
 * with a one-line reason in @err (cannot open, a directory, too large).
 */
char *result_file_read(const char *path, size_t *n, char *err, size_t len);

/*
 * result_file_load - every row of the file at @path, as a new JSON array.
 * Returns NULL with a one-line reason in @err (cannot open, a directory,
 * larger than RESULT_FILE_MAX_BYTES, line N is not a JSON object, row N is
 * not a result row (an object with an "experiment"), no rows at all).
 */
json_t *result_file_load(const char *path, char *err, size_t len);

/*
 * result_file_load_partial - as result_file_load; @partial (@plen bytes)
 * gets the reason of the file's partial marker (a run that stopped early,
 * lab/run_table_partial.c), or "" when the file is complete.
 */
json_t *result_file_load_partial(const char *path, char *err, size_t len, char *partial,
				 size_t plen);

/*
 * result_rows_parse - as result_file_load_partial, of the @n bytes at @bytes
 * (NUL-terminated, as result_file_read returns them) that came from @path:
 * for a reader that has read the file already and must not open it again
 * (a FIFO's bytes are gone once read). @bytes stay the caller's.
 */
json_t *result_rows_parse(const char *path, char *bytes, size_t n, char *err, size_t len,
			  char *partial, size_t plen);

/* result_is_row - whether @v is a result row: a JSON object with a string "experiment". */
bool result_is_row(const json_t *v);

/* Replay rows of fewer switches say nothing per switch (summary and its plot leave them out). */
#define REPLAY_MIN_SWITCHES 200

/*
 * The schema of every result row (docs/report.md, "Result rows"): a figure
 * FIGURE (ticks_per_round_trip, ns_per_switch, runtime_ms, ...) is the keys
 * FIGURE_median, FIGURE_min and FIGURE_max over the row's RESULT_RUNS runs,
 * in the row's "unit" and "clock" (clock.h). Writers put them with
 * result_put_stats(); readers get them with result_stat() and
 * result_figure(), which also read the keys rows had before the schema
 * (ticks_per_round_trip with ticks_min/ticks_max, median_ticks, ns_median,
 * ns_per_switch with ns_per_switch_min, ...).
 */
enum result_stat { RESULT_MEDIAN, RESULT_MIN, RESULT_MAX, RESULT_STAT_NR };

/* The key of the number of runs a row's figures summarise. */
#define RESULT_RUNS "repeats"

/*
 * result_put_stats - set @figure's median, min and max in @row (references
 * stolen; NULL: null), as FIGURE_median, FIGURE_min, FIGURE_max.
 */
void result_put_stats(json_t *row, const char *figure, json_t *median, json_t *min, json_t *max);

/*
 * result_stat - @stat of @figure in @row into *@out: FIGURE_median (_min,
 * _max), or the key an older row had for it. False when the row has no
 * such number (absent or null); a min or max only with the median.
 */
bool result_stat(const json_t *row, const char *figure, enum result_stat stat, double *out);

/* result_runs - how many runs the row summarises (RESULT_RUNS; older rows: "runs",
 * "repeat"), 0 when it does not say. */
long long result_runs(const json_t *row);

/* The main figure of a row: the median and range of its runs. */
struct result_figure {
	const char *key;  /* the figure, e.g. "ticks_per_round_trip" (its keys: KEY_median, ...) */
	const char *unit; /* e.g. "TSC ticks per round trip" */
	double median, min, max;
	bool has_range; /* min and max were measured */
	int better;     /* -1: lower is better, +1: higher is better */
};

/* result_figure - the row's main figure. Returns false when it has none
 * (a row of a correctness run, or a figure that was not measured: null). */
bool result_figure(const json_t *row, struct result_figure *fig);

/*
 * result_source - where the row's figures come from: its "source", or the
 * source of its "clock" (clock.h: "emulated" TSC under QEMU TCG, "icount"
 * guest instructions, "hardware" TSC under KVM, "native" host user mode,
 * "host-linux" for `fpulab host`), or "unknown".
 */
const char *result_source(const json_t *row);

/* The experiment of `replay --sweep`'s rows: one trace's totals at other costs, not configurations. */
#define RESULT_SWEEP_EXPERIMENT "replay-sweep"
/* The policy of replay's oracle row (the least work any policy could do). */
#define RESULT_ORACLE_ROW "oracle"
/* The policy of a replay's row of Linux's own counts, and that row's source (nothing timed). */
#define RESULT_LINUX_ROW "linux (recorded)"
#define RESULT_SOURCE_RECORDED "recorded Linux workload"

/* result_source_description - a phrase for the source, for titles and headers (clock.h). */
const char *result_source_description(const char *source);

/*
 * result_identity - the configuration a row measures, e.g. "context-switch
 * policy=eager placement=same-cpu fp_users=one regset=avx cpus=2": every key
 * that names the configuration, none that describes the machine, the build
 * or the measurement. malloc'ed.
 */
char *result_identity(const json_t *row);

/*
 * result_same_twice - whether two of @rows measure one configuration (their
 * result_identity): the first such pair into *@first < *@second, and its
 * identity (malloc'ed) into *@identity. False: every row is its own.
 */
bool result_same_twice(const json_t *rows, size_t *first, size_t *second, char **identity);

/* result_label - the identity as a table shows it: "context-switch eager
 * same-cpu one avx cpus=2 tasks=2" (string values bare). malloc'ed. */
char *result_label(const json_t *row);

/* result_is_count - whether @key of @row is a count compare reports when it
 * changed (an integer that is neither part of the identity nor a clock). */
bool result_is_count(const json_t *row, const char *key);

/* result_count_better - -1 when fewer is better for the count @key (#NM
 * traps, saves, IPIs, integrity errors), 0 when neither is (switches, round
 * trips: the size of the workload). */
int result_count_better(const char *key);

/* result_str - the string value of @key, or @dflt when absent or not a string. */
const char *result_str(const json_t *row, const char *key, const char *dflt);

#endif
