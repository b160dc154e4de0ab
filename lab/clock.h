/* SPDX-License-Identifier: MIT */
/*
 * The clocks: the TSC and the APIC timer measured at boot against a
 * reference clock of known frequency (HPET, ACPI PM timer, PIT), and what
 * the CPU says of its TSC and of a hypervisor under it.
 */
#ifndef LAB_CLOCK_H
#define LAB_CLOCK_H

#include "kernel.h"

struct clock_facts {
	const char *ref;             /* hpet | pm-timer | pit | none (APIC timer assumed 1 GHz) */
	bool tsc_invariant;          /* CPUID 0x80000007 EDX[8]: constant rate, runs in C-states */
	bool hypervisor;             /* CPUID.1:ECX[31] */
	const char *hypervisor_name; /* none | tcg | kvm | the signature of leaf 0x40000000 */
};

extern struct clock_facts clock_facts;

/* clock_calibrate - on the BSP after apic_init(): sets tsc_khz and apic_khz
 * (apic.h) from a 10 ms window of the first reference clock found, and
 * clock_facts. Without any, the APIC timer is taken as 1 GHz (QEMU, KVM). */
void clock_calibrate(void);

#endif
