/* SPDX-License-Identifier: MIT */
/*
 * The published figures `fpulab host costs` and replay cite for what user
 * mode cannot measure here (docs/model.md "What is cited"): one definition.
 *
 * seL4 RFC 0180, "FPU Context Switching" (G. Klein, R. Kolanski, I.
 * Zupancic, proposed 2024-06-21, github.com/seL4/rfcs
 * src/implemented/0180-fpu-switching.md), x86 "Performance Numbers":
 * "measuring 2k trap overhead cycles" and "adding extra FPU disable+enable
 * calls added 300 cycles", on its `skylake` and Comet Lake systems, with
 * the caveat "all-in-all the x86 performance measurements do not seem very
 * reliable". Its cycles are "platform specific fixed clock cycles", on x86
 * the TSC, which runs at the part's nominal clock: seL4's `skylake`
 * benchmark machine is an i7-6700 at 3.4 GHz (sel4.systems/performance,
 * generated 2023-04-24). The RFC does not name its Comet Lake part.
 */
#include <stdio.h>

#include "host_costs.h"

#define SEL4_RFC "seL4 RFC 0180 (FPU Context Switching, 2024), x86"
#define SEL4_CAVEAT "the RFC: \"the x86 performance measurements do not seem very reliable\""
#define SEL4_SKYLAKE_GHZ 3.4       /* i7-6700, seL4's `skylake` machine: TSC at 3.4 GHz */
#define SEL4_TRAP_CYCLES 2000.0    /* "measuring 2k trap overhead cycles" */
#define SEL4_FPU_PAIR_CYCLES 300.0 /* "extra FPU disable+enable calls added 300 cycles" */

static void cite(struct host_cost *c, double cycles)
{
	double ns = cycles / SEL4_SKYLAKE_GHZ;

	c->have = true;
	c->ns = (struct stats_summary){ ns, ns, ns, 0 };
	c->ops = 0;
}

void costs_cited_fill(struct host_costs *hc)
{
	struct host_cost *t = &hc->c[HOST_COST_TRAP_SEL4], *w = &hc->c[HOST_COST_CR0_SEL4];

	cite(t, SEL4_TRAP_CYCLES);
	snprintf(t->note, sizeof(t->note),
		 "%s: ~%.0f cycles of trap overhead, at the Skylake's 3.4 GHz TSC (i7-6700); "
		 "Comet Lake part not named; %s",
		 SEL4_RFC, SEL4_TRAP_CYCLES, SEL4_CAVEAT);
	/* a disable (MOV to CR0 setting TS) and an enable (CLTS): two CR0 writes */
	cite(w, SEL4_FPU_PAIR_CYCLES / 2);
	snprintf(w->note, sizeof(w->note),
		 "%s: an FPU disable+enable pair added ~%.0f cycles, half of it per CR0 write, "
		 "at 3.4 GHz (i7-6700); user mode cannot write CR0, and the lab's costs "
		 "experiment under KVM, which would time it, has never run here; %s",
		 SEL4_RFC, SEL4_FPU_PAIR_CYCLES, SEL4_CAVEAT);
}
