/* SPDX-License-Identifier: MIT */
/* The lab: glue to libfpu, the timer, and the experiments. */
#ifndef LAB_LAB_H
#define LAB_LAB_H

#include "kernel.h"
#include <fpu/fpu.h>

/* fpu_glue.c */
void lab_fpu_init(void);

/* main.c */
void timer_tick(void);
extern uint32_t tick_ns;

/* exp.c: the experiment controller and the measured window. */
#define MAX_USER_SEMS 64
extern struct semaphore user_sems[MAX_USER_SEMS];
void experiment_main(void *unused);
void exp_mark(unsigned int which);
void exp_integrity_error(const void *report);

#endif
