/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's per-event costs: --trap-ns, --cr0-ns, --ipi-ns, --costs FILE
 * (the lab's costs experiment, `fpulab host costs`, or an object of them), and what
 * they add per switch; the batch save and restore of an earlier replay (--batch-costs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fpu/xstate.h>

#include "fpulab/abi.h"
#include "replay.h"
#include "common/result_file.h"
#include "common/util.h"

/* A per-event cost in ns: 0..COST_NS_MAX, as --trap-ns, --cr0-ns and --ipi-ns take. */
#define COST_NS_MAX 1e9
static bool cost_ns_ok(double x)
{
	return x >= 0 && x <= COST_NS_MAX;
}

/* --costs FILE's value @x of @what out of range: the options' message. */
static int cost_file_error(const char *path, const char *what, double x)
{
	fprintf(stderr, "fpulab replay: --costs %s: %s %g is not a cost in ns (0..1e9)\n", path,
		what, x);
	return 1;
}

int costs_parse_ns(const char *opt, const char *v, struct param *p)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (!*v || *end || errno || !cost_ns_ok(x))
		return usage_error("replay", "--%s: '%s' is not a cost in ns (0..1e9)", opt, v);
	p->ns = x;
	snprintf(p->buf, sizeof(p->buf), "given: --%s", opt);
	p->source = p->buf;
	p->clock = NULL;
	return 0;
}

/*
 * The rows of `fpulab run --experiment costs`: each cost's ns_per_op (the
 * median of its runs) for the parameter it measures, labelled with where it
 * was measured. Ticks under --icount are instructions: refused.
 */
static int load_lab_costs(const char *path, json_t *rows, struct opts *o)
{
	static const char *const costs[] = { "nm-trap", "cr0-write", "ipi" };
	struct param *ps[] = { &o->trap, &o->cr0, &o->ipi };
	bool seen[3] = { false, false, false };
	size_t i;
	json_t *row;
	int found = 0;

	json_array_foreach(rows, i, row)
	{
		const char *cost = result_str(row, "cost", NULL);
		const struct clock_kind *clock = clock_by_key(result_str(row, "clock", NULL));
		double ns;
		bool have_ns = result_stat(row, "ns_per_op", RESULT_MEDIAN, &ns);
		int k = -1;

		if (strcmp(result_str(row, "experiment", ""),
			   fpulab_experiments[FPULAB_EXP_costs].name) ||
		    !cost)
			continue;
		for (int c = 0; c < 3; c++)
			if (!strcmp(cost, costs[c]))
				k = c;
		if (k < 0)
			continue;
		if (seen[k]) {
			fprintf(stderr, "fpulab replay: --costs %s: two rows for %s\n", path, cost);
			return 1;
		}
		seen[k] = true;
		if (clock && !clock->lab_costs) {
			fprintf(stderr,
				"fpulab replay: --costs %s: %s was measured with clock %s: %s, "
				"not time\n",
				path, cost, clock->key, clock->tick);
			return 1;
		}
		if (!have_ns) {
			fprintf(stderr, "fpulab replay: --costs %s: %s has no ns_per_op\n", path,
				cost);
			return 1;
		}
		if (!cost_ns_ok(ns)) {
			char what[64];
			snprintf(what, sizeof(what), "%s's ns_per_op", cost);
			return cost_file_error(path, what, ns);
		}
		ps[k]->ns = ns;
		ps[k]->clock = clock;
		ps[k]->source = clock ? clock->lab_costs : "lab costs, unknown clock";
		ps[k]->runs = (unsigned)result_runs(row);
		found++;
	}
	if (!found) {
		fprintf(stderr,
			"fpulab replay: --costs %s: no row of the costs experiment with a cost "
			"(nm-trap, cr0-write, ipi), nor of `fpulab host costs`\n",
			path);
		return 1;
	}
	o->costs_file = path;
	return 0;
}

/*
 * The --costs file @path, read once (@bytes, @n; a FIFO cannot be read
 * twice) as result rows: `fpulab host costs`' or the costs experiment's.
 * Return: 0, or 1 after a message.
 */
static int costs_load_rows(const char *path, char *bytes, size_t n, struct opts *o)
{
	char err[512];
	json_t *rows = result_rows_parse(path, bytes, n, err, sizeof(err), NULL, 0);
	int rc;

	if (!rows) {
		fprintf(stderr, "fpulab replay: --costs: %s\n", err);
		return 1;
	}
	rc = costs_load_host(path, rows, o);
	if (rc > 0)
		rc = load_lab_costs(path, rows, o);
	json_decref(rows);
	return rc != 0;
}

int costs_load_under_options(struct opts *o)
{
	struct param *ps[] = { &o->trap, &o->cr0, &o->ipi };
	struct param given[3] = { o->trap, o->cr0, o->ipi }; /* sources: option names */

	if (costs_load(o->costs_arg, o))
		return 1;
	for (int i = 0; i < 3; i++)
		if (given[i].source)
			*ps[i] = given[i];
	return 0;
}

int costs_load(const char *path, struct opts *o)
{
	char err[512];
	size_t n;
	char *bytes = result_file_read(path, &n, err, sizeof(err));
	json_error_t je;
	json_t *j = bytes ? json_loadb(bytes, n, 0, &je) : NULL;
	static const char *const keys[] = { "trap_ns", "cr0_ns", "ipi_ns" };
	struct param *ps[] = { &o->trap, &o->cr0, &o->ipi };
	int found = 0;

	if (!bytes) {
		fprintf(stderr, "fpulab replay: --costs: %s\n", err);
		return 1;
	}
	if (!j || json_is_array(j) || json_object_get(j, "experiment")) {
		/* JSON lines (or an array) of result rows */
		int rc = costs_load_rows(path, bytes, n, o);
		json_decref(j);
		free(bytes);
		return rc;
	}
	free(bytes);
	if (!json_is_object(j)) {
		fprintf(stderr, "fpulab replay: --costs %s: not a JSON object\n", path);
		json_decref(j);
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		json_t *v = json_object_get(j, keys[i]);
		if (!v)
			continue;
		if (!json_is_number(v)) {
			fprintf(stderr,
				"fpulab replay: --costs %s: %s is not a non-negative number\n",
				path, keys[i]);
			json_decref(j);
			return 1;
		}
		if (!cost_ns_ok(json_number_value(v))) {
			cost_file_error(path, keys[i], json_number_value(v));
			json_decref(j);
			return 1;
		}
		ps[i]->ns = json_number_value(v);
		snprintf(ps[i]->buf, sizeof(ps[i]->buf), "given: --costs %s", path);
		ps[i]->source = ps[i]->buf;
		ps[i]->clock = NULL;
		found++;
	}
	json_decref(j);
	if (!found) {
		fprintf(stderr, "fpulab replay: --costs %s: none of trap_ns, cr0_ns, ipi_ns\n",
			path);
		return 1;
	}
	return 0;
}

/* The per-event costs of @n, ns per switch: #NM x trap + TS writes x CR0 + IPIs x IPI. */
double costs_assumed_ns(const struct opts *o, const struct replay_counts *n)
{
	double sw = (double)(n->switches ? n->switches : 1);
	return (o->trap.ns * (double)n->nm_traps + o->cr0.ns * (double)n->ts_writes +
		o->ipi.ns * (double)n->flush_ipis) /
	       sw;
}

/* A policy's cost by its counts alone: saves and restores at the batch costs, plus params. */
double costs_priced(const struct opts *o, const struct replay_counts *n, double save_ns,
		    double rest_ns)
{
	double sw = (double)(n->switches ? n->switches : 1);
	return (save_ns * (double)n->saves + rest_ns * (double)n->restores) / sw +
	       costs_assumed_ns(o, n);
}

int batch_costs_load(const char *path, struct opts *o)
{
	char err[512];
	json_t *rows = result_file_load(path, err, sizeof(err));
	size_t i, n = 0;
	json_t *row;

	if (!rows) {
		fprintf(stderr, "fpulab replay: --batch-costs: %s\n", err);
		return 1;
	}
	json_array_foreach(rows, i, row)
		n += !strcmp(json_string_value(json_object_get(row, "experiment")) ?: "", "replay");
	if (!n) {
		fprintf(stderr, "fpulab replay: --batch-costs %s: no row of `fpulab replay`\n",
			path);
		json_decref(rows);
		return 1;
	}
	json_decref(o->batch_rows);
	o->batch_rows = rows;
	o->batch_file = path;
	return 0;
}

/* Whether a row's trace @name is the trace at @path: the same name, or the same file. */
static bool same_trace(const char *name, const char *path)
{
	struct stat a, b;
	return !strcmp(name, path) ||
	       (!stat(name, &a) && !stat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/* The first replay row of the trace at @path with its batch costs; NULL: none. */
static json_t *batch_row(const struct opts *o, const char *path)
{
	size_t i;
	json_t *row;

	json_array_foreach(o->batch_rows, i, row)
	{
		const char *exp = json_string_value(json_object_get(row, "experiment"));
		const char *name = json_string_value(json_object_get(row, "trace"));
		if (exp && !strcmp(exp, "replay") && name && same_trace(name, path) &&
		    json_is_number(json_object_get(row, "save_ns")) &&
		    json_is_number(json_object_get(row, "restore_ns")))
			return row;
	}
	return NULL;
}

bool batch_costs_has(const struct opts *o, const char *path)
{
	return batch_row(o, path) != NULL;
}

int batch_costs_find(const struct opts *o, const char *path, double *save_ns, double *rest_ns)
{
	char xcr0[32];
	json_t *row = batch_row(o, path);

	snprintf(xcr0, sizeof(xcr0), "0x%" PRIx64, xstate_cfg.xcr0);
	if (row) {
		const char *insn = json_string_value(json_object_get(row, "save_insn"));
		const char *mask = json_string_value(json_object_get(row, "xcr0"));
		const char *cpu = json_string_value(json_object_get(row, "host_cpu"));
		const char *here = o->out ? json_string_value(
						    json_object_get(o->out->provenance, "host_cpu"))
					  : NULL;
		if (!insn || strcmp(insn, fpu_insn_name(xstate_cfg.save_insn)) || !mask ||
		    strcmp(mask, xcr0) || !cpu || !here || strcmp(cpu, here)) {
			fprintf(stderr,
				"fpulab replay: --batch-costs %s: %s was timed with %s, mask %s on "
				"%s; this replay uses %s, mask %s on %s\n",
				o->batch_file, path, insn ? insn : "?", mask ? mask : "?",
				cpu ? cpu : "?", fpu_insn_name(xstate_cfg.save_insn), xcr0,
				here ? here : "?");
			return 1;
		}
		*save_ns = json_number_value(json_object_get(row, "save_ns"));
		*rest_ns = json_number_value(json_object_get(row, "restore_ns"));
		return 0;
	}
	fprintf(stderr, "fpulab replay: --batch-costs %s: no replay row of %s\n", o->batch_file,
		path);
	return 1;
}

/* The source of a row's figures (result_file.h's): native, plus lab costs measured where. */
const char *costs_source(const struct opts *o)
{
	const struct clock_kind *const lab[] = { o->trap.clock, o->cr0.clock, o->ipi.clock };

	return clock_projection_source(lab, 3);
}
