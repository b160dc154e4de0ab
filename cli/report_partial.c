/* SPDX-License-Identifier: MIT */
/* The last line of a run that stopped early: its results are partial. */
#include <stdio.h>

#include "report.h"

void report_partial(struct report *r, const char *reason, size_t done, unsigned expected,
		    size_t pending_runs)
{
	char of[32] = "";
	struct output *o = r->out;

	if (expected)
		snprintf(of, sizeof(of), " of %u", expected);
	if (o->format == OUTPUT_TABLE) {
		output_comment(o,
			       "PARTIAL: %s; %zu%s configurations finished, %zu run%s of an "
			       "unfinished one not reported",
			       reason, done, of, pending_runs, pending_runs == 1 ? "" : "s");
	} else if (o->format == OUTPUT_JSON) {
		json_t *row = json_pack("{s:b, s:s, s:I, s:o, s:I}", "partial", 1, "reason", reason,
					"configurations_done", (json_int_t)done,
					"configurations_expected",
					expected ? json_integer(expected) : json_null(),
					"unfinished_runs", (json_int_t)pending_runs);
		if (row)
			output_row(o, row);
	}
	fprintf(stderr, "fpulab: PARTIAL results in %s: %s; %zu%s configurations finished%s\n",
		o->path ? o->path : "stdout", reason, done, of,
		o->format == OUTPUT_CSV ? " (CSV has no place to say so: only here)" : "");
}
