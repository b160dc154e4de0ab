/* SPDX-License-Identifier: MIT */
/*
 * fpulab report: the seed reproduction table. One row per quantitative claim
 * of the four seeds (/work/shared/seeds, quoted in docs/report.md): the claim,
 * fpulab's own measured figure, where that figure comes from, and whether the
 * direction agrees. A claim whose experiment has not run (or is not in this
 * build) says "not measured": no figure is ever made up.
 *
 * The rows come from result files (--from FILE...) or from running the
 * experiments now, each as `fpulab run --format json` in a child process.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/catalog.h"
#include "common/clock.h"
#include "cli.h"
#include "common/output.h"
#include "common/plot.h"
#include "lab/provenance.h"
#include "common/result_file.h"
#include "common/util.h"
#include "report.h"

/* The experiment that answers a claim, by its abi.h id: cli/ has no names of its own. */
#define EXPERIMENT(id) FPULAB_EXP_##id
#define EXP_NAME(e) (fpulab_experiments[e].name)

/* ---- finding rows ---- */

static bool matches(const json_t *row, const char *key, const char *value)
{
	return !value || !strcmp(result_str(row, key, ""), value);
}

json_t *report_find(json_t *rows, const char *experiment, const char *policy, const char *k1,
		    const char *v1, const char *k2, const char *v2, const char *k3, const char *v3)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		if (matches(row, "experiment", experiment) && matches(row, "policy", policy) &&
		    (!k1 || matches(row, k1, v1)) && (!k2 || matches(row, k2, v2)) &&
		    (!k3 || matches(row, k3, v3)))
			return row;
	}
	return NULL;
}

/*
 * A setting of the run a row came from: its own key, or where the lab puts it
 * (short-tasks names its mix in the placement column, sleeping-lock its state
 * API in variant), or for rows written before rows carried their run options
 * (catalog.h), the --option on the command line that made the row
 * (conditional by default).
 */
static const char *row_param(const json_t *row, const char *key, char *buf, size_t len)
{
	const char *v = result_str(row, key, NULL);
	const char *cmd = result_str(row, "command", "");
	char opt[40];

	if (v)
		return v;
	if (!strcmp(key, "mix"))
		return result_str(row, "placement", "");
	if (!strcmp(key, "state_api"))
		return result_str(row, "variant", "");
	snprintf(opt, sizeof(opt), "--%s", key);
	for (const char *at = strstr(cmd, opt); at; at = strstr(at + 1, opt)) {
		const char *val = at + strlen(opt);
		if (*val != ' ' && *val != '=')
			continue;
		val++;
		snprintf(buf, len, "%.*s", (int)strcspn(val, " "), val);
		return buf;
	}
	return !strcmp(key, "prefetch") ? "conditional" : "";
}

/* The first row of @experiment under @policy whose @key is @value and whose
 * register set is one of @regsets (comma-separated, in order of preference;
 * NULL: any). */
static json_t *find_variant(json_t *rows, const char *experiment, const char *policy,
			    const char *key, const char *value, const char *regsets)
{
	char buf[64];
	size_t i;
	json_t *row;

	for (const char *r = regsets ? regsets : ""; r;) {
		size_t n = strcspn(r, ",");
		json_array_foreach(rows, i, row)
		{
			const char *rs = result_str(row, "regset", "");
			if (!matches(row, "experiment", experiment) ||
			    !matches(row, "policy", policy) ||
			    (key && strcmp(row_param(row, key, buf, sizeof(buf)), value)) ||
			    (n && (strlen(rs) != n || strncmp(rs, r, n))))
				continue;
			return row;
		}
		r = r[n] ? r + n + 1 : NULL;
	}
	return NULL;
}

static bool has_experiment(json_t *rows, const char *experiment)
{
	return report_find(rows, experiment, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != NULL;
}

/* The source column: the clock's short name ("emulated ticks"), or the source itself. */
static const char *source_name(const json_t *row)
{
	const char *s = result_source(row);
	const struct clock_kind *c = clock_by_source(s);

	return c ? c->short_name : s;
}

static int runs_of(const json_t *row)
{
	long long n = result_runs(row);
	return n > 0 ? (int)n : 1;
}

void report_not_measured(struct finding *f, const char *fmt, const char *arg)
{
	f->measured = false;
	snprintf(f->figure, sizeof(f->figure), "not measured");
	snprintf(f->note, sizeof(f->note), fmt, arg);
	f->source = "-";
	f->agrees = "-";
}

/*
 * Not measured for want of @exp's row of @policy (NULL: of any policy) run
 * with --@key @value: says which row, and the run that makes it (with
 * --policy @policies).
 */
static void missing_variant(struct finding *f, const char *exp, const char *policy,
			    const char *policies, const char *key, const char *value)
{
	char opt[40], why[sizeof(f->note)];

	snprintf(opt, sizeof(opt), "--%s", key);
	for (char *p = opt; *p; p++)
		*p = *p == '_' ? '-' : *p;
	snprintf(why, sizeof(why),
		 "the %s results have no %s%s with %s %s: `fpulab run --experiment %s %s %s "
		 "--policy %s` makes %s",
		 exp, policy ? policy : "", policy ? " row" : "rows", opt, value, exp, opt, value,
		 policies, strchr(policies, ',') ? "them" : "it");
	report_not_measured(f, "%s", why);
}

/*
 * How much faster @fast is than @slow, in percent of rate (operations per
 * unit of time), from the medians of a lower-is-better figure; and the
 * range of that gain from the min-max ranges: *lo > 0 means clearly faster,
 * *hi < 0 clearly slower, otherwise the ranges overlap.
 */
static double rate_gain(const struct result_figure *slow, const struct result_figure *fast,
			double *lo, double *hi)
{
	if (slow->better > 0) { /* a rate already: higher is better */
		*lo = 100 * (fast->min / slow->max - 1);
		*hi = 100 * (fast->max / slow->min - 1);
		return 100 * (fast->median / slow->median - 1);
	}
	*lo = 100 * (slow->min / fast->max - 1);
	*hi = 100 * (slow->max / fast->min - 1);
	return 100 * (slow->median / fast->median - 1);
}

#define NOTE_TCG_CACHE                                                                   \
	"TCG models no cache, so a prefetch cannot change emulated time; native replay " \
	"(fpulab replay) measures it"
#define NOTE_TCG_SERIAL \
	"TCG does not model the serializing cost of CLTS/CR0 writes that the seed measured"
#define NOTE_SCALE \
	"the lab's switch path is far shorter than Linux's, so FPU work is a larger share"

/* Compare policies (or variants) a and b of one configuration: b's gain over a. */
static void measure_gain(const struct claim *c, json_t *rows, struct finding *f)
{
	const char *exp = EXP_NAME(c->experiment);
	json_t *ra, *rb;
	struct result_figure fa, fb;
	double lo, hi, gain;

	if (!has_experiment(rows, exp)) {
		report_not_measured(f, "needs `fpulab run --experiment %s`, which did not run",
				    exp);
		return;
	}
	if (c->param_key) { /* variants of one policy's run, e.g. prefetch=off vs conditional */
		ra = find_variant(rows, exp, c->a, c->param_key, c->param_a, c->regset);
		rb = find_variant(rows, exp, c->a, c->param_key, c->param_b, c->regset);
		if (!ra || !rb) {
			missing_variant(f, exp, c->a, c->a, c->param_key,
					ra ? c->param_b : c->param_a);
			return;
		}
	} else if (!c->fp_users) { /* two policies, the first register set present */
		ra = find_variant(rows, exp, c->a, NULL, NULL, c->regset);
		rb = find_variant(rows, exp, c->b, NULL, NULL, c->regset);
	} else {
		ra = report_find(rows, exp, c->a, "placement", "same-cpu", "fp_users", c->fp_users,
				 "regset", c->regset);
		rb = report_find(rows, exp, c->b, "placement", "same-cpu", "fp_users", c->fp_users,
				 "regset", c->regset);
		if (!ra || !rb) {
			ra = report_find(rows, exp, c->a, "fp_users", c->fp_users, "regset",
					 c->regset, NULL, NULL);
			rb = report_find(rows, exp, c->b, "fp_users", c->fp_users, "regset",
					 c->regset, NULL, NULL);
		}
	}
	if (!ra || !rb || !result_figure(ra, &fa) || !result_figure(rb, &fb) ||
	    strcmp(fa.key, fb.key)) {
		report_not_measured(f, "the %s results lack the rows this claim needs", exp);
		return;
	}
	gain = rate_gain(&fa, &fb, &lo, &hi);
	f->measured = true;
	f->value = round(gain * 10) / 10;
	f->unit = "%";
	f->source = source_name(ra);
	snprintf(f->figure, sizeof(f->figure),
		 "%+.1f%% (%s %.1f vs %s %.1f %s, medians of %d/%d run%s)", gain,
		 c->param_key ? c->param_a : c->a, fa.median, c->param_key ? c->param_b : c->b,
		 fb.median, fa.unit, runs_of(ra), runs_of(rb),
		 plural(runs_of(ra) == 1 && runs_of(rb) == 1 ? 1 : 2));
	if (c->claimed == 0) { /* "no degradation" */
		f->agrees = hi >= 0 ? "yes" : "no";
		if (hi < 0)
			snprintf(f->note, sizeof(f->note),
				 "%s is slower beyond the min-max ranges (%+.1f%% at best)",
				 c->param_key ? c->param_b : c->b, hi);
		else if (lo <= 0)
			snprintf(f->note, sizeof(f->note),
				 "the min-max ranges overlap: no real difference");
		return;
	}
	f->agrees = lo > 0 ? "yes" : hi < 0 ? "no" : "within noise";
	if (hi < 0)
		snprintf(f->note, sizeof(f->note), "opposite direction beyond the min-max ranges");
	else if (lo <= 0)
		snprintf(f->note, sizeof(f->note),
			 "the min-max ranges overlap (gain %+.1f%% .. %+.1f%%): no real difference",
			 lo, hi);
	bool off_scale = fabs(gain) > 2 * c->claimed || fabs(gain) < c->claimed / 2;
	if (clock_by_source(result_source(ra)) == &clock_kinds[CLOCK_EMULATED_TSC] &&
	    c->note_emulated && (off_scale || strcmp(c->note_emulated, NOTE_SCALE)))
		snprintf(f->note + strlen(f->note), sizeof(f->note) - strlen(f->note), "%s%s",
			 f->note[0] ? "; " : "", c->note_emulated);
}

/* #NM traps eager saves over lazy in one mix: an exact lab count. */
static void measure_saved_traps(const struct claim *c, json_t *rows, struct finding *f)
{
	const char *exp = EXP_NAME(c->experiment);
	json_t *lazy, *eager;
	const json_t *nl, *ne;

	if (!has_experiment(rows, exp)) {
		report_not_measured(f, "needs `fpulab run --experiment %s`, which did not run",
				    exp);
		return;
	}
	lazy = find_variant(rows, exp, "lazy", c->param_key, c->param_a, NULL);
	eager = find_variant(rows, exp, "eager", c->param_key, c->param_a, NULL);
	if (!lazy || !eager) {
		const char *gone = lazy ? "eager" : "lazy"; /* when only one is */

		missing_variant(f, exp, lazy || eager ? gone : NULL, "lazy,eager", c->param_key,
				c->param_a);
		return;
	}
	nl = json_object_get(lazy, "nm_traps");
	ne = json_object_get(eager, "nm_traps");
	if (!json_is_integer(nl) || !json_is_integer(ne)) {
		report_not_measured(f, "the %s results' lazy and eager rows lack #NM counts", exp);
		return;
	}
	long long saved = json_integer_value(nl) - json_integer_value(ne);
	f->measured = true;
	f->value = (double)saved;
	f->unit = "#NM traps";
	f->source = "exact lab count";
	snprintf(f->figure, sizeof(f->figure),
		 "%lld #NM saved (lazy %" JSON_INTEGER_FORMAT ", eager %" JSON_INTEGER_FORMAT
		 ", %s=%s, one run)",
		 saved, json_integer_value(nl), json_integer_value(ne), c->param_key, c->param_a);
	f->agrees = saved > 0 ? "yes" : "no";
	if (saved <= 0)
		snprintf(f->note, sizeof(f->note), "eager took as many #NM traps as lazy");
	else
		snprintf(f->note, sizeof(f->note),
			 "the lab's mix is far smaller than a boot or a kernel build: compare the "
			 "direction and the traps per task, not the total");
}

/* The claims, in the seeds' order. */
static const struct claim claims[] = {
	{ "000", "~0.4% faster: prefetch only when fpu_counter > 5 (vs none)",
	  EXPERIMENT(fp_vs_spinner),
	  "FP task's cost beside a spinner, lazy-counter, --prefetch off vs conditional",
	  measure_gain, NULL, NULL, "lazy-counter", NULL, "prefetch", "off", "conditional", 0.4,
	  NOTE_TCG_CACHE, false },
	{ "001", "2648 vs 2686 ms: set_task_state 1.4% faster (arm64's current)",
	  EXPERIMENT(sleeping_lock),
	  "unlink loop under a sleeping lock, --state-api current-volatile vs task", measure_gain,
	  NULL, NULL, "eager", NULL, "state_api", "current-volatile", "task", 1.4, NULL, false },
	{ "001", "with current fixed (not volatile): both the same", EXPERIMENT(sleeping_lock),
	  "the same, --state-api current vs task", measure_gain, NULL, NULL, "eager", NULL,
	  "state_api", "current", "task", 0, NULL, false },
	{ "002", "20K #NM traps saved during boot", EXPERIMENT(short_tasks),
	  "short-lived SSE tasks, --mix boot: #NM under lazy minus under eager",
	  measure_saved_traps, NULL, NULL, NULL, NULL, "mix", "boot", NULL, 20000, NULL, false },
	{ "002", "50K #NM traps saved during a kernel compile", EXPERIMENT(short_tasks),
	  "the same, --mix build", measure_saved_traps, NULL, NULL, NULL, NULL, "mix", "build",
	  NULL, 50000, NULL, false },
	{ "002", "~15% more kernel AVX checksum throughput with eager", EXPERIMENT(kernel_checksum),
	  "AVX checksum in kernel_fpu_begin/end, lazy vs eager", measure_gain, NULL,
	  "avx2,avx,sse2", "lazy", "eager", NULL, NULL, NULL, 15, NOTE_TCG_SERIAL, false },
	{ "003", "+4% switch rate with FP in one thread (SMP lazy save)",
	  EXPERIMENT(context_switch),
	  "ping-pong on one CPU, FP (x87) in one task, lazy vs smp-lazy", measure_gain, "one",
	  "x87", "lazy", "smp-lazy", NULL, NULL, NULL, 4, NOTE_SCALE, false },
	{ "003", "+8% with big state (VSX) in one thread", EXPERIMENT(context_switch),
	  "the same with AVX state", measure_gain, "one", "avx", "lazy", "smp-lazy", NULL, NULL,
	  NULL, 8, NOTE_SCALE, false },
	{ "003", "0% (no degradation) with FP in both threads", EXPERIMENT(context_switch),
	  "the same, AVX in both tasks", measure_gain, "both", "avx", "lazy", "smp-lazy", NULL,
	  NULL, NULL, 0, NULL, false },
	/* on a recorded Linux workload (report_linux_claims.c) */
	{ .seed = "002",
	  .claim = "50K #NM saved in a compile, recorded Linux (vs lazy-counter)",
	  .how = "a recorded Linux workload replayed: lazy-counter's #NM minus eager's, at both "
		 "--fp-use bounds, per 1000 forks",
	  .measure = measure_linux_traps,
	  .a = "lazy-counter",
	  .claimed = 50000,
	  .on_linux = true },
	{ .seed = "002",
	  .claim = "the same against plain lazy (no fpu_counter)",
	  .how = "the same, lazy's #NM minus eager's",
	  .measure = measure_linux_traps,
	  .a = "lazy",
	  .claimed = 50000,
	  .on_linux = true },
	{ .seed = "002",
	  .claim = "eager (xsave) cheaper than lazy's serializing CR0.TS and #NM",
	  .how = "each policy's FPU cost (replay's total ns per switch x switches) over the "
		 "recording's CPU time, at both --fp-use bounds; eager vs lazy-counter",
	  .measure = measure_linux_share,
	  .a = "lazy-counter",
	  .b = "lazy",
	  .on_linux = true },
	{ .seed = "002",
	  .claim = "Linux restores eagerly (deferred, 5.2+): replay's deferred agrees",
	  .how = "Linux's own saves and restores (x86_fpu tracepoints) beside deferred's and the "
		 "oracle's, replayed",
	  .measure = measure_linux_work,
	  .on_linux = true },
};
#define NCLAIMS (sizeof(claims) / sizeof(claims[0]))

/* ---- running the experiments ---- */

/* Each experiment as the report runs it: small, the configurations the claims need. */
static const struct {
	enum fpulab_experiment_id experiment;
	const char *const args[12];
} plans[] = {
	{ EXPERIMENT(context_switch),
	  { "--placement", "same-cpu", "--fp-users", "one,both", "--regset", "x87,avx", "--policy",
	    "eager,lazy,smp-lazy", NULL } },
	{ EXPERIMENT(fp_vs_spinner), { "--policy", "lazy-counter", "--prefetch", "off", NULL } },
	{ EXPERIMENT(fp_vs_spinner),
	  { "--policy", "lazy-counter", "--prefetch", "conditional", NULL } },
	{ EXPERIMENT(short_tasks), { "--policy", "eager,lazy", "--mix", "boot", NULL } },
	{ EXPERIMENT(short_tasks), { "--policy", "eager,lazy", "--mix", "build", NULL } },
	{ EXPERIMENT(kernel_checksum), { "--policy", "eager,lazy", NULL } },
	{ EXPERIMENT(sleeping_lock),
	  { "--policy", "eager", "--state-api", "task,current,current-volatile", NULL } },
};

/* Run `fpulab run --experiment NAME ... --format json --output FILE`; append its rows. */
static void run_experiment(size_t p, const char *dir, json_t *rows, char **why)
{
	char *out = xasprintf("%s/%s-%zu.json", dir, EXP_NAME(plans[p].experiment), p), err[512];
	const char *argv[32] = { "fpulab", "run", "--experiment", EXP_NAME(plans[p].experiment) };
	size_t n = 4;
	int status;

	for (size_t i = 0; plans[p].args[i]; i++)
		argv[n++] = plans[p].args[i];
	argv[n++] = "--format";
	argv[n++] = "json";
	argv[n++] = "--output";
	argv[n++] = out;
	argv[n] = NULL;
	fprintf(stderr, "fpulab report: running %s\n", EXP_NAME(plans[p].experiment));
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execv("/proc/self/exe", (char **)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = -1;
	json_t *got = result_file_load(out, err, sizeof(err));
	if (got) {
		json_array_extend(rows, got);
		json_decref(got);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		*why = WIFEXITED(status) && WEXITSTATUS(status) == 2
			       ? xasprintf("`fpulab run --experiment %s` is not in this build",
					   EXP_NAME(plans[p].experiment))
			       : xasprintf("`fpulab run --experiment %s` failed%s",
					   EXP_NAME(plans[p].experiment),
					   got ? " (partial rows kept)" : "");
	unlink(out);
	free(out);
}

/* ---- output ---- */

static const char *why_not(enum fpulab_experiment_id experiment, char *const *why_run)
{
	for (size_t p = 0; p < sizeof(plans) / sizeof(plans[0]); p++)
		if (why_run[p] && plans[p].experiment == experiment)
			return why_run[p];
	return NULL;
}

/*
 * Which per-event costs the figures used: the first replay row's, with their
 * sources; none for lab rows alone (their ticks are emulated, their counts
 * exact, no cost charged on top). malloc'd.
 */
static char *costs_used(json_t *rows)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row)
	{
		if (strcmp(result_str(row, "experiment", ""), "replay") ||
		    !json_is_number(json_object_get(row, "trap_ns")))
			continue;
		return xasprintf("the replay rows charge #NM trap %.1f ns (%s), CR0 write %.1f ns "
				 "(%s), IPI %.1f ns (%s)",
				 json_number_value(json_object_get(row, "trap_ns")),
				 result_str(row, "trap_source", "?"),
				 json_number_value(json_object_get(row, "cr0_ns")),
				 result_str(row, "cr0_source", "?"),
				 json_number_value(json_object_get(row, "ipi_ns")),
				 result_str(row, "ipi_source", "?"));
	}
	return xstrdup("none charged: the claims rest on exact lab counts and emulated ticks, "
		       "no per-event cost is added to them (this host's, from fpulab host costs, "
		       "enter replay only)");
}

static json_t *finding_row(const struct claim *c, const struct finding *f, const char *from)
{
	json_t *row = json_object();
	json_object_set_new(row, "seed", json_string(c->seed));
	json_object_set_new(row, "claim", json_string(c->claim));
	json_object_set_new(row, "experiment",
			    json_string(c->on_linux ? "replay" : EXP_NAME(c->experiment)));
	json_object_set_new(row, "how", json_string(c->how));
	json_object_set_new(row, "measured", json_boolean(f->measured));
	json_object_set_new(row, "fpulab", json_string(f->figure));
	json_object_set_new(row, "value", f->measured ? json_real(f->value) : json_null());
	json_object_set_new(row, "unit", f->measured ? json_string(f->unit) : json_null());
	json_object_set_new(row, "source", json_string(f->source));
	json_object_set_new(row, "direction_agrees", json_string(f->agrees));
	json_object_set_new(row, "note", json_string(f->note));
	json_object_set_new(row, "results", json_string(from));
	return row;
}

static void print_md(FILE *out, json_t *table)
{
	size_t i;
	json_t *row;

	fprintf(out, "| seed | claim | fpulab | source | direction agrees |\n"
		     "|---|---|---|---|---|\n");
	json_array_foreach(table, i, row)
	{
		fprintf(out, "| %s | %s | %s | %s | %s%s |\n", result_str(row, "seed", ""),
			result_str(row, "claim", ""), result_str(row, "fpulab", ""),
			result_str(row, "source", ""), result_str(row, "direction_agrees", ""),
			*result_str(row, "note", "") ? " [*]" : "");
	}
	fprintf(out, "\n");
	json_array_foreach(table, i, row) if (*result_str(row, "note", ""))
	{
		fprintf(out, "- seed %s, \"%s\": %s\n", result_str(row, "seed", ""),
			result_str(row, "claim", ""), result_str(row, "note", ""));
	}
}

/* The header every table carries: who measured, where, when, how. */
static void print_provenance(FILE *out, const char *prefix, int argc, char **argv)
{
	struct output o;
	const char *key;
	json_t *v;

	if (output_open(&o, OUTPUT_JSON, NULL, "report") < 0)
		return;
	output_provenance_host(&o, argc, argv);
	char *q = qemu_version();
	output_provenance(&o, "qemu_version", q ? json_string(q) : NULL);
	free(q);
	json_object_foreach(o.provenance, key, v) if (json_is_string(v))
	{
		fprintf(out, "%s%s: %s\n", prefix, key, json_string_value(v));
	}
	output_close(&o);
}

static void print_table(FILE *out, json_t *table)
{
	size_t i;
	json_t *row;

	fprintf(out,
		"# agrees: yes when the direction agrees beyond the min-max ranges of the runs "
		"(for a 0%% claim: when fpulab's figure is not worse beyond them)\n");
	fprintf(out, "%-4s %-66s %-12s %-30s %s\n", "seed", "claim", "agrees", "source", "fpulab");
	json_array_foreach(table, i, row)
	{
		fprintf(out, "%-4s %-66s %-12s %-30s %s\n", result_str(row, "seed", ""),
			result_str(row, "claim", ""), result_str(row, "direction_agrees", ""),
			result_str(row, "source", ""), result_str(row, "fpulab", ""));
		if (*result_str(row, "note", ""))
			fprintf(out, "%-4s   %s\n", "", result_str(row, "note", ""));
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab report [--from FILE...] [--format table|md|json] [--output FILE]\n"
		"                     [--plot DIR]\n"
		"The seed reproduction table: one row per quantitative claim of the four seeds,\n"
		"fpulab's own measured figure beside it, where the figure comes from (exact lab\n"
		"count, emulated ticks, icount, native replay, host Linux) and whether the\n"
		"direction agrees. Without --from it runs the experiments the claims need (each\n"
		"as `fpulab run --format json`) and records a compile with perf (fpulab trace\n"
		"record, as root) for the rows of a recorded Linux workload; a claim whose\n"
		"experiment or recording did not run says \"not measured\", and why.\n"
		"  --from FILE...   read results (JSON lines of run, replay, host) instead of\n"
		"                   running\n"
		"  --linux-trace FILE  the recorded Linux workload's rows: FILE (fpulab trace\n"
		"                   import or record made it) replayed under every policy now\n"
		"  --linux-seconds N  record a compile of a scratch clone of this source tree\n"
		"                   for N s (default %d without --from, when recording works\n"
		"                   here; with --from only when given; 0: never); not with\n"
		"                   --linux-trace (exit 2)\n"
		"  --format F       table (default), md (markdown, for a mail) or json (JSON\n"
		"                   lines)\n"
		"  --output FILE    write the table to FILE\n"
		"  --plot DIR       SVG plots of the experiments' results into DIR (gnuplot)\n"
		"  --help           this text\n"
		"Exit status: 0 the table is written (a claim not measured says why in it);\n"
		"1 a plot, the scratch folder or the writing failed; 2 usage error (also a\n"
		"--from file unreadable or not fpulab's rows, an --output or --plot DIR\n"
		"that cannot be made, an --output that is one of its inputs: said before\n"
		"anything runs).\n",
		REPORT_LINUX_SECONDS);
}

/* Close @out when it is the file at @path, flush it when it is stdout. */
static const char *const report_formats[] = { "table", "md", "json", NULL };
enum report_format { REPORT_TABLE, REPORT_MD, REPORT_JSON };

/* What report's options chose. */
struct report_opts {
	json_t *from; /* --from FILE...: an array of file names; empty: run the experiments */
	struct output_opts out; /* --format (enum report_format), --output */
	const char *plot_dir;
	struct report_linux lx; /* --linux-trace, --linux-seconds */
};

/* Whether --output @path can be written, said before minutes of experiments: -1 to go on, or 2. */
static int report_output_check(const char *path, int argc, char **argv)
{
	char err[512];

	if (!path)
		return -1;
	if (refuse_output_over_input("report", path, argc, argv))
		return 2;
	if (output_path_check(path, err, sizeof(err))) {
		fprintf(stderr, "fpulab report: --output %s\n", err);
		return 2;
	}
	return -1;
}

/* Parse @argv into @o. Returns -1 to go on, or the exit status (0 after --help). */
static int report_parse(int argc, char **argv, struct report_opts *o)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "plot", required_argument, NULL, 'p' },
		{ "linux-trace", required_argument, NULL, 'l' },
		{ "linux-seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, &idx)) != -1) {
		switch (c) {
		case 'f': {
			/* --from A B C: the words up to the next option are files too;
			 * --from -- A -B: every word after "--" is a file */
			bool rest = !strcmp(optarg, "--");
			if (!rest)
				json_array_append_new(o->from, json_string(optarg));
			while (optind < argc && (rest || argv[optind][0] != '-'))
				json_array_append_new(o->from, json_string(argv[optind++]));
			if (!json_array_size(o->from))
				return usage_error("report", "--from needs a FILE");
			break;
		}
		case 'F':
		case 'o':
			if (output_opt(&o->out, "report", opts[idx].name, optarg))
				return 2;
			break;
		case 'p':
			o->plot_dir = optarg;
			break;
		case 'l':
			o->lx.trace = optarg;
			break;
		case 's': {
			uint64_t n;
			if (parse_u64_arg("report", "linux-seconds", optarg, 0, 3600, &n))
				return 2;
			o->lx.seconds = (long)n;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			return getopt_failed("report", c, argv);
		}
	}
	if (optind < argc)
		return usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (o->lx.trace && o->lx.seconds >= 0)
		return usage_error("report",
				   "--linux-trace and --linux-seconds: give one (the Linux rows "
				   "from that trace, or from a compile recorded now)");
	if (o->lx.trace && report_linux_check(o->lx.trace))
		return 2;
	char err[512];
	if (o->plot_dir && plot_dir_prepare(o->plot_dir, err, sizeof(err))) {
		fprintf(stderr, "fpulab report: %s\n", err); /* before minutes of experiments */
		return 2;
	}
	return report_output_check(o->out.path, argc, argv);
}

/* Every row of the files @from into @rows. 0, or 2 after a message. */
static int load_from(json_t *from, json_t *rows)
{
	char err[512];

	for (size_t i = 0; i < json_array_size(from); i++) {
		const char *file = json_string_value(json_array_get(from, i));
		json_t *got = result_file_load(file, err, sizeof(err));
		if (!got) {
			fprintf(stderr, "fpulab report: %s\n", err);
			return 2;
		}
		json_array_extend(rows, got);
		json_decref(got);
	}
	return 0;
}

/* Run every plan's experiment now, its rows into @rows, why one failed in @why_run. 0, or 1. */
static int run_plans(json_t *rows, char **why_run)
{
	char dir[] = "/tmp/fpulab-report-XXXXXX";

	if (!mkdtemp(dir)) {
		fprintf(stderr, "fpulab report: cannot make a directory: %s\n", strerror(errno));
		return 1;
	}
	for (size_t p = 0; p < sizeof(plans) / sizeof(plans[0]); p++)
		run_experiment(p, dir, rows, &why_run[p]);
	rmdir(dir);
	return 0;
}

/* The table: a finding row per claim, from @rows (read from @from, or "this run"); why a
 * claim's experiment did not run from @why_run, why its Linux rows are missing from @why_linux. */
static json_t *claims_table(json_t *rows, json_t *from, char *const *why_run, const char *why_linux)
{
	json_t *table = json_array();
	char *files = xstrdup("");

	for (size_t i = 0; i < json_array_size(from); i++) {
		char *next = xasprintf("%s%s%s", files, i ? " " : "",
				       json_string_value(json_array_get(from, i)));
		free(files);
		files = next;
	}
	for (size_t i = 0; i < NCLAIMS; i++) {
		struct finding f = { 0 };
		claims[i].measure(&claims[i], rows, &f);
		const char *why = claims[i].on_linux ? why_linux
						     : why_not(claims[i].experiment, why_run);
		if (!f.measured && why)
			snprintf(f.note, sizeof(f.note), "%s", why);
		json_array_append_new(table,
				      finding_row(&claims[i], &f, *files ? files : "this run"));
	}
	free(files);
	char *costs = costs_used(rows);
	for (size_t i = 0; i < json_array_size(table); i++)
		json_object_set_new(json_array_get(table, i), "costs", json_string(costs));
	free(costs);
	return table;
}

/* --format json: the table's rows as JSON lines, with the provenance. Returns the status. */
static int write_json(json_t *table, const char *path, int argc, char **argv)
{
	struct output o;

	if (refuse_output_over_input("report", path, argc, argv))
		return 2;
	if (output_open(&o, OUTPUT_JSON, path, "report") < 0) {
		fprintf(stderr, "fpulab report: %s\n", o.error);
		return 2;
	}
	output_provenance_host(&o, argc, argv);
	for (size_t i = 0; i < json_array_size(table); i++)
		output_row(&o, json_incref(json_array_get(table, i)));
	return output_close(&o) < 0 ? 1 : 0;
}

/* Where @row was measured, in words: the CPU, the lab's machine, or a PC's log. */
static char *origin_of(const json_t *row)
{
	const char *cpu = result_str(row, "host_cpu", ""),
		   *machine = result_str(row, "machine", "");
	const char *imported = result_str(row, "imported_on", "");

	if (*imported)
		return xasprintf("%s, from its serial log (imported on %s)",
				 *machine ? machine : "a machine", imported);
	if (*machine)
		return xasprintf("the lab under %s on %s", machine, *cpu ? cpu : "an unknown CPU");
	return xasprintf("%s", *cpu ? cpu : "an unknown CPU");
}

/*
 * The header's provenance is this report's; the rows' may be other
 * machines' (--from): one line per origin, with its row count.
 */
static void print_origins(FILE *out, const char *prefix, const json_t *rows)
{
	json_t *seen = json_object();
	const json_t *row;
	const char *origin;
	json_t *n;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		char *o = origin_of(row);
		json_int_t k = json_integer_value(json_object_get(seen, o));
		json_object_set_new(seen, o, json_integer(k + 1));
		free(o);
	}
	json_object_foreach(seen, origin, n)
	{
		fprintf(out, "%smeasured: %s (%lld row%s)\n", prefix, origin,
			(long long)json_integer_value(n), json_integer_value(n) == 1 ? "" : "s");
	}
	json_decref(seen);
}

/* The table or markdown, after the provenance, to @path or stdout. Returns the status. */
static int write_text(json_t *table, const json_t *rows, int format, const char *path, int argc,
		      char **argv)
{
	struct output o;
	char *text = NULL;
	size_t len = 0;

	if (refuse_output_over_input("report", path, argc, argv))
		return 2;
	if (output_open(&o, OUTPUT_TABLE, path, "report") < 0) {
		fprintf(stderr, "fpulab report: %s\n", o.error);
		return 2;
	}
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		abort();
	print_provenance(mem, format == REPORT_MD ? "    " : "# ", argc, argv);
	print_origins(mem, format == REPORT_MD ? "    " : "# ", rows);
	fprintf(mem, "%scosts: %s\n", format == REPORT_MD ? "    " : "# ",
		result_str(json_array_get(table, 0), "costs", "-"));
	if (format == REPORT_MD)
		print_md(mem, table);
	else
		print_table(mem, table);
	if (fclose(mem) != 0)
		abort();
	output_text(&o, text);
	free(text);
	return output_close(&o) < 0 ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .from = json_array(),
				 .out = { .formats = report_formats, .format = REPORT_TABLE },
				 .lx = { .seconds = -1 } };
	json_t *rows = json_array(), *table = NULL;
	char *why_run[sizeof(plans) / sizeof(plans[0])] = { 0 };
	int rc = report_parse(argc, argv, &o);

	if (rc >= 0)
		goto out;
	rc = json_array_size(o.from) ? load_from(o.from, rows) : run_plans(rows, why_run);
	if (rc)
		goto out;
	report_linux_rows(&o.lx, json_array_size(o.from) > 0, rows);
	if (o.plot_dir && plot_rows(rows, o.plot_dir, "report") < 0)
		rc = 1;
	table = claims_table(rows, o.from, why_run, o.lx.why);
	int wrote = o.out.format == REPORT_JSON
			    ? write_json(table, o.out.path, argc, argv)
			    : write_text(table, rows, o.out.format, o.out.path, argc, argv);
	rc = wrote ? wrote : rc;
out:
	for (size_t p = 0; p < sizeof(plans) / sizeof(plans[0]); p++)
		free(why_run[p]);
	json_decref(rows);
	json_decref(table);
	json_decref(o.from);
	free(o.lx.why);
	return rc;
}
