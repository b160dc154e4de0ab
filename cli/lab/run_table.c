/* SPDX-License-Identifier: MIT */
/* Table, JSON lines and CSV. JSON and CSV share one list of keys per row. */
#include "run_table.h"
#include "common/catalog.h"
#include "common/result_file.h"
#include "common/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool report_ratio_meaningful(const struct report *r, const struct result_row *row)
{
	return row->has_vs_eager && r->clock->timed &&
	       experiment_is_timed(row->median.experiment) &&
	       !(row->present & (UINT64_C(1) << RESULT_cost));
}

/* What the guest measured its TSC against, as the table's header says it. */
const char *clock_ref_description(const char *ref)
{
	return !strcmp(ref, "hpet")       ? "the HPET"
	       : !strcmp(ref, "pm-timer") ? "the ACPI PM timer"
	       : !strcmp(ref, "pit")      ? "the PIT"
	       : !strcmp(ref, "none")     ? "its APIC timer, taken as 1 GHz"
					  : "its APIC timer";
}

/* A costs row's ticks per operation in ns at the guest's TSC rate: not
 * under --icount (ticks are instructions), nor without the rate. */
static bool cost_ns(const struct report *r, const struct result_row *row, double ticks, double *ns)
{
	const struct guest_hello *h = r->hello;

	if (!(row->present & (UINT64_C(1) << RESULT_cost)) || !row->ticks_per || !h ||
	    !(h->present & (UINT64_C(1) << HELLO_tsc_khz)) || !h->tsc_khz || !r->clock->timed)
		return false;
	*ns = ticks * 1e6 / (double)h->tsc_khz;
	return true;
}

/* ---- one row as a JSON object (JSON and CSV) ---- */

static void put(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

static json_t *string_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* @t rounded to @decimals digits after the point, or null. */
static json_t *real_or_null(bool have, double t, int decimals)
{
	double scale = decimals == 1 ? 10.0 : 1000.0;
	return have ? json_real(round(t * scale) / scale) : json_null();
}

/* The row's ticks as @figure's median, min and max (result_file.h), or nulls unless @have. */
static void put_ticks(json_t *o, const struct result_row *row, const char *figure, bool have)
{
	result_put_stats(o, figure, real_or_null(have, row->ticks_median, 1),
			 real_or_null(have, row->ticks_min, 1),
			 real_or_null(have, row->ticks_max, 1));
}

static void put_field(json_t *o, const struct result_row *row, enum result_field f)
{
	const struct record_field *rf = &result_fields[f];

	if (!(row->present & (UINT64_C(1) << f)))
		put(o, rf->name, NULL);
	else if (rf->type == FIELD_STRING)
		put(o, rf->name, json_string(result_string(&row->median, f)));
	else
		put(o, rf->name, json_integer((json_int_t)result_count(&row->median, f)));
}

/* The guest's word for how it booted and what its clocks are, where it said them. */
static void put_hello_facts(json_t *o, const struct guest_hello *h)
{
	static const enum hello_field strings[] = { HELLO_boot, HELLO_clock_ref, HELLO_hypervisor };
	static const enum hello_field counts[] = { HELLO_apic_khz, HELLO_tsc_invariant };

	for (size_t i = 0; h && i < sizeof(strings) / sizeof(strings[0]); i++)
		if (h->present & (UINT64_C(1) << strings[i]))
			put(o, hello_fields[strings[i]].name,
			    json_string((const char *)h + hello_fields[strings[i]].offset));
	for (size_t i = 0; h && i < sizeof(counts) / sizeof(counts[0]); i++) {
		uint64_t v;
		if (!(h->present & (UINT64_C(1) << counts[i])))
			continue;
		memcpy(&v, (const char *)h + hello_fields[counts[i]].offset, sizeof(v));
		put(o, hello_fields[counts[i]].name,
		    counts[i] == HELLO_tsc_invariant ? json_boolean(v)
						     : json_integer((json_int_t)v));
	}
}

static json_t *row_object(struct report *r, const struct result_row *row)
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
	const struct guest_hello *h = r->hello;
	uint64_t done = UINT64_C(1) << RESULT_repeat; /* an index, meaningless once summarised */
	bool cost = row->present & (UINT64_C(1) << RESULT_cost);
	bool rt = !cost && row->ticks_per && !strcmp(row->ticks_per, "round_trip");
	bool sw = row->ticks_per && !strcmp(row->ticks_per, "switch");
	double ns[3];
	bool have_xcr0 = h && (h->present & (UINT64_C(1) << HELLO_xcr0));
	bool have_khz = h && (h->present & (UINT64_C(1) << HELLO_tsc_khz));
	char xcr0[24];
	json_t *o = json_object();

	if (!o)
		abort();
	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) {
		put_field(o, row, first[i]);
		done |= UINT64_C(1) << first[i];
	}
	put(o, "accel", json_string(r->accel));
	put(o, "clock", json_string(r->clock->key));
	put(o, RESULT_RUNS, json_integer(row->repeats));
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		put_field(o, row, counts[i]);
		done |= UINT64_C(1) << counts[i];
	}
	put_ticks(o, row, "ticks_per_round_trip", rt);
	put_ticks(o, row, "ticks_per_switch", sw);
	if (cost) /* costs: per operation (a trap or IPI round trip, one CR0 write) */
		put_ticks(o, row, "ticks_per_op", row->ticks_per != NULL);
	put(o, "ticks_per", string_or_null(cost && row->ticks_per ? "operation" : row->ticks_per));
	/* what the ticks are per (a unit of FP work, a call, an operation), from abi.h */
	const struct fpulab_experiment *xi = experiment_info(row->median.experiment);
	if (xi && experiment_is_timed(row->median.experiment)) {
		char unit[96]; /* abi.h's, in this run's clock: instructions under --icount */
		put(o, "unit", json_string(clock_unit(r->clock, xi->unit, unit, sizeof(unit))));
	}
	for (int f = 0; f < RESULT_FIELD_COUNT; f++)
		if (!(done & (UINT64_C(1) << f)))
			put_field(o, row, (enum result_field)f);
	put(o, "integrity_errors_all_runs",
	    (row->present & (UINT64_C(1) << RESULT_integrity_errors))
		    ? json_integer((json_int_t)row->integrity_errors_all_runs)
		    : NULL);
	put(o, "counts_identical", json_boolean(row->counts_identical));
	put(o, "vs_eager", real_or_null(report_ratio_meaningful(r, row), row->vs_eager, 3));
	put(o, "machine", json_string(r->machine));
	put(o, "qemu_accel", string_or_null(r->accel_arg)); /* NULL: imported, no QEMU */
	put(o, "qemu_cpu", string_or_null(r->qemu_cpu));
	put(o, "pinned", string_or_null(r->pinned));
	put(o, "save_insn", string_or_null(h ? h->insn : NULL));
	put(o, "apic", string_or_null(h ? h->apic : NULL));
	snprintf(xcr0, sizeof(xcr0), "0x%" PRIx64, have_xcr0 ? h->xcr0 : 0);
	put(o, "xcr0", have_xcr0 ? json_string(xcr0) : NULL);
	put(o, "tsc_khz", have_khz ? json_integer((json_int_t)h->tsc_khz) : NULL);
	put(o, "clock_label", json_string(r->clock_label ? r->clock_label : r->clock->ticks_line));
	put_hello_facts(o, h);
	if (cost) { /* ns at the guest's TSC rate (tsc_khz) */
		bool have = cost_ns(r, row, row->ticks_median, &ns[0]) &&
			    cost_ns(r, row, row->ticks_min, &ns[1]) &&
			    cost_ns(r, row, row->ticks_max, &ns[2]);
		result_put_stats(o, "ns_per_op", real_or_null(have, ns[0], 1),
				 real_or_null(have, ns[1], 1), real_or_null(have, ns[2], 1));
	}
	put(o, "integrity_reports", report_integrity_of_row(r, row, r->out->format == OUTPUT_CSV));
	return o;
}

/* ---- table ---- */

static const struct output_column table_columns[] = {
	{ "policy", NULL, -12, 0 },      { "placement", NULL, -10, 0 },
	{ "fp", NULL, -5, 0 },           { "regset", NULL, -6, 0 },
	{ "rt", "rt/run", 11, 0 },       { "switches", "switches/run", 12, 0 },
	{ "nm", "#NM/run", 9, 0 },       { "ts", "TS/run", 8, 0 }, /* CR0.TS writes */
	{ "saves", "saves/run", 10, 0 }, { "restores", "restores/run", 12, 0 },
	{ "ipis", "IPIs/run", 9, 0 },    { "integrity", "integrity errs", 14, 0 },
	{ "median", NULL, 15, 0 }, /* its title: per round trip or per switch */
	{ "min", NULL, 10, 0 },          { "max", NULL, 10, 0 },
	{ "ratio", "vs eager", 8, 0 },   { "runs", NULL, 5, 0 },
};
#define TABLE_COLUMNS (sizeof(table_columns) / sizeof(table_columns[0]))

/* Rows with the sleeping lock's counts (docs/sleeping-lock.md). */
static const struct output_column lock_table_columns[] = {
	{ "policy", NULL, -12, 0 },
	{ "tasks", NULL, 5, 0 },
	{ "variant", NULL, -16, 0 },
	{ "fp", NULL, -5, 0 },
	{ "rt", "ops/run", 7, 0 },
	{ "switches", "switches/run", 12, 0 },
	{ "nm", "#NM/run", 8, 0 },
	{ "saves", "saves/run", 9, 0 },
	{ "restores", "restores/run", 12, 0 },
	{ "sleeps", "sleeps/run", 10, 0 },
	{ "wakeups", "wakeups/run", 11, 0 },
	{ "retaken", "retaken/run", 11, 0 },
	{ "integrity", "integrity errs", 14, 0 },
	{ "median", "ticks/op median", 15, 0 },
	{ "min", NULL, 10, 0 },
	{ "max", NULL, 10, 0 },
	{ "ms", "ms/run", 9, 0 },
	{ "ops_per_s", "ops/s", 9, 0 },
	{ "ratio", "vs eager", 8, 0 },
	{ "runs", NULL, 5, 0 },
};
#define LOCK_TABLE_COLUMNS (sizeof(lock_table_columns) / sizeof(lock_table_columns[0]))

/* Rows of the costs experiment: one per cost. */
static const struct output_column cost_table_columns[] = {
	{ "cost", NULL, -10, 0 },
	{ "policy", NULL, -12, 0 },
	{ "rt", "ops/run", 9, 0 },
	{ "nm", "#NM/run", 9, 0 },
	{ "ipis", "IPIs/run", 9, 0 },
	{ "median", "ticks/op median", 15, 0 },
	{ "min", NULL, 10, 0 },
	{ "max", NULL, 10, 0 },
	{ "base", "base ticks/op", 13, 0 },
	{ "ns", "ns/op median", 12, 0 },
	{ "ns_min", "ns min", 9, 0 },
	{ "ns_max", "ns max", 9, 0 },
	{ "source", NULL, -9, 0 },
	{ "runs", NULL, 5, 0 },
};
#define COST_TABLE_COLUMNS (sizeof(cost_table_columns) / sizeof(cost_table_columns[0]))

/*
 * What the table's ticks are per, in abi.h's words for a timed experiment
 * (fp-vs-spinner's "unit of FP work (1000 ADDPDs)", kernel-checksum's
 * "call"), else the row's own (round trip, switch, operation); and the
 * short form its column title and notes use.
 */
static void ticks_words(struct report *r, const struct result_row *first, bool per_sw)
{
	static const char ticks_per[] = "TSC ticks per ";
	const struct fpulab_experiment *xi = experiment_info(first->median.experiment);
	const char *per = r->ticks_per_header;

	if (!per_sw && xi && experiment_is_timed(first->median.experiment) &&
	    !strncmp(xi->unit, ticks_per, sizeof(ticks_per) - 1))
		per = xi->unit + sizeof(ticks_per) - 1;
	r->ticks_per_text = per;
	if (!strcmp(per, "round trip") || !strcmp(per, "switch") || !strcmp(per, "operation"))
		snprintf(r->ticks_short, sizeof(r->ticks_short), "%s",
			 per[0] == 'r'   ? "rt"
			 : per[0] == 's' ? "sw"
					 : "op");
	else
		snprintf(r->ticks_short, sizeof(r->ticks_short), "%.*s", (int)strcspn(per, " "),
			 per);
	snprintf(r->ticks_title, sizeof(r->ticks_title), "ticks/%s median", r->ticks_short);
	/* the loop's count in the same words: fp-vs-spinner's units of work, kernel-checksum's calls */
	if (per == r->ticks_per_header)
		snprintf(r->count_title, sizeof(r->count_title), "rt/run");
	else
		snprintf(r->count_title, sizeof(r->count_title), "%ss/run", r->ticks_short);
}

static void write_table_header(struct report *r, const struct result_row *first)
{
	const struct guest_hello *h = r->hello;
	bool per_sw = first->ticks_per && !strcmp(first->ticks_per, "switch");
	char untimed[128] = "", configs[48] = "", apic[96] = "", xcr0[32] = "", insn[96] = "",
	     khz[128] = "";

	r->lock_columns = first->present & (UINT64_C(1) << RESULT_sleeps);
	r->cost_columns = first->present & (UINT64_C(1) << RESULT_cost);
	r->ticks_per_header = per_sw                               ? "switch"
			      : r->lock_columns || r->cost_columns ? "operation"
								   : "round trip";
	ticks_words(r, first, per_sw);
	if (r->cost_columns) {
		memcpy(r->columns, cost_table_columns, sizeof(cost_table_columns));
		output_columns(r->out, r->columns, COST_TABLE_COLUMNS);
	} else if (r->lock_columns) {
		memcpy(r->columns, lock_table_columns, sizeof(lock_table_columns));
		output_columns(r->out, r->columns, LOCK_TABLE_COLUMNS);
	} else {
		memcpy(r->columns, table_columns, sizeof(table_columns));
		r->columns[4].title = r->count_title;
		r->columns[12].title = r->ticks_title;
		output_columns(r->out, r->columns, TABLE_COLUMNS);
	}

	if (r->expected_configs)
		snprintf(configs, sizeof(configs), ", %u configuration%s", r->expected_configs,
			 plural(r->expected_configs));
	output_comment(r->out, "fpulab run: experiment %s%s", first->median.experiment, configs);
	if (h && h->apic[0])
		snprintf(apic, sizeof(apic), "; guest APIC %s", h->apic);
	if (h && (h->present & (UINT64_C(1) << HELLO_xcr0)))
		snprintf(xcr0, sizeof(xcr0), ", XCR0 0x%" PRIx64, h->xcr0);
	if (h && h->insn[0])
		snprintf(insn, sizeof(insn), ", save instruction %s", h->insn);
	if (r->accel_arg)
		output_comment(r->out, "QEMU %s, accel %s (-accel %s), -cpu %s, %u CPU%s%s%s%s",
			       r->machine, r->accel, r->accel_arg, r->qemu_cpu, r->cpus,
			       plural(r->cpus), apic, xcr0, insn);
	else /* import-serial: what the guest said of itself */
		output_comment(r->out,
			       "machine %s (its serial log: no QEMU command line), %u CPU%s%s%s%s",
			       r->machine, r->cpus, plural(r->cpus), apic, xcr0, insn);
	if (r->pinned_header)
		output_comment(r->out, "vCPU threads pinned: %s", r->pinned_header);
	if (h && (h->present & (UINT64_C(1) << HELLO_tsc_khz)) && r->clock->timed)
		snprintf(khz, sizeof(khz),
			 "; guest TSC %" PRIu64 " kHz (measured by the guest against %s)",
			 h->tsc_khz, clock_ref_description(h->clock_ref));
	output_comment(r->out, "ticks: %s%s",
		       r->clock_label ? r->clock_label : r->clock->ticks_line, khz);
	output_comment(r->out,
		       "each row: one configuration under one policy; counts are those of one run,"
		       " the median run (median ticks/%s) of the 'runs' column; integrity errors"
		       " are summed over all runs;",
		       r->ticks_short);
	if (r->cost_columns)
		snprintf(untimed, sizeof(untimed),
			 "no vs eager: one policy runs, the costs do not go through libfpu");
	else if (experiment_info(first->median.experiment) &&
		 !experiment_is_timed(first->median.experiment))
		snprintf(untimed, sizeof(untimed),
			 "vs eager: not shown for %s (a correctness run, not a timing)",
			 first->median.experiment);
	output_comment(r->out, "ticks are per %s: median, min and max over the runs; %s",
		       r->ticks_per_text, untimed[0] ? untimed : r->clock->vs_eager);
	if (r->cost_columns)
		output_comment(
			r->out,
			"costs: nm-trap = an #NM round trip from ring 3 (a CLTS-only handler)"
			" minus the same loop without the trap; cr0-write = one MOV to CR0"
			" (TS), minus CR0 reads; ipi = a call IPI to CPU 1 and its"
			" acknowledgement; ns/op at the guest's TSC rate above; base = the"
			" subtracted loop; source: %s",
			r->clock->costs_note);
	if (r->lock_columns)
		output_comment(r->out,
			       "sleeping lock: sleeps = wait-loop passes that called schedule(),"
			       " wakeups = unlocks that woke a waiter, retaken = passes after a"
			       " wake-up that found the lock taken again; ms/run and ops/s from the"
			       " median, in the clock above%s",
			       r->clock->timed ? "" : " (none here: instructions are no time)");
}

static void cell(json_t *o, const char *key, const char *text)
{
	put(o, key, json_string(text));
}

static void cell_count(json_t *o, const char *key, const struct result_row *row,
		       enum result_field f)
{
	char buf[24];

	if (!(row->present & (UINT64_C(1) << f)))
		return cell(o, key, "-");
	if (f == RESULT_round_trips && row->median.round_trips == 0)
		return cell(o, key,
			    "-"); /* stress has no round trips: a missing value is never 0 */
	snprintf(buf, sizeof(buf), "%" PRIu64, result_count(&row->median, f));
	cell(o, key, buf);
}

static void cell_string(json_t *o, const char *key, const struct result_row *row,
			enum result_field f)
{
	cell(o, key, (row->present & (UINT64_C(1) << f)) ? result_string(&row->median, f) : "-");
}

static void cell_ticks(json_t *o, const char *key, bool have, double t)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%.1f", t);
	cell(o, key, have ? buf : "-");
}

/* The table's row: every cell as the table shows it. */
static json_t *table_row(const struct report *r, const struct result_row *row)
{
	char buf[24];
	bool ticks = row->ticks_per &&
		     !strcmp(row->ticks_per,
			     !strcmp(r->ticks_per_header, "switch") ? "switch" : "round_trip");
	const struct guest_hello *h = r->hello;
	json_t *o = json_object();

	if (!o)
		abort();
	cell_string(o, "policy", row, RESULT_policy);
	cell_string(o, "placement", row, RESULT_placement);
	cell_string(o, "fp", row, RESULT_fp_users);
	cell_string(o, "regset", row, RESULT_regset);
	cell_count(o, "rt", row, RESULT_round_trips);
	cell_count(o, "switches", row, RESULT_switches);
	cell_count(o, "nm", row, RESULT_nm_traps);
	cell_count(o, "ts", row, RESULT_ts_writes);
	cell_count(o, "saves", row, RESULT_saves);
	cell_count(o, "restores", row, RESULT_restores);
	cell_count(o, "ipis", row, RESULT_ipis);
	snprintf(buf, sizeof(buf), "%" PRIu64, row->integrity_errors_all_runs);
	cell(o, "integrity", (row->present & (UINT64_C(1) << RESULT_integrity_errors)) ? buf : "-");
	cell_ticks(o, "median", ticks, row->ticks_median);
	cell_ticks(o, "min", ticks, row->ticks_min);
	cell_ticks(o, "max", ticks, row->ticks_max);
	snprintf(buf, sizeof(buf), "%.2fx", row->vs_eager);
	cell(o, "ratio", ticks && report_ratio_meaningful(r, row) ? buf : "-");
	snprintf(buf, sizeof(buf), "%u%s", row->repeats, row->counts_identical ? "" : "*");
	cell(o, "runs", buf);
	if (r->cost_columns) {
		double ns[3] = { 0, 0, 0 };
		bool have = cost_ns(r, row, row->ticks_median, &ns[0]) &&
			    cost_ns(r, row, row->ticks_min, &ns[1]) &&
			    cost_ns(r, row, row->ticks_max, &ns[2]);
		cell_string(o, "cost", row, RESULT_cost);
		if (row->present & (UINT64_C(1) << RESULT_base_ticks) && row->median.round_trips) {
			/* cr0-write's base is N pairs of reads for 2N writes: per write */
			snprintf(buf, sizeof(buf), "%.1f",
				 (double)row->median.base_ticks / (double)row->median.round_trips);
			cell(o, "base", buf);
		} else {
			cell(o, "base", "-");
		}
		cell_ticks(o, "ns", have, ns[0]);
		cell_ticks(o, "ns_min", have, ns[1]);
		cell_ticks(o, "ns_max", have, ns[2]);
		cell(o, "source", r->clock->source);
		return o;
	}
	if (!r->lock_columns)
		return o;
	cell_count(o, "tasks", row, RESULT_tasks);
	cell_string(o, "variant", row, RESULT_variant);
	cell_count(o, "sleeps", row, RESULT_sleeps);
	cell_count(o, "wakeups", row, RESULT_wakeups);
	cell_count(o, "retaken", row, RESULT_wake_retaken);
	/* The seed's "average runtime": the median's ticks x operations over
	 * the guest's TSC kHz; ops/s its inverse; in the clock of the header,
	 * when its ticks are time (not under --icount). */
	if (ticks && r->clock->timed && h && (h->present & (UINT64_C(1) << HELLO_tsc_khz)) &&
	    h->tsc_khz && row->ticks_median > 0) {
		snprintf(buf, sizeof(buf), "%.3f",
			 row->ticks_median * (double)row->median.round_trips / (double)h->tsc_khz);
		cell(o, "ms", buf);
		snprintf(buf, sizeof(buf), "%.0f", (double)h->tsc_khz * 1000.0 / row->ticks_median);
		cell(o, "ops_per_s", buf);
	} else {
		cell(o, "ms", "-");
		cell(o, "ops_per_s", "-");
	}
	return o;
}

/* ---- writing ---- */

int report_rows(void *ctx, const struct result_row *rows, size_t n)
{
	struct report *r = ctx;

	for (size_t i = 0; i < n; i++) {
		const struct result_row *row = &rows[i];
		if (r->out->format == OUTPUT_TABLE && !r->header_written)
			write_table_header(r, row);
		r->header_written = true;
		if (r->out->plot_rows) /* the plot reads the JSON row, whatever the format */
			output_plot_row(r->out, row_object(r, row));
		if (r->out->format == OUTPUT_TABLE) /* its footnotes */
			report_integrity_note_row(r, row);
		/* A row that cannot be written is kept: output_close() prints it. */
		output_row(r->out,
			   r->out->format == OUTPUT_TABLE ? table_row(r, row) : row_object(r, row));
		r->rows_written++;
		r->runs_written += row->repeats;
		r->counts_varied |= !row->counts_identical;
		if (row->integrity_errors_all_runs) {
			r->rows_with_integrity_errors++;
			r->integrity_errors += row->integrity_errors_all_runs;
		}
	}
	report_integrity_rows_done(r);
	return 0;
}

void report_end(struct report *r)
{
	if (r->out->format != OUTPUT_TABLE || !r->header_written)
		return;
	output_comment(r->out, "%zu row%s summarising %zu run%s", r->rows_written,
		       plural(r->rows_written), r->runs_written, plural(r->runs_written));
	if (r->counts_varied)
		output_comment(r->out, "* counts differed between runs of this row: the median"
				       " run's are shown");
	report_integrity_notes(r);
}
