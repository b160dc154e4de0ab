/* SPDX-License-Identifier: MIT */
/*
 * What a trap, an IPI and a CR0 write cost on this host: what user mode can
 * measure of them (`fpulab host costs`, docs/host.md "costs"), and the
 * published figures for what it cannot (docs/model.md). replay charges
 * these by default (host_costs_param()).
 */
#ifndef FPULAB_CLI_HOST_HOST_COSTS_H
#define FPULAB_CLI_HOST_HOST_COSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/stats.h"
#include "host_cpu.h"

/* What a figure is to the cost it stands for. */
enum host_cost_kind {
	HOST_COST_LOWER_BOUND, /* the true cost is at least this */
	HOST_COST_ESTIMATE,    /* a closer figure, with work the true cost lacks */
	HOST_COST_PART,        /* a part of another figure (the membarrier calls) */
	HOST_COST_CITED,       /* published, not measured here */
};
extern const char *const host_cost_kind_names[]; /* "lower bound", ... */

/* The figures, in the order `fpulab host costs` prints them (costs_ipi.c fills
 * MB_NONE..IPI_1WAY as four in a row). */
enum host_cost_id {
	HOST_COST_SYSCALL,   /* trap: getppid round trip */
	HOST_COST_FAULT,     /* trap: read fault mapping the zero page */
	HOST_COST_UMIP,      /* trap: SMSW emulated by the #GP handler */
	HOST_COST_MB_NONE,   /* membarrier with no other CPU to interrupt */
	HOST_COST_MB_IPI,    /* membarrier interrupting our thread on another CPU */
	HOST_COST_IPI,       /* ipi: MB_IPI - MB_NONE, run by run */
	HOST_COST_IPI_1WAY,  /* send to the handler's entry (tracepoints) */
	HOST_COST_TRAP_SEL4, /* trap: seL4 RFC 0180, cited */
	HOST_COST_CR0_SEL4,  /* cr0: seL4 RFC 0180, cited */
	HOST_COST_NR
};

/* One figure: ns per operation, median, min and max over the runs. */
struct host_cost {
	const char *key;   /* "syscall", "fault", ... (the JSON's figure) */
	const char *name;  /* "syscall round trip": in the sources replay prints */
	const char *param; /* the replay parameter it prices: "trap", "ipi", "cr0"; NULL */
	enum host_cost_kind kind;
	const char *method; /* what is timed, one line */
	bool have;          /* measured (or, for a cited one, always) */
	struct stats_summary ns;
	unsigned int ops; /* operations timed per run (calls that counted, for membarrier) */
	char note[400];   /* how it was confirmed, or why it is missing */
};

struct host_costs {
	bool hypervisor; /* CPUID.1:ECX[31] */
	char from[160];  /* "": measured by this process; else "FILE of DATE" it was read from */
	char elsewhere[160]; /* "": this host's; else the other CPU and kernel the file names */
	char hv_vendor[13];  /* CPUID 0x40000000 signature ("KVMKVMKVM"), or "" */
	unsigned int repeat; /* runs asked for */
	struct host_cost c[HOST_COST_NR];
};

/* Runs of each measured figure when none are asked for, and their limit. */
#define HOST_COSTS_REPEAT_DEFAULT 11

/*
 * host_costs_measure - measure every figure user mode can measure here,
 * @repeat runs each (1..FPULAB_MAX_REPEAT), and fill in the cited ones.
 * Pins the calling thread to a CPU while it measures and restores its
 * affinity after. A figure that cannot be measured has @have false and its
 * reason in @note (one CPU, no UMIP, no IPI seen). The IPI only if @ipi
 * (it takes about 0.5 s with two CPUs at @repeat 11; the rest 0.05 s).
 * Never fails.
 */
void host_costs_measure(struct host_costs *hc, unsigned int repeat, bool ipi);

/*
 * host_costs_from_rows - the figures in @rows (a JSON array of result rows;
 * those of `fpulab host costs --format json`), read from @path, into @hc,
 * the cited figures as this build defines them. Returns 1 when @rows has
 * no host costs row (then @hc is untouched), 0 when it read them, or -1
 * with a one-line reason in @err (a row without its figure, ns outside
 * 0..1e9, runs that do not add up).
 */
int host_costs_from_rows(struct host_costs *hc, const json_t *rows, const char *path, char *err,
			 size_t len);

/*
 * The range a trap cost lies in on this host: from the lower bound (the
 * syscall) to the estimate (the least of the exception figures measured).
 * Returns false when the syscall was not measured.
 */
bool host_costs_trap_range(const struct host_costs *hc, double *lo, double *hi,
			   enum host_cost_id *estimate);

/*
 * host_costs_param - what replay charges for @param ("trap", "ipi", "cr0")
 * by default: the syscall's median for trap (a lower bound), the measured
 * IPI round trip, the cited CR0 write; into @ns with a source such as
 * "measured on this host: syscall round trip, lower bound (median of 11
 * runs, min 119.4, max 119.9 ns)" in @src (@len bytes; where the figures were read from a file, its name and date too;
 * whether the host is a guest is hc->hypervisor's, said where the figures
 * are listed). Returns false when there is no such figure (the IPI
 * not measured: one CPU, or no IPI confirmed); @src then says why.
 */
bool host_costs_param(const struct host_costs *hc, const char *param, double *ns, char *src,
		      unsigned int len);

/* Internal to cli/host/costs_*.c: one measurement each. */
void costs_trap_measure(struct host_costs *hc);
void costs_ipi_measure(struct host_costs *hc, int cpu_from, int cpu_to);
void costs_cited_fill(struct host_costs *hc);

/* costs_sample - a measured figure's runs @v[@n] (sorted in place) into @c. */
void costs_sample(struct host_cost *c, double *v, unsigned int n, unsigned int ops);

#endif
