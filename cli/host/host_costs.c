/* SPDX-License-Identifier: MIT */
/*
 * What a trap, an IPI and a CR0 write cost on this host: the figures
 * (cli/host/costs_trap.c, costs_ipi.c, costs_cited.c), the trap range and
 * replay's default parameters from them, and `fpulab host costs`.
 */
#include "host_costs.h"

#include <cpuid.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "fpulab/abi.h"
#include "common/cpu_model.h"
#include "common/result_file.h"
#include "host.h"

const char *const host_cost_kind_names[] = { "lower bound", "estimate", "part", "cited", NULL };

/* key, name, param, kind, method: the one description of each figure. */
#define FIGURE(k, n, p, kd, m)                                           \
	{                                                                \
		.key = k, .name = n, .param = p, .kind = kd, .method = m \
	}
static const struct host_cost figures[HOST_COST_NR] = {
	[HOST_COST_SYSCALL] = FIGURE("syscall", "syscall round trip", "trap", HOST_COST_LOWER_BOUND,
				     "syscall round trip (getppid): SYSCALL in, SYSRET out"),
	[HOST_COST_FAULT] = FIGURE("fault", "zero-page read fault", "trap", HOST_COST_ESTIMATE,
				   "read fault on a never-written anonymous page (the zero page is "
				   "mapped): #PF through the IDT, IRET"),
	[HOST_COST_UMIP] = FIGURE(
		"umip", "UMIP-emulated SMSW", "trap", HOST_COST_ESTIMATE,
		"SMSW under UMIP: #GP through the IDT, emulated by the kernel, IRET, "
		"no signal"),
	[HOST_COST_MB_NONE] = FIGURE("membarrier-none", "membarrier, none to interrupt", NULL,
				     HOST_COST_PART,
				     "membarrier(PRIVATE_EXPEDITED), no other CPU to interrupt"),
	[HOST_COST_MB_IPI] = FIGURE(
		"membarrier-ipi", "membarrier, one CPU to interrupt", NULL, HOST_COST_PART,
		"membarrier(PRIVATE_EXPEDITED) interrupting our thread on another "
		"CPU"),
	[HOST_COST_IPI] = FIGURE(
		"ipi", "IPI round trip (membarrier)", "ipi", HOST_COST_ESTIMATE,
		"IPI round trip: send, the handler on the other CPU, its completion "
		"seen by the sender"),
	[HOST_COST_IPI_1WAY] = FIGURE(
		"ipi-one-way", "IPI one way (tracepoints)", NULL, HOST_COST_PART,
		"IPI one way: the send to the handler's entry on the other CPU"),
	[HOST_COST_TRAP_SEL4] = FIGURE("trap-sel4", "seL4 RFC 0180 trap overhead", "trap",
				       HOST_COST_CITED,
				       "trap overhead on x86 (Skylake), seL4 RFC 0180"),
	[HOST_COST_CR0_SEL4] = FIGURE(
		"cr0-sel4", "seL4 RFC 0180 CR0 write", "cr0", HOST_COST_CITED,
		"one CR0 write (half an FPU disable+enable pair), seL4 RFC 0180"),
};
#undef FIGURE

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

void host_costs_measure(struct host_costs *hc, unsigned int repeat, bool ipi)
{
	int cpus[1024], n = host_allowed_cpus(cpus, 1024);
	cpu_set_t old;
	bool restore = sched_getaffinity(0, sizeof(old), &old) == 0;

	costs_init(hc, repeat < 1 ? 1 : repeat > FPULAB_MAX_REPEAT ? FPULAB_MAX_REPEAT : repeat);
	if (n >= 1)
		host_pin(0, cpus[0]);
	costs_trap_measure(hc);
	if (n >= 2 && ipi)
		costs_ipi_measure(hc, cpus[0], cpus[1]);
	else if (!ipi)
		for (int k = HOST_COST_MB_NONE; k <= HOST_COST_IPI_1WAY; k++)
			snprintf(hc->c[k].note, sizeof(hc->c[k].note), "not measured: not needed");
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

bool host_costs_param(const struct host_costs *hc, const char *param, double *ns, char *src,
		      unsigned int len)
{
	enum host_cost_id id = !strcmp(param, "trap")  ? HOST_COST_SYSCALL
			       : !strcmp(param, "ipi") ? HOST_COST_IPI
						       : HOST_COST_CR0_SEL4;
	const struct host_cost *c = &hc->c[id];

	if (!c->have) {
		snprintf(src, len, "%s not measured: %s", c->key, *c->note ? c->note : "no figure");
		return false;
	}
	*ns = round(c->ns.median * 10) / 10; /* as printed: 0.1 ns */
	if (c->kind == HOST_COST_CITED)
		snprintf(src, len, "cited: %s (x86 figures it calls not very reliable)", c->name);
	else
		snprintf(src, len,
			 "measured on %s%s%s: %s, %s%s%s (median of %zu run%s, min %.1f, max "
			 "%.1f ns)",
			 *hc->elsewhere ? "another host (" : "this host", hc->elsewhere,
			 *hc->elsewhere ? ", not this one)" : "", c->name,
			 host_cost_kind_names[c->kind], *hc->from ? ", from " : "", hc->from,
			 c->ns.n, c->ns.n == 1 ? "" : "s", c->ns.min, c->ns.max);
	return true;
}

/* One row's figure (ns_per_op's median, min, max: result_file.h) into @c; 0, or -1 with @err. */
static int figure_from_row(struct host_cost *c, const json_t *row, const char *path, char *err,
			   size_t len)
{
	const char *note = json_string_value(json_object_get(row, "note"));
	double v[RESULT_STAT_NR];

	if (note)
		snprintf(c->note, sizeof(c->note), "%s", note);
	if (!result_stat(row, "ns_per_op", RESULT_MEDIAN, &v[RESULT_MEDIAN])) {
		c->have = false; /* not measured here (null) */
		return 0;
	}
	if (!result_stat(row, "ns_per_op", RESULT_MIN, &v[RESULT_MIN]) ||
	    !result_stat(row, "ns_per_op", RESULT_MAX, &v[RESULT_MAX]) ||
	    !(v[RESULT_MIN] <= v[RESULT_MEDIAN] && v[RESULT_MEDIAN] <= v[RESULT_MAX]) ||
	    v[RESULT_MIN] < 0 || v[RESULT_MAX] > 1e9) {
		snprintf(err, len,
			 "%s: figure %s: ns_per_op_min <= ns_per_op_median <= ns_per_op_max within "
			 "0..1e9 does not hold",
			 path, c->key);
		return -1;
	}
	c->have = true;
	c->ns = (struct stats_summary){ v[RESULT_MEDIAN], v[RESULT_MIN], v[RESULT_MAX],
					(unsigned int)result_runs(row) };
	c->ops = (unsigned int)json_integer_value(json_object_get(row, "ops_per_run"));
	return 0;
}

/*
 * Into @hc->elsewhere, the CPU and kernel @row's provenance names where
 * either differs from this host's; "" where they match or it names none.
 */
static void note_elsewhere(struct host_costs *hc, const json_t *row)
{
	const char *cpu = json_string_value(json_object_get(row, "host_cpu"));
	const char *kernel = json_string_value(json_object_get(row, "host_kernel"));
	char here[64];
	struct utsname u;

	cpu_model(here, sizeof(here));
	bool other_cpu = cpu && strcmp(cpu, here);
	bool other_kernel = kernel && uname(&u) == 0 && strcmp(kernel, u.release);
	*hc->elsewhere = 0;
	if (other_cpu || other_kernel)
		snprintf(hc->elsewhere, sizeof(hc->elsewhere), "%s, Linux %s", cpu ?: "a CPU",
			 kernel ?: "unknown");
}

int host_costs_from_rows(struct host_costs *hc, const json_t *rows, const char *path, char *err,
			 size_t len)
{
	const json_t *row;
	size_t i;
	int found = 0;

	json_array_foreach(rows, i, row)
	{
		const char *exp = json_string_value(json_object_get(row, "experiment"));
		const char *key = json_string_value(json_object_get(row, "figure"));
		if (!exp || strcmp(exp, "host costs"))
			continue;
		if (!found++) {
			costs_init(hc, 0);
			snprintf(hc->from, sizeof(hc->from), "%s of %s", path,
				 json_string_value(json_object_get(row, "date"))
					 ?: "an unknown date");
			hc->hypervisor = json_is_true(json_object_get(row, "hypervisor"));
			note_elsewhere(hc, row);
		}
		for (int k = 0; key && k < HOST_COST_NR; k++)
			if (!strcmp(key, hc->c[k].key) && hc->c[k].kind != HOST_COST_CITED &&
			    figure_from_row(&hc->c[k], row, path, err, len))
				return -1;
	}
	if (found && !hc->c[HOST_COST_SYSCALL].have) {
		snprintf(err, len, "%s: no syscall figure among its host costs rows", path);
		return -1;
	}
	return found ? 0 : 1;
}
