/* SPDX-License-Identifier: MIT */
/*
 * fpulab import-serial LOG [-o FILE] [--format json|csv|table]: a serial log
 * of the bootable image's run on a PC (docs/bare-metal.md) into a result file
 * like fpulab run's: its records (anything else on a line before "@fpulab ",
 * GRUB's escape sequences say, is skipped) through the same parsing,
 * grouping and result writer. The rows' clock comes from the hello record:
 * "hardware TSC, bare metal" without a hypervisor (CPUID.1:ECX[31] clear),
 * "hardware TSC, under a hypervisor (NAME)" with one, emulated under TCG.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/clock.h"
#include "common/output.h"
#include "common/util.h"
#include "guest_records.h"
#include "run_stats.h"
#include "run_table.h"

/*
 * The longest line of a serial log, in bytes: far beyond any record (the
 * live session splits the console at 4 KiB), the bound trace import puts on
 * a line of perf text; /dev/zero or a binary file given by mistake fails at
 * once instead of filling memory.
 */
#define SERIAL_LINE_MAX (1u << 20)

struct import {
	const char *log;
	struct output out;
	struct report report;
	struct result_collector collector;
	struct guest_hello hello;
	struct guest_done done;
	bool have_hello, have_done;
	size_t line_no, malformed, skips, hung, dropped;
	char clock_label[160], machine[160], error[300];
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fpulab import-serial LOG [-o FILE] [--format json|csv|table]\n"
		   "A COM1 log of the bootable image (docs/bare-metal.md) into a result file that\n"
		   "summary, compare, plot, report and replay --costs read (default: JSON on\n"
		   "stdout).\n"
		   "Exit status: 0 ok, 1 a log without a complete run or with integrity errors,\n"
		   "or not a log (a line over 1 MiB), 2 usage.\n");
}

/* The hello says what the ticks are: the clock of every row. */
static int on_hello(struct import *im, const char *rec)
{
	char err[160];
	struct guest_hello *h = &im->hello;

	if (im->have_hello) {
		snprintf(
			im->error, sizeof(im->error),
			"line %zu: a second hello record: the log holds more than one boot; keep one",
			im->line_no);
		return -1;
	}
	if (parse_hello_record(rec, h, NULL, err, sizeof(err)) < 0 ||
	    !(h->present & (UINT64_C(1) << HELLO_hypervisor))) {
		snprintf(im->error, sizeof(im->error), "line %zu: %s", im->line_no,
			 h->present ? "the hello record has no hypervisor=: a kernel older than "
				      "import-serial, whose ticks cannot be named"
				    : err);
		return -1;
	}
	im->have_hello = true;
	struct report *r = &im->report;
	r->hello = h;
	r->cpus = (unsigned)h->cpus;
	if (!strcmp(h->hypervisor, "none")) {
		r->accel = "none", r->clock = clock_by_key("hardware-tsc");
		snprintf(im->clock_label, sizeof(im->clock_label), "hardware TSC, bare metal");
		snprintf(im->machine, sizeof(im->machine), "bare metal (%s)", h->boot);
	} else if (!strcmp(h->hypervisor, "tcg")) {
		r->accel = "tcg", r->clock = clock_by_key("emulated-tsc");
		snprintf(im->clock_label, sizeof(im->clock_label), "%s", r->clock->ticks_line);
		snprintf(im->machine, sizeof(im->machine), "QEMU TCG (%s)", h->boot);
	} else {
		r->accel = h->hypervisor, r->clock = clock_by_key("hardware-tsc");
		snprintf(im->clock_label, sizeof(im->clock_label),
			 "hardware TSC, under a hypervisor (%s)", h->hypervisor);
		snprintf(im->machine, sizeof(im->machine), "%s guest (%s)", h->hypervisor, h->boot);
	}
	r->clock_label = im->clock_label;
	r->machine = im->machine;
	fprintf(stderr, "fpulab import-serial: %s: %llu CPU%s, %s, booted by %s; ticks: %s\n",
		im->log, (unsigned long long)h->cpus, plural(h->cpus), h->apic, h->boot,
		im->clock_label);
	return 0;
}

/* A watchdog's hung record: its configuration's runs so far are no row. */
static void on_hung(struct import *im, const char *rec)
{
	struct guest_hung g;
	char err[160];

	if (parse_hung_record(rec, &g, err, sizeof(err)) < 0) {
		im->malformed++;
		return;
	}
	size_t n = collector_discard(&im->collector);
	im->hung++;
	im->dropped += n;
	fprintf(stderr,
		"fpulab import-serial: the kernel's watchdog: %s, policy %s, repeat %llu hung (no "
		"record for %llu s); %zu run%s of its unfinished configuration %s not rows\n",
		g.experiment, g.policy, (unsigned long long)g.repeat, (unsigned long long)g.seconds,
		n, plural(n), n == 1 ? "is" : "are");
}

/* One line of the log. Returns -1 to stop (im->error says why). */
static int on_line(struct import *im, char *line)
{
	char err[160];
	const char *rec = strstr(line, FPULAB_RECORD_PREFIX);
	struct guest_result res;

	line[strcspn(line, "\r\n")] = 0;
	if (!rec || (im->have_done && record_kind_of(rec) != RECORD_HELLO))
		return 0; /* after done: only another boot matters */
	switch (record_kind_of(rec)) {
	case RECORD_HELLO:
		return on_hello(im, rec);
	case RECORD_RESULT:
		if (!im->have_hello) {
			snprintf(im->error, sizeof(im->error),
				 "line %zu: a result before the hello record", im->line_no);
			return -1;
		}
		if (parse_result_record(rec, &res, NULL, err, sizeof(err)) < 0) {
			snprintf(im->error, sizeof(im->error), "line %zu: malformed result (%s)",
				 im->line_no, err);
			return -1;
		}
		collector_add(&im->collector, &res);
		report_integrity_run_ended(&im->report);
		return 0;
	case RECORD_SKIP:
		im->skips++;
		return 0;
	case RECORD_HUNG:
		on_hung(im, rec);
		return 0;
	case RECORD_INTEGRITY: {
		struct guest_integrity g;
		if (parse_integrity_record(rec, &g, err, sizeof(err)) < 0)
			im->malformed++;
		else
			report_integrity(&im->report, &g, g.experiment);
		return 0;
	}
	case RECORD_DONE:
		if (parse_done_record(rec, &im->done, err, sizeof(err)) < 0) {
			snprintf(im->error, sizeof(im->error), "line %zu: malformed done (%s)",
				 im->line_no, err);
			return -1;
		}
		collector_complete(&im->collector);
		im->have_done = true;
		return 0;
	default: /* progress, trace, newer kinds: nothing to import */
		return 0;
	}
}

/*
 * The next line of @f into @buf (SERIAL_LINE_MAX + 1 bytes), NUL-terminated.
 * Returns its length, -1 at the end, -2 for a line over SERIAL_LINE_MAX
 * bytes (/dev/zero, a binary file): never more than that is held.
 */
static long read_line(FILE *f, char *buf)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		if (n == SERIAL_LINE_MAX)
			return -2;
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	return n ? (long)n : -1;
}

static int read_log(struct import *im, FILE *f)
{
	char *line = malloc(SERIAL_LINE_MAX + 1);
	long got;
	int rc = 0;

	if (!line)
		abort();
	while (!rc && (got = read_line(f, line)) != -1) {
		im->line_no++;
		if (got == -2) {
			snprintf(im->error, sizeof(im->error),
				 "line %zu: longer than %u MiB: not a serial log", im->line_no,
				 SERIAL_LINE_MAX >> 20);
			rc = -1;
		} else if (on_line(im, line) < 0) {
			rc = -1;
		}
	}
	free(line);
	return rc;
}

/* What the log's end says: 0 a complete run, 1 not (the rows so far are kept, marked partial). */
static int judge(struct import *im)
{
	if (!im->have_hello) {
		fprintf(stderr,
			"fpulab import-serial: %s: no hello record: not a serial log of the lab\n",
			im->log);
		return 1;
	}
	if (!im->have_done) {
		size_t pending = collector_discard(&im->collector);
		fprintf(stderr,
			"fpulab import-serial: %s ends before the done record (the capture stopped "
			"early?); %zu run%s of an unfinished configuration %s not rows\n",
			im->log, pending, plural(pending), pending == 1 ? "is" : "are");
		report_partial(&im->report, "the serial log ends before the done record",
			       im->collector.configs_done, 0, pending);
		return 1;
	}
	if (im->done.has_runs && im->done.runs != im->collector.runs_total) {
		fprintf(stderr,
			"fpulab import-serial: the kernel says it did %llu run%s, the log has %zu\n",
			(unsigned long long)im->done.runs, plural(im->done.runs),
			im->collector.runs_total);
		return 1;
	}
	report_end(&im->report);
	if (im->report.integrity_errors) {
		fprintf(stderr,
			"fpulab import-serial: INTEGRITY ERRORS: %llu in %zu of %zu row%s\n",
			(unsigned long long)im->report.integrity_errors,
			im->report.rows_with_integrity_errors, im->report.rows_written,
			plural(im->report.rows_written));
		return 1;
	}
	return 0;
}

/* --format NAME: output.c's names, in enum output_format's order. */
static int format_of(const char *name, enum output_format *fmt)
{
	for (int i = 0; output_format_names[i]; i++)
		if (!strcmp(output_format_names[i], name)) {
			*fmt = (enum output_format)i;
			return 0;
		}
	fprintf(stderr, "fpulab import-serial: --format: '%s' is not table, json or csv\n", name);
	return -1;
}

static int parse_args(int argc, char **argv, const char **log, const char **path,
		      enum output_format *fmt)
{
	static const struct option longopts[] = { { "output", required_argument, 0, 'o' },
						  { "format", required_argument, 0, 'f' },
						  { "help", no_argument, 0, 'h' },
						  { 0, 0, 0, 0 } };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:f:h", longopts, NULL)) != -1) {
		if (c == 'o')
			*path = optarg;
		else if (c == 'f' && format_of(optarg, fmt) == 0)
			continue;
		else if (c == 'h')
			return usage(stdout), -1;
		else if (c == ':' || c == '?')
			return getopt_failed("import-serial", c, argv);
		else
			return 2; /* format_of() said why */
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fpulab import-serial: one LOG, the serial capture, is needed\n");
		usage(stderr);
		return 2;
	}
	*log = argv[optind];
	return 0;
}

/*
 * The rows ran on the machine that booted the lab, not on this one: its CPU
 * and kernel are not in the log (the lab kernel is not Linux), so host_cpu
 * and host_kernel are null, and imported_on names this machine.
 */
static void imported_not_run_here(struct output *out)
{
	const json_t *cpu = json_object_get(out->provenance, "host_cpu");
	const json_t *kernel = json_object_get(out->provenance, "host_kernel");
	char on[160];

	snprintf(on, sizeof(on), "%s, Linux %s", json_string_value(cpu) ?: "unknown",
		 json_string_value(kernel) ?: "unknown");
	output_provenance(out, "imported_on", json_string(on));
	output_provenance(out, "host_cpu", NULL);
	output_provenance(out, "host_kernel", NULL);
}

int cmd_import_serial(int argc, char **argv)
{
	struct import im = { 0 };
	enum output_format fmt = OUTPUT_JSON;
	const char *path = NULL;
	int rc = parse_args(argc, argv, &im.log, &path, &fmt);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (refuse_output_over_input("import-serial", path, argc, argv))
		return 2;
	FILE *f = fopen(im.log, "r");
	if (!f) {
		fprintf(stderr, "fpulab import-serial: cannot read %s: %s\n", im.log,
			strerror(errno));
		return 2;
	}
	if (output_open(&im.out, fmt, path, "import-serial") < 0) {
		fprintf(stderr, "fpulab import-serial: %s\n", im.out.error);
		fclose(f);
		return 2;
	}
	output_provenance_host(&im.out, argc, argv);
	imported_not_run_here(&im.out);
	output_provenance(&im.out, "serial_log", json_string(im.log));
	/* no QEMU: accel_arg and qemu_cpu NULL (run_table.c says so) */
	im.report = (struct report){ .out = &im.out };
	collector_init(&im.collector, report_rows, &im.report);
	rc = read_log(&im, f) < 0 ? 1 : judge(&im);
	if (im.error[0])
		fprintf(stderr, "fpulab import-serial: %s: %s\n", im.log, im.error);
	fclose(f);
	if (im.malformed)
		fprintf(stderr, "fpulab import-serial: %zu malformed record%s ignored\n",
			im.malformed, plural(im.malformed));
	collector_free(&im.collector);
	report_integrity_free(&im.report);
	if (output_close(&im.out) < 0 && !rc)
		rc = 1;
	if (path && im.report.rows_written)
		fprintf(stderr, "fpulab import-serial: %zu row%s (%zu run%s) written to %s\n",
			im.report.rows_written, plural(im.report.rows_written),
			im.report.runs_written, plural(im.report.runs_written), path);
	return rc;
}
