/* SPDX-License-Identifier: MIT */
/*
 * The oracle: the least save/restore work any policy could do on a trace,
 * knowing its whole future (docs/model.md). Model: one register slot per
 * CPU, events in global order, every use dirties the slot.
 */
#ifndef FPULAB_CLI_REPLAY_ORACLE_H
#define FPULAB_CLI_REPLAY_ORACLE_H

#include <stdint.h>

#include "trace/trace_io.h"

struct oracle_counts {
	uint64_t restores; /* uses whose CPU's slot did not hold the task's latest state */
	uint64_t saves;    /* evictions of dirty state that a later event needs */
	uint64_t uses;     /* USE events */
	uint64_t switches; /* SWITCH events */
};

/*
 * oracle_run - count the oracle's restores and saves on @t (a checked trace,
 * in memory or read from its file in two passes: O(tasks) memory and a bit
 * per event). Return: 0, -1 when memory ran out, -2 when the file could not
 * be read again (changed since it was checked).
 */
int oracle_run(const struct trace *t, struct oracle_counts *out);

#endif
