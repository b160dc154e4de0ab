/* SPDX-License-Identifier: MIT */
/*
 * Result rows as a table, JSON lines or CSV: the one writer of every
 * subcommand (run, calibrate, host, replay, report).
 *
 * A row is a jansson object whose keys are in the order they were set. JSON
 * writes each row as one line, with the output's provenance keys (fpulab
 * version, host, date, command line, ...) after the row's own. CSV (RFC 4180
 * quoting, LF line ends) takes its header from the first row's keys plus the
 * provenance. The table prints the columns the caller chose, "-" for a
 * missing or null value, after the caller's "# " comment lines.
 *
 * Nothing is lost: with a path, rows go to a temporary file next to it,
 * created by output_open() (so a path that cannot be written is found before
 * any work), flushed row by row, and renamed over the path by output_close().
 * A run that wrote no row leaves the path as it was. If the file cannot be
 * written at any point, output_close() prints every row to stdout instead.
 */
#ifndef FPULAB_CLI_COMMON_OUTPUT_H
#define FPULAB_CLI_COMMON_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum output_format { OUTPUT_TABLE, OUTPUT_JSON, OUTPUT_CSV };
extern const char *const output_format_names[]; /* "table", "json", "csv", NULL */

/* What a command's --format and --output asked for. */
struct output_opts {
	const char *const *formats; /* the choices; NULL: output_format_names */
	int format;                 /* index into them (an enum output_format for those) */
	const char *path;           /* --output FILE; NULL: stdout */
};

/*
 * output_opt - take option --@opt with argument @arg of subcommand @cmd into
 * @o when @opt is "format" (one of o->formats) or "output" (a file name,
 * not empty). Returns 0, 2 after a usage error (for --format, the choices
 * listed), or -1 when @opt is neither: the one parser of both options for
 * every subcommand.
 */
int output_opt(struct output_opts *o, const char *cmd, const char *opt, const char *arg);

/* A table column: the row's @key under @title, in @width characters
 * (negative: left-aligned); reals with @decimals digits after the point. */
struct output_column {
	const char *key;
	const char *title; /* NULL: the key */
	int width;
	int decimals;
};

struct output {
	enum output_format format;
	const char *cmd;  /* "run", "calibrate": in messages */
	const char *path; /* NULL: stdout */
	char *tmp_path;   /* where rows go until output_close() */
	char *target;     /* what it is renamed over: path, or the file its symlink names */
	FILE *f;
	json_t *provenance; /* object: keys added to every JSON and CSV row */
	const struct output_column *columns;
	size_t ncolumns;
	json_t *csv_keys;  /* array: the CSV header, fixed by the first row */
	bool csv_key_lost; /* a later row had a key the header lacks (said once) */
	bool table_heading_done;
	char *kept; /* everything written, for the fallback to stdout */
	size_t kept_len, kept_cap;
	size_t rows;          /* rows written */
	const char *plot_dir; /* output_plot(): SVG plots of the rows at output_close() */
	json_t *plot_rows;    /* the rows for the plots (JSON objects) */
	bool plot_own_rows;   /* given by output_plot_row(), not taken from output_row() */
	int plots_beside;     /* SVGs a command drew into plot_dir itself (a sweep's) */
	bool write_failed;
	char error[256];
};

/*
 * output_open - start an output of @format to @path (NULL: stdout) for
 * subcommand @cmd. With a path, creates its temporary file now. Returns 0, or
 * -1 with a one-line reason in o->error (a directory, a missing folder, no
 * permission).
 */
int output_open(struct output *o, enum output_format format, const char *path, const char *cmd);

/* output_provenance - add @key = @value (reference stolen) to every JSON and CSV row. */
void output_provenance(struct output *o, const char *key, json_t *value);

/*
 * output_provenance_host - the provenance every result carries: fpulab's
 * version and git description, the host CPU model, the kernel release, the
 * date (UTC, ISO 8601) and the exact command line (@argc, @argv from main).
 */
void output_provenance_host(struct output *o, int argc, char **argv);

/* output_columns - the table's columns (must outlive the output). */
void output_columns(struct output *o, const struct output_column *cols, size_t n);

/* output_comment - a "# ..." line of the table; nothing for JSON and CSV. */
void output_comment(struct output *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * output_csv_note - a CSV record whose first field is @text (quoted as RFC
 * 4180 wants) and whose other fields, as many as the header has, are empty:
 * where a CSV says what a table says in a "# " line. Nothing for table and
 * JSON; not counted as a row.
 */
void output_csv_note(struct output *o, const char *text);

/*
 * output_row - write one row (reference stolen) and flush it. Returns 0, or
 * -1 once the output cannot be written (the row is still kept for
 * output_close()'s fallback).
 */
int output_row(struct output *o, json_t *row);

/*
 * output_text - @text as it is (a report's own table or markdown), written
 * and kept like a row, so that output_close() renames it over the path and
 * falls back to stdout as for rows. Returns 0, or -1 as output_row().
 */
int output_text(struct output *o, const char *text);

/*
 * output_close - finish: rename the temporary file over the path (or remove
 * it when no row was written). If anything could not be written, says so on
 * stderr and prints every row to stdout. Then the plots, if output_plot()
 * asked for them. Returns 0, or -1 when the results did not reach the path
 * (they are on stdout then) or a plot could not be drawn (said on stderr).
 */
int output_close(struct output *o);

/*
 * output_plot - at output_close(), draw SVG plots of the rows into @dir
 * (plot.h: one per experiment, gnuplot), created now if missing. Returns 0,
 * or -1 with the reason in o->error (@dir cannot be made or is not a folder).
 */
int output_plot(struct output *o, const char *dir);

/*
 * output_plot_row - the row to plot (reference stolen), for a caller whose
 * table rows are text cells: once called, output_row() keeps nothing for
 * the plots. Nothing happens without output_plot().
 */
void output_plot_row(struct output *o, json_t *row);

/* output_cell - @v as the table or CSV shows it, into @buf. */
const char *output_cell(const json_t *v, int decimals, char *buf, size_t len);

#endif
