/* SPDX-License-Identifier: MIT */
/* calibrate's figures that other subcommands set beside their own. */
#ifndef FPULAB_CLI_HOST_CALIBRATE_H
#define FPULAB_CLI_HOST_CALIBRATE_H

#include <stdint.h>

/* The user-mode save+restore floor of one switch, as calibrate measures it. */
struct calibrate_floor {
	double median_ns, min_ns, max_ns; /* ns per save+restore pair */
	unsigned long repeat;             /* samples summarised */
	uint64_t xcr0;                    /* the components saved and restored */
	double tsc_mhz;                   /* TSC rate measured against CLOCK_MONOTONIC */
	char pair[32];                    /* "xsavec+xrstor" */
};

/*
 * calibrate_switch_floor - measure, now, calibrate's "switch: raw" figure:
 * one save (the best user-mode instruction, XSAVEC where offered) and one
 * XRSTOR of every XCR0 component, registers dirty, in ns per pair: median,
 * min, max of @repeat samples of 16 operations. A user-mode proxy for the
 * kernel's XSAVES/XRSTORS at a switch. Leaves the registers in init state.
 * Returns 0, or 1 after a message on stderr (no XSAVE, out of memory, the
 * registers not dirty as claimed). SDM Vol. 1 §13.8-13.11.
 */
int calibrate_switch_floor(unsigned long repeat, struct calibrate_floor *out);

#endif
