/* SPDX-License-Identifier: MIT */
/*
 * The watchdog's way on (watchdog.c): the kernel restarts itself in place,
 * .data as it was at boot and .bss zeroed, keeping .persist (boot_info, the
 * screen, the clocks, this state), and goes on with the next experiment.
 */
#ifndef LAB_RESTART_H
#define LAB_RESTART_H

#include "kernel.h"

struct restart_state {
	unsigned int restarts;        /* 0: the first boot */
	unsigned int next;            /* index in the boot's list of experiments to run (exp.c) */
	uint64_t runs, skipped, hung; /* over every restart, for the done record */
};

extern struct restart_state restart;

/* At the first boot, before .data changes: keep a copy to restart from. */
void restart_save(void);
/* After a hang: the APs were sent INIT; go on at experiment restart.next. */
noreturn void restart_kernel(void);

#endif
