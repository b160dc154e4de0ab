/* SPDX-License-Identifier: MIT */
/*
 * What a trap, an IPI and a CR0 write cost on this host: the figures
 * (cli/host/costs_trap.c, costs_ipi.c, costs_cited.c), the trap range and
 * replay's default parameters from them, and `fpulab host costs`.
 */
#include "host_costs.h"

#include <cpuid.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "fpulab/abi.h"
#include "host.h"

const char *const host_cost_kind_names[] = { "lower bound", "estimate", "part", "cited", NULL };

/* key, name, param, kind, method: the one description of each figure. */
static const struct host_cost figures[HOST_COST_NR] = {
	[HOST_COST_SYSCALL] = { "syscall", "syscall round trip", "trap", HOST_COST_LOWER_BOUND,
				"syscall round trip (getppid): SYSCALL in, SYSRET out" },
	[HOST_COST_FAULT] = { "fault", "zero-page read fault", "trap", HOST_COST_ESTIMATE,
			      "read fault on a never-written anonymous page (the zero page is "
			      "mapped): #PF through the IDT, IRET" },
	[HOST_COST_UMIP] = { "umip", "UMIP-emulated SMSW", "trap", HOST_COST_ESTIMATE,
			     "SMSW under UMIP: #GP through the IDT, emulated by the kernel, IRET, "
			     "no signal" },
	[HOST_COST_MB_NONE] = { "membarrier-none", "membarrier, none to interrupt", NULL,
				HOST_COST_PART,
				"membarrier(PRIVATE_EXPEDITED), no other CPU to interrupt" },
	[HOST_COST_MB_IPI] = { "membarrier-ipi", "membarrier, one CPU to interrupt", NULL,
			       HOST_COST_PART,
			       "membarrier(PRIVATE_EXPEDITED) interrupting our thread on another "
			       "CPU" },
	[HOST_COST_IPI] = { "ipi", "IPI round trip (membarrier)", "ipi", HOST_COST_ESTIMATE,
			    "IPI round trip: send, the handler on the other CPU, its completion "
			    "seen by the sender" },
	[HOST_COST_IPI_1WAY] = { "ipi-one-way", "IPI one way (tracepoints)", NULL, HOST_COST_PART,
				 "IPI one way: the send to the handler's entry on the other CPU" },
	[HOST_COST_TRAP_SEL4] = { "trap-sel4", "seL4 RFC 0180 trap overhead", "trap",
				  HOST_COST_CITED,
				  "trap overhead on x86 (Skylake), seL4 RFC 0180" },
	[HOST_COST_CR0_SEL4] = { "cr0-sel4", "seL4 RFC 0180 CR0 write", "cr0", HOST_COST_CITED,
				 "one CR0 write (half an FPU disable+enable pair), seL4 RFC 0180" },
};

void costs_sample(struct host_cost *c, double *v, unsigned int n, unsigned int ops)
{
	c->have = n > 0;
	c->ns = stats_summarise(v, n);
	c->ops = ops;
}

static void costs_init(struct host_costs *hc, unsigned int repeat)
{
	unsigned int a, b, c, d;

	memset(hc, 0, sizeof(*hc));
	memcpy(hc->c, figures, sizeof(figures));
	hc->repeat = repeat;
	if (__get_cpuid(1, &a, &b, &c, &d))
		hc->hypervisor = c >> 31;
	if (hc->hypervisor) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(hc->hv_vendor, &b, 4);
		memcpy(hc->hv_vendor + 4, &c, 4);
		memcpy(hc->hv_vendor + 8, &d, 4);
	}
	costs_cited_fill(hc);
}

void host_costs_cited(struct host_costs *hc)
{
	costs_init(hc, 0);
	for (int i = 0; i < HOST_COST_NR; i++)
		if (hc->c[i].kind != HOST_COST_CITED)
			snprintf(hc->c[i].note, sizeof(hc->c[i].note), "not measured");
}

void host_costs_measure(struct host_costs *hc, unsigned int repeat)
{
	int cpus[1024], n = host_allowed_cpus(cpus, 1024);
	cpu_set_t old;
	bool restore = sched_getaffinity(0, sizeof(old), &old) == 0;

	costs_init(hc, repeat < 1 ? 1 : repeat > FPULAB_MAX_REPEAT ? FPULAB_MAX_REPEAT : repeat);
	if (n >= 1)
		host_pin(0, cpus[0]);
	costs_trap_measure(hc);
	if (n >= 2)
		costs_ipi_measure(hc, cpus[0], cpus[1]);
	else
		for (int k = HOST_COST_MB_NONE; k <= HOST_COST_IPI_1WAY; k++)
			snprintf(hc->c[k].note, sizeof(hc->c[k].note),
				 "one CPU: no other CPU to interrupt");
	if (restore)
		sched_setaffinity(0, sizeof(old), &old);
}

bool host_costs_trap_range(const struct host_costs *hc, double *lo, double *hi,
			   enum host_cost_id *estimate)
{
	const enum host_cost_id est[] = { HOST_COST_FAULT, HOST_COST_UMIP };
	enum host_cost_id best = HOST_COST_SYSCALL;

	if (!hc->c[HOST_COST_SYSCALL].have)
		return false;
	for (size_t i = 0; i < sizeof(est) / sizeof(est[0]); i++)
		if (hc->c[est[i]].have &&
		    (best == HOST_COST_SYSCALL || hc->c[est[i]].ns.median < hc->c[best].ns.median))
			best = est[i];
	*lo = hc->c[HOST_COST_SYSCALL].ns.median;
	*hi = hc->c[best].ns.median > *lo ? hc->c[best].ns.median : *lo;
	if (estimate)
		*estimate = best;
	return true;
}

static const char *hv_label(const struct host_costs *hc)
{
	return hc->hypervisor ? " (under a hypervisor)" : "";
}

bool host_costs_param(const struct host_costs *hc, const char *param, double *ns, char *src,
		      unsigned int len)
{
	enum host_cost_id id = !strcmp(param, "trap")  ? HOST_COST_SYSCALL
			       : !strcmp(param, "ipi") ? HOST_COST_IPI
						       : HOST_COST_CR0_SEL4;
	const struct host_cost *c = &hc->c[id];

	if (!c->have) {
		snprintf(src, len, "%s not measured: %s", c->key, c->note);
		return false;
	}
	*ns = c->ns.median;
	if (c->kind == HOST_COST_CITED)
		snprintf(src, len, "cited: %s, whose x86 figures it calls not very reliable",
			 c->name);
	else
		snprintf(src, len, "measured on this host%s: %s, %s", hv_label(hc), c->name,
			 host_cost_kind_names[c->kind]);
	return true;
}
