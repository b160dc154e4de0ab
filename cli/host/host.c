/* SPDX-License-Identifier: MIT */
/*
 * fpulab host: figures from the Linux fpulab runs on. Subcommands:
 * context-switch (host_cs.c), unlink (host_unlink.c), check (host_check.c),
 * costs (host_costs_cmd.c).
 */
#include "host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/catalog.h"
#include "common/clock.h"
#include "cli.h"
#include "host_cpu.h"
#include "common/util.h"

/*
 * The subcommands. context-switch is the lab experiment of that name run on
 * this host's Linux, so it takes its name from abi.h.
 */
static const struct host_subcommand {
	int experiment; /* the FPULAB_EXP_ whose name it has, or -1: @name */
	const char *name, *summary;
	int (*run)(int argc, char **argv);
} subcommands[] = {
	{ FPULAB_EXP_context_switch, NULL,
	  "two tasks ping-pong (pipe, futex, yield), with and without FP state",
	  host_context_switch },
	{ -1, "unlink", "seed 001's workload: tasks create and unlink files in one directory",
	  host_unlink },
	{ -1, "check", "xstate integrity of the running kernel under signals and migrations",
	  host_check },
	{ -1, "costs", "what a trap, an IPI and a CR0 write cost here (measured, or cited)",
	  host_costs },
};
#define NSUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static const char *subcommand_name(const struct host_subcommand *s)
{
	return s->experiment >= 0 ? fpulab_experiments[s->experiment].name : s->name;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fpulab host <subcommand> [options]\n"
		   "Figures from the Linux that fpulab runs on: real instructions, not emulated\n"
		   "(a guest's timings where it runs under a hypervisor, said so):\n");
	for (size_t i = 0; i < NSUBCOMMANDS; i++)
		help_item(f, 15, subcommand_name(&subcommands[i]), subcommands[i].summary);
	fprintf(f, "'fpulab help host SUBCOMMAND' for a subcommand's options.\n"
		   "Every subcommand takes --format table|json|csv and --output FILE;\n"
		   "context-switch and unlink take --plot DIR (SVG plots of their rows,\n"
		   "gnuplot): check and costs have no figure to plot.\n");
}

int cmd_host(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	char names[128] = "";

	if (!sub) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < NSUBCOMMANDS; i++) {
		const char *name = subcommand_name(&subcommands[i]);
		if (!strcmp(sub, name))
			return subcommands[i].run(argc - 1, argv + 1);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", name);
	}
	return usage_error("host", "unknown subcommand '%s' (%s)", sub, names);
}

/*
 * Common option @c (a getopt_long value) with argument @arg into @h.
 * Returns 0, 2 after a usage error, or -1 when @c is not a common option.
 */
static int host_common_opt(struct host_common *h, int c, const char *arg)
{
	char cmd[64];
	uint64_t v;

	snprintf(cmd, sizeof(cmd), "host %s", h->sub);
	switch (c) {
	case HOST_OPT_FORMAT:
		return output_opt(&h->out, cmd, "format", arg);
	case HOST_OPT_OUTPUT:
		return output_opt(&h->out, cmd, "output", arg);
	case HOST_OPT_PLOT:
		h->plot = arg;
		return 0;
	case HOST_OPT_REPEAT:
		if (parse_u64_arg(cmd, "repeat", arg, 1, FPULAB_MAX_REPEAT, &v))
			return 2;
		h->repeat = (unsigned int)v;
		return 0;
	case HOST_OPT_SECONDS: {
		char *end;
		double s = strtod(arg, &end);
		if (end == arg || *end || !(s >= 0.01 && s <= 86400))
			return usage_error(
				cmd, "--seconds: '%s' is not a number of seconds (0.01..86400)",
				arg);
		h->seconds = s;
		return 0;
	}
	default:
		return -1;
	}
}

int host_parse(struct host_common *h, int argc, char **argv, const struct option *longopts,
	       host_opt_fn *own, void *ctx, void (*usage)(FILE *f))
{
	char cmd[64];
	int c;

	snprintf(cmd, sizeof(cmd), "host %s", h->sub);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':')
			return usage_error(cmd, "unknown or incomplete option '%s'",
					   argv[optind - 1]);
		int rc = host_common_opt(h, c, optarg);
		if (rc < 0)
			rc = own ? own(ctx, c, optarg) : usage_error(cmd, "unknown option");
		else if (!rc && c == HOST_OPT_SECONDS && h->no_seconds)
			rc = usage_error(cmd, "--seconds: %s", h->no_seconds);
		else if (!rc && c == HOST_OPT_PLOT && h->no_plot)
			rc = usage_error(cmd, "--plot: %s", h->no_plot);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return -1;
}

int host_output_open(struct output *o, const struct host_common *h, const char *cmd, int argc,
		     char **argv)
{
	char cs[64];

	if (output_open(o, h->out.format, h->out.path, cmd) ||
	    (h->plot && output_plot(o, h->plot) < 0)) {
		fprintf(stderr, "fpulab %s: %s\n", cmd, o->error);
		output_close(o);
		return 2;
	}
	output_provenance_host(o, argc, argv);
	output_provenance(o, "clocksource", json_string(host_clocksource(cs, sizeof(cs))));
	/* what compare, report and plot read: whose figures, from which benchmark */
	output_provenance(o, "experiment", json_sprintf("host %s", h->sub));
	output_provenance(o, "source", json_string(clock_kinds[CLOCK_HOST_MONOTONIC].source));
	struct host_cpu c;
	host_cpu_probe(&c);
	output_provenance(o, "hypervisor", json_boolean(c.hypervisor)); /* a guest's timings */
	return 0;
}

void host_comment_machine(struct output *o)
{
	struct host_cpu c;
	struct utsname u;
	char cs[64];

	host_cpu_probe(&c);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	output_comment(
		o,
		"CPU (CPUID brand) %s, XCR0 0x%llx; Linux %s%s; clock CLOCK_MONOTONIC (clocksource "
		"%s)",
		c.model, (unsigned long long)c.xcr0, u.release,
		c.hypervisor ? " under a hypervisor (CPUID.1:ECX[31]): a guest's timings" : "",
		host_clocksource(cs, sizeof(cs)));
}
