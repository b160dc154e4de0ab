/* SPDX-License-Identifier: MIT */
/*
 * The kernel's watchdog (watchdog=S, the bootable image: on bare metal no
 * host runner watches). Every record but a progress record that did not get
 * further is a sign of life; a run silent for S seconds is reported hung, on
 * the screen and COM1 (a hung record), and the kernel restarts itself to go
 * on with the next experiment (restart.h).
 *
 * Each CPU's timer tick checks. CPU 0 (the controller's) restarts; a tick on
 * another CPU sends it an NMI, which reaches it even when it spins with
 * interrupts off. Not caught: every CPU spinning with interrupts off (one
 * CPU that hangs so), or the timers paused (costs' measured loops).
 */
#ifndef LAB_WATCHDOG_H
#define LAB_WATCHDOG_H

#include "kernel.h"

void watchdog_init(void); /* reads watchdog=S; after clock_calibrate() */
void watchdog_pet(void);  /* a sign of life */
void watchdog_tick(void); /* every CPU's timer interrupt */
bool watchdog_nmi(void);  /* an NMI: true if it was the watchdog's (then it does not return) */

#endif
