/* SPDX-License-Identifier: MIT */
/*
 * The Linux importer's two passes over one read of the input, and its
 * inputs: perf script text from a file or standard input, a perf.data
 * (through `perf script`), or either compressed with xz (perf_internal.h).
 */
#include "common/util.h"
#include "perf_internal.h"
#include "perf_tool.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_HINT                                                                      \
	"record with the x86_fpu events: `fpulab trace record -o FILE -- CMD` (or perf " \
	"record -a -e sched:sched_switch -e 'x86_fpu:*' ..., docs/linux-traces.md)"

/* The workload name: printable ASCII, at most 23 bytes. */
static void set_workload(struct fpulab_trace_header *h, const char *name)
{
	size_t i = 0;

	memset(h->workload, 0, sizeof(h->workload));
	for (; name && name[i] && i < sizeof(h->workload) - 1; i++)
		h->workload[i] = fpulab_trace_name_char((unsigned char)name[i]) ? name[i] : '_';
	if (!i)
		snprintf(h->workload, sizeof(h->workload), "linux");
}

/* What pass 1 must have seen before anything is written. */
static int check_scan(const struct perf_scan *s, char *err, size_t errlen)
{
	if (!s->events)
		snprintf(err, errlen,
			 "no events in the recording (%" PRIu64 " lines); " RECORD_HINT, s->lines);
	else if (!s->fpu_lines)
		snprintf(err, errlen,
			 "no x86_fpu events (x86_fpu_regs_activated, x86_fpu_regs_deactivated) in "
			 "the recording: they are what Linux's own FPU loads and saves are read "
			 "from; " RECORD_HINT);
	else if (!s->n[PE_SWITCH])
		snprintf(err, errlen,
			 "no sched:sched_switch events in the recording; " RECORD_HINT);
	else
		return 0;
	return -1;
}

/* The final header and block at the file's start. */
static int write_header(FILE *f, struct emitter *m, uint32_t ntasks,
			const struct perf_import_opts *o, struct perf_import_result *r, char *err,
			size_t errlen)
{
	struct fpulab_trace_header *h = &r->hdr;

	*h = m->hdr;
	h->ntasks = ntasks;
	h->nevents = m->nevents;
	h->flags = FPULAB_TRACE_F_LINUX | FPULAB_TRACE_F_RETURNS |
		   (r->lx.perf_lost || r->lx.resyncs ? FPULAB_TRACE_F_LOSSY : 0);
	set_workload(h, o->workload);
	if (trace_check_header(h, err, errlen) || trace_check_linux(h, &r->lx, err, errlen))
		return -1;
	if (fflush(f) || fseek(f, 0, SEEK_SET) || trace_write_header(f, h, &r->lx)) {
		snprintf(err, errlen, "writing the trace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Pass 2 into the open file @f. */
static int convert(const struct perf_scan *s, FILE *f, const struct perf_import_opts *o,
		   struct perf_import_result *r, char *err, size_t errlen)
{
	struct emitter *m = calloc(1, sizeof(*m));
	struct fpulab_trace_linux *x = &r->lx;
	uint32_t ntasks = 0;
	int rc;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(x, 0, sizeof(*x));
	x->fp_use = o->fp_use ? o->fp_use : FPULAB_FP_USE_EVERY_RETURN;
	x->duration_ns = s->last_ts - s->first_ts;
	x->perf_lost = s->lost;
	x->lines = s->lines;
	x->skipped = s->skipped;
	x->flags = (s->sigreturn ? FPULAB_LINUX_F_SIGRETURN : 0) | (s->ns ? FPULAB_LINUX_F_NS : 0) |
		   FPULAB_LINUX_F_PROCS | FPULAB_LINUX_F_ENDS;
	rc = em_open(m, f, s->ncpus, perf_scan_xcr0(s), x->fp_use, err, errlen);
	if (!rc)
		rc = perf_state_run(s, m, o, x, &ntasks, err, errlen);
	if (!rc)
		rc = write_header(f, m, ntasks ? ntasks : 0, o, r, err, errlen);
	em_close(m);
	free(m);
	return rc;
}

/*
 * Wait for the tool that wrote the input (killed if the import failed): its
 * failure, if it failed, says more than what it printed. Return: whether it did.
 */
static bool tool_failed(struct tool *t, int import_rc, char *err, size_t errlen)
{
	char msg[512], what[64];
	int st = tool_wait(t, import_rc != 0);

	tool_stderr(t, msg, sizeof(msg));
	if (st == 0 || st == -1) /* well, or killed because the import had failed */
		return false;
	snprintf(what, sizeof(what), "%s", t->name);
	snprintf(err, errlen, "%s failed (%s %d)%s%s", what,
		 st == 127 ? "not found or not runnable: exit status" : "exit status", st,
		 msg[0] ? ": " : "", msg);
	return true;
}

/*
 * Both passes over @in, into a temporary file renamed to @out_path at the
 * end; @t, the tool writing @in (or NULL), must end well before that.
 */
static int import_into(FILE *in, const char *out_path, const struct perf_import_opts *o,
		       struct perf_import_result *r, struct tool *t, char *err, size_t errlen)
{
	struct perf_scan s;
	struct trace_out out = { 0 };
	FILE *f = NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = perf_scan(in, &s, err, errlen);
	if (!rc)
		rc = check_scan(&s, err, errlen);
	if (!rc && !(f = trace_out_create(out_path, &out, err, errlen)))
		rc = -1;
	if (!rc) {
		rc = convert(&s, f, o, r, err, errlen);
		snprintf(r->skipped_names, sizeof(r->skipped_names), "%s", s.skipped_names);
		if (rc && s.back_steps) /* the likelier cause of what the conversion refused */
			append_why(err, errlen,
				   " (%" PRIu64 " lines go back in time from an earlier line of "
				   "another CPU, by up to %.6f s: perf script prints events in "
				   "time order; was this text sorted or cut and joined?)",
				   s.back_steps, (double)s.back_max_ns / 1e9);
	}
	if (f && fclose(f) && !rc)
		rc = -1, snprintf(err, errlen, "%s: %s", out_path, strerror(errno));
	if (t && tool_failed(t, rc, err, errlen))
		rc = -1;
	if (!rc)
		rc = trace_out_commit(&out, out_path, err, errlen);
	else
		trace_out_discard(&out);
	perf_scan_free(&s);
	return rc;
}

int perf_import_stream(FILE *in, const char *out_path, const struct perf_import_opts *o,
		       struct perf_import_result *r, char *err, size_t errlen)
{
	return import_into(in, out_path, o, r, NULL, err, errlen);
}

/*
 * What @path holds, by its first bytes: 'p' perf.data, 'x' xz, 'f' an fpulab trace, 't' text.
 * A FIFO (`trace import <(perf script)`) or device is read once, as standard input is: its
 * first bytes read here would be gone when it is opened again.
 */
static int kind_of(const char *path, char *err, size_t errlen)
{
	unsigned char b[8] = { 0 };
	struct stat st;

	if (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return '-';
	FILE *f = fopen(path, "rb");

	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno)); /* the caller names @path */
		return -1;
	}
	size_t n = fread(b, 1, sizeof(b), f);
	fclose(f);
	return perf_input_kind(b, n);
}

int perf_import_file(const char *path, const char *out_path, const struct perf_import_opts *o,
		     struct perf_import_result *r, char *err, size_t errlen)
{
	char *perf_argv[] = { (char *)perf_binary(), "script", "-i", (char *)path, "--ns",
			      "--show-lost-events",  NULL };
	char *xz_argv[] = { "xz", "-dc", "--", (char *)path, NULL };
	struct tool t;
	int kind = strcmp(path, "-") ? kind_of(path, err, errlen) : '-';
	int rc;

	if (kind < 0)
		return -1;
	if (kind == 'f') {
		snprintf(err, errlen, "an fpulab trace already, not perf script text");
		return PERF_IMPORT_FPULAB_TRACE;
	}
	if (kind == '-' || kind == 't') {
		FILE *in = !strcmp(path, "-") ? stdin : fopen(path, "r");
		if (!in) {
			snprintf(err, errlen, "%s", strerror(errno));
			return -1;
		}
		rc = perf_import_stream(in, out_path, o, r, err, errlen);
		if (in != stdin)
			fclose(in);
		return rc;
	}
	if (tool_start(&t, kind == 'p' ? perf_argv : xz_argv, TOOL_PIPE_OUT, err, errlen))
		return -1;
	t.name = kind == 'p' ? "perf script" : "xz -dc";
	rc = import_into(t.out, out_path, o, r, &t, err, errlen);
	tool_free(&t);
	return rc;
}
