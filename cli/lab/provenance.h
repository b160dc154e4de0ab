/* SPDX-License-Identifier: MIT */
/* A run's provenance beyond the host's: QEMU's version and the random seed. */
#ifndef FPULAB_CLI_LAB_PROVENANCE_H
#define FPULAB_CLI_LAB_PROVENANCE_H

#include "common/output.h"
#include "run_options.h"

/* qemu_version - "7.2.x (Debian ...)" from `QEMU --version`, malloc'ed; NULL if unknown. */
char *qemu_version(void);

/* run_provenance - add qemu_version, random_seed (@seed, decimal) and the run
 * options rows carry (catalog.h's row_options, those @opt's experiment reads)
 * to every row. */
void run_provenance(struct output *o, const struct run_options *opt, const char *seed);

/* provenance_comment - the table's first lines: version, QEMU, host, date, seed, command. */
void provenance_comment(struct output *o);

#endif
