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
 * plot_dir_prepare - check that gnuplot is in PATH (no directory is made
 * without it), make --plot @dir if it is missing (one level, as mkdir), and
 * check that it is a directory it can write into; called before work that
 * would be lost. Returns 0, or -1 with "--plot DIR: why" (or "--plot needs
 * gnuplot, ...") in @err (@len bytes).
 */
int plot_dir_prepare(const char *dir, char *err, size_t len);
/* plot_dir_prepare_as - the same, @what naming the directory's argument ("DIR"). */
int plot_dir_prepare_as(const char *dir, const char *what, char *err, size_t len);

/*
 * plot_summary - as plot_rows for `fpulab summary --plot`, except the rows of
 * `fpulab replay`: one bar group per workload, a bar per policy at the
 * geometric mean over the workload's traces of at least REPLAY_MIN_SWITCHES
 * switches of its projected ns per switch (what the summary ranks by).
 */
int plot_summary(json_t *rows, const char *dir);

/*
 * plot_results - as plot_summary (the replay rows a bar group per workload),
 * @cmd naming the subcommand in messages: `fpulab plot DIR FILE...`.
 */
int plot_results(json_t *rows, const char *dir, const char *cmd);

/* A line plot: a line per series over the same x values, an x range shaded. */
struct plot_lines {
	const char *name;           /* the files: DIR/NAME.svg, NAME.dat, NAME.gp */
	const char *title, *source; /* the title's two lines: what, and where it comes from */
	const char *xlabel, *ylabel;
	size_t nx, nseries;
	const double *x;           /* [nx], ascending */
	const char *const *series; /* [nseries] names, in the key */
	const double *y;           /* [nseries * nx], series by series */
	double shade_lo, shade_hi; /* the x range shaded; shade_lo > shade_hi: none */
	const char *shade_label;   /* what the shade is, in the key */
};

/*
 * plot_lines - draw @p into @dir (which must exist) with gnuplot. Prints
 * the file written on stderr. Returns 0, or -1 with the reason on stderr
 * (gnuplot missing or failing, @dir not writable); @cmd names the
 * subcommand in messages.
 */
int plot_lines(const struct plot_lines *p, const char *dir, const char *cmd);

#endif
