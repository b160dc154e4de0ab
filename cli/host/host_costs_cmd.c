/* SPDX-License-Identifier: MIT */
/*
 * fpulab host costs: what a trap, an IPI and a CR0 write cost on this host,
 * as far as user mode can measure them, beside the published figures
 * (cli/host/host_costs.h; docs/host.md "costs").
 */
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/result_file.h"
#include "common/util.h"
#include "fpulab/abi.h"
#include "host.h"
#include "host_costs.h"

#define CMD "host costs"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab host costs [--repeat K] [--format table|json|csv] [--output FILE]\n"
		"What user mode can measure of an #NM trap, an IPI and a CR0 write on this host:\n"
		"  syscall          getppid round trip (SYSCALL/SYSRET): a lower bound for a trap\n"
		"  fault            a read fault that maps the zero page (#PF, IRET): an estimate\n"
		"  umip             SMSW emulated by the #GP handler (UMIP, no signal): an\n"
		"                   estimate\n"
		"  membarrier-none, membarrier-ipi  membarrier(PRIVATE_EXPEDITED) with no CPU\n"
		"                   and with our spinning thread on another CPU to interrupt,\n"
		"                   each call confirmed by /proc/interrupts (and the tracepoints)\n"
		"  ipi              their difference: an IPI round trip\n"
		"  ipi-one-way      the send to the handler's entry (tracepoints: root, tracefs)\n"
		"and the published figures for what it cannot (trap-sel4, cr0-sel4: cited).\n"
		"ns per operation: median, min and max over K runs (default %d, at most %d);\n"
		"\"under a hypervisor\" when CPUID.1:ECX[31] says so. replay charges these by\n"
		"default (fpulab help replay). Exit 0, or 2 on bad usage.\n",
		HOST_COSTS_REPEAT_DEFAULT, FPULAB_MAX_REPEAT);
}

static json_t *cost_row(const struct host_costs *hc, const struct host_cost *c)
{
	json_t *row = json_object();

	json_object_set_new(row, "figure", json_string(c->key));
	json_object_set_new(row, "name", json_string(c->name));
	json_object_set_new(row, "cost", c->param ? json_string(c->param) : json_null());
	json_object_set_new(row, "kind", json_string(host_cost_kind_names[c->kind]));
	json_object_set_new(row, "measured", json_boolean(c->have && c->kind != HOST_COST_CITED));
	json_object_set_new(row, RESULT_RUNS, json_integer(c->have ? (json_int_t)c->ns.n : 0));
	json_object_set_new(row, "ops_per_run", json_integer(c->ops));
	bool range = c->have && c->kind != HOST_COST_CITED; /* a cited figure has no runs */
	result_put_stats(row, "ns_per_op", c->have ? json_real(c->ns.median) : NULL,
			 range ? json_real(c->ns.min) : NULL, range ? json_real(c->ns.max) : NULL);
	json_object_set_new(row, "unit", json_string("ns per operation"));
	/* measured against CLOCK_MONOTONIC, as every `fpulab host` figure; a cited one by none */
	json_object_set_new(row, "clock",
			    range ? json_string(clock_kinds[CLOCK_HOST_MONOTONIC].key)
				  : json_null());
	json_object_set_new(row, "method", json_string(c->method));
	json_object_set_new(row, "note", json_string(c->note));
	json_object_set_new(row, "hypervisor", json_boolean(hc->hypervisor));
	return row;
}

static void costs_comments(struct output *o, const struct host_costs *hc)
{
	enum host_cost_id est;
	double lo, hi;

	for (int i = 0; i < HOST_COST_NR; i++)
		output_comment(o, "%s: %s", hc->c[i].key, hc->c[i].note);
	if (host_costs_trap_range(hc, &lo, &hi, &est))
		output_comment(o,
			       "trap range replay decides verdicts over: %.0f ns (syscall, lower "
			       "bound) to %.0f ns (%s, the least estimate)",
			       lo, hi, hc->c[est].key);
	output_comment(o, "CR0: user mode cannot write it; the lab's costs experiment under KVM "
			  "would give hardware figures, but that path has never run on any "
			  "machine here");
}

static int run_costs(struct host_common *h, int argc, char **argv)
{
	static const struct output_column cols[] = {
		{ "figure", NULL, -15, 0 },
		{ "cost", NULL, -4, 0 },
		{ "kind", NULL, -11, 0 },
		{ RESULT_RUNS, "runs", 4, 0 },
		{ "ns_per_op_median", "ns med", 9, 1 },
		{ "ns_per_op_min", "min", 9, 1 },
		{ "ns_per_op_max", "max", 9, 1 },
		{ "method", NULL, -1, 0 },
	};
	struct host_costs hc;
	struct output out;

	if (host_output_open(&out, h, CMD, argc + 2, argv - 2))
		return 2; /* an --output or --plot that cannot be made */
	output_columns(&out, cols, sizeof(cols) / sizeof(cols[0]));
	host_costs_measure(&hc, h->repeat, true);
	host_comment_machine(&out); /* says "under a hypervisor" where there is one */
	output_comment(&out,
		       "%sns per operation, median, min and max of %u run%s (cited: converted, "
		       "not run)",
		       hc.hypervisor ? "" : "no hypervisor; ", hc.repeat, plural(hc.repeat));
	if (hc.hypervisor)
		output_provenance(&out, "hypervisor_vendor", json_string(hc.hv_vendor));
	for (int i = 0; i < HOST_COST_NR; i++)
		output_row(&out, cost_row(&hc, &hc.c[i]));
	costs_comments(&out, &hc);
	return output_close(&out) ? 1 : 0;
}

int host_costs(int argc, char **argv)
{
	static const struct option longopts[] = {
		HOST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct host_common h = {
		.sub = "costs",
		.repeat = HOST_COSTS_REPEAT_DEFAULT,
		.no_seconds = "costs runs a fixed number of operations",
		.no_plot = "costs has no plot (replay --sweep plots them)",
	};
	int rc = host_parse(&h, argc, argv, longopts, NULL, NULL, usage);

	if (rc >= 0)
		return rc;
	return run_costs(&h, argc, argv);
}
