/* SPDX-License-Identifier: MIT */
/* fpulab run: boot the lab kernel once, collect its records, report. */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "console_tail.h"
#include "guest_session.h"
#include "kernel_elf.h"
#include "common/output.h"
#include "progress.h"
#include "provenance.h"
#include "qemu.h"
#include "qmp.h"
#include "guest_records.h"
#include "run_table.h"
#include "run_stats.h"
#include "run_options.h"
#include "trace_rec.h"
#include "common/util.h"
#include "vcpu_pin.h"

#define CMDLINE_MAX 1024

struct run_state {
	const struct run_options *opt;
	struct result_collector collector;
	struct report report;
	struct console_tail tail;
	struct console_tail qemu_tail; /* QEMU's own stderr lines */
	struct guest_hello hello;
	bool have_hello, have_done;
	struct guest_done done;
	size_t malformed;
	char first_malformed[RECORD_WORD_MAX * 4];
	char stop_reason[256];       /* why a line handler stopped the guest */
	unsigned expected_configs;   /* 0: unknown */
	size_t console_since_record; /* guest console lines since the last record */
	size_t skips;                /* skip records: configurations the guest cannot run */
	const char *qmp_socket;      /* QEMU starts paused: pin its vCPUs, then resume */
	struct vcpu_pins pins;
	int qemu_term_signal; /* QEMU said "terminating on signal N" */
	char qemu_term[128];
	struct progress progress;
	char progress_run[160];  /* the run the last progress record was about */
	uint64_t progress_done;  /* its done= */
	size_t progress_stalled; /* progress records since, none of them further */
	/* --trace */
	struct trace_dest trace;
	const char *qmp_dir; /* the QMP socket's private directory: pmemsave's files */
	bool resume_only;    /* QEMU paused for --trace only: resume without pinning */
	pid_t qemu_pid;
	int console_in_fd;        /* the guest's console input: the host's ack */
	struct guest_result last; /* the last result record: names the trace that follows */
	bool have_last;
	unsigned traces_failed;
	bool kvm_failed; /* QEMU said KVM cannot run the guest on */
};

/* What QEMU prints when SIGTERM, SIGINT or SIGHUP ends it (then it exits 0). */
#define QEMU_TERMINATING "terminating on signal "

/* How QEMU's stderr begins when KVM cannot run the guest on (an instruction
 * KVM failed to emulate, a VM entry the CPU refused). QEMU then pauses the
 * guest and waits: left alone, the watchdog would call it hung. */
static const char *const kvm_failures[] = { "KVM internal error", "KVM: entry failed", NULL };

static bool kvm_failure(const char *line)
{
	for (const char *const *f = kvm_failures; *f; f++)
		if (!strncmp(line, *f, strlen(*f)))
			return true;
	return false;
}

static bool word_in_list(const char *list, const char *word, size_t wlen)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == wlen && !strncmp(p, word, len))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* A policy the user named that the kernel does not have, or NULL. */
static const char *missing_policy(const char *wanted, const char *built_in, char *buf, size_t len)
{
	for (const char *p = wanted; *p;) {
		size_t n = strcspn(p, ",");
		if (!word_in_list(built_in, p, n)) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return buf;
		}
		p += n + (p[n] == ',');
	}
	return NULL;
}

/* A configuration the guest cannot run (cross-cpu on one CPU, avx without AVX
 * state): say so, and expect one configuration fewer. */
static enum line_verdict on_skip(struct run_state *s, const char *line)
{
	struct guest_skip k;
	char err[160];

	if (parse_skip_record(line, &k, err, sizeof(err)) < 0) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "malformed skip record (%s)", err);
		return LINE_STOP;
	}
	fprintf(stderr, "fpulab: the guest skipped %s %s fp=%s %s: %s\n", k.experiment, k.placement,
		k.fp_users, k.regset, k.reason);
	s->skips++;
	if (s->expected_configs)
		s->report.expected_configs = --s->expected_configs;
	return LINE_RECORD;
}

static enum line_verdict on_hello(struct run_state *s, const char *line)
{
	char err[160], name[64];
	const char *wanted = s->opt->guest_value[FPULAB_OPT_policies];

	if (parse_hello_record(line, &s->hello, NULL, err, sizeof(err)) < 0) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "malformed hello record (%s)",
			 err);
		return LINE_STOP;
	}
	s->have_hello = true;
	s->report.hello = &s->hello;
	if (s->hello.version != FPULAB_ABI_VERSION) {
		snprintf(s->stop_reason, sizeof(s->stop_reason),
			 "the kernel speaks ABI version %llu, this fpulab version %d: rebuild both",
			 (unsigned long long)s->hello.version, FPULAB_ABI_VERSION);
		return LINE_STOP;
	}
	fprintf(stderr, "fpulab: guest up:");
	for (int f = 0; f < HELLO_FIELD_COUNT; f++) { /* only what the guest said */
		const char *at = (const char *)&s->hello + hello_fields[f].offset;
		uint64_t v;
		if (!(s->hello.present & (UINT64_C(1) << f)))
			continue;
		if (hello_fields[f].type == FIELD_STRING) {
			fprintf(stderr, " %s=%s", hello_fields[f].name, at);
		} else {
			memcpy(&v, at, sizeof(v));
			fprintf(stderr, f == HELLO_xcr0 ? " %s=0x%llx" : " %s=%llu",
				hello_fields[f].name, (unsigned long long)v);
		}
	}
	fprintf(stderr, "\n");
	if ((s->hello.present & (UINT64_C(1) << HELLO_cpus)) && s->hello.cpus != s->opt->cpus)
		fprintf(stderr, "fpulab: warning: asked for %u CPU%s, the guest started %llu\n",
			s->opt->cpus, plural(s->opt->cpus), (unsigned long long)s->hello.cpus);
	char known[sizeof(s->hello.policies) + sizeof(s->hello.test_policies) + 1];
	snprintf(known, sizeof(known), "%s,%s", s->hello.policies, s->hello.test_policies);
	if (wanted && s->hello.policies[0] && missing_policy(wanted, known, name, sizeof(name))) {
		snprintf(s->stop_reason, sizeof(s->stop_reason),
			 "policy '%s' is not built into this kernel (it has: %s)", name,
			 s->hello.policies);
		return LINE_STOP;
	}
	return LINE_RECORD;
}

/* rows_ready_fn: say on stderr that a configuration is done, then report it. */
static int configuration_done(void *ctx, const struct result_row *rows, size_t n)
{
	struct run_state *s = ctx;
	size_t runs = 0;

	for (size_t i = 0; i < n; i++)
		runs += rows[i].repeats;
	char what[4 * RECORD_WORD_MAX + 128], lock[RECORD_WORD_MAX + 48] = "";
	if (rows[0].present & (UINT64_C(1) << RESULT_variant))
		snprintf(lock, sizeof(lock), " tasks=%" PRIu64 " %s", rows[0].median.tasks,
			 rows[0].median.variant);
	if (rows[0].present & (UINT64_C(1) << RESULT_cost))
		snprintf(lock, sizeof(lock), " cost=%s", rows[0].median.cost);
	snprintf(what, sizeof(what), "%s %s fp=%s %s%s, %zu polic%s, %zu run%s",
		 rows[0].median.experiment, rows[0].median.placement, rows[0].median.fp_users,
		 rows[0].median.regset, lock, n, n == 1 ? "y" : "ies", runs, runs == 1 ? "" : "s");
	progress_step(&s->progress, s->collector.configs_done + 1, s->expected_configs, what);
	return report_rows(&s->report, rows, n);
}

/* "stress, policy lazy (2 of 6)", and ", repeat R" after the first. */
static void run_name(const struct run_state *s, const char *experiment, const char *policy,
		     uint64_t repeat, char *buf, size_t len)
{
	const char *list = s->opt->guest_value[FPULAB_OPT_policies];
	size_t n = 0, at = 0, plen = strlen(policy);
	char of[48] = "", rep[48] = "";

	if (!list) /* none or 'all': every policy the kernel has */
		list = s->hello.policies;
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		n++;
		if (l == plen && !strncmp(p, policy, l))
			at = n;
		p += l + (p[l] == ',');
	}
	if (at)
		snprintf(of, sizeof(of), " (%zu of %zu)", at, n);
	if (repeat)
		snprintf(rep, sizeof(rep), ", repeat %" PRIu64, repeat);
	snprintf(buf, len, "%s, policy %s%s%s", experiment, policy, of, rep);
}

/* A run going on: show how far it got; the record feeds the watchdog. */
static enum line_verdict on_progress(struct run_state *s, const char *line)
{
	struct guest_progress p;
	char err[160], name[160];

	if (parse_progress_record(line, &p, err, sizeof(err)) < 0) {
		if (!s->malformed++)
			snprintf(s->first_malformed, sizeof(s->first_malformed), "%s: %s", err,
				 line);
		return LINE_RECORD;
	}
	run_name(s, p.experiment, p.policy, p.repeat, name, sizeof(name));
	progress_run(&s->progress, name, p.done, p.target, p.unit);
	/* Only a record that got further is a sign of life: a guest whose CPUs
	 * are stuck may still have a thread that reports. */
	if (!strcmp(name, s->progress_run) && p.done <= s->progress_done) {
		s->progress_stalled++;
		return LINE_CONSOLE;
	}
	snprintf(s->progress_run, sizeof(s->progress_run), "%s", name);
	s->progress_done = p.done;
	s->progress_stalled = 0;
	return LINE_RECORD;
}

/* FPU state lost or leaked: say so now, keep it for the rows' reports. */
static enum line_verdict on_integrity(struct run_state *s, const char *line)
{
	struct guest_integrity g;
	char err[160], name[160];

	if (parse_integrity_record(line, &g, err, sizeof(err)) < 0) {
		if (!s->malformed++)
			snprintf(s->first_malformed, sizeof(s->first_malformed), "%s: %s", err,
				 line);
		return LINE_RECORD;
	}
	run_name(s, g.experiment, g.policy, g.repeat, name, sizeof(name));
	progress_end(&s->progress);
	report_integrity(&s->report, &g, name);
	return LINE_RECORD;
}

/* The guest waits with a run's trace in its memory: read it out, write it, let it go on. */
static enum line_verdict on_trace(struct run_state *s, const char *line)
{
	struct trace_record t;
	char err[200], path[PATH_MAX];
	bool truncated = false;
	long long n = -1;

	if (!s->opt->trace_path) {
		snprintf(s->stop_reason, sizeof(s->stop_reason),
			 "the guest sent a trace record without --trace");
		return LINE_STOP;
	}
	if (parse_trace_record(line, &t, err, sizeof(err)) < 0) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "malformed trace record (%s)",
			 err);
		return LINE_STOP;
	}
	if (!s->have_last) {
		snprintf(s->stop_reason, sizeof(s->stop_reason),
			 "a trace record before any result record");
		return LINE_STOP;
	}
	if (!s->trace.dir && s->trace.written) {
		snprintf(s->stop_reason, sizeof(s->stop_reason),
			 "--trace %s holds one run, and the guest ran more", s->trace.path);
		return LINE_STOP;
	}
	trace_dest_file(&s->trace, &s->last, path, sizeof(path));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = trace_collect(&t, s->qmp_socket, s->qemu_pid, s->qmp_dir, s->last.experiment, path,
			  &truncated, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr,
			"fpulab: trace of %s %s fp=%s %s policy %s repeat %" PRIu64
			": %s; no trace written\n",
			s->last.experiment, s->last.placement, s->last.fp_users, s->last.regset,
			s->last.policy, s->last.repeat, err);
		s->traces_failed++;
	} else {
		s->trace.written++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr,
			"fpulab: trace: %lld events (%" PRIu64
			" task%s, %u CPU%s) -> %s; read out, "
			"merged, checked and written in %.2f s (one measurement)\n",
			n, t.ntasks, plural(t.ntasks), t.cpus, plural(t.cpus), path,
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (truncated)
			fprintf(stderr,
				"fpulab: warning: a trace buffer of the guest filled up (%" PRIu64
				" events per CPU): %s stops after %lld events, the run went on; "
				"the row counts the whole run\n",
				t.stride / 16, path, n);
	}
	if (write(s->console_in_fd, "\n", 1) != 1) {
		snprintf(s->stop_reason, sizeof(s->stop_reason),
			 "cannot let the guest go on after its trace: %s", strerror(errno));
		return LINE_STOP;
	}
	return LINE_RECORD;
}

static enum line_verdict on_line(void *ctx, enum line_source from, const char *line)
{
	struct run_state *s = ctx;
	struct guest_result r;
	char err[160];

	if (from == FROM_QEMU_STDERR) {
		const char *term = strstr(line, QEMU_TERMINATING);
		if (term &&
		    sscanf(term + strlen(QEMU_TERMINATING), "%d", &s->qemu_term_signal) == 1)
			snprintf(s->qemu_term, sizeof(s->qemu_term), "%s", term);
		/* QEMU names itself ("qemu-system-x86_64: ..."): no second prefix then. */
		tail_add(&s->tail, strncmp(line, "qemu", 4) ? "qemu: " : "", line);
		tail_add(&s->qemu_tail, "", line);
		if (s->opt->verbose)
			fprintf(stderr, "qemu| %s\n", line);
		if (kvm_failure(line) && !s->kvm_failed) {
			s->kvm_failed = true;
			snprintf(s->stop_reason, sizeof(s->stop_reason),
				 "KVM cannot run the guest on: QEMU said \"%s\" and paused it "
				 "(--accel tcg runs the lab without KVM)",
				 line);
			return LINE_STOP;
		}
		return LINE_CONSOLE;
	}
	if (s->opt->verbose)
		fprintf(stderr, "guest| %s\n", line);
	if (record_kind_of(line) == RECORD_NONE)
		s->console_since_record++;
	else
		s->console_since_record = 0;
	switch (record_kind_of(line)) {
	case RECORD_HELLO:
		return on_hello(s, line);
	case RECORD_SKIP:
		return on_skip(s, line);
	case RECORD_RESULT:
		if (parse_result_record(line, &r, NULL, err, sizeof(err)) < 0) {
			if (!s->malformed++)
				snprintf(s->first_malformed, sizeof(s->first_malformed), "%s: %s",
					 err, line);
			tail_add(&s->tail, "", line);
			return LINE_RECORD;
		}
		collector_add(&s->collector, &r);
		report_integrity_run_ended(&s->report);
		if (result_has(&r, RESULT_switches))
			progress_run_end(&s->progress, r.switches, "switches");
		s->last = r;
		s->have_last = true;
		return LINE_RECORD;
	case RECORD_PROGRESS:
		return on_progress(s, line);
	case RECORD_INTEGRITY:
		return on_integrity(s, line);
	case RECORD_TRACE:
		return on_trace(s, line);
	case RECORD_HUNG: /* only the bootable image's kernel watches itself */
		snprintf(s->stop_reason, sizeof(s->stop_reason),
			 "the kernel's own watchdog reported a hung run: %s", line);
		return LINE_STOP;
	case RECORD_DONE:
		if (parse_done_record(line, &s->done, err, sizeof(err)) < 0) {
			snprintf(s->stop_reason, sizeof(s->stop_reason),
				 "malformed done record (%s)", err);
			return LINE_STOP;
		}
		s->have_done = true;
		collector_complete(&s->collector);
		return LINE_RECORD;
	case RECORD_UNKNOWN:
	case RECORD_NONE:
		break;
	}
	tail_add(&s->tail, "", line);
	return LINE_CONSOLE;
}

/* lab.elf next to the fpulab binary; lab-test.elf (FPU_TESTING) to inject faults or drop wake-ups. */
static int default_kernel_path(char *buf, size_t len, bool test_kernel)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -1;
	exe[n] = '\0';
	snprintf(buf, len, "%s/%s", dirname(exe), test_kernel ? "lab-test.elf" : "lab.elf");
	return 0;
}

/* The kernel must be a file QEMU can boot (an x86-64 ELF with the PVH note):
 * found out now, not by a guest that never says hello. */
static int check_kernel(const char *path, bool chosen)
{
	struct stat st;
	char why[256];

	bool found = stat(path, &st) == 0;

	if (chosen && found && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "fpulab run: --kernel %s: %s, not a kernel file\n", path,
			S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
		return 2;
	}
	if (!found || !S_ISREG(st.st_mode) || access(path, R_OK) < 0) {
		fprintf(stderr,
			"fpulab run: lab kernel not found or not readable: %s\n"
			"  build it with: make build/lab.elf (or pass --kernel PATH)\n",
			path);
		return chosen ? 2 : 1;
	}
	if (kernel_elf_check(path, why, sizeof(why)) < 0) {
		fprintf(stderr, "fpulab run: --kernel %s: %s\n", path, why);
		return chosen ? 2 : 1;
	}
	return 0;
}

/* Open (or create) --output now, so a path that cannot be written is found
 * before any work; never the kernel itself. */
static int open_output(const struct run_options *o, const char *kernel, struct output *out)
{
	struct stat a, b;

	if (o->output.path && stat(o->output.path, &a) == 0 && stat(kernel, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		fprintf(stderr, "fpulab run: --output %s is the kernel (--kernel %s)\n",
			o->output.path, kernel);
		return 2;
	}
	if (output_open(out, o->output.format, o->output.path, "run") < 0 ||
	    (o->plot_dir && output_plot(out, o->plot_dir) < 0)) {
		fprintf(stderr, "fpulab run: %s\n", out->error);
		output_close(out);
		return 2;
	}
	return 0;
}

static void show_last_words(struct run_state *s)
{
	fprintf(stderr, "fpulab: the guest's last console lines:\n");
	tail_print(stderr, &s->tail, "  | ");
}

/* QEMU exited by itself before the guest said hello, with a status that is
 * not one of the guest's isa-debug-exit codes: QEMU itself failed (a bad
 * -cpu model, a file that is not a kernel, not QEMU at all). */
static bool qemu_failed(const struct run_state *s, const struct session_end *end)
{
	return end->exited && !s->have_hello && end->status != 0 &&
	       end->status != FPULAB_QEMU_STATUS(FPULAB_EXIT_OK) &&
	       end->status != FPULAB_QEMU_STATUS(FPULAB_EXIT_PANIC);
}

/* The watchdog fired while the guest's console was still printing: in the
 * last half of the watchdog's window. */
static bool still_printing(const struct run_state *s, const struct session_end *end)
{
	return s->console_since_record && end->console_quiet_ms >= 0 &&
	       end->console_quiet_ms <= (long long)s->opt->timeout_s * 500;
}

/* The signal that ended QEMU when fpulab did not: QEMU died of it, or caught
 * it and exited by itself, saying "terminating on signal N". 0: none. */
static int end_signal(const struct run_state *s, const struct session_end *end)
{
	if (!end->exited)
		return end->signal;
	return s->qemu_term_signal;
}

/* The watchdog fired: say why the guest looks hung, and what it printed last. Returns 1. */
static int judge_hung(struct run_state *s, const struct session_end *end)
{
	if (still_printing(s, end)) {
		fprintf(stderr,
			"fpulab: no record for %u s, but the guest is still working: its console "
			"printed %zu line%s since its last record, the last %.1f s before the "
			"watchdog fired; QEMU killed. Raise --timeout (now %u s) for a run this "
			"long\n",
			s->opt->timeout_s, s->console_since_record, plural(s->console_since_record),
			end->console_quiet_ms / 1000.0, s->opt->timeout_s);
		show_last_words(s);
		return 1;
	}
	fprintf(stderr, "fpulab: guest hung: no record for %u s; QEMU killed (--timeout %u)\n",
		s->opt->timeout_s, s->opt->timeout_s);
	if (s->progress_stalled)
		fprintf(stderr,
			"fpulab: %zu progress record%s since the last sign of life, all at "
			"%" PRIu64 " (%s): the guest's run is stuck\n",
			s->progress_stalled, plural(s->progress_stalled), s->progress_done,
			s->progress_run);
	else if (s->console_since_record)
		fprintf(stderr,
			"fpulab: the guest's console was still printing (%zu line%s since "
			"its last record): a long run may simply need a larger --timeout\n",
			s->console_since_record, plural(s->console_since_record));
	show_last_words(s);
	return 1;
}

/* fpulab killed QEMU (a signal to fpulab, a stop, the watchdog): the status; -1 if not. */
static int judge_killed(struct run_state *s, const struct session_end *end)
{
	if (end->interrupted) {
		int sig = session_signal() ? session_signal() : SIGINT;
		fprintf(stderr, "fpulab: interrupted (SIG%s); QEMU killed\n", sigabbrev_np(sig));
		snprintf(s->stop_reason, sizeof(s->stop_reason), "interrupted (SIG%s)",
			 sigabbrev_np(sig));
		return 128 + sig;
	}
	if (end->stopped) {
		fprintf(stderr, "fpulab: %s; QEMU killed\n", s->stop_reason);
		if (s->kvm_failed) /* QEMU's register dump: where the guest was */
			show_last_words(s);
		return 1;
	}
	return end->hung ? judge_hung(s, end) : -1;
}

/* A status of QEMU's that is not the guest's OK: say what it means. */
static void say_exit_status(int status)
{
	if (status == 0)
		fprintf(stderr, "fpulab: QEMU exited (status 0) without the guest's exit code: "
				"the guest reset or powered off (a triple fault?)\n");
	else if (status & 1)
		fprintf(stderr,
			"fpulab: the guest exited with code 0x%x (QEMU status %d), not OK\n",
			status >> 1, status);
	else
		fprintf(stderr, "fpulab: QEMU failed (exit status %d)\n", status);
}

/* QEMU ended by itself: 1 when not with the guest's OK (said on stderr); -1 when it did. */
static int judge_exit(struct run_state *s, const struct session_end *end)
{
	if (end_signal(s, end)) {
		fprintf(stderr, "fpulab: QEMU was ended by signal %d (SIG%s), not by fpulab%s%s\n",
			end_signal(s, end), sigabbrev_np(end_signal(s, end)) ?: "?",
			s->qemu_term[0] ? "; QEMU said: " : "", s->qemu_term);
	} else if (qemu_failed(s, end)) {
		fprintf(stderr,
			"fpulab: QEMU failed (status %d) before the guest started; QEMU said:\n",
			end->status);
		if (s->qemu_tail.count)
			tail_print(stderr, &s->qemu_tail, "  ");
		else
			fprintf(stderr, "  (nothing on stderr)\n");
		return 1; /* the guest said nothing: no last words */
	} else if (end->status == FPULAB_QEMU_STATUS(FPULAB_EXIT_PANIC)) {
		fprintf(stderr, "fpulab: the guest panicked (QEMU exit status %d)\n", end->status);
	} else if (end->status != FPULAB_QEMU_STATUS(FPULAB_EXIT_OK)) {
		say_exit_status(end->status);
	} else {
		return -1;
	}
	show_last_words(s);
	return 1;
}

/* The guest exited OK: whether its done record agrees with the runs fpulab received. */
static int judge_done(struct run_state *s)
{
	if (!s->have_done) {
		fprintf(stderr, "fpulab: the guest exited before its done record\n");
		show_last_words(s);
		return 1;
	}
	if (s->done.has_runs && s->done.runs != s->collector.runs_total) {
		fprintf(stderr, "fpulab: the guest says it did %llu run%s, fpulab received %zu\n",
			(unsigned long long)s->done.runs, plural(s->done.runs),
			s->collector.runs_total);
		return 1;
	}
	if (s->done.checked) {
		fprintf(stderr, "fpulab: the kernel read and accepted every option; nothing ran"
				" (--check-options)\n");
		return 0;
	}
	if (s->collector.runs_total == 0) {
		fprintf(stderr,
			"fpulab: the guest finished without a single run: nothing measured\n");
		return 1;
	}
	return 0;
}

/* Records fpulab could not use: a run out of order, malformed lines. @rc, or 1 for them. */
static int judge_records(const struct run_state *s, int rc)
{
	if (s->collector.out_of_order) {
		const struct guest_result *r = &s->collector.late_run;
		fprintf(stderr,
			"fpulab: the guest sent a run of %s %s fp=%s %s (policy %s, repeat "
			"%llu) after that configuration was complete; fpulab needs each "
			"configuration's runs together, so its rows are split\n",
			r->experiment, r->placement, r->fp_users, r->regset, r->policy,
			(unsigned long long)r->repeat);
		rc = rc ? rc : 1;
	}
	if (s->malformed) {
		fprintf(stderr,
			"fpulab: %zu malformed result, progress or integrity record%s ignored; the "
			"first: %s\n",
			s->malformed, plural(s->malformed), s->first_malformed);
		rc = rc ? rc : 1;
	}
	return rc;
}

/* Decide the exit status once QEMU is gone. */
static int judge(struct run_state *s, const struct session_end *end)
{
	size_t pending = collector_pending_runs(&s->collector);
	int rc = judge_killed(s, end);

	if (rc < 0)
		rc = judge_exit(s, end);
	if (rc < 0)
		rc = judge_done(s);
	rc = judge_records(s, rc);
	if (rc && pending)
		fprintf(stderr,
			"fpulab: %zu run%s of the unfinished configuration %s not reported\n",
			pending, plural(pending), pending == 1 ? "was" : "were");
	return rc;
}

/* A run that stopped early keeps its finished configurations: say they are all there is. */
static void mark_partial(struct run_state *s, const struct session_end *end)
{
	char reason[300];

	if (s->stop_reason[0])
		snprintf(reason, sizeof(reason), "%s", s->stop_reason);
	else if (end->hung)
		snprintf(reason, sizeof(reason), "the watchdog stopped it (no record for %u s)",
			 s->opt->timeout_s); /* hung, or still working: the session said which */
	else if (end_signal(s, end))
		snprintf(reason, sizeof(reason), "QEMU was ended by signal %d (SIG%s)",
			 end_signal(s, end), sigabbrev_np(end_signal(s, end)) ?: "?");
	else if (end->status == FPULAB_QEMU_STATUS(FPULAB_EXIT_PANIC))
		snprintf(reason, sizeof(reason), "the guest panicked");
	else
		snprintf(reason, sizeof(reason), "the guest stopped early (QEMU status %d)",
			 end->status);
	report_partial(&s->report, reason, s->collector.configs_done, s->expected_configs,
		       collector_pending_runs(&s->collector));
}

/* The report's last lines once the run is judged (@rc). A run that stopped early says
 * so in the rows; with none, stdout still does, while an --output FILE keeps what it
 * had (its temporary file is dropped). --check-options ran nothing by design: neither. */
static void end_report(struct run_state *s, const struct session_end *end, int rc)
{
	if (rc == 0 && s->done.checked)
		return;
	if (rc == 0)
		report_end(&s->report);
	else if (s->report.rows_written || !s->report.out->path)
		mark_partial(s, end);
}

/* QEMU started paused: pin its vCPU threads and resume the guest. Returns 0
 * when the guest runs, or when QEMU exited or a signal came first (then the
 * session reports it); -1 when the guest could not be resumed: QEMU is
 * killed and why is in err. */
static int pin_and_resume(struct run_state *s, pid_t qemu, char *err, size_t len)
{
	int rc = vcpu_pin_and_resume(s->qmp_socket, qemu, &s->pins, err, len);

	if (rc == QMP_OK)
		fprintf(stderr, "fpulab: vCPU threads pinned: %s\n", s->pins.header);
	if (rc == QMP_QEMU_EXITED) /* the session reports why */
		vcpu_pins_none(&s->pins, "QEMU exited before it answered on QMP");
	if (rc == QMP_OK || rc == QMP_QEMU_EXITED)
		return 0;
	kill(-qemu, SIGKILL);
	return rc == QMP_INTERRUPTED ? 0 : -1;
}

static int boot_and_collect(struct run_state *s, const struct qemu_command *cmd)
{
	struct qemu_process proc;
	struct session_end end;
	char err[256], qmp_err[256];
	bool resume_failed = false;
	int rc;

	session_catch_signals(); /* a signal while QEMU is paused must kill it too */
	if (qemu_start(cmd, &proc, err, sizeof(err)) < 0) {
		fprintf(stderr, "fpulab: %s\n", err);
		return 1;
	}
	s->qemu_pid = proc.pid;
	s->console_in_fd = proc.console_in_fd;
	if (s->qmp_socket && s->resume_only) {
		int r = trace_resume(s->qmp_socket, proc.pid, qmp_err, sizeof(qmp_err));
		resume_failed = r != QMP_OK && r != QMP_QEMU_EXITED && r != QMP_INTERRUPTED;
		if (resume_failed)
			kill(-proc.pid, SIGKILL);
	} else if (s->qmp_socket) {
		resume_failed = pin_and_resume(s, proc.pid, qmp_err, sizeof(qmp_err)) < 0;
	}
	progress_start(&s->progress);
	session_run(&proc, s->opt->timeout_s, on_line, s, &end);
	progress_end(&s->progress);
	if (proc.console_in_fd >= 0)
		close(proc.console_in_fd);
	if (resume_failed && !end.interrupted) {
		fprintf(stderr, "fpulab: cannot start the paused guest: %s; QEMU killed\n",
			qmp_err);
		if (s->qemu_tail.count) {
			fprintf(stderr, "fpulab: QEMU said:\n");
			tail_print(stderr, &s->qemu_tail, "  ");
		}
		return 1;
	}
	rc = judge(s, &end);
	if (rc == 0 && s->opt->trace_path &&
	    s->trace.written + s->traces_failed != s->collector.runs_total) {
		fprintf(stderr,
			"fpulab: --trace: the guest reported %zu run%s and sent %u trace%s: a kernel "
			"that does not record traces (trace=1)?\n",
			s->collector.runs_total, plural(s->collector.runs_total),
			s->trace.written + s->traces_failed,
			plural(s->trace.written + s->traces_failed));
		rc = 1;
	}
	if (rc == 0 && s->traces_failed) {
		fprintf(stderr, "fpulab: %u of the run's traces could not be written\n",
			s->traces_failed);
		rc = 1;
	}
	end_report(s, &end, rc);
	if (rc == 0 && s->report.integrity_errors) {
		fprintf(stderr,
			"fpulab: INTEGRITY ERRORS: %llu in %zu of %zu row%s: FPU state was "
			"lost or leaked (the first of each run: above, and with the rows)\n",
			(unsigned long long)s->report.integrity_errors,
			s->report.rows_with_integrity_errors, s->report.rows_written,
			plural(s->report.rows_written));
		rc = 1;
	}
	return rc;
}

static int choose_accel(const struct run_options *o, bool *kvm)
{
	char why[256];
	bool usable = o->accel != ACCEL_TCG && kvm_usable(why, sizeof(why));

	if (o->accel == ACCEL_KVM && !usable) {
		fprintf(stderr,
			"fpulab: --accel kvm: KVM is not usable here: %s\n"
			"  use --accel tcg (or auto, which picks TCG here)\n",
			why);
		return -1;
	}
	*kvm = usable;
	return 0;
}

/* Pinning needs QEMU paused with a QMP socket; otherwise say why not. */
static void plan_pinning(const struct run_options *o, struct qemu_setup *setup,
			 struct qmp_socket *qmp, struct run_state *s)
{
	char err[256];

	if (!qemu_vcpu_threads(setup)) {
		vcpu_pins_none(&s->pins, "single-threaded TCG: one host thread runs every vCPU");
	} else if (!o->pin) {
		vcpu_pins_none(&s->pins, "--pin off");
	} else if (qmp_socket_make(qmp, err, sizeof(err)) < 0) {
		fprintf(stderr, "fpulab: warning: %s; the vCPUs run unpinned\n", err);
		vcpu_pins_none(&s->pins, "no QMP socket: see the warnings on stderr");
	} else {
		setup->qmp_socket = s->qmp_socket = qmp->path;
	}
}

/* Every row reaches --output, or stdout when the file cannot take them. */
static int close_output(struct output *out, const struct report *r, int rc)
{
	const char *path = out->path;
	size_t rows = out->rows;

	if (output_close(out) < 0)
		return rc ? rc : 1;
	if (path && rows)
		fprintf(stderr, "fpulab: %zu row%s (%zu run%s) written to %s\n", r->rows_written,
			plural(r->rows_written), r->runs_written, plural(r->runs_written), path);
	else if (path)
		fprintf(stderr, "fpulab: nothing written; %s left as it was\n", path);
	return rc;
}

/* The kernel to boot (--kernel, or lab.elf / lab-test.elf beside fpulab), checked, the
 * trace destination and the output opened. 0, or the exit status after a message. */
static int prepare_files(struct run_options *opt, struct run_state *s, char *kernel, size_t len,
			 struct output *out)
{
	int rc;

	if (opt->kernel_path)
		snprintf(kernel, len, "%s", opt->kernel_path);
	else if (default_kernel_path(kernel, len, run_needs_test_kernel(opt)) < 0)
		return 1;
	rc = check_kernel(kernel, opt->kernel_path != NULL);
	if (!rc && opt->trace_path)
		rc = trace_dest_open(&s->trace, opt->trace_path, opt->trace_runs, opt->why_runs);
	if (!rc)
		rc = open_output(opt, kernel, out);
	return rc;
}

/* --trace without pinning still needs QEMU paused until fpulab listens: a QMP socket. */
static int trace_qmp(struct run_state *s, struct qemu_setup *setup, struct qmp_socket *qmp)
{
	char err[256];

	if (!s->opt->trace_path || s->qmp_socket)
		return 0;
	if (qmp_socket_make(qmp, err, sizeof(err)) < 0) {
		fprintf(stderr, "fpulab: --trace: %s\n", err);
		return -1;
	}
	setup->qmp_socket = s->qmp_socket = qmp->path;
	s->resume_only = true;
	return 0;
}

/* The QEMU command line for @opt (@kvm chosen, @cmdline the kernel's). 0, or -1. */
static int plan_qemu(struct run_state *s, bool kvm, const char *kernel, const char *cmdline,
		     struct qemu_setup *setup, struct qmp_socket *qmp, struct qemu_command *cmd)
{
	const struct run_options *opt = s->opt;

	*setup = (struct qemu_setup){
		.machine = opt->machine,
		.kvm = kvm,
		.tcg_threads = opt->tcg_threads,
		.icount = opt->icount,
		.cpu_model = opt->qemu_cpu,
		.cpus = opt->cpus,
		.kernel = kernel,
		.append = cmdline,
		.trace = opt->trace_path != NULL,
	};
	plan_pinning(opt, setup, qmp, s);
	if (trace_qmp(s, setup, qmp) < 0)
		return -1;
	s->qmp_dir = qmp->dir;
	qemu_build_command(setup, cmd);
	return 0;
}

/* Every row's provenance, the table's first lines, and the report that writes the rows. */
static void start_report(struct run_state *s, struct output *out, bool kvm,
			 const struct qemu_setup *setup, const struct qemu_command *cmd, int argc,
			 char **argv)
{
	const struct run_options *opt = s->opt;
	char seed[24];

	output_provenance_host(out, argc, argv);
	snprintf(seed, sizeof(seed), "%s",
		 opt->guest_value[FPULAB_OPT_seed] ? opt->guest_value[FPULAB_OPT_seed] : "");
	if (!seed[0])
		snprintf(seed, sizeof(seed), "%llu", fpulab_options[FPULAB_OPT_seed].dflt);
	run_provenance(out, opt, seed);
	provenance_comment(out);
	s->report = (struct report){
		.out = out,
		.accel = kvm ? "kvm" : "tcg",
		.accel_arg = cmd->accel,
		.clock = &clock_kinds[kvm           ? CLOCK_HARDWARE_TSC
				      : opt->icount ? CLOCK_ICOUNT
						    : CLOCK_EMULATED_TSC],
		.clock_label = kvm ? "hardware TSC, under a hypervisor (KVM)" : NULL,
		.machine = opt->machine,
		.qemu_cpu = qemu_cpu_model(setup),
		.cpus = opt->cpus,
		.expected_configs = s->expected_configs,
		.pinned = s->pins.value,
		.pinned_header = s->pins.header,
	};
}

/* What fpulab boots, how, and with --verbose the whole QEMU command. */
static void say_booting(const struct run_state *s, const char *kernel, const char *cmdline,
			const struct qemu_command *cmd)
{
	const struct run_options *opt = s->opt;

	fprintf(stderr,
		"fpulab: booting %s on QEMU %s, accel %s (-accel %s), %u CPU%s; "
		"ticks are %s\nfpulab: kernel command line: %s\n",
		kernel, opt->machine, s->report.accel, cmd->accel, opt->cpus, plural(opt->cpus),
		s->report.clock->ticks_line, cmdline);
	if (opt->verbose) {
		fprintf(stderr, "fpulab: QEMU:");
		for (char *const *a = cmd->argv; *a; a++)
			fprintf(stderr, strchr(*a, ' ') ? " '%s'" : " %s", *a);
		fprintf(stderr, "\n");
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_options opt;
	struct run_state s = { .opt = &opt };
	struct qemu_setup setup;
	struct qemu_command cmd;
	struct qmp_socket qmp = { 0 };
	struct output out;
	char cmdline[CMDLINE_MAX], kernel[PATH_MAX];
	bool kvm = false;
	int rc = run_options_parse(argc, argv, &opt);

	if (rc || (rc = prepare_files(&opt, &s, kernel, sizeof(kernel), &out)))
		goto done_options;
	rc = 1;
	if (choose_accel(&opt, &kvm) < 0)
		goto done_output;
	if (run_options_cmdline(&opt, cmdline, sizeof(cmdline)) < 0) {
		fprintf(stderr, "fpulab: the kernel command line is too long\n");
		goto done_output;
	}
	if (plan_qemu(&s, kvm, kernel, cmdline, &setup, &qmp, &cmd) < 0)
		goto done_output;
	s.expected_configs = run_options_config_count(&opt);
	start_report(&s, &out, kvm, &setup, &cmd, argc, argv);
	collector_init(&s.collector, configuration_done, &s);
	say_booting(&s, kernel, cmdline, &cmd);

	rc = boot_and_collect(&s, &cmd);
	qmp_socket_remove(&qmp);
	collector_free(&s.collector);
	report_integrity_free(&s.report);
	tail_free(&s.tail);
	tail_free(&s.qemu_tail);
done_output:
	rc = close_output(&out, &s.report, rc);
done_options:
	run_options_free(&opt);
	return rc < 0 ? 0 : rc;
}
