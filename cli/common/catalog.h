/* SPDX-License-Identifier: MIT */
/* What the lab kernel offers, from abi.h: experiments and the options they read. */
#ifndef FPULAB_CLI_COMMON_CATALOG_H
#define FPULAB_CLI_COMMON_CATALOG_H

#include "fpulab/abi.h"
#include <stdbool.h>
#include <stddef.h>

/* The FPULAB_EXP_<id> of the experiment called @name, or -1. */
int experiment_find(const char *name);

/* Its abi.h entry (name, summary, default repeat, main figure), or NULL. */
const struct fpulab_experiment *experiment_info(const char *name);

/* The experiment's main figure is a timing (ticks): policies compare by ratio. */
bool experiment_is_timed(const char *name);

/*
 * The run options a lab row carries as keys of their own (`fpulab run` adds
 * them, for the experiments that read them): they shape what is measured,
 * but no result field says their value. Each is part of the row's
 * configuration (result_identity) when not at its default, so rows written
 * before they were carried, which lack the key, are rows at the default.
 */
extern const enum fpulab_option_id row_options[];
extern const unsigned int nr_row_options;

/* The FPULAB_OPT_<id> of row option @key ("prefetch"), or -1: not one. */
int row_option_find(const char *key);

/* row_option_default - @id's default as a row holds it ("conditional", "5") in @buf. */
const char *row_option_default(enum fpulab_option_id id, char *buf, size_t len);

#endif
