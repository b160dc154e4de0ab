/* SPDX-License-Identifier: MIT */
#include "clock.h"

#include <stdio.h>
#include <string.h>

#define TSC_TICKS "TSC ticks"

const struct clock_kind clock_kinds[CLOCK_NR] = {
	[CLOCK_EMULATED_TSC] = {
		.key = "emulated-tsc", .source = "emulated", .tick = TSC_TICKS,
		.timed = true, .hardware = false,
		.ticks_line = "EMULATED TSC ticks under QEMU TCG -- not hardware timings",
		.figures = "EMULATED TSC ticks under QEMU TCG, not hardware timings",
		.short_name = "emulated ticks",
		.vs_eager = "vs eager: ratio of emulated medians (this / eager's, same"
			    " configuration), ranks policies under emulation only",
		.costs_note = "emulated (TCG), not hardware",
		.lab_costs = "lab costs, emulated (TCG)",
		.with_lab_costs = "native-emulated-costs",
		.with_lab_costs_text = "native replay timings plus per-event costs the lab"
				       " measured under QEMU TCG (emulated)",
	},
	[CLOCK_ICOUNT] = {
		.key = "icount", .source = "icount", .tick = "instructions",
		.timed = false, .hardware = false,
		.ticks_line = "INSTRUCTION COUNT (QEMU TCG -icount shift=0: 1 tick = 1 guest"
			      " instruction) -- not hardware timings",
		.figures = "guest instruction counts (QEMU -icount), not timings",
		.short_name = "icount (instructions)",
		.vs_eager = "vs eager: not shown under --icount (an XSAVE counts as one"
			    " instruction)",
		.costs_note = "icount (instructions, no ns)",
	},
	[CLOCK_HARDWARE_TSC] = {
		.key = "hardware-tsc", .source = "hardware", .tick = TSC_TICKS,
		.timed = true, .hardware = true,
		.ticks_line = "hardware TSC ticks (KVM, or a real PC: the rows' clock_label)",
		.figures = "hardware TSC ticks (the lab under KVM, or on a real PC)",
		.short_name = "hardware ticks (KVM or a real PC)",
		.vs_eager = "vs eager = this median / eager's median in the same configuration",
		.costs_note = "hardware (KVM or a real PC)",
		.lab_costs = "lab costs, hardware",
		.with_lab_costs = "native-hardware-costs",
		.with_lab_costs_text = "native replay timings plus per-event costs the lab"
				       " measured under KVM or on a real PC (hardware)",
	},
	[CLOCK_NATIVE_TSC] = {
		.key = "native-tsc", .source = "native", .tick = TSC_TICKS,
		.timed = true, .hardware = true,
		.ticks_line = "native TSC ticks of this host, user mode",
		.figures = "native host user-mode timings (real instructions on this CPU)",
		.short_name = "native replay",
		.vs_eager = "vs eager = this median / eager's median in the same configuration",
		.costs_note = "native",
	},
	[CLOCK_HOST_MONOTONIC] = {
		.key = "CLOCK_MONOTONIC", .source = "host-linux", .tick = "ns",
		.timed = true, .hardware = true,
		.ticks_line = "ns of this host's CLOCK_MONOTONIC",
		.figures = "this host's Linux, real timings (not emulated)",
		.short_name = "host Linux",
		.vs_eager = "vs eager = this median / eager's median in the same configuration",
		.costs_note = "host Linux",
	},
};

const struct clock_kind *clock_by_key(const char *key)
{
	for (int i = 0; key && i < CLOCK_NR; i++)
		if (!strcmp(clock_kinds[i].key, key))
			return &clock_kinds[i];
	return NULL;
}

const struct clock_kind *clock_by_source(const char *source)
{
	for (int i = 0; source && i < CLOCK_NR; i++)
		if (!strcmp(clock_kinds[i].source, source))
			return &clock_kinds[i];
	return NULL;
}

const char *clock_unit(const struct clock_kind *c, const char *unit, char *buf, size_t len)
{
	size_t n = strlen(TSC_TICKS);

	if (!c || strncmp(unit, TSC_TICKS, n) || !strcmp(c->tick, TSC_TICKS))
		return unit;
	snprintf(buf, len, "%s%s", c->tick, unit + n);
	return buf;
}

const char *clock_source_description(const char *source)
{
	const struct clock_kind *c = clock_by_source(source);

	if (c)
		return c->figures;
	for (int i = 0; source && i < CLOCK_NR; i++)
		if (clock_kinds[i].with_lab_costs && !strcmp(clock_kinds[i].with_lab_costs, source))
			return clock_kinds[i].with_lab_costs_text;
	return "figures of unknown source";
}

const char *clock_projection_source(const struct clock_kind *const *lab, size_t n)
{
	const char *source = clock_kinds[CLOCK_NATIVE_TSC].source;

	for (size_t i = 0; i < n; i++) {
		if (!lab[i] || !lab[i]->with_lab_costs)
			continue;
		if (!lab[i]->hardware)
			return lab[i]->with_lab_costs;
		source = lab[i]->with_lab_costs;
	}
	return source;
}
