/* SPDX-License-Identifier: MIT */
/* fpulab trace import INPUT [-o FILE]: a Linux recording as a trace (docs/linux-traces.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "perf_import.h"
#include "trace_cmd.h"
#include "trace_io.h"

/* FILE from INPUT: its last path component, without .xz and a .txt, .perf-script, .data or
 * .perf, and .trace added (in the current directory). */
static char *default_output(const char *in)
{
	static const char *const ext[] = { ".xz", ".txt", ".perf-script", ".data", ".perf" };
	const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	char *s = xstrdup(base), *out;

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t n = strlen(s), e = strlen(ext[i]);
		if (n > e && !strcmp(s + n - e, ext[i]))
			s[n - e] = '\0';
	}
	out = xasprintf("%s.trace", s);
	free(s);
	return out;
}

int trace_parse_fp_use(const char *cmd, const char *v, unsigned int *fp_use)
{
	if (!strcmp(v, "every-return"))
		*fp_use = FPULAB_FP_USE_EVERY_RETURN;
	else if (!strcmp(v, "evidence"))
		*fp_use = FPULAB_FP_USE_EVIDENCE;
	else
		return usage_error(cmd, "--fp-use: '%s' is not every-return or evidence", v);
	return 0;
}

void trace_print_import(const char *path, const struct perf_import_result *r)
{
	char tasks[96];

	printf("%s: %.24s, version %u, %u CPU%s, %s, %" PRIu64 " events, xcr0 0x%" PRIx64 "%s\n",
	       path, r->hdr.workload, r->hdr.version, r->hdr.ncpus, plural(r->hdr.ncpus),
	       trace_tasks_text(tasks, sizeof(tasks), &r->hdr, &r->lx), r->hdr.nevents, r->hdr.xcr0,
	       r->hdr.flags & FPULAB_TRACE_F_LOSSY ? ", LOSSY" : "");
	trace_linux_summary(stdout, &r->hdr, &r->lx);
	if (r->skipped_names[0])
		printf("  skipped    %s\n", r->skipped_names);
}

/* The options import and record share: --fp-use, --strict, --name, said as @cmd's. Return: the number of
 * arguments taken (0 not one of them), or -1 after a usage error. */
int trace_import_option(const char *cmd, int argc, char **argv, int i, struct perf_import_opts *o)
{
	const char *a = argv[i];

	if (!strcmp(a, "--strict")) {
		o->strict = true;
		return 1;
	}
	if (strcmp(a, "--fp-use") && strcmp(a, "--name"))
		return 0;
	if (i + 1 >= argc) {
		usage_error(cmd, "%s needs a value", a);
		return -1;
	}
	if (!strcmp(a, "--name")) {
		size_t max = sizeof(((struct fpulab_trace_header *)0)->workload) - 1;
		const char *n = argv[i + 1];
		bool printable = true;
		for (const char *c = n; *c; c++)
			printable &= fpulab_trace_name_char((unsigned char)*c) != 0;
		if (!*n || strlen(n) > max || !printable) {
			usage_error(cmd,
				    "--name '%s': 1 to %zu printable ASCII characters (the trace "
				    "header's workload field)",
				    n, max);
			return -1;
		}
		o->workload = argv[i + 1];
	} else if (trace_parse_fp_use(cmd, argv[i + 1], &o->fp_use))
		return -1;
	return 2;
}

int cmd_trace_import(int argc, char **argv)
{
	struct perf_import_opts o = { .fp_use = FPULAB_FP_USE_EVERY_RETURN };
	struct perf_import_result r;
	const char *in = NULL, *out = NULL;
	char err[1024], *def = NULL;
	int rc;

	for (int i = 1; i < argc; i++) {
		int n = trace_import_option("trace import", argc, argv, i, &o);
		if (n < 0)
			return 2;
		if (n) {
			i += n - 1;
		} else if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc)
				return usage_error("trace import", "-o needs a value");
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("trace import", "unknown option '%s'", argv[i]);
		} else if (in) {
			return usage_error("trace import", "takes one INPUT, got '%s' too",
					   argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in)
		return usage_error("trace import",
				   "needs an INPUT (perf script text, -, or perf.data)");
	if (!out && !strcmp(in, "-"))
		return usage_error("trace import", "standard input (-) needs -o FILE");
	if (!out)
		out = def = default_output(in);
	if (refuse_output_over_input("trace import", out, argc, argv)) {
		free(def);
		return 2;
	}
	if (trace_out_check(out, err, sizeof(err))) { /* before the input is read */
		fprintf(stderr, "fpulab trace import: -o %s\n", err);
		free(def);
		return 2;
	}
	rc = perf_import_file(in, out, &o, &r, err, sizeof(err));
	if (rc == PERF_IMPORT_FPULAB_TRACE)
		fprintf(stderr,
			"fpulab trace import: %s is an fpulab trace already (replay it: fpulab "
			"replay %s)\n",
			in, in);
	else if (rc)
		fprintf(stderr, "fpulab trace import: %s: %s\n", in, err);
	else
		trace_print_import(out, &r);
	free(def);
	return rc ? 1 : 0;
}
