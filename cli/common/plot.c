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

/* The label without the words every row shares (cpus=2 when all have 2 CPUs). */
static char *short_label(json_t *rows, const json_t *row, const char *sweep)
{
	char *label = config_label(row, sweep), *out = xstrdup("");

	for (char *p = label; *p;) {
		size_t n = strcspn(p, " ");
		if (!word_everywhere(rows, sweep, p, n) || json_array_size(rows) == 1) {
			char *next = xasprintf("%s%s%.*s", out, *out ? " " : "", (int)n, p);
			free(out);
			out = next;
		}
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

/* gnuplot DIR/NAME.gp, run in DIR: the script's paths are relative to its own directory. */
static int run_gnuplot(const char *dir, const char *script, const char *cmd)
{
	int status;
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
		fprintf(stderr,
			"fpulab %s: --plot needs gnuplot: tools/ensure-deps run installs it "
			"(apt-get install gnuplot-nox)\n",
			cmd);
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

/*
 * The data file: a line per x value (a configuration, or the sweep's number),
 * three columns per series: median, min, max ("NaN" where not measured).
 */
static int plot_experiment(json_t *rows, const char *experiment, const char *dir, const char *cmd)
{
	struct result_figure fig = { 0 };
	json_t *mine = experiment_rows(rows, experiment, &fig);
	json_t *xs = json_array(), *series = json_array(), *row;
	const char *sweep = sweep_key(mine);
	char *base = NULL, *dat = NULL, *gp = NULL, *svg = NULL, *projected = NULL;
	double *cell = NULL;
	size_t i, nx, ns;
	int rc = -1, runs = 0;

	if (!json_array_size(mine)) {
		rc = 0;
		goto out;
	}
	/* series: policies (with the rest of the configuration for a sweep) */
	json_array_foreach(mine, i, row)
	{
		char *label = short_label(mine, row, sweep), *s;
		if (sweep) {
			char xbuf[32];
			snprintf(xbuf, sizeof(xbuf), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(json_object_get(row, sweep)));
			intern(xs, xbuf);
			s = series_name(row, label);
		} else {
			intern(xs, label);
			s = xstrdup(result_str(row, "policy", NO_POLICY));
		}
		intern(series, s);
		free(s);
		free(label);
		json_t *r = json_object_get(row, "repeats");
		if (!r) /* fpulab host's rows */
			r = json_object_get(row, "runs");
		if (json_is_integer(r) && (int)json_integer_value(r) > runs)
			runs = (int)json_integer_value(r);
	}
	nx = json_array_size(xs);
	ns = json_array_size(series);
	cell = malloc(nx * ns * 3 * sizeof(*cell));
	if (!cell)
		abort();
	for (i = 0; i < nx * ns * 3; i++)
		cell[i] = NAN;
	json_array_foreach(mine, i, row)
	{
		struct result_figure f;
		char *label = short_label(mine, row, sweep), *s, xbuf[32];
		result_figure(row, &f);
		if (sweep) {
			snprintf(xbuf, sizeof(xbuf), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(json_object_get(row, sweep)));
			s = series_name(row, label);
		} else {
			snprintf(xbuf, sizeof(xbuf), "%s", "");
			s = xstrdup(result_str(row, "policy", NO_POLICY));
		}
		size_t x = intern(xs, sweep ? xbuf : label), sidx = intern(series, s);
		double *c = &cell[(x * ns + sidx) * 3];
		c[0] = f.median;
		c[1] = f.min;
		c[2] = f.max;
		free(s);
		free(label);
	}

	base = xasprintf("%s/%s", dir, experiment);
	for (char *c = base + strlen(dir) + 1; *c; c++) /* "host unlink": host-unlink.svg */
		if (*c == ' ' || *c == '/')
			*c = '-';
	dat = xasprintf("%s.dat", base);
	gp = xasprintf("%s.gp", base);
	svg = xasprintf("%s.svg", base);
	FILE *f = open_plot_file(dat, cmd);
	if (!f)
		goto out;
	fprintf(f, "# %s: %s; per series: median min max\n", experiment, fig.unit);
	for (size_t x = 0; x < nx; x++) {
		fputs(sweep ? "" : "\"", f);
		fputs(json_string_value(json_array_get(xs, x)), f);
		fputs(sweep ? "" : "\"", f);
		for (size_t s = 0; s < ns * 3; s++) {
			double v = cell[x * ns * 3 + s];
			if (isnan(v))
				fputs(" NaN", f);
			else
				fprintf(f, " %.6g", v);
		}
		fputc('\n', f);
	}
	fclose(f);

	const char *source = result_source(json_array_get(mine, 0));
	projected = projection(json_array_get(mine, 0));
	f = open_plot_file(gp, cmd);
	if (!f)
		goto out;
	char *what = xasprintf("fpulab: %s", experiment);
	gp_begin(f, what, gp, svg, sweep ? 900 : 300 + (unsigned)(nx * (ns * 14 + 20)),
		 strlen(projected ? projected : result_source_description(source)));
	free(what);
	char *title = xasprintf(
		"%s: %s%s by %s", experiment, projected ? "projected " : "", fig.unit,
		result_str(json_array_get(mine, 0), "policy", NULL) ? "policy" : "configuration");
	gp_string(f, title);
	free(title);
	fprintf(f, ".\"\\n\".");
	gp_string(f, projected ? projected : result_source_description(source));
	fprintf(f, " noenhanced\nset ylabel ");
	char *ylabel = xasprintf("%s, median of %d run%s; bars: min-max (%s is better)", fig.unit,
				 runs, runs == 1 ? "" : "s", fig.better < 0 ? "lower" : "higher");
	gp_string(f, ylabel);
	free(ylabel);
	gp_axes(f);
	if (sweep) {
		fprintf(f, "set xlabel ");
		gp_string(f, sweep);
		fprintf(f, " noenhanced\nplot ");
		for (size_t s = 0; s < ns; s++) {
			fprintf(f, "%s", s ? ", \\\n     " : "");
			gp_string(f, base_name(dat));
			fprintf(f, " using 1:%zu:%zu:%zu with yerrorlines title ", 2 + 3 * s,
				3 + 3 * s, 4 + 3 * s);
			gp_string(f, json_string_value(json_array_get(series, s)));
		}
	} else {
		fprintf(f, "set style data histograms\nset style histogram errorbars gap 2 lw 1\n"
			   "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
			   "set xtics rotate by -35 noenhanced font ',9'\n"
			   "set bmargin 9\nplot ");
		for (size_t s = 0; s < ns; s++) {
			fprintf(f, "%s", s ? ", \\\n     " : "");
			gp_string(f, base_name(dat));
			fprintf(f, " using %zu:%zu:%zu%s title ", 2 + 3 * s, 3 + 3 * s, 4 + 3 * s,
				s ? "" : ":xtic(1)");
			gp_string(f, json_string_value(json_array_get(series, s)));
		}
	}
	fprintf(f, "\n");
	fclose(f);
	if (run_gnuplot(dir, gp, cmd) < 0)
		goto out;
	fprintf(stderr, "fpulab %s: plot %s (%zu %s%s, %zu series)\n", cmd, svg, nx,
		sweep ? sweep : "configuration", sweep ? "" : plural(nx), ns);
	rc = 1;
out:
	free(projected);
	free(cell);
	free(base);
	free(dat);
	free(gp);
	free(svg);
	json_decref(mine);
	json_decref(xs);
	json_decref(series);
	return rc;
}

/* A replay row the summary ranks: a policy's, of a trace of at least REPLAY_MIN_SWITCHES. */
static bool replay_ranked(const json_t *row)
{
	const json_t *sw = json_object_get(row, "switches"),
		     *ns = json_object_get(row, "ns_per_switch");

	return !strcmp(result_str(row, "experiment", ""), "replay") &&
	       strcmp(result_str(row, "policy", "oracle"), "oracle") &&
	       result_str(row, "workload", NULL) && result_str(row, "trace", NULL) &&
	       json_is_number(sw) && json_number_value(sw) >= REPLAY_MIN_SWITCHES &&
	       json_is_number(ns) && json_number_value(ns) > 0;
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

/*
 * The summary's plot of replay rows (docs/report.md): a bar group per
 * workload, a bar per policy at the geometric mean over the workload's
 * traces of at least REPLAY_MIN_SWITCHES switches of its projected ns per
 * switch (each a median of the trace's runs), the figure the summary's
 * replay section ranks by. A mean of medians has no min-max range.
 */
static int plot_replay_summary(json_t *rows, const char *dir, const char *cmd)
{
	json_t *workloads = json_array(), *policies = json_array(), *labels = NULL, *row;
	const json_t *first = NULL;
	long long runs_lo = LLONG_MAX, runs_hi = 0;
	double *logsum = NULL;
	size_t *n = NULL, i, nw, np;
	char *dat = NULL, *gp = NULL, *svg = NULL, *projected = NULL;
	int rc = -1;

	json_array_foreach(rows, i, row)
	{
		if (!replay_ranked(row))
			continue;
		intern(workloads, result_str(row, "workload", ""));
		intern(policies, result_str(row, "policy", ""));
		json_t *r = json_object_get(row, "repeats");
		long long k = json_is_integer(r) ? json_integer_value(r) : 1;
		runs_lo = k < runs_lo ? k : runs_lo;
		runs_hi = k > runs_hi ? k : runs_hi;
		if (!first)
			first = row;
	}
	nw = json_array_size(workloads);
	np = json_array_size(policies);
	if (!nw) {
		rc = 0;
		goto out;
	}
	logsum = calloc(nw * np, sizeof(*logsum));
	n = calloc(nw * np, sizeof(*n));
	if (!logsum || !n)
		abort();
	json_array_foreach(rows, i, row)
	{
		if (!replay_ranked(row))
			continue;
		size_t c = intern(workloads, result_str(row, "workload", "")) * np +
			   intern(policies, result_str(row, "policy", ""));
		logsum[c] += log(json_number_value(json_object_get(row, "ns_per_switch")));
		n[c]++;
	}
	labels = workload_labels(rows, workloads);
	dat = xasprintf("%s/replay.dat", dir);
	gp = xasprintf("%s/replay.gp", dir);
	svg = xasprintf("%s/replay.svg", dir);
	FILE *f = open_plot_file(dat, cmd);
	if (!f)
		goto out;
	fprintf(f,
		"# replay: projected ns per switch, per policy the geometric mean over the "
		"workload's traces of at least %d switches\n",
		REPLAY_MIN_SWITCHES);
	for (size_t w = 0; w < nw; w++) {
		fputc('"', f);
		fputs(json_string_value(json_array_get(labels, w)), f);
		fputc('"', f);
		for (size_t p = 0; p < np; p++) {
			if (n[w * np + p])
				fprintf(f, " %.6g",
					exp(logsum[w * np + p] / (double)n[w * np + p]));
			else
				fputs(" NaN", f);
		}
		fputc('\n', f);
	}
	fclose(f);

	projected = projection(first);
	f = open_plot_file(gp, cmd);
	if (!f)
		goto out;
	gp_begin(f, "fpulab summary: replay", gp, svg, 300 + (unsigned)(nw * (np * 14 + 20)),
		 strlen(projected ? projected : ""));
	gp_string(f, "replay: projected ns per switch by workload and policy");
	char runs[64];
	if (runs_lo == runs_hi)
		snprintf(runs, sizeof(runs), "%lld run%s", runs_lo,
			 plural((unsigned long long)runs_lo));
	else
		snprintf(runs, sizeof(runs), "%lld to %lld runs", runs_lo, runs_hi);
	char *how = xasprintf("a bar: the geometric mean over the workload's traces of at least %d "
			      "switches of each trace's median of %s",
			      REPLAY_MIN_SWITCHES, runs);
	fprintf(f, ".\"\\n\".");
	gp_string(f, how);
	free(how);
	fprintf(f, ".\"\\n\".");
	gp_string(f, projected ? projected : "native replay on this CPU");
	fprintf(f, " noenhanced\nset ylabel \"ns per switch (lower is better)\"");
	gp_axes(f);
	fprintf(f, "set style data histograms\nset style histogram clustered gap 2\n"
		   "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
		   "set xtics rotate by -35 noenhanced font ',9'\nset bmargin 9\nplot ");
	for (size_t p = 0; p < np; p++) {
		fprintf(f, "%s", p ? ", \\\n     " : "");
		gp_string(f, base_name(dat));
		fprintf(f, " using %zu%s title ", 2 + p, p ? "" : ":xtic(1)");
		gp_string(f, json_string_value(json_array_get(policies, p)));
	}
	fprintf(f, "\n");
	fclose(f);
	if (run_gnuplot(dir, gp, cmd) < 0)
		goto out;
	fprintf(stderr, "fpulab %s: plot %s (%zu workload%s, %zu series)\n", cmd, svg, nw,
		plural(nw), np);
	rc = 1;
out:
	free(projected);
	free(logsum);
	free(n);
	free(dat);
	free(gp);
	free(svg);
	json_decref(labels);
	json_decref(workloads);
	json_decref(policies);
	return rc;
}

static int plot_all(json_t *rows, const char *dir, const char *cmd, bool summary)
{
	json_t *experiments = json_array(), *row;
	size_t i;
	int plots = 0;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "fpulab %s: --plot %s: %s\n", cmd, dir, strerror(errno));
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

int plot_summary(json_t *rows, const char *dir)
{
	return plot_all(rows, dir, "summary", true);
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
