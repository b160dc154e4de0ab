/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's default per-event costs: this host's figures
 * (cli/host/host_costs.h). A cost given by an option or a --costs file of
 * the lab's is kept; the others come from the host costs rows of --costs
 * FILE or $FPULAB_HOST_COSTS (a cache: `fpulab host costs --format json
 * --output FILE`), or are measured once, now: the trap (a syscall, its lower
 * bound), the IPI (membarrier, only when no option gives it), the CR0 write
 * (cited). The trap range of the verdicts comes from the same figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/result_file.h"
#include "common/util.h"
#include "host/host_costs.h"
#include "replay.h"

/* $FPULAB_HOST_COSTS's rows into @o->host. Return: 0, or 1 after a message. */
static int host_from_env(struct opts *o, const char *path)
{
	char err[512];
	json_t *rows = result_file_load(path, err, sizeof(err));
	int rc;

	if (!rows) {
		fprintf(stderr, "fpulab replay: $" HOST_COSTS_ENV ": %s\n", err);
		return 1;
	}
	rc = costs_load_host(path, rows, o);
	json_decref(rows);
	if (!rc && *o->host->elsewhere)
		fprintf(stderr,
			"fpulab replay: $" HOST_COSTS_ENV " %s holds another host's figures (%s), "
			"not this one's: labelled so\n",
			path, o->host->elsewhere);
	if (rc > 0)
		fprintf(stderr,
			"fpulab replay: $" HOST_COSTS_ENV " %s: no row of `fpulab host costs`\n",
			path);
	return rc != 0;
}

/* @p from the host's figure of @name, or the assumption where there is none. */
static void param_from_host(struct param *p, const struct host_costs *hc, const char *name)
{
	char why[sizeof(p->buf) - 16];

	if (p->source)
		return;
	p->source = p->buf;
	if (host_costs_param(hc, name, &p->ns, p->buf, sizeof(p->buf)))
		return;
	/* only the IPI can be missing: one CPU, or no IPI confirmed */
	snprintf(why, sizeof(why), "%.*s", (int)sizeof(why) - 1, p->buf);
	p->ns = IPI_NS_DEFAULT;
	snprintf(p->buf, sizeof(p->buf), "assumed (%s)", why);
}

int costs_from_host(struct opts *o)
{
	const char *env = getenv(HOST_COSTS_ENV);
	enum host_cost_id est;

	if (!o->host && env && *env && host_from_env(o, env))
		return 1;
	if (!o->host) {
		o->host = calloc(1, sizeof(*o->host));
		if (!o->host)
			abort();
		host_costs_measure(o->host, HOST_COSTS_REPEAT_DEFAULT, !o->ipi.source);
	}
	param_from_host(&o->trap, o->host, "trap");
	param_from_host(&o->cr0, o->host, "cr0");
	param_from_host(&o->ipi, o->host, "ipi");
	o->have_range = host_costs_trap_range(o->host, &o->trap_lo, &o->trap_hi, &est);
	o->trap_est = o->have_range ? o->host->c[est].key : NULL;
	if (o->have_range) { /* (a figure read without its runs' spread: its median) */
		const struct stats_summary *lo = &o->host->c[HOST_COST_SYSCALL].ns;
		o->trap_lo_min = lo->min > 0 && lo->min < o->trap_lo ? lo->min : o->trap_lo;
	}
	return 0;
}

int costs_load_host(const char *path, json_t *rows, struct opts *o)
{
	char err[512];
	struct host_costs *hc = calloc(1, sizeof(*hc));
	int rc;

	if (!hc)
		abort();
	rc = host_costs_from_rows(hc, rows, path, err, sizeof(err));
	if (rc) {
		free(hc);
		if (rc < 0)
			fprintf(stderr, "fpulab replay: %s\n", err);
		return rc < 0 ? -1 : 1;
	}
	free(o->host);
	o->host = hc;
	return 0;
}

void costs_host_comment(const struct opts *o, struct output *out)
{
	const struct host_costs *hc = o->host;

	if (!hc)
		return;
	if (!o->have_range) {
		output_comment(out, "this host's trap range: not measured (%s)",
			       hc->c[HOST_COST_SYSCALL].note);
		return;
	}
	const struct stats_summary *lo = &hc->c[HOST_COST_SYSCALL].ns, *hi = lo;
	for (size_t i = 0; i < HOST_COST_NR; i++)
		if (hc->c[i].key && !strcmp(hc->c[i].key, o->trap_est))
			hi = &hc->c[i].ns;
	output_comment(
		out,
		"%s%s%s trap range%s: %.1f ns (syscall round trip, lower bound; "
		"min %.1f, max %.1f) to %.1f ns (%s, estimate; min %.1f, max %.1f), medians "
		"of %zu run%s, %s; verdicts hold over it or say undecided (fpulab host costs)",
		*hc->elsewhere ? "another host's (" : "this host's", hc->elsewhere,
		*hc->elsewhere ? ", not this one)" : "",
		hc->hypervisor ? " (under a hypervisor)" : "", o->trap_lo, lo->min, lo->max,
		o->trap_hi, o->trap_est, hi->min, hi->max, lo->n, plural(lo->n),
		*hc->from ? hc->from : "measured by this replay");
}
