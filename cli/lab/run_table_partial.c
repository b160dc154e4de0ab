/* SPDX-License-Identifier: MIT */
/* The last line of a run that stopped early: its results are partial. */
#include <stdio.h>

#include "run_table.h"

void report_partial(struct report *r, const char *reason, size_t done, unsigned expected,
		    size_t pending_runs)
{
	char of[32] = "", line[512];
	struct output *o = r->out;

	if (expected)
		snprintf(of, sizeof(of), " of %u", expected);
	report_integrity_notes(r);
	snprintf(line, sizeof(line),
		 "PARTIAL: %s; %zu%s configuration%s finished, %zu run%s of an unfinished one not "
		 "reported",
		 reason, done, of, (expected ? expected : done) == 1 ? "" : "s", pending_runs,
		 pending_runs == 1 ? "" : "s");
	if (o->format == OUTPUT_TABLE) {
		output_comment(o, "%s", line);
	} else if (o->format == OUTPUT_CSV) {
		/* Unquoted, so that it starts with '#' for readers that skip comments. */
		char note[sizeof(line) + 2];
		snprintf(note, sizeof(note), "# %s", line);
		for (char *c = note; *c; c++)
			*c = *c == ','                  ? ';'
			     : *c == '"'                ? '\''
			     : *c == '\n' || *c == '\r' ? ' '
							: *c;
		output_csv_note(o, note);
	} else if (o->format == OUTPUT_JSON) {
		json_t *row = json_pack("{s:b, s:s, s:I, s:o, s:I}", "partial", 1, "reason", reason,
					"configurations_done", (json_int_t)done,
					"configurations_expected",
					expected ? json_integer(expected) : json_null(),
					"unfinished_runs", (json_int_t)pending_runs);
		if (row)
			output_row(o, row);
	}
	fprintf(stderr, "fpulab: PARTIAL results in %s: %s; %zu%s configuration%s finished\n",
		o->path ? o->path : "stdout", reason, done, of,
		(expected ? expected : done) == 1 ? "" : "s");
}
