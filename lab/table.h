/* SPDX-License-Identifier: MIT */
/*
 * The human table of a boot's results (console lines, so on the screen and
 * COM1 alike): per experiment a header, per configuration one row with
 * each policy's median over the repeats of the experiment's main figure
 * (abi.h: ticks per round trip, switch, unit or operation; or a count; 6
 * characters: 12345, 1234k, 12M), 80 columns with 7 policies. The
 * records stay the measurements: fpulab import-serial reads those.
 */
#ifndef LAB_TABLE_H
#define LAB_TABLE_H

#include "lab.h"

/* The boot's facts: how it booted, CPUs, clocks and what its ticks are. */
void table_boot_facts(void);
/* What the ticks are: "hardware TSC, bare metal", "hardware TSC, under a hypervisor (kvm)", ... */
const char *table_clock_label(void);
void table_begin(const struct experiment *e, unsigned int npolicies);
void table_add(unsigned int policy, const struct result *res); /* one run */
void table_row(void);                                          /* the configuration is done */

#endif
