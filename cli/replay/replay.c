/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay TRACE...: every policy over a trace, natively on this CPU
 * (cli/replay/replay_engine.c), against the oracle (cli/replay/oracle.c), with the costs
 * user mode cannot run added from stated parameters (docs/model.md). This file: the
 * command's options, the traces checked before anything is printed, the run over them;
 * replay.h maps the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <fpu/fpu.h>

#include "fpulab/abi.h"
#include "cli.h"
#include "replay.h"
#include "common/output.h"
#include "common/tsc.h"
#include "common/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab replay TRACE... [--policy LIST|all] [--repeat K] [--trap-ns NS]\n"
		"                     [--cr0-ns NS] [--ipi-ns NS] [--costs FILE]\n"
		"                     [--insn auto|xsave|...] [--adaptive-costs measured|default]\n"
		"                     [--batch-costs FILE]\n"
		"                     [--sweep trap|ipi=LO..HI]\n"
		"                     [--format table|json|csv] [--output FILE] [--plot DIR]\n"
		"Replays each trace natively on this CPU under each policy, through libfpu with\n"
		"real saves and restores (one thread plays every traced CPU; docs/model.md).\n"
		"Per policy: counts, the native ns per switch inside libfpu (median, min, max of\n"
		"K runs, policies interleaved; default K %d), the cost of what user mode cannot\n"
		"run (#NM traps, CR0 writes, IPIs) at the stated per-event costs, the\n"
		"total, and its ratio to the oracle and to the best static policy; then the\n"
		"break-even trap cost of eager against lazy and lazy-counter, and whether it\n"
		"decides eager against them over this host's trap range (lower bound to\n"
		"estimate).\n"
		"Defaults: this host's figures (fpulab host costs), measured once by this replay:\n"
		"#NM trap = a syscall round trip (a lower bound), IPI = a membarrier IPI round\n"
		"trip (%.0f ns, assumed, where none is confirmed), CR0 write = cited (seL4 RFC\n"
		"0180). Each row names each cost's source. $FPULAB_HOST_COSTS=FILE reads them\n"
		"from `fpulab host costs --format json --output FILE` instead of measuring.\n"
		"--trap-ns, --cr0-ns, --ipi-ns NS override them, and so does --costs FILE: the\n"
		"JSON of `fpulab host costs` (this host's figures, as above), of `fpulab run\n"
		"--experiment costs --format json` (its medians, labelled lab costs, emulated\n"
		"(TCG) or hardware (KVM)), or a JSON object with trap_ns, cr0_ns and ipi_ns.\n"
		"--sweep trap=LO..HI or ipi=LO..HI: each policy's total per switch at 11 costs\n"
		"from LO to HI ns, and where eager crosses lazy and lazy-counter (table or json;\n"
		"with --plot DIR also DIR/sweep-PARAM-TRACE.svg, TRACE its file name less\n"
		".trace (with the folders that tell apart two traces of one file name, / as -),\n"
		"this host's range shaded).\n"
		"--adaptive-costs: what adaptive decides by (fpu_set_costs): measured (default):\n"
		"the per-event costs above and this CPU's batch save and restore; default:\n"
		"libfpu's built-in costs, as the lab kernel uses them (to replay a lab row of\n"
		"adaptive exactly). The costs charged are the same either way.\n"
		"--batch-costs FILE: each trace's batch save and restore from the rows of an\n"
		"earlier `replay --format json` on this CPU, with the same instruction and\n"
		"mask (the trace's own rows), not timed again: adaptive then decides, and every\n"
		"row is priced, as in that replay.\n"
		"--format, --output: the rows (an oracle row and a row per policy and trace)\n"
		"as a table (default), JSON lines or CSV, with provenance; `fpulab compare`\n"
		"reads two such files (docs/model.md). --plot DIR: an SVG of each policy's\n"
		"projected ns per switch per trace, min-max bars (gnuplot).\n"
		"Exit status: 0 ok; 1 a trace unreadable or failing its check (nothing is\n"
		"replayed), an integrity error, runs whose counts differ, a bare run that cannot\n"
		"match its calls, a --costs file refused; 2 usage error (also an --output FILE or\n"
		"--plot DIR that cannot be made, an --output that is one of its inputs, or a\n"
		"trace given twice).\n",
		REPEAT_DEFAULT, IPI_NS_DEFAULT);
}

/* Whether @a is one of replay's options (each takes a value). */
static bool takes_value(const char *a)
{
	static const char *const opts[] = {
		"--policy", "--repeat",         "--trap-ns", "--cr0-ns", "--ipi-ns",
		"--costs",  "--batch-costs",    "--sweep",   "--format", "--output",
		"--plot",   "--adaptive-costs", "--insn",    NULL,
	};
	for (const char *const *o = opts; *o; o++)
		if (!strcmp(*o, a))
			return true;
	return false;
}

/*
 * Options and traces, in any order; --opt=value as --opt value; after "--"
 * every argument is a trace. The traces go to @traces (@argv's, in order),
 * *@ntraces of them. Return: -1 to go on, else the exit status.
 */
static int parse_args(int argc, char **argv, struct opts *o, char **traces, int *ntraces)
{
	char name[32];
	bool only_traces = false;

	*ntraces = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (only_traces || a[0] != '-' || !a[1]) {
			traces[(*ntraces)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_traces = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if (long_opt_value(a, name, sizeof(name), &v))
			a = name;
		else if (v)
			i++;
		if (!v)
			return usage_error(
				"replay",
				takes_value(a) ? "%s needs a value" : "unknown option '%s'", a);
		if (!strcmp(a, "--policy")) {
			o->policies = v;
		} else if (!strcmp(a, "--repeat")) {
			uint64_t k;
			if (parse_u64_arg("replay", "repeat", v, 1, FPULAB_MAX_REPEAT, &k))
				return 2;
			o->repeat = (unsigned long)k;
		} else if (!strcmp(a, "--trap-ns")) {
			if (costs_parse_ns("trap-ns", v, &o->trap))
				return 2;
		} else if (!strcmp(a, "--cr0-ns")) {
			if (costs_parse_ns("cr0-ns", v, &o->cr0))
				return 2;
		} else if (!strcmp(a, "--ipi-ns")) {
			if (costs_parse_ns("ipi-ns", v, &o->ipi))
				return 2;
		} else if (!strcmp(a, "--costs")) {
			o->costs_arg = v;
		} else if (!strcmp(a, "--batch-costs")) {
			if (batch_costs_load(v, o))
				return 1;
		} else if (!strcmp(a, "--adaptive-costs")) {
			if (strcmp(v, "measured") && strcmp(v, "default"))
				return usage_error(
					"replay",
					"--adaptive-costs: '%s' is not measured or default", v);
			o->adaptive_builtin = !strcmp(v, "default");
		} else if (!strcmp(a, "--sweep")) {
			if (sweep_parse(v, &o->sweep))
				return 2;
		} else if (!strcmp(a, "--format") || !strcmp(a, "--output")) {
			if (output_opt(&o->output, "replay", a + 2, v))
				return 2;
		} else if (!strcmp(a, "--plot")) {
			o->plot_dir = v;
		} else if (!strcmp(a, "--insn")) {
			o->insn = -1;
			if (!strcmp(v, "auto"))
				o->insn = FPU_INSN_AUTO;
			for (int k = 0; k < FPU_INSN_NR; k++)
				if (k != FPU_INSN_XSAVES && !strcmp(v, fpu_insn_name(k)))
					o->insn = k;
			if (o->insn < 0)
				return usage_error(
					"replay",
					"--insn: '%s' is not auto, fxsave, xsave, xsaveopt or xsavec",
					v);
		} else {
			return usage_error("replay", "unknown option '%s'", a);
		}
	}
	if (!*ntraces)
		return usage_error("replay", "needs a TRACE");
	if (o->costs_arg && costs_load_under_options(o))
		return 1;
	if (o->sweep.param && o->output.format == OUTPUT_CSV)
		return usage_error(
			"replay", "--sweep: its rows do not fit the CSV's columns (table or json)");
	return -1;
}

/* The policy names to run, each once, how many; -1 after a usage error. */
static int policy_list(const char *spec, const char **out)
{
	const char *const *all = replay_policy_names();
	int n = 0;

	if (!*spec)
		return usage_error("replay", "--policy: an empty list (name policies, or all)"), -1;

	if (!strcmp(spec, "all")) {
		for (int i = 0; all[i] && n < MAX_POLICIES; i++)
			out[n++] = all[i];
		return n;
	}
	for (const char *p = spec; n < MAX_POLICIES;) {
		size_t len = strcspn(p, ",");
		int found = -1;
		if (!len)
			return usage_error("replay", "--policy: an empty name in '%s'", spec), -1;
		if (len == 3 && !strncmp(p, "all", 3))
			return usage_error("replay", "--policy: 'all' stands alone, not in a list"),
			       -1;
		for (int i = 0; all[i]; i++)
			if (strlen(all[i]) == len && !strncmp(all[i], p, len))
				found = i;
		if (found < 0) {
			char *names = list_join(all, ", ");
			usage_error("replay", "--policy: unknown policy '%.*s' (one of: %s, all)",
				    (int)len, p, names);
			free(names);
			return -1;
		}
		for (int k = 0; k < n; k++)
			if (out[k] == all[found])
				return usage_error("replay", "--policy: '%s' named twice",
						   all[found]),
				       -1;
		out[n++] = all[found];
		if (!p[len])
			break;
		p += len + 1;
	}
	return n;
}

static const char *file_name(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/* 2, said, where one trace file is given twice (another spelling, a link): it would count twice. */
static int same_trace_twice(char **traces, int n)
{
	for (int i = 0; i < n; i++) {
		struct stat si, sj;
		if (stat(traces[i], &si))
			continue; /* said when it is read */
		for (int j = 0; j < i; j++) {
			if (stat(traces[j], &sj))
				continue;
			if (si.st_dev == sj.st_dev && si.st_ino == sj.st_ino)
				return usage_error("replay", "%s and %s are one trace, given twice",
						   traces[j], traces[i]);
		}
	}
	return 0;
}

/* @path ends with @tail at a '/' (or is it). */
static bool path_ends_with(const char *path, const char *tail)
{
	size_t n = strlen(path), k = strlen(tail);
	return n >= k && !strcmp(path + n - k, tail) && (n == k || path[n - k - 1] == '/');
}

/*
 * How the rows name @traces[@i] (trace_name, their configuration's: result_identity): its
 * file name, so that a copy kept elsewhere pairs with it; where another of the @n has that
 * file name, the shortest end of its path that none of the others has ("syn1/boot.trace").
 */
static const char *trace_name(char *const *traces, int n, int i)
{
	const char *path = traces[i], *name = file_name(path);

	for (;;) {
		bool clash = false;
		for (int j = 0; j < n && !clash; j++)
			clash = j != i && path_ends_with(traces[j], name);
		if (!clash || name == path)
			return name;
		if (--name == path) /* the '/' before it, a root's */
			return path;
		while (--name > path && name[-1] != '/') /* the component before it */
			;
	}
}

/* cmd_replay after its arguments: @traces, @ntraces of them. */
static int replay_traces(int argc, char **argv, struct opts *o, char **traces, int ntraces)
{
	const char *pols[MAX_POLICIES];
	int rc;

	if (refuse_output_over_input("replay", o->output.path, argc, argv) ||
	    refuse_output_over_file("replay", o->output.path, getenv(HOST_COSTS_ENV),
				    "$" HOST_COSTS_ENV))
		return 2;
	fpu_get_costs(&o->builtin); /* before any trace sets them */
	int np = policy_list(o->policies, pols);
	if (np < 0)
		return 2;
	if (same_trace_twice(traces, ntraces))
		return 2;
	/* every trace read and checked before anything is printed or written */
	rc = 0;
	for (int i = 0; i < ntraces; i++) {
		struct trace t;
		char err[512];
		if (trace_open(traces[i], &t, err, sizeof(err))) {
			fprintf(stderr, "fpulab replay: %s\n", err);
			rc = 1;
		} else if (o->batch_rows && !batch_costs_has(o, traces[i])) {
			fprintf(stderr, "fpulab replay: --batch-costs %s: no replay row of %s\n",
				o->batch_file, traces[i]);
			rc = 1;
		}
		trace_free(&t);
	}
	if (rc > 0)
		return rc;
	struct output out;
	if (output_open(&out, o->output.format, o->output.path, "replay") < 0 ||
	    (o->plot_dir && output_plot(&out, o->plot_dir) < 0)) {
		fprintf(stderr, "fpulab replay: %s\n", out.error);
		output_close(&out);
		return 2;
	}
	if (costs_from_host(o)) {
		output_close(&out);
		return 1;
	}
	/* o is cmd_replay's; out and tg outlive their uses there: cleared before the return */
	// cppcheck-suppress autoVariables
	o->out = &out;
	output_provenance_host(&out, argc, argv);
	output_columns(&out, replay_table_columns, replay_table_ncolumns);
	json_t *pv = out.provenance;
	output_comment(&out, "fpulab %s (git %s); host %s, Linux %s; %s",
		       json_string_value(json_object_get(pv, "fpulab_version")),
		       json_string_value(json_object_get(pv, "fpulab_git")),
		       json_string_value(json_object_get(pv, "host_cpu")),
		       json_string_value(json_object_get(pv, "host_kernel")),
		       json_string_value(json_object_get(pv, "date")));
	output_comment(&out, "command: %s", json_string_value(json_object_get(pv, "command")));
	double tpn = tsc_per_ns();
	struct targets tg = { 0 };
	// cppcheck-suppress autoVariables
	o->targets = &tg;
	rc = 0;
	for (int i = 0; i < ntraces; i++)
		rc |= replay_trace(traces[i], trace_name(traces, ntraces, i), o, pols, np, tpn);
	targets_print(&out, &tg, o->repeat);
	free(tg.control_dev);
	free(tg.priced_ratio);
	o->targets = NULL;
	size_t rows = out.rows;
	o->out = NULL;
	if (output_close(&out) < 0)
		return 1;
	if (o->output.path && rows)
		fprintf(stderr, "fpulab replay: %zu rows written to %s\n", rows, o->output.path);
	else if (o->output.path)
		fprintf(stderr, "fpulab replay: no rows: %s not written\n", o->output.path);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	struct opts o = { .policies = "all", .repeat = REPEAT_DEFAULT, .insn = FPU_INSN_AUTO };
	char **traces = calloc((size_t)argc, sizeof(*traces));
	int ntraces, rc;

	if (!traces)
		abort();
	rc = parse_args(argc, argv, &o, traces, &ntraces);
	if (rc < 0)
		rc = replay_traces(argc, argv, &o, traces, ntraces);
	free(o.host); /* the host's costs and --batch-costs rows, whatever the return */
	json_decref(o.batch_rows);
	free(traces);
	return rc;
}
