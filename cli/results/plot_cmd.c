/* SPDX-License-Identifier: MIT */
/*
 * fpulab plot DIR FILE...: an SVG per experiment of result files, replay rows
 * as summary --plot draws them (common/plot.c draws them).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/plot.h"
#include "common/result_file.h"
#include "common/util.h"

int cmd_plot(int argc, char **argv)
{
	json_t *rows;
	char err[512];
	int plots;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: fpulab plot DIR FILE...\n"
		       "Writes an SVG plot per experiment of the result files (JSON lines of run,\n"
		       "replay or host) into DIR, with gnuplot; each beside its .dat and .gp.\n"
		       "Replay rows as `fpulab summary --plot` draws them: a bar group per\n"
		       "workload, a bar per policy at the geometric mean over its traces of at\n"
		       "least %d switches (`fpulab replay TRACE... --plot DIR`: by configuration).\n"
		       "Exit status: 0 plotted; 1 no row to plot, or a plot could not be made;\n"
		       "2 usage error (also a DIR that is not a directory or cannot be made, a\n"
		       "FILE unreadable or not fpulab's rows).\n",
		       REPLAY_MIN_SWITCHES);
		return 0;
	}
	if (argc < 3)
		return usage_error("plot", "needs a directory and at least one result file");
	/* before the files are read: a result file given first is a usage error */
	if (plot_dir_prepare_as(argv[1], "DIR", err, sizeof(err)))
		return usage_error("plot",
				   "%s (the first argument is where the plots go: fpulab "
				   "plot DIR FILE...)",
				   err);
	rows = json_array();
	for (int i = 2; i < argc; i++) {
		json_t *got = result_file_load(argv[i], err, sizeof(err));
		if (!got) {
			fprintf(stderr, "fpulab plot: %s\n", err);
			json_decref(rows);
			return 2;
		}
		json_array_extend(rows, got);
		json_decref(got);
	}
	plots = plot_results(rows, argv[1], "plot");
	json_decref(rows);
	if (plots == 0)
		fprintf(stderr, "fpulab plot: no row has a figure to plot\n");
	return plots > 0 ? 0 : 1;
}
