/* SPDX-License-Identifier: MIT */
/*
 * The clocks fpulab's figures are measured in, defined once: each kind's key
 * (a row's "clock"), its source (a row's "source", result_file.h), what one
 * tick is, whether ticks are time, and every text that names it. A lab row
 * is in emulated TSC ticks under TCG, in guest instructions under -icount,
 * in hardware TSC ticks under KVM; calibrate and replay time natively with
 * this host's TSC; `fpulab host` with Linux's CLOCK_MONOTONIC.
 */
#ifndef FPULAB_CLI_COMMON_CLOCK_H
#define FPULAB_CLI_COMMON_CLOCK_H

#include <stdbool.h>
#include <stddef.h>

enum clock_id {
	CLOCK_EMULATED_TSC,   /* the guest's TSC under QEMU TCG: emulated, not hardware time */
	CLOCK_ICOUNT,         /* QEMU TCG -icount shift=0: one tick per guest instruction */
	CLOCK_HARDWARE_TSC,   /* the guest's TSC under KVM: hardware time */
	CLOCK_NATIVE_TSC,     /* this host's TSC in user mode (calibrate, replay) */
	CLOCK_HOST_MONOTONIC, /* this host's Linux, CLOCK_MONOTONIC in ns (`fpulab host`) */
	CLOCK_NR,
};

struct clock_kind {
	const char *key;    /* a row's "clock": "emulated-tsc", "icount", ... */
	const char *source; /* a row's "source": "emulated", "icount", "hardware", ... */
	const char *tick;   /* what a figure counts: "TSC ticks", "instructions", "ns" */
	bool timed;         /* ticks are time: ns at the TSC rate, ratios of policies mean speed */
	bool hardware;      /* ... on real hardware (not emulated) */
	const char *ticks_line; /* a run table's "ticks:" line */
	const char *figures;    /* the figures' source in titles and headers (summary, plot) */
	const char *short_name; /* report's source column */
	const char *vs_eager;   /* a run table's note on its vs-eager column */
	const char *costs_note; /* the costs experiment's source note ("hardware (KVM)") */
	const char *lab_costs;  /* replay --costs: a cost measured in this clock; NULL: refused */
	const char *with_lab_costs;      /* replay rows' source with such a cost; NULL: none */
	const char *with_lab_costs_text; /* ... as titles and headers say it */
};

extern const struct clock_kind clock_kinds[CLOCK_NR];

/* clock_by_key - the kind whose key is @key (a row's "clock"), or NULL (also for NULL). */
const struct clock_kind *clock_by_key(const char *key);

/* clock_by_source - the kind whose source is @source (a row's "source"), or NULL. */
const struct clock_kind *clock_by_source(const char *source);

/*
 * clock_unit - @unit (abi.h's, e.g. "TSC ticks per operation") as clock @c
 * counts it: its leading "TSC ticks" replaced by @c's tick ("instructions
 * per operation" under -icount), into @buf (@len bytes). Returns @buf, or
 * @unit itself when it needs no change (@c NULL, or no "TSC ticks" at its
 * start).
 */
const char *clock_unit(const struct clock_kind *c, const char *unit, char *buf, size_t len);

/*
 * clock_source_description - a phrase for @source (a row's "source":
 * a clock's, or replay's with lab costs) for titles and headers; "figures
 * of unknown source" for any other.
 */
const char *clock_source_description(const char *source);

/*
 * clock_projection_source - the source of replay rows whose per-event
 * costs were measured in the @n clocks @lab (NULL entries: costs not from
 * the lab): "native" when none is, else the with-lab-costs source of a
 * clock that is not hardware if any (an emulated cost makes the projection
 * emulated), else of a hardware one.
 */
const char *clock_projection_source(const struct clock_kind *const *lab, size_t n);

#endif
