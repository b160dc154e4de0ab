/* SPDX-License-Identifier: MIT */
/* fpulab run's rows as a table, JSON lines or CSV, through the one result
 * writer (output.h). Each configuration's rows are written and flushed as
 * soon as they are complete. */
#ifndef FPULAB_CLI_LAB_RUN_TABLE_H
#define FPULAB_CLI_LAB_RUN_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "common/clock.h"
#include "common/output.h"
#include "guest_records.h"
#include "run_stats.h"
#include "run_options.h"

struct report {
	struct output *out;             /* opened before the guest boots */
	const char *accel;              /* "tcg" | "kvm" */
	const char *accel_arg;          /* the -accel argument, e.g. "tcg,thread=single" */
	const struct clock_kind *clock; /* emulated TSC (TCG), icount or hardware TSC (KVM) */
	const char *
		clock_label; /* for people: "hardware TSC, bare metal"; NULL: the clock's ticks_line */
	const char *machine;
	const char *qemu_cpu;
	unsigned cpus;
	const char *pinned;              /* vCPU -> host CPU: "0:0,1:1", or "no" */
	const char *pinned_header;       /* for the table: "0->cpu0 1->cpu1", or "no (why)" */
	unsigned expected_configs;       /* 0: unknown */
	const struct guest_hello *hello; /* NULL until the guest said hello */

	bool header_written;
	const char *ticks_per_header;      /* the table's ticks column: per round trip or switch */
	const char *ticks_per_text;        /* ... in abi.h's words ("unit of FP work (...)") */
	char ticks_title[32];              /* its title ("ticks/unit median") */
	char ticks_short[16];              /* "rt", "sw", "op", "unit", "call" */
	char count_title[24];              /* the round trips column's: "rt/run", "units/run" */
	struct output_column columns[24];  /* the table's, report.c */
	bool lock_columns;                 /* the rows carry sleeping-lock counts (sleeps, ...) */
	bool cost_columns;                 /* the rows are the costs experiment's (cost, ns) */
	size_t rows_written, runs_written; /* rows given to the output (kept if it fails) */
	bool counts_varied;
	size_t rows_with_integrity_errors;
	uint64_t integrity_errors;

	/* The guest's integrity records (cli/lab/run_table_integrity.c): [0, integrity_done)
	 * are with their rows, [.., integrity_ran) belong to runs whose result came. */
	struct guest_integrity *integrity;
	size_t nintegrity, integrity_cap, integrity_ran, integrity_done;
	char **integrity_notes; /* the table's footnotes, one per record */
	size_t nintegrity_notes;
};

/* What the guest measured its TSC against (hello clock_ref): "the HPET", ...;
 * "its APIC timer" when it did not say (an older kernel). */
const char *clock_ref_description(const char *ref);

/* rows_ready_fn: write one configuration's rows to report->out. Returns 0: a
 * row the output cannot take is kept for output_close()'s fallback. */
int report_rows(void *report, const struct result_row *rows, size_t n);
/* Whether a row gets a vs-eager ratio: not under --icount (an XSAVE counts as
 * one instruction) nor for stress (a correctness run, one run per policy). */
bool report_ratio_meaningful(const struct report *r, const struct result_row *row);
/*
 * report_partial - the run stopped early (@reason, e.g. "interrupted
 * (SIGINT)"): say so after the rows already written, as the table's last
 * "# PARTIAL: ..." line, a last JSON line {"partial": true, "reason", ...}
 * or a last CSV record whose first field is the table's line, the rest empty,
 * with @done of @expected configurations (0: unknown) finished and
 * @pending_runs runs of an unfinished one not reported; and on stderr.
 * cli/lab/run_table_partial.c.
 */
void report_partial(struct report *r, const char *reason, size_t done, unsigned expected,
		    size_t pending_runs);
/* Closing lines of the table; nothing for JSON and CSV. */
void report_end(struct report *r);

/*
 * Integrity records (abi.h), cli/lab/run_table_integrity.c. report_integrity - one
 * arrived, about @run ("stress, policy lazy (2 of 6)"): say it on stderr and
 * keep it. report_integrity_run_ended - a result came: the records so far
 * belong to runs that ended. report_integrity_of_row - those of @row's policy
 * among the runs of the configuration being reported, at most
 * FPULAB_INTEGRITY_RECORDS: a JSON array of objects (repeat, cpu, task,
 * regset, reg, expected, found, registers_wrong), or with @csv a CSV cell
 * ("repeat 0: cpu 1 task 7 x87 reg 0: expected 0x... found 0x... (8
 * registers wrong); ..."); NULL when none. report_integrity_note_row - the
 * same as footnotes of the table, kept for report_integrity_notes().
 * report_integrity_rows_done - the configuration's rows are written.
 * report_integrity_notes - the table's footnotes: each record, those of an
 * unfinished run, and the command with the random seed that replays them.
 */
void report_integrity(struct report *r, const struct guest_integrity *g, const char *run);
void report_integrity_run_ended(struct report *r);
json_t *report_integrity_of_row(const struct report *r, const struct result_row *row, bool csv);
void report_integrity_note_row(struct report *r, const struct result_row *row);
void report_integrity_rows_done(struct report *r);
void report_integrity_notes(struct report *r);
void report_integrity_free(struct report *r);

#endif
