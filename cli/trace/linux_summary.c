/* SPDX-License-Identifier: MIT */
/* What a version-3 trace's Linux block says, in words (trace info, trace import). */
#include "trace_io.h"

#include <inttypes.h>

#include "common/util.h"

const char *trace_fp_use_name(unsigned int fp_use)
{
	return fp_use == FPULAB_FP_USE_EVERY_RETURN ? "every-return"
	       : fp_use == FPULAB_FP_USE_EVIDENCE   ? "evidence"
						    : "?";
}

static void print_times(FILE *f, const struct fpulab_trace_header *h,
			const struct fpulab_trace_linux *x)
{
	double d = (double)x->duration_ns;

	fprintf(f, "  recording  %.6f s (perf's clock; %s timestamps); busy (not idle):", d / 1e9,
		x->flags & FPULAB_LINUX_F_NS ? "ns" : "us");
	for (unsigned int c = 0; c < h->ncpus; c++)
		fprintf(f, "%s cpu%u %.6f s (%.1f%%)", c ? "," : "", c, (double)x->busy_ns[c] / 1e9,
			d > 0 ? 100.0 * (double)x->busy_ns[c] / d : 0.0);
	fprintf(f, "\n");
}

const char *trace_tasks_text(char *buf, size_t len, const struct fpulab_trace_header *h,
			     const struct fpulab_trace_linux *x)
{
	if (x && x->user_tasks > h->ntasks)
		snprintf(buf, len,
			 "%u task ids (reused: %" PRIu64 " user tasks over the recording)",
			 h->ntasks, x->user_tasks);
	else if (x && !x->user_tasks && h->ntasks)
		snprintf(buf, len, "%u task ids (reused after exits)", h->ntasks);
	else
		snprintf(buf, len, "%u task%s", h->ntasks, h->ntasks == 1 ? "" : "s");
	return buf;
}

void trace_linux_summary(FILE *f, const struct fpulab_trace_header *h,
			 const struct fpulab_trace_linux *x)
{
	fprintf(f, "  linux      imported from a Linux recording (perf)%s", "");
	if (h->flags & FPULAB_TRACE_F_LOSSY)
		fprintf(f,
			"; LOSSY: perf lost %" PRIu64 " event%s, %" PRIu64
			" impossible sequence%s resynchronised",
			x->perf_lost, plural(x->perf_lost), x->resyncs, plural(x->resyncs));
	fprintf(f, "\n");
	print_times(f, h, x);
	fprintf(f,
		"  activated  %" PRIu64 " (Linux's register loads): restore %" PRIu64
		", fork %" PRIu64 ", signal init %" PRIu64 ", signal frame %" PRIu64
		", sigreturn %" PRIu64 ", other %" PRIu64 "\n",
		x->activations, x->act_restore, x->act_fork, x->act_signal, x->act_sigframe,
		x->act_sigreturn, x->act_other);
	fprintf(f,
		"  deactivated %" PRIu64 ": switch saves %" PRIu64 " (of which %" PRIu64
		" at a dead task's final switch), drops at exit %" PRIu64 ", other %" PRIu64 "\n",
		x->deactivations, x->switch_saves, x->exit_saves, x->drops, x->deact_other);
	fprintf(f,
		"  inferred   kernel-FPU sections %" PRIu64 ", sigreturns %" PRIu64
		" (sys_enter_rt_sigreturn %s), switches at the window start %" PRIu64
		", at its end %" PRIu64 "\n",
		x->kfpu_inferred, x->sigreturns_inferred,
		x->flags & FPULAB_LINUX_F_SIGRETURN ? "recorded" : "not recorded",
		x->window_switches, x->window_ends);
	fprintf(f,
		"  deferred   %" PRIu64 " load%s predicted = Linux's %" PRIu64
		" + window start %" PRIu64 " + other %" PRIu64 " - signal frames %" PRIu64,
		x->deferred_loads, plural(x->deferred_loads), x->activations, x->window_loads,
		x->other_loads, x->act_sigframe);
	if (x->end_loads)
		fprintf(f, " - recording's end %" PRIu64, x->end_loads);
	fprintf(f, " (replay counts them)%s\n",
		x->fp_use == FPULAB_FP_USE_EVIDENCE && !(x->flags & FPULAB_LINUX_F_ENDS)
			? "; loads at a return after a CPU's last event not counted (imported "
			  "before they were): import the recording again"
			: "");
	if (x->flags & FPULAB_LINUX_F_PROCS)
		fprintf(f,
			"  forks      %" PRIu64
			" (processes and threads: sched_process_fork of a user task), %" PRIu64
			" exec%s\n",
			x->forks, x->execs, plural(x->execs));
	else
		fprintf(f, "  forks      not counted (imported before forks and execs were: "
			   "import the recording again)\n");
	fprintf(f, "  fp use     %s%s\n", trace_fp_use_name(x->fp_use),
		x->fp_use == FPULAB_FP_USE_EVERY_RETURN
			? " (the upper bound; uses flagged evidence give the lower one)"
			: " (the lower bound)");
	fprintf(f, "  perf text  %" PRIu64 " line%s, %" PRIu64 " event%s of other kinds skipped\n",
		x->lines, plural(x->lines), x->skipped, plural(x->skipped));
}
