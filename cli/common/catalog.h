/* SPDX-License-Identifier: MIT */
/* What the lab kernel offers, from abi.h: experiments and the options they read. */
#ifndef FPULAB_CLI_COMMON_CATALOG_H
#define FPULAB_CLI_COMMON_CATALOG_H

#include "fpulab/abi.h"
#include <stdbool.h>

/* The FPULAB_EXP_<id> of the experiment called @name, or -1. */
int experiment_find(const char *name);

/* Its abi.h entry (name, summary, default repeat, main figure), or NULL. */
const struct fpulab_experiment *experiment_info(const char *name);

/* The experiment's main figure is a timing (ticks): policies compare by ratio. */
bool experiment_is_timed(const char *name);

#endif
