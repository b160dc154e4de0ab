/* SPDX-License-Identifier: MIT */
/*
 * The guest's integrity records (abi.h): the first few wrong checks of each
 * run, on stderr as they come, then with the rows they belong to (JSON
 * integrity_reports, CSV integrity_reports) and in the table's footnotes
 * with the seed and command that replay them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "run_table.h"
#include "common/util.h"

void report_integrity(struct report *r, const struct guest_integrity *g, const char *run)
{
	fprintf(stderr,
		"fpulab: integrity: %s: cpu %" PRIu64 " task %" PRIu64 " %s reg %" PRIu64
		": expected %s, found %s (%" PRIu64 " register%s wrong)\n",
		run, g->cpu, g->task, g->regset, g->reg, g->expected, g->found, g->wrong,
		plural(g->wrong));
	if (r->nintegrity == r->integrity_cap) {
		r->integrity_cap = r->integrity_cap ? 2 * r->integrity_cap : 16;
		r->integrity = realloc(r->integrity, r->integrity_cap * sizeof(*r->integrity));
		if (!r->integrity)
			abort();
	}
	r->integrity[r->nintegrity++] = *g;
}

void report_integrity_run_ended(struct report *r)
{
	r->integrity_ran = r->nintegrity;
}

/* "cpu 1 task 7 x87 reg 0: expected 0x...@ found 0x... (8 registers wrong)", @ = @comma. */
static char *describe(const struct guest_integrity *g, const char *comma)
{
	return xasprintf("cpu %" PRIu64 " task %" PRIu64 " %s reg %" PRIu64 ": expected %s%s found "
			 "%s (%" PRIu64 " register%s wrong)",
			 g->cpu, g->task, g->regset, g->reg, g->expected, comma, g->found, g->wrong,
			 plural(g->wrong));
}

/* "lazy", "lazy same-cpu fp=one sse": the row's policy and what differs. */
static char *row_label(const struct result_row *row)
{
	const struct guest_result *m = &row->median;
	bool place = m->placement[0] && strcmp(m->placement, "-");
	bool fp = m->fp_users[0] && strcmp(m->fp_users, "all");
	bool rs = m->regset[0] && strcmp(m->regset, "all");

	return xasprintf("%s%s%s%s%s%s%s", m->policy, place ? " " : "", place ? m->placement : "",
			 fp ? " fp=" : "", fp ? m->fp_users : "", rs ? " " : "",
			 rs ? m->regset : "");
}

static void add_note(struct report *r, char *note)
{
	r->integrity_notes = realloc(r->integrity_notes,
				     (r->nintegrity_notes + 1) * sizeof(*r->integrity_notes));
	if (!r->integrity_notes)
		abort();
	r->integrity_notes[r->nintegrity_notes++] = note;
}

/* @row's reports among the configuration being written, at most FPULAB_INTEGRITY_RECORDS. */
static size_t row_reports(const struct report *r, const struct result_row *row,
			  const struct guest_integrity *out[FPULAB_INTEGRITY_RECORDS])
{
	size_t n = 0;

	for (size_t i = r->integrity_done; i < r->integrity_ran && n < FPULAB_INTEGRITY_RECORDS;
	     i++) {
		const struct guest_integrity *g = &r->integrity[i];
		if (!strcmp(g->policy, row->median.policy) &&
		    !strcmp(g->experiment, row->median.experiment))
			out[n++] = g;
	}
	return n;
}

json_t *report_integrity_of_row(const struct report *r, const struct result_row *row, bool csv)
{
	const struct guest_integrity *reports[FPULAB_INTEGRITY_RECORDS];
	size_t n = row_reports(r, row, reports);
	json_t *list = json_array();
	char *text = NULL;

	if (!list)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct guest_integrity *g = reports[i];
		if (!csv) {
			json_array_append_new(
				list,
				json_pack("{s:I, s:I, s:I, s:s, s:I, s:s, s:s, s:I}", "repeat",
					  (json_int_t)g->repeat, "cpu", (json_int_t)g->cpu, "task",
					  (json_int_t)g->task, "regset", g->regset, "reg",
					  (json_int_t)g->reg, "expected", g->expected, "found",
					  g->found, "registers_wrong", (json_int_t)g->wrong));
			continue;
		}
		/* No commas: the cell needs no quotes, and naive readers still split right. */
		char *d = describe(g, ""), *next;
		next = xasprintf("%s%srepeat %" PRIu64 ": %s", text ? text : "", text ? "; " : "",
				 g->repeat, d);
		free(d);
		free(text);
		text = next;
	}
	if (csv || !json_array_size(list)) {
		json_decref(list);
		list = text ? json_string(text) : NULL;
	}
	free(text);
	return list;
}

void report_integrity_note_row(struct report *r, const struct result_row *row)
{
	const struct guest_integrity *reports[FPULAB_INTEGRITY_RECORDS];
	size_t n = row_reports(r, row, reports);
	char *label = row_label(row);

	for (size_t i = 0; i < n; i++) {
		const struct guest_integrity *g = reports[i];
		char *d = describe(g, ",");
		add_note(r, xasprintf("  %s, repeat %" PRIu64 ": %s", label, g->repeat, d));
		free(d);
	}
	free(label);
}

void report_integrity_rows_done(struct report *r)
{
	r->integrity_done = r->integrity_ran;
}

void report_integrity_notes(struct report *r)
{
	json_t *p = r->out->provenance;
	const char *seed = json_string_value(json_object_get(p, "random_seed"));
	const char *command = json_string_value(json_object_get(p, "command"));
	bool unfinished = r->integrity_done < r->nintegrity;

	if (r->out->format != OUTPUT_TABLE || (!r->nintegrity_notes && !unfinished))
		return;
	output_comment(r->out,
		       "integrity errors: the first wrong checks of each row (at most %d a run,"
		       " %d a row; docs/stress.md reads the patterns):",
		       FPULAB_INTEGRITY_RECORDS, FPULAB_INTEGRITY_RECORDS);
	for (size_t i = 0; i < r->nintegrity_notes; i++)
		output_comment(r->out, "%s", r->integrity_notes[i]);
	for (size_t i = r->integrity_done; i < r->nintegrity; i++) {
		const struct guest_integrity *g = &r->integrity[i];
		char *d = describe(g, ",");
		output_comment(r->out, "  %s, repeat %" PRIu64 " (unfinished, not in the rows): %s",
			       g->policy, g->repeat, d);
		free(d);
	}
	/* The provenance's command starts at the subcommand ("run ..."). */
	if (command && seed)
		output_comment(r->out, "replay with random seed %s: %s%s%s%s", seed,
			       strncmp(command, "fpulab ", 7) ? "fpulab " : "", command,
			       strstr(command, "--seed") ? "" : " --seed ",
			       strstr(command, "--seed") ? "" : seed);
}

void report_integrity_free(struct report *r)
{
	for (size_t i = 0; i < r->nintegrity_notes; i++)
		free(r->integrity_notes[i]);
	free(r->integrity_notes);
	free(r->integrity);
	r->integrity_notes = NULL;
	r->integrity = NULL;
}
