/* SPDX-License-Identifier: MIT */
/* Local APIC, xAPIC (MMIO) or x2APIC (MSRs) as CPUID.1:ECX[21] offers. */
#ifndef LAB_APIC_H
#define LAB_APIC_H

#include <stdbool.h>
#include <stdint.h>

extern bool apic_x2;
extern uint64_t apic_khz; /* the timer's counts per ms, divide by 1 (clock.c measures it) */
extern uint64_t tsc_khz;  /* clock.c */

void apic_init(void); /* on each CPU */
unsigned int apic_id(void);
void apic_eoi(void);
void apic_send_ipi(unsigned int apic_id, unsigned int vector); /* counted in cpu->ipis_sent */
void apic_start_ap(unsigned int apic_id, unsigned int page);   /* INIT-SIPI-SIPI */
void apic_send_init(unsigned int apic_id); /* back to wait-for-SIPI (the watchdog) */
void apic_send_nmi(unsigned int apic_id);
void apic_timer_arm(uint32_t ns); /* one-shot, in ns at apic_khz */
void apic_timer_stop(void);
uint32_t apic_timer_remaining(void); /* ns until the one-shot fires; 0: fired (or never armed) */
void delay_us(uint64_t us);
/* Calibration (clock.c): @on: the timer masked, counting down from 2^32 - 1;
 * off: back to the one-shot timer, stopped. apic_timer_count: its count. */
void apic_timer_free_run(bool on);
uint32_t apic_timer_count(void);

#endif
