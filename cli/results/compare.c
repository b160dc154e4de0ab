/* SPDX-License-Identifier: MIT */
/*
 * fpulab compare A B: two result files, configuration by configuration. The
 * ratio of the main figure's medians (B / A), whether the min-max ranges
 * overlap, and every count that changed. Exit 0 when nothing got worse
 * beyond --threshold, 1 when something did, 2 for errors.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/output.h"
#include "common/policy.h"
#include "common/result_file.h"
#include "common/util.h"

#define COMPARE_DEFAULT_THRESHOLD 5.0 /* percent */

struct compare_totals {
	size_t common, worse, better, same, only_a, only_b;
	size_t unjudged; /* one run on a side: no range to weigh the change against */
	size_t repriced; /* replay rows whose B was given other per-event costs */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab compare [options] A B\n"
		"Compares two result files (JSON lines of run, replay or host) configuration by\n"
		"configuration: B's median of the main figure over A's, whether their min-max\n"
		"ranges overlap (then there is no real difference), and every count that changed.\n"
		"A side of a single run has no range: its change is not judged (\"one run\").\n"
		"Exit 0 when nothing got worse beyond the threshold, 1 when something did, 2 for\n"
		"errors (unreadable files, figures of different sources, nothing in common).\n"
		"Replay rows given other per-event costs in B are compared at A's costs (B's\n"
		"traps, TS writes and IPIs at A's trap, CR0 and IPI ns), and say so.\n"
		"Rows of A and B from different CPUs (host_cpu) are compared with a warning.\n"
		"  --threshold PCT   change in percent that counts as worse (default %.0f)\n"
		"  --format table|json|csv   output format (default table)\n"
		"  --output FILE     write the comparison to FILE\n"
		"  --help            this text\n",
		COMPARE_DEFAULT_THRESHOLD);
}

static json_t *find_row(json_t *rows, const char *identity)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		char *id = result_identity(row);
		bool same = !strcmp(id, identity);
		free(id);
		if (same)
			return row;
	}
	return NULL;
}

/*
 * -1, said, where @rows (of @path) hold one configuration twice (two files
 * concatenated): which row of it to compare would be a guess.
 */
static int one_row_each(json_t *rows, const char *path)
{
	size_t i, j;
	char *id;

	if (!result_same_twice(rows, &i, &j, &id))
		return 0;
	fprintf(stderr,
		"fpulab compare: %s holds one configuration twice (rows %zu and %zu: %s): "
		"compare files of one row each\n",
		path, i + 1, j + 1, id);
	free(id);
	return -1;
}

/*
 * The one source of @rows' timed figures into *@src (NULL: none); -1, said,
 * where they mix. A replay's Linux row (recorded counts, nothing timed)
 * does not count: its counts compare whatever the others' source.
 */
static int one_source(json_t *rows, const char *path, const char **src)
{
	size_t i;
	json_t *row;

	*src = NULL;
	json_array_foreach(rows, i, row)
	{
		const char *s = result_source(row);
		if (!strcmp(s, RESULT_SOURCE_RECORDED))
			continue;
		if (*src && strcmp(s, *src)) {
			fprintf(stderr,
				"fpulab compare: %s mixes figures of different sources: %s and %s\n",
				path, *src, s);
			return -1;
		}
		*src = s;
	}
	return 0;
}

/* Both files must hold figures of one source: emulated ticks are not hardware ticks. */
static int check_sources(json_t *a, json_t *b, const char *pa, const char *pb)
{
	const char *sa, *sb;

	if (one_source(a, pa, &sa) || one_source(b, pb, &sb))
		return -1;
	if (sa && sb && strcmp(sa, sb)) {
		fprintf(stderr,
			"fpulab compare: refusing to compare figures of different sources: %s has %s "
			"(%s), %s has %s (%s)\n",
			pa, sa, result_source_description(sa), pb, sb,
			result_source_description(sb));
		return -1;
	}
	return 0;
}

/* The distinct host_cpu values of @rows' provenance, ", " between them, malloc'ed; "" if none. */
static char *host_cpus(const json_t *rows)
{
	json_t *seen = json_object();
	char *s = xstrdup("");
	const json_t *row;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		const char *cpu = result_str(row, "host_cpu", NULL);
		if (!cpu || json_object_get(seen, cpu))
			continue;
		json_object_set_new(seen, cpu, json_true());
		char *next = xasprintf("%s%s%s", s, *s ? ", " : "", cpu);
		free(s);
		s = next;
	}
	json_decref(seen);
	return s;
}

/*
 * Where A's rows and B's name different CPUs (their host_cpu): a warning
 * line, a comment of the table (on stderr for JSON and CSV, which have no
 * comments): a ratio of timings on two machines is the machines' as much as
 * the policies'. Rows without host_cpu (the lab's, older files) say nothing.
 */
static void warn_other_cpus(struct output *o, const json_t *a, const json_t *b, const char *pa,
			    const char *pb)
{
	char *ca = host_cpus(a), *cb = host_cpus(b);

	if (*ca && *cb && strcmp(ca, cb)) {
		char *line = xasprintf(
			"WARNING: A and B come from different CPUs: A (%s) on %s, B "
			"(%s) on %s; B/A compares the machines as well as the policies",
			pa, ca, pb, cb);
		if (o->format == OUTPUT_TABLE)
			output_comment(o, "%s", line);
		else
			fprintf(stderr, "fpulab compare: %s\n", line);
		free(line);
	}
	free(ca);
	free(cb);
}

/* The counts that changed, as "nm_traps 1000->0" words; *worse when one that
 * should fall rose. */
static json_t *changed_counts(json_t *ra, json_t *rb, bool *worse, bool *better)
{
	json_t *changed = json_object(), *v;
	const char *key;

	json_object_foreach(ra, key, v)
	{
		json_t *w = json_object_get(rb, key);
		if (!result_is_count(ra, key) || !json_is_integer(w) ||
		    json_integer_value(v) == json_integer_value(w))
			continue;
		json_t *pair = json_pack("[I,I]", json_integer_value(v), json_integer_value(w));
		json_object_set_new(changed, key, pair);
		if (!strncmp(key, "integrity_errors", 16) &&
		    json_integer_value(w) > json_integer_value(v))
			*worse = true;
		if (!strncmp(key, "integrity_errors", 16) &&
		    json_integer_value(w) < json_integer_value(v))
			*better = true;
	}
	return changed;
}

static char *counts_text(json_t *changed)
{
	const char *key;
	json_t *pair;
	char *s = xstrdup("");

	json_object_foreach(changed, key, pair)
	{
		char *next = xasprintf("%s%s%s %" JSON_INTEGER_FORMAT "->%" JSON_INTEGER_FORMAT, s,
				       *s ? ", " : "", key,
				       json_integer_value(json_array_get(pair, 0)),
				       json_integer_value(json_array_get(pair, 1)));
		free(s);
		s = next;
	}
	return s;
}

/* One configuration present in both files. */
/* The runs a row summarises, or null when it does not say. */
static json_t *runs_or_null(const json_t *row)
{
	long long n = result_runs(row);
	return n > 0 ? json_integer(n) : json_null();
}

/*
 * The costs a replay row's total charges, each paired with the count it is
 * charged on: the per-event costs, and for the oracle (whose total is its
 * saves and restores at the batch costs replay measured) the batch costs.
 */
struct charged {
	const char *cost, *count;
	bool oracle_only;
};
static const struct charged event_costs[] = {
	{ "trap_ns", "nm_traps", false },   { "cr0_ns", "ts_writes", false },
	{ "ipi_ns", "flush_ipis", false },  { "save_ns", "saves", true },
	{ "restore_ns", "restores", true },
};

/*
 * For a policy that decides by the costs it is given (adaptive), whose counts changed: the
 * costs it decided by that differ between @ra and @rb ("trap_ns 157.0->119.4, ..."),
 * malloc'ed; "" where none do or the policy is static. A replay measures them afresh
 * unless --costs (or --trap-ns ...) and --batch-costs pin them.
 */
static char *decision_costs_text(const json_t *ra, const json_t *rb)
{
	const char *policy = result_str(ra, "policy", NULL);
	char *s = xstrdup("");

	if (!policy || !policy_is_adaptive(policy))
		return s;
	for (size_t i = 0; i < sizeof(event_costs) / sizeof(event_costs[0]); i++) {
		const char *key = event_costs[i].cost;
		const json_t *a = json_object_get(ra, key), *b = json_object_get(rb, key);
		if (!json_is_number(a) || !json_is_number(b) ||
		    json_number_value(a) == json_number_value(b))
			continue;
		char *next = xasprintf("%s%s%s %.1f->%.1f", s, *s ? ", " : "", key,
				       json_number_value(a), json_number_value(b));
		free(s);
		s = next;
	}
	return s;
}

/*
 * The oracle's total at A's costs: B's counts (saves and restores, its
 * traps, TS writes and IPIs, none) times A's costs, where A has each (B's
 * where not), per switch. Its total is nothing but that (replay prices it,
 * runs none), so it is computed afresh, not moved from B's median: that is
 * rounded to 0.1 ns, and an exact difference taken from it read -0.0 where
 * a trace restores once in 20000 switches.
 */
static double oracle_at_a(const json_t *ra, const json_t *rb, double switches)
{
	double ns = 0;

	for (size_t i = 0; i < sizeof(event_costs) / sizeof(event_costs[0]); i++) {
		const json_t *ca = json_object_get(ra, event_costs[i].cost);
		const json_t *cost = json_is_number(ca) ? ca
							: json_object_get(rb, event_costs[i].cost);
		const json_t *n = json_object_get(rb, event_costs[i].count);
		if (json_is_number(cost) && json_is_integer(n))
			ns += (double)json_integer_value(n) * json_number_value(cost);
	}
	return ns / switches;
}

/*
 * A replay row's total per switch is its native figure plus its counts at
 * the per-event costs it was given (the oracle's: its counts at the batch
 * costs, measured by each replay); where B was given other costs than A,
 * its figure is moved to what it would read at A's (B's counts x A's costs),
 * so the ratio compares what the policies did, not the costs. Returns the
 * costs that differed ("trap_ns B 1000 -> A 62.6"), "" when none or not a replay
 * row's ns_per_switch.
 */
static char *reprice_at_a(const json_t *ra, const json_t *rb, struct result_figure *fb)
{
	char *s = xstrdup("");
	double sw = json_number_value(json_object_get(rb, "switches")), delta = 0;

	if (strcmp(fb->key, "ns_per_switch") || !(sw > 0))
		return s;
	bool oracle = !strcmp(result_str(rb, "policy", ""), RESULT_ORACLE_ROW);
	for (size_t i = 0; i < sizeof(event_costs) / sizeof(event_costs[0]); i++) {
		if (event_costs[i].oracle_only && !oracle)
			continue;
		json_t *ca = json_object_get(ra, event_costs[i].cost);
		json_t *cb = json_object_get(rb, event_costs[i].cost);
		json_t *n = json_object_get(rb, event_costs[i].count);
		if (!json_is_number(ca) || !json_is_number(cb) || !json_is_integer(n) ||
		    json_number_value(ca) == json_number_value(cb))
			continue;
		delta += (double)json_integer_value(n) *
			 (json_number_value(ca) - json_number_value(cb)) / sw;
		char *next = xasprintf("%s%s%s B %g -> A %g", s, *s ? ", " : "",
				       event_costs[i].cost, json_number_value(cb),
				       json_number_value(ca));
		free(s);
		s = next;
	}
	if (oracle && *s) /* its counts at A's costs, not B's rounded median moved */
		delta = oracle_at_a(ra, rb, sw) - fb->median;
	fb->median += delta;
	fb->min += delta;
	fb->max += delta;
	return s;
}

/*
 * A figure of one run has no min-max range to weigh a change against its noise: no verdict
 * rests on it (the oracle's figure is counts, exact, and is judged).
 */
static bool one_run(const json_t *r)
{
	return result_runs(r) == 1 && strcmp(result_str(r, "policy", ""), RESULT_ORACLE_ROW);
}

static json_t *compare_row(json_t *ra, json_t *rb, const char *identity, double threshold,
			   struct compare_totals *t)
{
	struct result_figure fa, fb;
	bool has = result_figure(ra, &fa) && result_figure(rb, &fb) && !strcmp(fa.key, fb.key);
	bool worse = false, better = false,
	     unjudged = has && (one_run(ra) || one_run(rb)) && fa.median != fb.median;
	json_t *out = json_object();
	json_t *changed = changed_counts(ra, rb, &worse, &better);

	char *label = result_label(ra);
	json_object_set_new(out, "configuration", json_string(label));
	free(label);
	char *repriced = has ? reprice_at_a(ra, rb, &fb) : xstrdup("");
	if (*repriced)
		t->repriced++;
	double sw_a = json_number_value(json_object_get(ra, "switches"));
	if (*repriced && sw_a > 0 && !strcmp(result_str(ra, "policy", ""), RESULT_ORACLE_ROW))
		fa.median = oracle_at_a(ra, ra,
					sw_a); /* as B's: from its counts, not its rounded median */
	json_object_set_new(out, "b_repriced", *repriced ? json_string(repriced) : json_null());
	if (has) {
		double ratio = fa.median != 0 ? fb.median / fa.median : NAN;
		bool overlap = fa.has_range && fb.has_range && fa.min <= fb.max && fb.min <= fa.max;
		double change = fa.better < 0 ? ratio - 1 : 1 - ratio; /* > 0: worse */
		bool judged = !overlap && isfinite(ratio) && !unjudged;
		if (judged && change * 100 > threshold)
			worse = true;
		if (judged && -change * 100 > threshold)
			better = true;
		json_object_set_new(out, "figure", json_string(fa.key));
		json_object_set_new(out, "unit", json_string(fa.unit));
		json_object_set_new(out, "better", json_string(fa.better < 0 ? "lower" : "higher"));
		json_object_set_new(out, "a_median", json_real(fa.median));
		json_object_set_new(out, "a_min", fa.has_range ? json_real(fa.min) : json_null());
		json_object_set_new(out, "a_max", fa.has_range ? json_real(fa.max) : json_null());
		json_object_set_new(out, "b_median", json_real(fb.median));
		json_object_set_new(out, "b_min", fb.has_range ? json_real(fb.min) : json_null());
		json_object_set_new(out, "b_max", fb.has_range ? json_real(fb.max) : json_null());
		json_object_set_new(out, "a_runs", runs_or_null(ra));
		json_object_set_new(out, "b_runs", runs_or_null(rb));
		json_object_set_new(out, "ratio",
				    isfinite(ratio) ? json_real(round(ratio * 1000) / 1000)
						    : json_null());
		json_object_set_new(out, "ranges_overlap", json_boolean(overlap));
	}
	const char *verdict = worse ? "worse" : better ? "better" : unjudged ? "one run" : "same";
	json_object_set_new(out, "verdict", json_string(verdict));
	char *text = counts_text(changed);
	char *by = *text ? decision_costs_text(ra, rb) : xstrdup("");
	if (*by) {
		char *next = xasprintf("%s (%s decides by the costs it is given, which differ: %s)",
				       text, result_str(ra, "policy", ""), by);
		free(text);
		text = next;
	}
	free(by);
	char *cell = *repriced ? xasprintf("B at A's costs (%s)%s%s", repriced, *text ? "; " : "",
					   text)
			       : xstrdup(*text ? text : "-");
	json_object_set_new(out, "counts_changed_text", json_string(cell));
	free(cell);
	free(repriced);
	json_object_set_new(out, "counts_changed", changed);
	free(text);
	t->common++;
	if (worse)
		t->worse++;
	else if (better)
		t->better++;
	else if (unjudged)
		t->unjudged++;
	else
		t->same++;
	return out;
}

static const struct output_column columns[] = {
	{ "configuration", NULL, -56, 0 },
	{ "a_median", "A median", 11, 1 },
	{ "a_runs", "runs", 4, 0 },
	{ "b_median", "B median", 11, 1 },
	{ "b_runs", "runs", 4, 0 },
	{ "ratio", "B/A", 6, 3 },
	{ "overlap_mark", "~", 1, 0 },
	{ "verdict", NULL, -7, 0 },
	{ "counts_changed_text", "counts changed (A->B)", -1, 0 },
};

/*
 * The table's columns, the configuration as wide as the longest one that A
 * and B have in common (at least its usual 56), so that the figures after
 * it stay in line.
 */
static void set_columns(struct output *o, json_t *a, json_t *b)
{
	static struct output_column cols[sizeof(columns) / sizeof(columns[0])];
	size_t i, width = (size_t)-columns[0].width;
	json_t *ra;

	memcpy(cols, columns, sizeof(cols));
	json_array_foreach(a, i, ra)
	{
		char *id = result_identity(ra), *label = result_label(ra);
		if (strlen(label) > width && find_row(b, id))
			width = strlen(label);
		free(id);
		free(label);
	}
	cols[0].width = -(int)width;
	output_columns(o, cols, sizeof(cols) / sizeof(cols[0]));
}

static int compare_files(const char *pa, const char *pb, double threshold, struct output *o,
			 struct compare_totals *t)
{
	char err[512];
	json_t *a = result_file_load(pa, err, sizeof(err)), *b = NULL, *ra;
	size_t i;
	int rc = -1;
	char unit[128] = "";

	if (!a || !(b = result_file_load(pb, err, sizeof(err)))) {
		fprintf(stderr, "fpulab compare: %s\n", err);
		goto out;
	}
	if (one_row_each(a, pa) < 0 || one_row_each(b, pb) < 0 || check_sources(a, b, pa, pb) < 0)
		goto out;
	const char *source = result_source(json_array_get(a, 0));
	set_columns(o, a, b);
	output_comment(o, "fpulab compare: A = %s, B = %s", pa, pb);
	output_comment(o, "figures: %s", result_source_description(source));
	warn_other_cpus(o, a, b, pa, pb);
	output_comment(o, "B/A: ratio of the medians of each configuration's main figure; ~: the "
			  "min-max ranges overlap (no real difference);");
	output_comment(o,
		       "worse/better: changed by more than %.3g%% in the figure's worse/better "
		       "direction with ranges apart, or integrity errors rose/fell; one run: a "
		       "side is a single run (no range), its change not judged",
		       threshold);
	json_array_foreach(a, i, ra)
	{
		char *id = result_identity(ra);
		json_t *rb = find_row(b, id);
		if (!rb) {
			t->only_a++;
			free(id);
			continue;
		}
		json_t *row = compare_row(ra, rb, id, threshold, t);
		if (!unit[0] && json_object_get(row, "unit"))
			snprintf(unit, sizeof(unit), "%s", result_str(row, "unit", ""));
		json_object_set_new(row, "overlap_mark",
				    json_string(json_is_true(json_object_get(row, "ranges_overlap"))
							? "~"
							: " "));
		if (o->format != OUTPUT_TABLE)
			json_object_del(row, "overlap_mark");
		if (o->format != OUTPUT_JSON) /* table and CSV cells are scalars */
			json_object_del(row, "counts_changed");
		output_row(o, row);
		free(id);
	}
	json_array_foreach(b, i, ra)
	{
		char *id = result_identity(ra);
		if (!find_row(a, id))
			t->only_b++;
		free(id);
	}
	if (!t->common) {
		fprintf(stderr, "fpulab compare: %s and %s have no configuration in common\n", pa,
			pb);
		goto out;
	}
	output_comment(o, "medians in %s, over the runs each file summarised",
		       unit[0] ? unit : "-");
	char unjudged[96] = "";
	if (t->unjudged)
		snprintf(unjudged, sizeof(unjudged),
			 ", %zu not judged (one run on a side: no range to weigh it against)",
			 t->unjudged);
	output_comment(o,
		       "%zu configuration%s in both: %zu worse, %zu better, %zu no real "
		       "difference%s; only in A: %zu, only in B: %zu",
		       t->common, plural(t->common), t->worse, t->better, t->same, unjudged,
		       t->only_a, t->only_b);
	if (t->repriced)
		output_comment(
			o,
			"%zu replay row%s given other per-event costs in B: B's figures at "
			"A's costs (B's #NM traps, TS writes and IPIs at A's trap, CR0 and "
			"IPI ns; the oracle's saves and restores at A's batch costs), so B/A "
			"compares what the policies did",
			t->repriced, plural(t->repriced));
	rc = 0;
out:
	json_decref(a);
	json_decref(b);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double threshold = COMPARE_DEFAULT_THRESHOLD;
	struct output_opts oo = { .format = OUTPUT_TABLE };
	int c, idx;
	char *end;
	struct output o;
	struct compare_totals t = { 0 };

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, &idx)) != -1) {
		switch (c) {
		case 't':
			threshold = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%")) || !(threshold >= 0) ||
			    threshold > 1000)
				return usage_error("compare",
						   "--threshold %s: not a percentage in 0..1000",
						   optarg);
			break;
		case 'f':
		case 'o':
			if (output_opt(&oo, "compare", opts[idx].name, optarg))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return getopt_failed("compare", c, argv);
		}
	}
	if (argc - optind != 2)
		return usage_error("compare", "needs two result files, A and B");
	if (refuse_output_over_input("compare", oo.path, argc, argv))
		return 2;
	if (output_open(&o, oo.format, oo.path, "compare") < 0) {
		fprintf(stderr, "fpulab compare: %s\n", o.error);
		return 2;
	}
	output_provenance_host(&o, argc, argv);
	int rc = compare_files(argv[optind], argv[optind + 1], threshold, &o, &t);
	if (output_close(&o) < 0 || rc < 0)
		return 2;
	if (t.worse)
		fprintf(stderr, "fpulab compare: %zu configuration%s got worse\n", t.worse,
			t.worse == 1 ? "" : "s");
	return t.worse ? 1 : 0;
}
