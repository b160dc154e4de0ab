/* SPDX-License-Identifier: MIT */
/* Table, JSON lines and CSV. JSON and CSV share one list of keys per row. */
#include "report.h"
#include "catalog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *clock_description(const char *clock)
{
	if (!strcmp(clock, "icount"))
		return "INSTRUCTION COUNT (QEMU TCG -icount shift=0: 1 tick = 1 guest instruction)"
		       " -- not hardware timings";
	if (!strcmp(clock, "hardware-tsc"))
		return "hardware TSC ticks (KVM)";
	return "EMULATED TSC ticks under QEMU TCG -- not hardware timings";
}

bool report_ratio_meaningful(const struct report *r, const struct result_row *row)
{
	return row->has_vs_eager && strcmp(r->clock, "icount") != 0 &&
	       experiment_is_timed(row->median.experiment);
}

/* ---- one row as key/value pairs (JSON and CSV) ---- */

enum value_kind { VALUE_NULL, VALUE_STRING, VALUE_NUMBER, VALUE_BOOL };
struct row_value {
	const char *key;
	enum value_kind kind;
	const char *text; /* buf, or a string that outlives the row (put_string) */
	char buf[RECORD_WORD_MAX + 16];
};
#define ROW_VALUES_MAX (RESULT_FIELD_COUNT + 24)

struct row_values {
	struct row_value v[ROW_VALUES_MAX];
	size_t n;
};

static void put(struct row_values *rv, const char *key, enum value_kind kind, const char *text)
{
	struct row_value *v = &rv->v[rv->n++];
	v->key = key;
	v->kind = kind;
	snprintf(v->buf, sizeof(v->buf), "%s", text ? text : "");
	v->text = v->buf;
}

/* A string that may be longer than a record word, not copied. */
static void put_string(struct row_values *rv, const char *key, const char *text)
{
	struct row_value *v = &rv->v[rv->n++];
	v->key = key;
	v->kind = text ? VALUE_STRING : VALUE_NULL;
	v->text = text ? text : "";
}

static void put_u64(struct row_values *rv, const char *key, uint64_t n)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%" PRIu64, n);
	put(rv, key, VALUE_NUMBER, buf);
}

static void put_ticks(struct row_values *rv, const char *key, bool have, double t)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%.1f", t);
	put(rv, key, have ? VALUE_NUMBER : VALUE_NULL, buf);
}

static void put_field(struct row_values *rv, const struct result_row *row, enum result_field f)
{
	const struct record_field *rf = &result_fields[f];

	if (!(row->present & (UINT64_C(1) << f)))
		put(rv, rf->name, VALUE_NULL, NULL);
	else if (rf->type == FIELD_STRING)
		put(rv, rf->name, VALUE_STRING, result_string(&row->median, f));
	else
		put_u64(rv, rf->name, result_count(&row->median, f));
}

static void row_values(const struct report *r, const struct result_row *row, struct row_values *rv)
{
	/* The keys people read first, then every other abi.h field in its order. */
	static const enum result_field first[] = {
		RESULT_experiment, RESULT_policy, RESULT_placement,
		RESULT_fp_users,   RESULT_regset, RESULT_cpus,
	};
	static const enum result_field counts[] = {
		RESULT_round_trips, RESULT_switches, RESULT_nm_traps,         RESULT_saves,
		RESULT_restores,    RESULT_ipis,     RESULT_integrity_errors,
	};
	uint64_t done = UINT64_C(1) << RESULT_repeat; /* an index, meaningless once summarised */
	bool rt = row->ticks_per && !strcmp(row->ticks_per, "round_trip");
	bool sw = row->ticks_per && !strcmp(row->ticks_per, "switch");

	rv->n = 0;
	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) {
		put_field(rv, row, first[i]);
		done |= UINT64_C(1) << first[i];
	}
	put(rv, "accel", VALUE_STRING, r->accel);
	put(rv, "clock", VALUE_STRING, r->clock);
	put_u64(rv, "repeats", row->repeats);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		put_field(rv, row, counts[i]);
		done |= UINT64_C(1) << counts[i];
	}
	put_ticks(rv, "ticks_per_round_trip", rt, row->ticks_median);
	put_ticks(rv, "ticks_per_switch", sw, row->ticks_median);
	put_ticks(rv, "ticks_min", row->ticks_per, row->ticks_min);
	put_ticks(rv, "ticks_max", row->ticks_per, row->ticks_max);
	put(rv, "ticks_per", row->ticks_per ? VALUE_STRING : VALUE_NULL, row->ticks_per);
	for (int f = 0; f < RESULT_FIELD_COUNT; f++)
		if (!(done & (UINT64_C(1) << f)))
			put_field(rv, row, (enum result_field)f);
	if (row->present & (UINT64_C(1) << RESULT_integrity_errors))
		put_u64(rv, "integrity_errors_all_runs", row->integrity_errors_all_runs);
	else
		put(rv, "integrity_errors_all_runs", VALUE_NULL, NULL);
	put(rv, "counts_identical", VALUE_BOOL, row->counts_identical ? "true" : "false");
	{
		char buf[32];
		snprintf(buf, sizeof(buf), "%.3f", row->vs_eager);
		put(rv, "vs_eager", report_ratio_meaningful(r, row) ? VALUE_NUMBER : VALUE_NULL,
		    buf);
	}
	put(rv, "machine", VALUE_STRING, r->machine);
	put(rv, "qemu_accel", VALUE_STRING, r->accel_arg);
	put(rv, "qemu_cpu", VALUE_STRING, r->qemu_cpu);
	put_string(rv, "pinned", r->pinned);
	put(rv, "save_insn", r->hello && r->hello->insn[0] ? VALUE_STRING : VALUE_NULL,
	    r->hello ? r->hello->insn : NULL);
	put(rv, "apic", r->hello && r->hello->apic[0] ? VALUE_STRING : VALUE_NULL,
	    r->hello ? r->hello->apic : NULL);
	{
		char buf[24];
		bool have = r->hello && (r->hello->present & (UINT64_C(1) << HELLO_xcr0));
		snprintf(buf, sizeof(buf), "0x%" PRIx64, have ? r->hello->xcr0 : 0);
		put(rv, "xcr0", have ? VALUE_STRING : VALUE_NULL, buf);
		have = r->hello && (r->hello->present & (UINT64_C(1) << HELLO_tsc_khz));
		snprintf(buf, sizeof(buf), "%" PRIu64, have ? r->hello->tsc_khz : 0);
		put(rv, "tsc_khz", have ? VALUE_NUMBER : VALUE_NULL, buf);
	}
}

static void write_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json(FILE *f, const struct row_values *rv)
{
	fputc('{', f);
	for (size_t i = 0; i < rv->n; i++) {
		const struct row_value *v = &rv->v[i];
		if (i)
			fputs(", ", f);
		write_json_string(f, v->key);
		fputs(": ", f);
		if (v->kind == VALUE_STRING)
			write_json_string(f, v->text);
		else if (v->kind == VALUE_NULL)
			fputs("null", f);
		else
			fputs(v->text, f);
	}
	fputs("}\n", f);
}

static void write_csv_cell(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_csv(FILE *f, const struct row_values *rv, bool header)
{
	for (size_t i = 0; i < rv->n; i++) {
		if (i)
			fputc(',', f);
		write_csv_cell(f, header                        ? rv->v[i].key
				  : rv->v[i].kind == VALUE_NULL ? ""
								: rv->v[i].text);
	}
	fputc('\n', f);
}

/* ---- table ---- */

static void write_table_header(struct report *r, FILE *f, const struct result_row *first)
{
	const struct guest_hello *h = r->hello;

	r->ticks_per_header = first->ticks_per && !strcmp(first->ticks_per, "switch")
				      ? "switch"
				      : "round trip";
	fprintf(f, "# fpulab run: experiment %s", first->median.experiment);
	if (r->expected_configs)
		fprintf(f, ", %u configuration%s", r->expected_configs,
			r->expected_configs == 1 ? "" : "s");
	fprintf(f, "\n# QEMU %s, accel %s (-accel %s), -cpu %s, %u CPUs", r->machine, r->accel,
		r->accel_arg, r->qemu_cpu, r->cpus);
	if (h && h->apic[0])
		fprintf(f, "; guest APIC %s", h->apic);
	if (h && (h->present & (UINT64_C(1) << HELLO_xcr0)))
		fprintf(f, ", XCR0 0x%" PRIx64, h->xcr0);
	if (h && h->insn[0])
		fprintf(f, ", save instruction %s", h->insn);
	if (r->pinned_header)
		fprintf(f, "\n# vCPU threads pinned: %s", r->pinned_header);
	fprintf(f, "\n# ticks: %s", clock_description(r->clock));
	if (h && (h->present & (UINT64_C(1) << HELLO_tsc_khz)) && strcmp(r->clock, "icount"))
		fprintf(f,
			"; guest TSC %" PRIu64
			" kHz (measured by the guest against its APIC timer)",
			h->tsc_khz);
	fprintf(f, "\n");
	fprintf(f,
		"# each row: one configuration under one policy; counts are those of one run, the"
		" median run (median ticks/%s) of the 'runs' column; integrity errors are summed"
		" over all runs;\n"
		"# ticks are per %s: median, min and max over the runs; ",
		!strcmp(r->ticks_per_header, "switch") ? "sw" : "rt", r->ticks_per_header);
	if (experiment_info(first->median.experiment) &&
	    !experiment_is_timed(first->median.experiment))
		fprintf(f, "vs eager: not shown for %s (a correctness run, not a timing)\n",
			first->median.experiment);
	else if (!strcmp(r->clock, "icount"))
		fprintf(f,
			"vs eager: not shown under --icount (an XSAVE counts as one instruction)\n");
	else if (!strcmp(r->clock, "emulated-tsc"))
		fprintf(f,
			"vs eager: ratio of emulated medians (this / eager's, same configuration),"
			" ranks policies under emulation only\n");
	else
		fprintf(f, "vs eager = this median / eager's median in the same configuration\n");
	fprintf(f,
		"%-12s %-10s %-5s %-6s %11s %12s %9s %8s %10s %12s %9s %14s %15s %10s %10s %8s %5s\n",
		"policy", "placement", "fp", "regset", "rt/run", "switches/run", "#NM/run",
		"TS/run", "saves/run", "restores/run", "IPIs/run", "integrity errs",
		!strcmp(r->ticks_per_header, "switch") ? "ticks/sw median" : "ticks/rt median",
		"min", "max", "vs eager", "runs");
}

static const char *cell_count(char *buf, size_t len, const struct result_row *row,
			      enum result_field f)
{
	if (!(row->present & (UINT64_C(1) << f)))
		return "-";
	if (f == RESULT_round_trips && row->median.round_trips == 0)
		return "-"; /* stress has no round trips: a missing value is never 0 */
	snprintf(buf, len, "%" PRIu64, result_count(&row->median, f));
	return buf;
}

static const char *cell_string(const struct result_row *row, enum result_field f)
{
	return (row->present & (UINT64_C(1) << f)) ? result_string(&row->median, f) : "-";
}

static void write_table_row(struct report *r, FILE *f, const struct result_row *row)
{
	char c[8][24], t[3][24], ratio[16], runs[16], integ[24];
	bool ticks = row->ticks_per &&
		     !strcmp(row->ticks_per,
			     !strcmp(r->ticks_per_header, "switch") ? "switch" : "round_trip");

	snprintf(t[0], sizeof(t[0]), "%.1f", row->ticks_median);
	snprintf(t[1], sizeof(t[1]), "%.1f", row->ticks_min);
	snprintf(t[2], sizeof(t[2]), "%.1f", row->ticks_max);
	snprintf(ratio, sizeof(ratio), "%.2fx", row->vs_eager);
	snprintf(runs, sizeof(runs), "%u%s", row->repeats, row->counts_identical ? "" : "*");
	snprintf(integ, sizeof(integ), "%" PRIu64, row->integrity_errors_all_runs);
	fprintf(f,
		"%-12s %-10s %-5s %-6s %11s %12s %9s %8s %10s %12s %9s %14s %15s %10s %10s %8s %5s\n",
		cell_string(row, RESULT_policy), cell_string(row, RESULT_placement),
		cell_string(row, RESULT_fp_users), cell_string(row, RESULT_regset),
		cell_count(c[0], 24, row, RESULT_round_trips),
		cell_count(c[1], 24, row, RESULT_switches),
		cell_count(c[2], 24, row, RESULT_nm_traps),
		cell_count(c[7], 24, row, RESULT_ts_writes),
		cell_count(c[3], 24, row, RESULT_saves), cell_count(c[4], 24, row, RESULT_restores),
		cell_count(c[5], 24, row, RESULT_ipis),
		(row->present & (UINT64_C(1) << RESULT_integrity_errors)) ? integ : "-",
		ticks ? t[0] : "-", ticks ? t[1] : "-", ticks ? t[2] : "-",
		ticks && report_ratio_meaningful(r, row) ? ratio : "-", runs);
}

/* ---- writing ---- */

static int flush_out(struct report *r)
{
	if (fflush(r->out) != 0 || ferror(r->out)) {
		if (!r->write_error[0])
			snprintf(r->write_error, sizeof(r->write_error), "cannot write %s: %s",
				 r->output_path ? r->output_path : "the results", strerror(errno));
		return -1;
	}
	return 0;
}

/* The output file is created (or truncated) only when there is a row for it. */
static int open_out(struct report *r)
{
	if (r->out)
		return 0;
	if (!r->output_path) {
		r->out = stdout;
		return 0;
	}
	r->out = fopen(r->output_path, "w");
	if (!r->out) {
		snprintf(r->write_error, sizeof(r->write_error), "cannot write %s: %s",
			 r->output_path, strerror(errno));
		return -1;
	}
	return 0;
}

int report_rows(void *ctx, const struct result_row *rows, size_t n)
{
	struct report *r = ctx;
	struct row_values rv;
	char *text = NULL;
	size_t len = 0, runs = 0, rows_with_errors = 0;
	uint64_t errors = 0;
	bool varied = false, header_was = r->header_written;
	FILE *f;

	if (open_out(r) < 0)
		return -1;
	f = open_memstream(&text, &len); /* whole lines only reach the output */
	if (!f)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct result_row *row = &rows[i];
		if (r->format == FORMAT_TABLE) {
			if (!r->header_written)
				write_table_header(r, f, row);
			write_table_row(r, f, row);
		} else {
			row_values(r, row, &rv);
			if (r->format == FORMAT_CSV && !r->header_written)
				write_csv(f, &rv, true);
			if (r->format == FORMAT_CSV)
				write_csv(f, &rv, false);
			else
				write_json(f, &rv);
		}
		r->header_written = true;
		runs += row->repeats;
		varied |= !row->counts_identical;
		if (row->integrity_errors_all_runs) {
			rows_with_errors++;
			errors += row->integrity_errors_all_runs;
		}
	}
	fclose(f);
	fwrite(text, 1, len, r->out);
	free(text);
	/* Integrity errors count whether or not the rows could be written. */
	r->rows_with_integrity_errors += rows_with_errors;
	r->integrity_errors += errors;
	if (flush_out(r) < 0) {
		r->header_written = header_was;
		return -1;
	}
	r->rows_written += n; /* only rows that really reached the output */
	r->runs_written += runs;
	r->counts_varied |= varied;
	return 0;
}

int report_end(struct report *r)
{
	if (r->format != FORMAT_TABLE || !r->header_written)
		return 0;
	fprintf(r->out, "# %zu rows summarising %zu runs\n", r->rows_written, r->runs_written);
	if (r->counts_varied)
		fprintf(r->out, "# * counts differed between runs of this row: the median run's are"
				" shown\n");
	return flush_out(r);
}
