/* SPDX-License-Identifier: MIT */
#include "plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "result_file.h"
#include "util.h"

/* Numbers that make a sweep when they vary: the x axis of a line plot. */
static const char *const sweep_keys[] = { "tasks", "threads", "fp_slices", "slices",
					  "bytes", "kb",      NULL };

/* The series of rows that have no policy (`fpulab host`: the host's Linux). */
#define NO_POLICY "Linux"

/* Unique strings, in first-seen order. */
static size_t intern(json_t *list, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v) if (!strcmp(json_string_value(v), s)) return i;
	json_array_append_new(list, json_string(s));
	return json_array_size(list) - 1;
}

/* The configuration of a row without its policy (and without the sweep key). */
static char *config_label(const json_t *row, const char *sweep)
{
	char *label = result_label(row), *p;
	const char *policy = result_str(row, "policy", "-");
	const char *experiment = result_str(row, "experiment", "?");
	char *s;

	/* result_label is "EXPERIMENT POLICY rest": keep the rest */
	p = label + strlen(experiment) + 1 + strlen(policy);
	s = xstrdup(*p == ' ' ? p + 1 : p);
	free(label);
	if (sweep) { /* drop "sweep=N" */
		char *at = strstr(s, sweep);
		if (at && at[strlen(sweep)] == '=') {
			char *end = at + strcspn(at, " ");
			memmove(at, *end ? end + 1 : end, strlen(end) + (*end ? 0 : 1));
			if (at > s && !*at && at[-1] == ' ')
				at[-1] = '\0';
		}
	}
	if (!*s) {
		free(s);
		s = xstrdup("default");
	}
	return s;
}

/* Whether every label of @rows has the word @w (such words say nothing on an axis). */
static bool word_everywhere(json_t *rows, const char *sweep, const char *w, size_t len)
{
	size_t i;
	json_t *row;
	bool all = true;

	json_array_foreach(rows, i, row)
	{
		char *label = config_label(row, sweep);
		bool found = false;
		for (char *p = label; *p && !found;) {
			size_t n = strcspn(p, " ");
			found = n == len && !strncmp(p, w, len);
			p += n + (p[n] == ' ');
		}
		free(label);
		all &= found;
	}
	return all;
}

/*
 * The words every row of @rows has in its label, each with a space either
 * side (" cpus=2 "), malloc'd; "" for a single row (its label is kept
 * whole). Computed once per plot: each label costs a pass over the row's
 * keys, and a word test per row and word was quadratic in the rows.
 */
static char *shared_words(json_t *rows, const char *sweep)
{
	char *label, *out = xstrdup(" ");

	if (json_array_size(rows) <= 1)
		return out;
	label = config_label(json_array_get(rows, 0), sweep);
	for (char *p = label; *p;) {
		size_t n = strcspn(p, " ");
		if (word_everywhere(rows, sweep, p, n)) {
			char *next = xasprintf("%s%.*s ", out, (int)n, p);
			free(out);
			out = next;
		}
		p += n + (p[n] == ' ');
	}
	free(label);
	return out;
}

/* @row's label without the words every row shares (@shared: shared_words()). */
static char *short_label(const char *shared, const json_t *row, const char *sweep)
{
	char *label = config_label(row, sweep), *out = xstrdup("");

	for (char *p = label; *p;) {
		size_t n = strcspn(p, " ");
		char *word = xasprintf(" %.*s ", (int)n, p);
		if (!strstr(shared, word)) {
			char *next = xasprintf("%s%s%.*s", out, *out ? " " : "", (int)n, p);
			free(out);
			out = next;
		}
		free(word);
		p += n + (p[n] == ' ');
	}
	free(label);
	if (!*out) {
		free(out);
		out = xstrdup(sweep ? "default" : "all");
	}
	return out;
}

/* A sweep's line: the policy, and the rest of the configuration if any. */
static char *series_name(const json_t *row, const char *label)
{
	const char *policy = result_str(row, "policy", NULL);

	if (!strcmp(label, "default"))
		return xstrdup(policy ? policy : NO_POLICY);
	return policy ? xasprintf("%s %s", policy, label) : xstrdup(label);
}

/* Distinct configurations of @rows with the policy, @without (a key) left out of each. */
static size_t distinct_configs(json_t *rows, const char *without)
{
	json_t *seen = json_array(), *row;
	size_t i, n;

	json_array_foreach(rows, i, row)
	{
		char *label = config_label(row, without);
		char *key = xasprintf("%s %s", result_str(row, "policy", "-"), label);
		intern(seen, key);
		free(key);
		free(label);
	}
	n = json_array_size(seen);
	json_decref(seen);
	return n;
}

/*
 * The number the rows sweep: one that varies, and whose removal merges
 * configurations (sleeping-lock's tasks 1, 2, 4 of each variant). A number
 * that only tells different configurations apart (replay's traces of 2 and
 * 8 tasks) is no sweep.
 */
static const char *sweep_key(json_t *rows)
{
	for (const char *const *k = sweep_keys; *k; k++) {
		json_int_t first = -1;
		size_t i;
		json_t *row;
		json_array_foreach(rows, i, row)
		{
			json_t *v = json_object_get(row, *k);
			if (!json_is_integer(v))
				break;
			if (first < 0)
				first = json_integer_value(v);
			else if (json_integer_value(v) != first &&
				 distinct_configs(rows, *k) < distinct_configs(rows, NULL))
				return *k;
		}
	}
	return NULL;
}

static void gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The last part of @path: a script names its data and output beside it. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* What a --plot without gnuplot says (plot_dir_prepare, before any work; run_gnuplot). */
#define NEEDS_GNUPLOT "--plot needs gnuplot"
#define INSTALL_GNUPLOT "tools/ensure-deps run installs it (apt-get install gnuplot-nox)"

/* gnuplot DIR/NAME.gp, run in DIR: the script's paths are relative to its own directory. */
static int run_gnuplot(const char *dir, const char *script, const char *cmd)
{
	int status;

	/* what the command printed so far goes out before the plot's lines on stderr
	 * (and is not copied into the child) */
	fflush(stdout);
	pid_t pid = fork();

	if (pid == 0) {
		if (chdir(dir) < 0) {
			fprintf(stderr, "fpulab %s: %s: %s\n", cmd, dir, strerror(errno));
			_exit(126);
		}
		execlp("gnuplot", "gnuplot", base_name(script), (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "fpulab %s: cannot run gnuplot: %s\n", cmd, strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		fprintf(stderr, "fpulab %s: " NEEDS_GNUPLOT ": " INSTALL_GNUPLOT "\n", cmd);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fpulab %s: gnuplot failed on %s\n", cmd, script);
		return -1;
	}
	return 0;
}

/* Rows of one experiment that have a main figure, all of one unit. */
/* @path opened for writing; NULL, said on stderr as @cmd's, when it cannot be. */
static FILE *open_plot_file(const char *path, const char *cmd)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "fpulab %s: cannot write %s: %s\n", cmd, path, strerror(errno));
	return f;
}

/*
 * The start of a gnuplot script: what it draws (@what) and how to redraw it,
 * an SVG @width pixels
 * wide (at least 900, room for a title line of @line2 characters, at most
 * 6000), its output beside the script, and "set title " for the caller.
 */
static void gp_begin(FILE *f, const char *what, const char *gp, const char *svg, unsigned width,
		     size_t line2)
{
	if (width < 7 * line2 + 120) /* room for the title's source line */
		width = 7 * (unsigned)line2 + 120;
	if (width < 900)
		width = 900;
	fprintf(f, "# %s; redraw in this directory with: gnuplot %s\n", what, base_name(gp));
	fprintf(f,
		"set terminal svg size %u,560 dynamic enhanced font 'sans,11' background '#ffffff'\n",
		width > 6000 ? 6000 : width);
	fprintf(f, "set output ");
	gp_string(f, base_name(svg));
	fprintf(f, "\nset datafile missing 'NaN'\nset title ");
}

/* After the y label: the axes and the key every plot shares. */
static void gp_axes(FILE *f)
{
	fprintf(f, " noenhanced\nset yrange [0:*]\nset grid ytics\nset key outside right top "
		   "noenhanced\nset border 3\nset tics nomirror\n");
}

static json_t *experiment_rows(json_t *rows, const char *experiment, struct result_figure *fig)
{
	json_t *out = json_array(), *row;
	size_t i;
	bool first = true;

	json_array_foreach(rows, i, row)
	{
		struct result_figure f;
		if (strcmp(result_str(row, "experiment", "?"), experiment) ||
		    !result_figure(row, &f))
			continue;
		if (first)
			*fig = f;
		else if (strcmp(f.key, fig->key))
			continue; /* another figure (ticks per switch beside per round trip) */
		first = false;
		json_array_append(out, row);
	}
	return out;
}

/*
 * A replay's figure is a projection: measured natively, plus per-event costs
 * that user mode cannot run (docs/model.md). What it rests on, or NULL for
 * any other row.
 */
static char *projection(const json_t *row)
{
	const json_t *t = json_object_get(row, "trap_ns"), *c = json_object_get(row, "cr0_ns"),
		     *i = json_object_get(row, "ipi_ns");

	if (!json_object_get(row, "params_ns_per_switch") || !json_is_number(t) ||
	    !json_is_number(c) || !json_is_number(i))
		return NULL;
	const char *ts = result_str(row, "trap_source", "?"),
		   *cs = result_str(row, "cr0_source", "?"),
		   *is = result_str(row, "ipi_source", "?");
	if (!strcmp(ts, cs) && !strcmp(ts, is))
		return xasprintf("native replay on this CPU + #NM trap %.1f ns, CR0 write %.1f ns, "
				 "IPI %.1f ns (%s)",
				 json_number_value(t), json_number_value(c), json_number_value(i),
				 ts);
	return xasprintf("native replay on this CPU + #NM trap %.1f ns (%s), CR0 write %.1f ns "
			 "(%s), IPI %.1f ns (%s)",
			 json_number_value(t), ts, json_number_value(c), cs, json_number_value(i),
			 is);
}

/* One experiment's plot: its rows, their x values and series, the cells, the files. */
struct exp_plot {
	const char *experiment;
	json_t *mine; /* the rows plotted (experiment_rows) */
	struct result_figure fig;
	const char *sweep;   /* the x axis' number, or NULL: a bar group per configuration */
	char *shared;        /* the label words every row has (shared_words) */
	json_t *xs, *series; /* x values and series names, in first-seen order */
	size_t nx, ns;
	double *cell; /* [x][series][median, min, max], NaN where not measured */
	int runs;     /* the most runs a row summarises */
	int runs_min; /* ... and the fewest (the oracle's counts: 1) */
	char *base, *dat, *gp, *svg;
};

/* Where @row goes: its x value and its series' name (both malloc'ed). */
static void row_place(const struct exp_plot *p, const json_t *row, char **x, char **series)
{
	char *label = short_label(p->shared, row, p->sweep);

	if (p->sweep) {
		*x = xasprintf("%" JSON_INTEGER_FORMAT,
			       json_integer_value(json_object_get(row, p->sweep)));
		*series = series_name(row, label);
		free(label);
	} else {
		*x = label;
		*series = xstrdup(result_str(row, "policy", NO_POLICY));
	}
}

/* The x values, the series and the runs of @p's rows. */
static void collect_axes(struct exp_plot *p)
{
	size_t i;
	json_t *row;

	json_array_foreach(p->mine, i, row)
	{
		char *x, *s;
		row_place(p, row, &x, &s);
		intern(p->xs, x);
		intern(p->series, s);
		free(x);
		free(s);
		if (result_runs(row) > p->runs)
			p->runs = (int)result_runs(row);
		if (!i || result_runs(row) < p->runs_min)
			p->runs_min = (int)result_runs(row);
	}
	p->nx = json_array_size(p->xs);
	p->ns = json_array_size(p->series);
}

/* Each row's median, min and max into its cell. */
static void fill_cells(struct exp_plot *p)
{
	size_t i;
	json_t *row;

	p->cell = malloc(p->nx * p->ns * 3 * sizeof(*p->cell));
	if (!p->cell)
		abort();
	for (i = 0; i < p->nx * p->ns * 3; i++)
		p->cell[i] = NAN;
	json_array_foreach(p->mine, i, row)
	{
		struct result_figure f;
		char *x, *s;
		result_figure(row, &f);
		row_place(p, row, &x, &s);
		double *c = &p->cell[(intern(p->xs, x) * p->ns + intern(p->series, s)) * 3];
		c[0] = f.median;
		c[1] = f.min;
		c[2] = f.max;
		free(s);
		free(x);
	}
}

/* DIR/EXPERIMENT.dat, .gp and .svg ("host unlink": host-unlink.svg). */
static void plot_paths(struct exp_plot *p, const char *dir)
{
	p->base = xasprintf("%s/%s", dir, p->experiment);
	for (char *c = p->base + strlen(dir) + 1; *c; c++)
		if (*c == ' ' || *c == '/')
			*c = '-';
	p->dat = xasprintf("%s.dat", p->base);
	p->gp = xasprintf("%s.gp", p->base);
	p->svg = xasprintf("%s.svg", p->base);
}

/* The data file: a line per x value, three columns per series: median, min, max. */
static int write_experiment_dat(const struct exp_plot *p, const char *cmd)
{
	FILE *f = open_plot_file(p->dat, cmd);

	if (!f)
		return -1;
	fprintf(f, "# %s: %s; per series: median min max\n", p->experiment, p->fig.unit);
	for (size_t x = 0; x < p->nx; x++) {
		fputs(p->sweep ? "" : "\"", f);
		fputs(json_string_value(json_array_get(p->xs, x)), f);
		fputs(p->sweep ? "" : "\"", f);
		for (size_t s = 0; s < p->ns * 3; s++) {
			double v = p->cell[x * p->ns * 3 + s];
			if (isnan(v))
				fputs(" NaN", f);
			else
				fprintf(f, " %.6g", v);
		}
		fputc('\n', f);
	}
	fclose(f);
	return 0;
}

/* The title (figure, and what it rests on) and the y label of an experiment's plot. */
static void gp_experiment_labels(FILE *f, const struct exp_plot *p, const char *rests_on,
				 bool projected)
{
	const json_t *first = json_array_get(p->mine, 0);
	char *title = xasprintf("%s: %s%s by %s", p->experiment, projected ? "projected " : "",
				p->fig.unit,
				result_str(first, "policy", NULL) ? "policy" : "configuration");

	gp_string(f, title);
	free(title);
	fprintf(f, ".\"\\n\".");
	gp_string(f, rests_on);
	fprintf(f, " noenhanced\nset ylabel ");
	char runs[48];
	if (p->runs_min < p->runs)
		snprintf(runs, sizeof(runs), "%d to %d runs", p->runs_min, p->runs);
	else
		snprintf(runs, sizeof(runs), "%d run%s", p->runs, p->runs == 1 ? "" : "s");
	char *ylabel = xasprintf("%s, median of %s; bars: min-max (%s is better)", p->fig.unit,
				 runs, p->fig.better < 0 ? "lower" : "higher");
	gp_string(f, ylabel);
	free(ylabel);
	gp_axes(f);
}

/* A sweep: a line per series over the swept number, with min-max error bars. */
static void gp_sweep_lines(FILE *f, const struct exp_plot *p)
{
	fprintf(f, "set xlabel ");
	gp_string(f, p->sweep);
	fprintf(f, " noenhanced\nplot ");
	for (size_t s = 0; s < p->ns; s++) {
		fprintf(f, "%s", s ? ", \\\n     " : "");
		gp_string(f, base_name(p->dat));
		fprintf(f, " using 1:%zu:%zu:%zu with yerrorlines title ", 2 + 3 * s, 3 + 3 * s,
			4 + 3 * s);
		gp_string(f, json_string_value(json_array_get(p->series, s)));
	}
}

/* No sweep: a bar group per configuration, a bar per series, min-max error bars. */
static void gp_config_bars(FILE *f, const struct exp_plot *p)
{
	fprintf(f, "set style data histograms\nset style histogram errorbars gap 2 lw 1\n"
		   "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
		   "set xtics rotate by -35 noenhanced font ',9'\n"
		   "set bmargin 9\nplot ");
	for (size_t s = 0; s < p->ns; s++) {
		fprintf(f, "%s", s ? ", \\\n     " : "");
		gp_string(f, base_name(p->dat));
		fprintf(f, " using %zu:%zu:%zu%s title ", 2 + 3 * s, 3 + 3 * s, 4 + 3 * s,
			s ? "" : ":xtic(1)");
		gp_string(f, json_string_value(json_array_get(p->series, s)));
	}
}

/* The gnuplot script of an experiment's plot. */
static int write_experiment_gp(const struct exp_plot *p, const char *cmd)
{
	const json_t *first = json_array_get(p->mine, 0);
	char *projected = projection(first);
	const char *rests_on = projected ? projected
					 : result_source_description(result_source(first));
	FILE *f = open_plot_file(p->gp, cmd);

	if (!f) {
		free(projected);
		return -1;
	}
	char *what = xasprintf("fpulab: %s", p->experiment);
	gp_begin(f, what, p->gp, p->svg,
		 p->sweep ? 900 : 300 + (unsigned)(p->nx * (p->ns * 14 + 20)), strlen(rests_on));
	free(what);
	gp_experiment_labels(f, p, rests_on, projected != NULL);
	if (p->sweep)
		gp_sweep_lines(f, p);
	else
		gp_config_bars(f, p);
	fprintf(f, "\n");
	fclose(f);
	free(projected);
	return 0;
}

static void exp_plot_free(struct exp_plot *p)
{
	free(p->cell);
	free(p->shared);
	free(p->base);
	free(p->dat);
	free(p->gp);
	free(p->svg);
	json_decref(p->mine);
	json_decref(p->xs);
	json_decref(p->series);
}

/*
 * The plot of @experiment's rows into @dir: its data file (a line per x
 * value: a configuration, or the sweep's number; three columns per series:
 * median, min, max, "NaN" where not measured), its script and the SVG.
 * Returns 1 (a plot), 0 (no row to plot) or -1 (said on stderr as @cmd's).
 */
static int plot_experiment(json_t *rows, const char *experiment, const char *dir, const char *cmd)
{
	struct exp_plot p = { .experiment = experiment,
			      .xs = json_array(),
			      .series = json_array() };
	int rc = -1;

	p.mine = experiment_rows(rows, experiment, &p.fig);
	if (!json_array_size(p.mine)) {
		exp_plot_free(&p);
		return 0;
	}
	p.sweep = sweep_key(p.mine);
	p.shared = shared_words(p.mine, p.sweep);
	collect_axes(&p);
	fill_cells(&p);
	plot_paths(&p, dir);
	if (write_experiment_dat(&p, cmd) == 0 && write_experiment_gp(&p, cmd) == 0 &&
	    run_gnuplot(dir, p.gp, cmd) == 0) {
		fprintf(stderr, "fpulab %s: plot %s (%zu %s%s, %zu series)\n", cmd, p.svg, p.nx,
			p.sweep ? p.sweep : "configuration", p.sweep ? "" : plural(p.nx), p.ns);
		rc = 1;
	}
	exp_plot_free(&p);
	return rc;
}

/* A replay row the summary ranks: a policy's, of a trace of at least REPLAY_MIN_SWITCHES. */
static bool replay_ranked(const json_t *row)
{
	const json_t *sw = json_object_get(row, "switches");
	double ns;

	return !strcmp(result_str(row, "experiment", ""), "replay") &&
	       strcmp(result_str(row, "policy", RESULT_ORACLE_ROW), RESULT_ORACLE_ROW) &&
	       result_str(row, "workload", NULL) && result_str(row, "trace", NULL) &&
	       json_is_number(sw) && json_number_value(sw) >= REPLAY_MIN_SWITCHES &&
	       result_stat(row, "ns_per_switch", RESULT_MEDIAN, &ns) && ns > 0;
}

/* Each workload's label, "WORKLOAD (N traces)", in first-seen order. */
static json_t *workload_labels(json_t *rows, json_t *workloads)
{
	json_t *labels = json_array(), *w, *row;
	size_t i, j;

	json_array_foreach(workloads, i, w)
	{
		json_t *traces = json_array();
		json_array_foreach(rows, j, row)
		{
			if (replay_ranked(row) &&
			    !strcmp(result_str(row, "workload", ""), json_string_value(w)))
				intern(traces, result_str(row, "trace", ""));
		}
		size_t n = json_array_size(traces);
		json_array_append_new(labels, json_sprintf("%s (%zu trace%s)", json_string_value(w),
							   n, plural(n)));
		json_decref(traces);
	}
	return labels;
}

/* The summary's replay plot: a bar group per workload, a bar per policy. */
struct replay_plot {
	json_t *workloads, *policies, *labels;
	size_t nw, np;
	const json_t *first;        /* the first ranked row: the costs it rests on */
	long long runs_lo, runs_hi; /* the fewest and most runs a row summarises */
	double *logsum;             /* [workload][policy]: sum of log ns per switch */
	size_t *n;                  /* [workload][policy]: traces summed */
	char *dat, *gp, *svg;
};

/* The workloads, policies and runs of the ranked rows. */
static void replay_plot_axes(json_t *rows, struct replay_plot *p)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		if (!replay_ranked(row))
			continue;
		intern(p->workloads, result_str(row, "workload", ""));
		intern(p->policies, result_str(row, "policy", ""));
		long long k = result_runs(row) ? result_runs(row) : 1;
		p->runs_lo = k < p->runs_lo ? k : p->runs_lo;
		p->runs_hi = k > p->runs_hi ? k : p->runs_hi;
		if (!p->first)
			p->first = row;
	}
	p->nw = json_array_size(p->workloads);
	p->np = json_array_size(p->policies);
}

/* Per workload and policy, the sum of the logs of its traces' ns per switch. */
static void replay_plot_logsums(json_t *rows, struct replay_plot *p)
{
	size_t i;
	json_t *row;

	p->logsum = calloc(p->nw * p->np, sizeof(*p->logsum));
	p->n = calloc(p->nw * p->np, sizeof(*p->n));
	if (!p->logsum || !p->n)
		abort();
	json_array_foreach(rows, i, row)
	{
		if (!replay_ranked(row))
			continue;
		size_t c = intern(p->workloads, result_str(row, "workload", "")) * p->np +
			   intern(p->policies, result_str(row, "policy", ""));
		double ns = 0;
		result_stat(row, "ns_per_switch", RESULT_MEDIAN, &ns); /* > 0: replay_ranked */
		p->logsum[c] += log(ns);
		p->n[c]++;
	}
}

/* The data file: a line per workload, a geometric mean per policy ("NaN": none). */
static int write_replay_dat(const struct replay_plot *p, const char *cmd)
{
	FILE *f = open_plot_file(p->dat, cmd);

	if (!f)
		return -1;
	fprintf(f,
		"# replay: projected ns per switch, per policy the geometric mean over the "
		"workload's traces of at least %d switches\n",
		REPLAY_MIN_SWITCHES);
	for (size_t w = 0; w < p->nw; w++) {
		fputc('"', f);
		fputs(json_string_value(json_array_get(p->labels, w)), f);
		fputc('"', f);
		for (size_t k = 0; k < p->np; k++) {
			size_t c = w * p->np + k;
			if (p->n[c])
				fprintf(f, " %.6g", exp(p->logsum[c] / (double)p->n[c]));
			else
				fputs(" NaN", f);
		}
		fputc('\n', f);
	}
	fclose(f);
	return 0;
}

/* The title's second line: what a bar is, over how many runs. */
static void gp_replay_how(FILE *f, const struct replay_plot *p)
{
	char runs[64];

	if (p->runs_lo == p->runs_hi)
		snprintf(runs, sizeof(runs), "%lld run%s", p->runs_lo,
			 plural((unsigned long long)p->runs_lo));
	else
		snprintf(runs, sizeof(runs), "%lld to %lld runs", p->runs_lo, p->runs_hi);
	char *how = xasprintf("a bar: the geometric mean over the workload's traces of at least %d "
			      "switches of each trace's median of %s",
			      REPLAY_MIN_SWITCHES, runs);
	fprintf(f, ".\"\\n\".");
	gp_string(f, how);
	free(how);
}

/* The gnuplot script of the replay plot. */
static int write_replay_gp(const struct replay_plot *p, const char *cmd)
{
	char *projected = projection(p->first);
	FILE *f = open_plot_file(p->gp, cmd);

	if (!f) {
		free(projected);
		return -1;
	}
	char *what = xasprintf("fpulab %s: replay", cmd);

	gp_begin(f, what, p->gp, p->svg, 300 + (unsigned)(p->nw * (p->np * 14 + 20)),
		 strlen(projected ? projected : ""));
	free(what);
	gp_string(f, "replay: projected ns per switch by workload and policy");
	gp_replay_how(f, p);
	fprintf(f, ".\"\\n\".");
	gp_string(f, projected ? projected : "native replay on this CPU");
	fprintf(f, " noenhanced\nset ylabel \"ns per switch (lower is better)\"");
	gp_axes(f);
	fprintf(f, "set style data histograms\nset style histogram clustered gap 2\n"
		   "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
		   "set xtics rotate by -35 noenhanced font ',9'\nset bmargin 9\nplot ");
	for (size_t k = 0; k < p->np; k++) {
		fprintf(f, "%s", k ? ", \\\n     " : "");
		gp_string(f, base_name(p->dat));
		fprintf(f, " using %zu%s title ", 2 + k, k ? "" : ":xtic(1)");
		gp_string(f, json_string_value(json_array_get(p->policies, k)));
	}
	fprintf(f, "\n");
	fclose(f);
	free(projected);
	return 0;
}

/*
 * The summary's plot of replay rows (docs/report.md): a bar group per
 * workload, a bar per policy at the geometric mean over the workload's
 * traces of at least REPLAY_MIN_SWITCHES switches of its projected ns per
 * switch (each a median of the trace's runs), the figure the summary's
 * replay section ranks by. A mean of medians has no min-max range.
 * Returns 1 (a plot), 0 (no ranked row) or -1 (said on stderr as @cmd's).
 */
static int plot_replay_summary(json_t *rows, const char *dir, const char *cmd)
{
	struct replay_plot p = { .workloads = json_array(),
				 .policies = json_array(),
				 .runs_lo = LLONG_MAX };
	int rc = -1;

	replay_plot_axes(rows, &p);
	if (!p.nw) {
		fprintf(stderr,
			"fpulab %s: replay: no trace of at least %d switches, none plotted "
			"(`fpulab replay TRACE... --plot DIR` draws them by configuration)\n",
			cmd, REPLAY_MIN_SWITCHES);
		rc = 0;
		goto out;
	}
	replay_plot_logsums(rows, &p);
	p.labels = workload_labels(rows, p.workloads);
	p.dat = xasprintf("%s/replay.dat", dir);
	p.gp = xasprintf("%s/replay.gp", dir);
	p.svg = xasprintf("%s/replay.svg", dir);
	if (write_replay_dat(&p, cmd) < 0 || write_replay_gp(&p, cmd) < 0 ||
	    run_gnuplot(dir, p.gp, cmd) < 0)
		goto out;
	fprintf(stderr, "fpulab %s: plot %s (%zu workload%s, %zu series)\n", cmd, p.svg, p.nw,
		plural(p.nw), p.np);
	rc = 1;
out:
	free(p.logsum);
	free(p.n);
	free(p.dat);
	free(p.gp);
	free(p.svg);
	json_decref(p.labels);
	json_decref(p.workloads);
	json_decref(p.policies);
	return rc;
}

int plot_dir_prepare_as(const char *dir, const char *what, char *err, size_t len)
{
	struct stat st;

	if (!*dir)
		return fail_why(err, len, "%s: an empty directory name", what);
	if (!program_runnable("gnuplot")) /* before the directory: none is left behind */
		return fail_why(err, len, NEEDS_GNUPLOT ", not found in PATH: " INSTALL_GNUPLOT);
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return fail_why(err, len, "%s %s: %s", what, dir, strerror(errno));
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return fail_why(err, len, "%s %s: not a directory", what, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return fail_why(err, len, "%s %s: %s", what, dir, strerror(errno));
	return 0;
}

int plot_dir_prepare(const char *dir, char *err, size_t len)
{
	return plot_dir_prepare_as(dir, "--plot", err, len);
}

static int plot_all(json_t *rows, const char *dir, const char *cmd, bool summary)
{
	json_t *experiments = json_array(), *row;
	size_t i;
	int plots = 0;
	char err[512];

	if (plot_dir_prepare(dir, err, sizeof(err))) {
		fprintf(stderr, "fpulab %s: %s\n", cmd, err);
		json_decref(experiments);
		return -1;
	}
	json_array_foreach(rows, i, row)
	{
		intern(experiments, result_str(row, "experiment", "results"));
	}
	json_array_foreach(experiments, i, row)
	{
		int rc = summary && !strcmp(json_string_value(row), "replay")
				 ? plot_replay_summary(rows, dir, cmd)
				 : plot_experiment(rows, json_string_value(row), dir, cmd);
		if (rc < 0) {
			plots = -1;
			break;
		}
		plots += rc;
	}
	json_decref(experiments);
	return plots;
}

int plot_rows(json_t *rows, const char *dir, const char *cmd)
{
	return plot_all(rows, dir, cmd, false);
}

int plot_results(json_t *rows, const char *dir, const char *cmd)
{
	return plot_all(rows, dir, cmd, true);
}

int plot_summary(json_t *rows, const char *dir)
{
	return plot_results(rows, dir, "summary");
}

/* The data of @p: a line per x value, a column per series. */
static int lines_data(const struct plot_lines *p, const char *path, const char *cmd)
{
	FILE *f = open_plot_file(path, cmd);

	if (!f)
		return -1;
	fprintf(f, "# %s\n# x", p->title);
	for (size_t s = 0; s < p->nseries; s++)
		fprintf(f, "\t%s", p->series[s]);
	for (size_t i = 0; i < p->nx; i++) {
		fprintf(f, "\n%.6g", p->x[i]);
		for (size_t s = 0; s < p->nseries; s++)
			fprintf(f, "\t%.6g", p->y[s * p->nx + i]);
	}
	fputc('\n', f);
	return fclose(f) ? -1 : 0;
}

/* The script of @p: the shaded range behind a line per series. */
static int lines_script(const struct plot_lines *p, const char *gp, const char *svg,
			const char *dat, const char *cmd)
{
	FILE *f = open_plot_file(gp, cmd);

	if (!f)
		return -1;
	gp_begin(f, p->title, gp, svg, 900, strlen(p->source));
	gp_string(f, p->title);
	fprintf(f, " . \"\\n\" . ");
	gp_string(f, p->source);
	fprintf(f, " noenhanced\nset xlabel ");
	gp_string(f, p->xlabel);
	fprintf(f, " noenhanced\nset ylabel ");
	gp_string(f, p->ylabel);
	gp_axes(f);
	fprintf(f, "set xrange [%.6g:%.6g]\n", p->x[0], p->x[p->nx - 1]);
	if (p->shade_lo <= p->shade_hi)
		fprintf(f,
			"set object 1 rect from %.6g, graph 0 to %.6g, graph 1 behind "
			"fc rgb '#d8d8d8' fs solid 0.6 noborder\n",
			p->shade_lo, p->shade_hi);
	fprintf(f, "plot ");
	for (size_t s = 0; s < p->nseries; s++) {
		fprintf(f, "%s", s ? ", \\\n     " : "");
		gp_string(f, base_name(dat));
		fprintf(f, " using 1:%zu with lines lw 2 title ", s + 2);
		gp_string(f, p->series[s]);
	}
	if (p->shade_lo <= p->shade_hi && p->shade_label) {
		fprintf(f, ", \\\n     NaN with boxes fs solid 0.6 fc rgb '#d8d8d8' title ");
		gp_string(f, p->shade_label);
	}
	fputc('\n', f);
	return fclose(f) ? -1 : 0;
}

int plot_lines(const struct plot_lines *p, const char *dir, const char *cmd)
{
	char *gp = xasprintf("%s/%s.gp", dir, p->name), *svg = xasprintf("%s/%s.svg", dir, p->name),
	     *dat = xasprintf("%s/%s.dat", dir, p->name);
	int rc = -1;

	if (p->nx >= 2 && !lines_data(p, dat, cmd) && !lines_script(p, gp, svg, dat, cmd) &&
	    !run_gnuplot(dir, gp, cmd)) {
		fprintf(stderr, "fpulab %s: wrote %s\n", cmd, svg);
		rc = 0;
	}
	free(gp);
	free(svg);
	free(dat);
	return rc;
}
