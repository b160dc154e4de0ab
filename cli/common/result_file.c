/* SPDX-License-Identifier: MIT */
#include "result_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog.h"
#include "clock.h"
#include "util.h"

/*
 * All of @f, at most RESULT_FILE_MAX_BYTES + 1 bytes (one more says it is
 * larger), NUL-terminated, into a buffer that doubles as the bytes come.
 */
static char *read_bounded(FILE *f, size_t *n)
{
	size_t cap = 64 << 10;
	char *buf = NULL;

	*n = 0;
	do {
		if (*n == cap || !buf) {
			cap = buf ? 2 * cap : cap;
			if (cap > RESULT_FILE_MAX_BYTES + 1)
				cap = RESULT_FILE_MAX_BYTES + 1;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		*n += fread(buf + *n, 1, cap - *n, f);
	} while (*n == cap && cap <= RESULT_FILE_MAX_BYTES && !ferror(f));
	buf[*n] = '\0';
	return buf;
}

char *result_file_read(const char *path, size_t *n, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *buf = NULL;

	*n = 0;
	if (!f) {
		snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, len, "%s: is a directory, not a result file", path);
	} else {
		buf = read_bounded(f, n);
		if (ferror(f))
			snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
		else if (*n > RESULT_FILE_MAX_BYTES)
			snprintf(err, len, "%s: larger than %u MiB: not a result file", path,
				 RESULT_FILE_MAX_BYTES >> 20);
		if (ferror(f) || *n > RESULT_FILE_MAX_BYTES) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* Whether every element of @rows (from @path) is a result row; else why not, in @err. */
static bool rows_only(const char *path, json_t *rows, char *err, size_t len)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		if (result_is_row(row))
			continue;
		char *text = json_dumps(row, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(err, len,
			 "%s: row %zu is not a result row (a JSON object with an \"experiment\"): "
			 "%.60s%s",
			 path, i + 1, text ? text : "?", text && strlen(text) > 60 ? "..." : "");
		free(text);
		return false;
	}
	return true;
}

json_t *result_rows_parse(const char *path, char *bytes, size_t n, char *err, size_t len,
			  char *partial, size_t plen)
{
	FILE *f = n ? fmemopen(bytes, n, "r") : NULL;
	json_t *rows, *v;
	json_error_t je;
	char *line = NULL;
	size_t cap = 0, lineno = 0;

	if (partial && plen)
		*partial = '\0';
	if (!f) {
		snprintf(err, len, "%s: %s", path, n ? strerror(errno) : "no result rows");
		return NULL;
	}
	rows = json_array();
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (!line[strspn(line, " \t\r\n")])
			continue;
		if (line[strspn(line, " \t")] == '[' && lineno == 1) { /* a whole JSON array */
			rewind(f);
			json_decref(rows);
			rows = json_loadf(f, 0, &je);
			if (!json_is_array(rows)) {
				snprintf(err, len,
					 "%s: not JSON lines nor a JSON array (line %d: %s)", path,
					 je.line, je.text);
				json_decref(rows);
				rows = NULL;
			}
			break;
		}
		v = json_loads(line, 0, &je);
		if (!json_is_object(v) && lineno == 1 && line[0] == '#') {
			snprintf(err, len,
				 "%s: a table, not result rows (its first line is a '#' comment): "
				 "write the results with --format json",
				 path);
		} else if (!json_is_object(v)) {
			snprintf(err, len, "%s:%zu: not a JSON object (%s)", path, lineno,
				 v ? "another JSON value" : je.text);
		}
		if (!json_is_object(v)) {
			json_decref(v);
			json_decref(rows);
			rows = NULL;
			break;
		}
		if (json_is_true(json_object_get(v, "partial")) &&
		    !json_object_get(v, "experiment")) {
			fprintf(stderr, "fpulab: note: %s holds partial results (%s)\n", path,
				result_str(v, "reason", "stopped early"));
			if (partial && plen)
				snprintf(partial, plen, "%s",
					 result_str(v, "reason", "stopped early"));
			json_decref(v);
			continue;
		}
		json_array_append_new(rows, v);
	}
	free(line);
	fclose(f);
	if (rows && !json_array_size(rows))
		snprintf(err, len, "%s: no result rows", path);
	if (rows && (!json_array_size(rows) || !rows_only(path, rows, err, len))) {
		json_decref(rows);
		rows = NULL;
	}
	return rows;
}

json_t *result_file_load_partial(const char *path, char *err, size_t len, char *partial,
				 size_t plen)
{
	size_t n;
	char *bytes = result_file_read(path, &n, err, len);
	json_t *rows = NULL;

	if (partial && plen)
		*partial = '\0';
	if (bytes)
		rows = result_rows_parse(path, bytes, n, err, len, partial, plen);
	free(bytes);
	return rows;
}

json_t *result_file_load(const char *path, char *err, size_t len)
{
	return result_file_load_partial(path, err, len, NULL, 0);
}

bool result_is_row(const json_t *v)
{
	return json_is_object(v) && json_is_string(json_object_get(v, "experiment"));
}

const char *result_str(const json_t *row, const char *key, const char *dflt)
{
	const json_t *v = json_object_get(row, key);
	return json_is_string(v) ? json_string_value(v) : dflt;
}

/* Main figures, in the order they are looked for: the first a row has (not null) is its main one. */
static const struct {
	const char *key, *unit;
	int better;
} figures[] = {
	{ "ticks_per_round_trip", "TSC ticks per round trip", -1 },
	{ "ticks_per_switch", "TSC ticks per switch", -1 },
	{ "ticks_per_op", "TSC ticks per operation", -1 },
	{ "ns_per_round_trip", "ns per round trip", -1 },
	{ "ns_per_switch", "ns per switch", -1 },
	{ "ns_per_op", "ns per operation", -1 },
	{ "ops_per_s", "operations per second", +1 },
	{ "runtime_ms", "ms", -1 },
	{ "instructions_per_op", "instructions per operation", -1 },
	{ "ticks", "TSC ticks", -1 },
};

/*
 * What rows written before the schema called a figure's median, min and
 * max. Each line is one writer's naming, tried after FIGURE_median.
 */
static const struct {
	const char *figure, *key[RESULT_STAT_NR]; /* by enum result_stat */
} old_keys[] = {
	/* fpulab run: the median under the figure's name, one range for all its ticks */
	{ "ticks_per_round_trip", { "ticks_per_round_trip", "ticks_min", "ticks_max" } },
	{ "ticks_per_switch", { "ticks_per_switch", "ticks_min", "ticks_max" } },
	{ "ticks_per_op", { "ticks_per_op", "ticks_min", "ticks_max" } },
	{ "ns_per_op", { "ns_per_op", "ns_per_op_min", "ns_per_op_max" } },
	/* fpulab calibrate */
	{ "ticks_per_op", { "median_ticks", "min_ticks", "max_ticks" } },
	{ "ns_per_op", { "median_ns", "min_ns", "max_ns" } },
	/* fpulab host costs */
	{ "ns_per_op", { "ns_median", "ns_min", "ns_max" } },
	/* fpulab replay */
	{ "ns_per_switch", { "ns_per_switch", "ns_per_switch_min", "ns_per_switch_max" } },
	{ "native_ns_per_switch", { "native_ns_per_switch", "native_ns_min", "native_ns_max" } },
	{ "vs_best", { "vs_best", "vs_best_min", "vs_best_max" } },
	{ "control_ratio", { "control_ratio", "control_ratio_min", "control_ratio_max" } },
	/* compare's first readers */
	{ "ticks", { "median", "min", "max" } },
};

static const char *const stat_suffix[RESULT_STAT_NR] = { "_median", "_min", "_max" };

static bool number(const json_t *row, const char *key, double *out)
{
	const json_t *v = json_object_get(row, key);
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

void result_put_stats(json_t *row, const char *figure, json_t *median, json_t *min, json_t *max)
{
	json_t *v[RESULT_STAT_NR] = { median, min, max };
	char key[96];

	for (int s = 0; s < RESULT_STAT_NR; s++) {
		snprintf(key, sizeof(key), "%s%s", figure, stat_suffix[s]);
		json_object_set_new(row, key, v[s] ? v[s] : json_null());
	}
}

/* @figure's statistics under one naming (@keys; NULL: the schema's); false without a median. */
static bool stats_named(const json_t *row, const char *figure, const char *const *keys,
			double out[RESULT_STAT_NR], bool *range)
{
	char key[RESULT_STAT_NR][96];

	for (int s = 0; s < RESULT_STAT_NR; s++)
		snprintf(key[s], sizeof(key[s]), "%s%s", keys ? keys[s] : figure,
			 keys ? "" : stat_suffix[s]);
	if (!number(row, key[RESULT_MEDIAN], &out[RESULT_MEDIAN]))
		return false;
	*range = number(row, key[RESULT_MIN], &out[RESULT_MIN]) &&
		 number(row, key[RESULT_MAX], &out[RESULT_MAX]);
	return true;
}

/* @figure's median, and its min and max when *@range; false when the row has no median. */
static bool stats_of(const json_t *row, const char *figure, double out[RESULT_STAT_NR], bool *range)
{
	if (stats_named(row, figure, NULL, out, range))
		return true;
	for (size_t i = 0; i < sizeof(old_keys) / sizeof(old_keys[0]); i++)
		if (!strcmp(old_keys[i].figure, figure) &&
		    stats_named(row, figure, old_keys[i].key, out, range))
			return true;
	return false;
}

bool result_stat(const json_t *row, const char *figure, enum result_stat stat, double *out)
{
	double v[RESULT_STAT_NR];
	bool range;

	if (!stats_of(row, figure, v, &range) || (stat != RESULT_MEDIAN && !range))
		return false;
	*out = v[stat];
	return true;
}

long long result_runs(const json_t *row)
{
	static const char *const keys[] = { RESULT_RUNS, "runs",
					    "repeat" }; /* older: host, calibrate */

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *v = json_object_get(row, keys[i]);
		if (json_is_integer(v))
			return json_integer_value(v);
	}
	return 0;
}

/*
 * @unit (the figures table's) in the clock of @row: instructions under
 * -icount. Kept for the program's life (a figure outlives its row), each
 * distinct text once.
 */
static const char *unit_in_clock(const json_t *row, const char *unit)
{
	static char made[16][96];
	static size_t nmade;
	char buf[96];
	const char *u = clock_unit(clock_by_key(result_str(row, "clock", NULL)), unit, buf,
				   sizeof(buf));

	if (u == unit)
		return unit;
	for (size_t i = 0; i < nmade; i++)
		if (!strcmp(made[i], u))
			return made[i];
	if (nmade == sizeof(made) / sizeof(made[0]))
		return unit;
	snprintf(made[nmade], sizeof(made[nmade]), "%s", u);
	return made[nmade++];
}

bool result_figure(const json_t *row, struct result_figure *fig)
{
	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
		double v[RESULT_STAT_NR];
		if (!stats_of(row, figures[i].key, v, &fig->has_range))
			continue;
		fig->key = figures[i].key;
		fig->unit = result_str(row, "unit", NULL);
		if (!fig->unit)
			fig->unit = unit_in_clock(row, figures[i].unit);
		fig->better = figures[i].better;
		fig->median = v[RESULT_MEDIAN];
		fig->min = fig->has_range ? v[RESULT_MIN] : fig->median;
		fig->max = fig->has_range ? v[RESULT_MAX] : fig->median;
		return true;
	}
	return false;
}

/* What calibrate wrote as its source before it named its clock (a result file may still say it). */
#define CALIBRATE_OLD_SOURCE "native user-mode TSC"

const char *result_source(const json_t *row)
{
	const char *s = result_str(row, "source", NULL);
	const struct clock_kind *c = clock_by_key(result_str(row, "clock", NULL));

	if (s && !strcmp(s, CALIBRATE_OLD_SOURCE))
		return clock_kinds[CLOCK_NATIVE_TSC].source;
	if (s)
		return s;
	return c ? c->source : "unknown";
}

const char *result_source_description(const char *source)
{
	return clock_source_description(source);
}

/* Keys that describe the machine, the build or the measurement, never the
 * configuration measured. */
static const char *const not_identity[] = {
	"accel",
	"clock",
	"machine",
	"qemu_accel",
	"qemu_cpu",
	"qemu_version",
	"pinned",
	"save_insn",
	"apic",
	"xcr0",
	"ticks_per",
	"fpulab_version",
	"fpulab_git",
	"host_cpu",
	"host_kernel",
	"date",
	"command",
	"source",
	"unit",
	"figure",
	"better",
	"partial",
	"status",
	"experiment",
	"policy",
	"seed",
	"random_seed",
	"serial_log",
	"trap_source",
	"cr0_source",
	"ipi_source",
	"xinuse_a",
	"xinuse_b",
	"xinuse_expected",
	"floor_pair",
	"clocksource",
	"adaptive_costs",
	"costs",
	"verdict",
	"trap_range_estimate",
	"note",
	"hypervisor_vendor",
	"linux_fp_use",
	"clock_label",
	"boot",
	"clock_ref",
	"hypervisor",
	"imported_on",
	"trace_name", /* in place of the trace's file name: identity() */
	NULL,
};
/* Prefixes of per-run keys: replay's control policy and its ratios to the best. */
static const char *const not_identity_prefixes[] = { "control_", "vs_", "work_vs_", NULL };
/* Figures that name the configuration: replay --sweep's x (the cost charged, ns). */
static const char *const identity_reals[] = { "sweep_ns", NULL };
/* Integers that name the configuration (a sweep's x axis, the CPUs used). */
static const char *const identity_numbers[] = {
	"cpus", "tasks", "threads", "fp_slices", "slices", "bytes", "kb", NULL,
};

static bool in(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

/*
 * A lab row's slices and fp_slices are counts (switch-ins, which vary from
 * policy to policy and run to run), except fp_slices where its experiment
 * takes it as an option (short-tasks' --fp-slices: the row's is its total
 * over the tasks, fixed by the option). Short-tasks' --slices is no
 * exception: the row's slices are the switch-ins it measured, preemptions
 * included.
 */
static bool lab_count(const json_t *row, const char *key)
{
	int e = experiment_find(result_str(row, "experiment", NULL));

	if (e < 0 || (strcmp(key, "slices") && strcmp(key, "fp_slices")))
		return false;
	if (!strcmp(key, "slices"))
		return true;
	for (int i = 0; i < FPULAB_OPT_NR; i++)
		if (!strcmp(fpulab_options[i].key, key))
			return !(fpulab_options[i].experiments & (1u << e));
	return true;
}

static bool prefixed(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strncmp(*list, key, strlen(*list)))
			return true;
	return false;
}

/* A run option the row carries (catalog.h) at its default: as if absent. */
static bool row_option_at_default(int id, const json_t *v)
{
	char buf[24], text[24];
	const char *dflt = row_option_default((enum fpulab_option_id)id, buf, sizeof(buf));

	if (json_is_string(v))
		return !strcmp(dflt, json_string_value(v));
	if (!json_is_integer(v))
		return json_is_null(v);
	snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	return !strcmp(dflt, text);
}

static bool identity_key(const json_t *row, const char *key, const json_t *v)
{
	int option = row_option_find(key);

	if (in(not_identity, key) || prefixed(not_identity_prefixes, key))
		return false;
	if (option >= 0)
		return !row_option_at_default(option, v);
	return json_is_string(v) || (json_is_number(v) && in(identity_reals, key)) ||
	       (json_is_integer(v) && in(identity_numbers, key) && !lab_count(row, key));
}

static char *identity(const json_t *row, bool label)
{
	const char *key;
	json_t *v;
	char *s = xasprintf(label ? "%s %s" : "%s policy=%s", result_str(row, "experiment", "?"),
			    result_str(row, "policy", "-"));

	json_object_foreach((json_t *)row, key, v)
	{
		char *next;
		if (!identity_key(row, key, v))
			continue;
		const char *text = json_is_string(v) ? json_string_value(v) : NULL;
		if (text && !strcmp(key, "trace")) /* its file, wherever it was kept */
			text = result_str(row, "trace_name", NULL)
				       ?: (strrchr(text, '/') ? strrchr(text, '/') + 1 : text);
		if (text && label && row_option_find(key) < 0) /* a run option says its name */
			next = xasprintf("%s %s", s, text);
		else if (text)
			next = xasprintf("%s %s=%s", s, key, text);
		else if (!json_is_integer(v))
			next = xasprintf("%s %s=%g", s, key, json_number_value(v));
		else
			next = xasprintf("%s %s=%" JSON_INTEGER_FORMAT, s, key,
					 json_integer_value(v));
		free(s);
		s = next;
	}
	return s;
}

char *result_identity(const json_t *row)
{
	return identity(row, false);
}

bool result_same_twice(const json_t *rows, size_t *first, size_t *second, char **identity)
{
	size_t n = json_array_size(rows);
	char **ids = calloc(n ? n : 1, sizeof(*ids));
	bool found = false;

	if (!ids)
		abort();
	for (size_t i = 0; i < n && !found; i++) {
		ids[i] = result_identity(json_array_get(rows, i));
		for (size_t j = 0; j < i && !found; j++)
			if (!strcmp(ids[i], ids[j])) {
				*first = j, *second = i;
				*identity = xstrdup(ids[i]);
				found = true;
			}
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return found;
}

char *result_label(const json_t *row)
{
	return identity(row, true);
}

/* Integers that are measurements of the machine or the run's length, not counts of work. */
static const char *const not_counts[] = {
	"repeats", "repeat",     "ticks",    "tsc_khz",   "hook_calls_clipped",
	"runs",    "base_ticks", "apic_khz", "cal_ticks", "cal_passes",
	NULL
};

bool result_is_count(const json_t *row, const char *key)
{
	const json_t *v = json_object_get(row, key);
	return json_is_integer(v) && !identity_key(row, key, v) && !in(not_counts, key) &&
	       !in(not_identity, key) && row_option_find(key) < 0;
}

int result_count_better(const char *key)
{
	static const char *const neutral[] = { "round_trips",         "switches",
					       "migrations",          "ops",
					       "kernel_fpu_sections", NULL };
	return in(neutral, key) ? 0 : -1;
}
