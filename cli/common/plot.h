/* SPDX-License-Identifier: MIT */
/*
 * SVG plots of result rows, drawn by gnuplot (Debian's gnuplot-nox): one plot
 * per experiment. Configurations on the x axis with a bar per policy (the
 * median) and its min-max range; a sweep (rows that differ in a number such
 * as tasks or fp_slices) gets a line per policy instead. Titles and axes say
 * the unit and whether the time is emulated, hardware or native.
 *
 * Next to each NAME.svg are NAME.dat and NAME.gp, so a plot can be redrawn or
 * restyled with `gnuplot NAME.gp` in that directory (the script's paths are
 * relative to it).
 */
#ifndef FPULAB_CLI_COMMON_PLOT_H
#define FPULAB_CLI_COMMON_PLOT_H

#include <jansson.h>
#include <stddef.h>

/*
 * plot_rows - write one SVG per experiment of @rows (a JSON array of result
 * rows) into @dir, created if missing. @cmd names the subcommand in messages.
 * Prints each file written on stderr. Returns the number of plots, or -1 with
 * the reason on stderr (gnuplot missing or failing, @dir not writable).
 * Rows without a main figure (correctness runs) are not plotted.
 */
int plot_rows(json_t *rows, const char *dir, const char *cmd);

/*
 * plot_summary - as plot_rows for `fpulab summary --plot`, except the rows of
 * `fpulab replay`: one bar group per workload, a bar per policy at the
 * geometric mean over the workload's traces of at least REPLAY_MIN_SWITCHES
 * switches of its projected ns per switch (what the summary ranks by).
 */
int plot_summary(json_t *rows, const char *dir);

#endif
