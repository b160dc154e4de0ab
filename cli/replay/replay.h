/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's own header (cli/replay/): the options, one policy's row,
 * one trace's replay, and the functions the replay files share.
 *   replay.c          the command: options, traces checked, the run over them
 *   replay_costs.c    per-event costs: defaults, options, --costs FILE; params
 *   replay_host.c     this host's figures (host/host_costs.h) as the default costs, the trap range
 *   replay_verdict.c  break-even verdicts over the trap range, the sweep (--sweep) and its plot
 *   replay_trace.c    one trace: setup, runs, logs, interleaved runs, summaries, rank
 *   replay_rank.c     median, run-by-run pairs, break-even trap costs
 *   replay_rows.c     the result rows (JSON, CSV, table)
 *   replay_print.c    one trace's header comments, rows and footer comments
 *   replay_targets.c  issue 12's targets over every trace
 */
#ifndef FPULAB_CLI_REPLAY_REPLAY_H
#define FPULAB_CLI_REPLAY_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <fpu/fpu.h>

#include "common/clock.h"
#include "common/output.h"
#include "oracle.h"
#include "replay_engine.h"

/* $FPULAB_HOST_COSTS: host costs rows to read instead of measuring (replay_host.c). */
#define HOST_COSTS_ENV "FPULAB_HOST_COSTS"
#include "trace/trace_io.h"

#define REPEAT_DEFAULT 5
#define MAX_POLICIES 16

/*
 * replay charges this host's figures (replay_host.c): the syscall for the
 * trap, the cited CR0 write, the measured IPI; and libfpu's assumed IPI
 * (include/fpu/fpu.h) only where this host cannot measure one (one CPU, no
 * IPI confirmed): an order of magnitude, no published figure checked
 * (docs/model.md).
 */
#define IPI_NS_DEFAULT ((double)FPU_DEFAULT_IPI_NS)

struct host_costs; /* host/host_costs.h */

struct param {
	double ns;
	const char *source;             /* NULL: not given yet; "lab costs, ...", or buf */
	unsigned runs;                  /* lab costs: runs its median summarises; 0 otherwise */
	const struct clock_kind *clock; /* lab costs: the clock they were measured in; else NULL */
	char buf[400]; /* a source made here ("measured on this host: ...", "given: --trap-ns") */
};

/* --sweep PARAM=LO..HI: each policy's total per switch against one per-event cost. */
#define SWEEP_POINTS 11
struct sweep {
	const char *param; /* "trap" or "ipi"; NULL: no sweep */
	double lo, hi;     /* ns per event */
};

struct opts {
	const char *policies; /* comma list, or "all" */
	unsigned long repeat;
	struct param trap, cr0, ipi;
	const char *costs_file; /* --costs FILE of the lab's costs experiment */
	const char *costs_arg; /* --costs FILE as given: read after the options (they override it) */
	const char *batch_file;   /* --batch-costs FILE: an earlier replay's rows; NULL: measure */
	json_t *batch_rows;       /* ... its rows */
	bool adaptive_builtin;    /* --adaptive-costs default: libfpu's, as the lab */
	struct fpu_costs builtin; /* libfpu's built-in costs, read before any is set */
	int insn;
	struct output_opts output; /* --format, --output (NULL: stdout) */
	const char *plot_dir;      /* --plot DIR; NULL: none */
	struct output *out;
	struct targets *targets;
	struct host_costs *host; /* this host's figures (replay_host.c); NULL: none read */
	bool have_range;         /* the trap range below was measured */
	double trap_lo, trap_hi; /* ns: this host's lower bound and (least) estimate of a trap */
	double trap_lo_min;      /* ns: the lower bound at its fastest run (verdicts) */
	const char *trap_est;    /* the estimate's figure ("fault", "umip") */
	struct sweep sweep;
};

/*
 * Issue 12's targets over every trace replayed: adaptive's total within
 * 1.02x of the best static policy's and within 1.15x of the oracle's, the
 * latter in ns and in work (saves + restores, exact). Beside the totals,
 * the same comparison by counts alone ("priced": each policy's saves and
 * restores at the batch costs plus its per-event costs, no bookkeeping and
 * no timing noise), which separates adaptive's decisions from its
 * bookkeeping. A trace of fewer than REPLAY_MIN_SWITCHES switches is left
 * out (per-switch timings of a handful of switches say nothing; by counts,
 * shown apart, it is mostly adaptive's first, watched slices), and a trace
 * where the oracle does no work is left out of the oracle's ratios.
 */
struct targets {
	unsigned int traces, near_best, near_best_priced, near_oracle, near_oracle_work,
		with_oracle, short_traces, priced_traces;
	/* the short traces (fewer than REPLAY_MIN_SWITCHES), by counts alone */
	unsigned int short_priced, short_near_best_priced;
	double short_worst_priced;
	const char *short_worst_priced_trace;
	double worst_best, worst_best_priced, worst_gap, worst_oracle, worst_oracle_work;
	const char *worst_best_trace, *worst_priced_trace, *worst_gap_trace, *worst_oracle_trace;
	/* resolution: the control's paired medians (a policy against its own second copy) */
	unsigned int controls, control_over_2pc, undecided;
	/* adaptive's interval of the median against 1.02x: all at or below, all above, across */
	unsigned int with_interval, interval_below, interval_above;
	double conf_min;
	double control_lo, control_hi, *control_dev; /* |median - 1|, one per trace */
	/* by counts: adaptive / best static, priced_traces of them; the oracle's 1.15x where a
	 * static policy meets it */
	double *priced_ratio, worst_priced_oracle;
	unsigned int priced_oracle_cases, priced_oracle_met;
	const char *worst_priced_oracle_trace;
	/* by counts: 2% of the best's whole-trace total under one trap; over 1.02x by less */
	unsigned int priced_within_trap, priced_over_by_trap;
	double trap_ns;
};

/* Ratios of run k of one policy's total to run k of another's: median, min, max of n runs. */
struct paired {
	double med, min, max;
	unsigned long n;
	double lo, hi, conf; /* an interval of the median of confidence @conf; conf 0: none */
};

/* One trace's figures for the targets; ns per switch. */
struct target_input {
	const char *trace;
	uint64_t switches;
	struct paired vs_best, control;      /* adaptive / best static; the control / itself */
	double adaptive, best;               /* totals */
	double adaptive_priced, best_priced; /* by counts alone */
	double oracle, work, oracle_work;    /* the oracle's ns; saves + restores */
	double trap_ns;                      /* the #NM trap charged: one decision's scale */
};

struct prow {
	const char *policy;
	struct replay_counts n;
	double native_med, native_min, native_max; /* ns per switch */
	double assumed;                            /* ns per switch */
	double total;
	/* ns per switch, medians: its log replayed bare, and its empty timed regions */
	double bare_med, floor_med; /* floor = bare - residue */
	double residue;        /* its timed regions x the trace's pooled cost of an empty one */
	uint64_t regions;      /* its timed regions (hook calls timed), every run the same */
	struct paired vs_best; /* its total over the best static policy's, run by run */
	double overhead;       /* native - bare: libfpu's own */
	double hook_overhead[REPLAY_HOOK_NR]; /* the same, by entry point */
	uint64_t hook_calls[REPLAY_HOOK_NR];  /* calls timed in run 1 */
	double skip_med;                      /* ticks; < 0: no skipped-restore switches */
	uint64_t nskip;                       /* skipped-restore switches timed (the first run) */
	double skip_lib; /* ticks of libfpu per such switch: native mean - bare mean */
	bool counts_differ;
	uint64_t clipped; /* over all runs */
};

/* @r's total ns per switch at its fastest and slowest run: native less the timing residue,
 * plus the per-event costs (ns_per_switch_min and _max; its median is r->total). */
static inline double prow_total_min(const struct prow *r)
{
	return r->native_min - r->residue + r->assumed;
}

static inline double prow_total_max(const struct prow *r)
{
	return r->native_max - r->residue + r->assumed;
}

/*
 * The trap cost above which the baseline (eager) beats @other, a policy with
 * a break-even (lazy, lazy-counter: FPU_POLICY_BREAK_EVEN; docs/model.md),
 * or why there is none.
 */
struct break_even {
	const char *baseline, *other; /* policy names */
	bool have;                    /* @other and the baseline both ran */
	bool none;                    /* @other takes no more traps than the baseline */
	double ns;                    /* the break-even trap cost, ns per trap (may be negative) */
	double ns_min, ns_max;        /* the same from the natives' min-max ranges, the widest */
	double traps;                 /* more traps per switch under @other */
	bool eager_wins;              /* none: the baseline wins at any trap cost */
	uint64_t switches; /* the trace's: fewer than REPLAY_MIN_SWITCHES decide nothing */
};

/* A break-even against this host's trap range (replay_verdict.c). */
enum verdict {
	VERDICT_NONE,      /* no break-even, or no range */
	VERDICT_BASELINE,  /* the baseline (eager) beats the other over the whole range */
	VERDICT_OTHER,     /* the other beats the baseline over the whole range */
	VERDICT_UNDECIDED, /* the break-even lies inside the range */
};

/* What every row of one trace's replay shares. */
struct trace_info {
	const char *path, *name, *workload; /* name: the rows' trace_name */
	unsigned cpus, tasks;
	const char *source; /* result_file.h's: native, native-emulated-costs, ... */
	double save_ns, rest_ns, tpn;
	const char *control;   /* the static policy best by counts, replayed twice; NULL: none */
	struct paired resolve; /* its second copy against it, run by run */
	double busy_ns;        /* a Linux trace: its CPUs' busy time (the workload's CPU time); 0 */
};

/*
 * One trace's runs, policy-major: run k of policy p is at [p * repeat + k].
 * Per policy and run: through libfpu (native), its logged saves and restores
 * without libfpu (bare), the same timed regions empty (empty); per round,
 * the control's second copy (control).
 */
struct runs {
	int np;
	unsigned long repeat;
	struct replay_result *native, *bare, *empty, *control;
	struct replay_result *calls; /* the first policy's empty runs, each region an empty call */
	struct replay_log *logs[MAX_POLICIES]; /* each policy's saves and restores */
	uint32_t *skips; /* run 1's skipped-restore switches by TSC ticks (REPLAY_SKIP_HIST) */
	double *samples; /* scratch: room for @repeat values */
};

/* Policy @p's first run in @a (one of @r's arrays). */
static inline struct replay_result *runs_of(const struct runs *r, struct replay_result *a, int p)
{
	return &a[(size_t)p * r->repeat];
}

/* One trace's replay: what each step of replay_trace reads and fills, in order. */
struct trace_replay {
	/* the command's */
	const char *path;
	const char *name; /* how its rows name it (trace_name): replay.c's trace_name() */
	const struct opts *o;
	const char **pols;
	int np;
	double tpn; /* TSC ticks per ns */
	/* trace_setup */
	struct trace t;
	struct oracle_counts oc;
	struct replay *rp;
	uint32_t umask;          /* every traced use's mask */
	double save_ns, rest_ns; /* the batch save and restore */
	struct fpu_costs fc;     /* what adaptive decides by */
	/* record_logs, interleaved_runs */
	struct runs runs;
	int ctl; /* the control: the static policy best by counts; -1: none */
	/* summarise_policy */
	double empty_region[REPLAY_HOOK_NR]; /* TSC ticks of one empty timed region */
	double empty_call; /* TSC ticks an empty out-of-line call adds to an empty region */
	struct prow rows[MAX_POLICIES];
	/* replay_lower_bound: a Linux trace's lazy-style policies, the baseline and
	 * deferred at the evidence bound (np 0: not replayed), and the oracle there */
	struct {
		int np;
		const char *pols[MAX_POLICIES];
		struct prow rows[MAX_POLICIES];
		struct oracle_counts oc;
		double oracle_ns; /* ns per switch */
	} lower;
	/* rank */
	double oracle_ns, best; /* ns per switch: the oracle's, the best static policy's total */
	const char *best_name;  /* "-": none */
	struct paired control;  /* the control's second copy against it, run by run */
	struct break_even be[MAX_POLICIES]; /* the baseline against each policy with a break-even */
	struct trace_info ti;
};

/* replay_integrity.c */

/*
 * replay_say_integrity - if run @k (from 0) of @policy, a @what ("run",
 * "floor run", ...), found integrity errors, say on stderr how many and
 * where the first was (event, task, CPU, component, the value in the
 * registers and the one the task wrote). Return: 1 if it found any, else 0.
 */
int replay_say_integrity(const struct trace_replay *tr, const char *policy, const char *what,
			 unsigned long k, const struct replay_result *r);

/* replay_costs.c */

/*
 * costs_parse_ns - --@opt's value @v, a cost in ns (0..1e9), into @p, its
 * source "given: --@opt". Return: 0, or 2 after a usage error on stderr.
 */
int costs_parse_ns(const char *opt, const char *v, struct param *p);

/*
 * costs_load - --costs @path: the JSON rows of `fpulab host costs` (this
 * host's figures, costs_load_host) or of the lab's costs experiment
 * (their medians, labelled by clock) or one object of trap_ns, cr0_ns and
 * ipi_ns, into @o's per-event costs. The file is read once, as a stream
 * (a FIFO too), through result_file_read(): never more than
 * RESULT_FILE_MAX_BYTES. Return: 0, or 1 after a message.
 */
int costs_load(const char *path, struct opts *o);

/*
 * costs_load_under_options - costs_load() of @o->costs_arg, after which
 * --trap-ns, --cr0-ns and --ipi-ns still hold where they were given: they
 * override the file wherever they stand on the command line. Return: 0, or
 * 1 after a message.
 */
int costs_load_under_options(struct opts *o);

/* costs_assumed_ns - ns per switch of @n's events at @o's costs: #NM x trap + TS writes x CR0 + IPIs x IPI. */
double costs_assumed_ns(const struct opts *o, const struct replay_counts *n);

/*
 * costs_priced - ns per switch of a policy by its counts @n alone: saves and
 * restores at the batch @save_ns and @rest_ns, plus costs_assumed_ns().
 */
double costs_priced(const struct opts *o, const struct replay_counts *n, double save_ns,
		    double rest_ns);

/*
 * batch_costs_load - --batch-costs @path: the JSON rows of an earlier
 * `fpulab replay --format json`, whose batch save and restore (save_ns,
 * restore_ns) each trace then takes instead of timing them. Return: 0, or 1
 * after a message (unreadable, no replay row).
 */
int batch_costs_load(const char *path, struct opts *o);

/*
 * batch_costs_find - the batch save and restore, in ns, that @o's
 * --batch-costs rows give the trace @path (the row of the same path, or of
 * the same file), on this CPU (the rows' host_cpu, save_insn and xcr0 must be
 * this replay's). Return: 0, or 1 after a message naming the trace.
 */
int batch_costs_find(const struct opts *o, const char *path, double *save_ns, double *rest_ns);

/* batch_costs_has - whether @o's --batch-costs rows have a row of the trace @path. */
bool batch_costs_has(const struct opts *o, const char *path);

/* costs_source - a row's source (result_file.h's): native, or native plus lab costs measured where. */
const char *costs_source(const struct opts *o);

/* replay_host.c */

/*
 * costs_from_host - the per-event costs not given by an option or a --costs
 * file, from this host's figures (read from --costs or $FPULAB_HOST_COSTS,
 * else measured now, the IPI only when it is needed), and the trap range.
 * Return: 0, or 1 after a message ($FPULAB_HOST_COSTS unreadable).
 */
int costs_from_host(struct opts *o);

/*
 * costs_load_host - the rows of `fpulab host costs` among @rows (read from
 * @path) as this host's figures in @o->host. Return: 0, 1 when there is no
 * such row, or -1 after a message (a figure out of range).
 */
int costs_load_host(const char *path, json_t *rows, struct opts *o);

/* costs_host_comment - the header line that says where this host's figures come from. */
void costs_host_comment(const struct opts *o, struct output *out);

/* replay_verdict.c */

/* verdict_of - @b against @o's trap range, decided only where their runs' ranges are apart; @text (@len bytes) says it in words. */
enum verdict verdict_of(const struct opts *o, const struct break_even *b, char *text, size_t len);

/*
 * sweep_parse - --sweep's value @v ("trap=LO..HI", "ipi=LO..HI") into @s.
 * Return: 0, or 2 after a usage error.
 */
int sweep_parse(const char *v, struct sweep *s);

/* sweep_total - @w's total per switch with @param at @x ns, the other costs as @o's. */
double sweep_total(const struct opts *o, const struct prow *w, const char *param, double x);

/*
 * sweep_crossover - where the baseline's (eager's) and @rows[@other]'s
 * totals cross as @o's sweep runs, found from the sweep's points (linear
 * between them); false when they do not cross in it or the baseline did not run.
 */
bool sweep_crossover(const struct opts *o, const struct prow *rows, int n, int other, double *x);

/* sweep_print - one trace's sweep: comments (table), rows (JSON), the plot (--plot). */
void sweep_print(const struct trace_replay *tr);

/* replay_rank.c */

/*
 * break_even - the trap cost above which the baseline among @n @rows beats
 * @rows[@other], at @cr0 and @ipi ns per event; have false where @other has
 * no break-even (policy_has_break_even) or the baseline did not run.
 */
struct break_even break_even(const struct prow *rows, int n, int other, double cr0, double ipi);

/* break_even_text - @b as a sentence (malloc'd; the caller frees it). */
char *break_even_text(const struct break_even *b);

/*
 * pair_runs - run k of @a's totals (its row @wa) over run k of @b's (@wb),
 * ns per switch at @tpn ticks per ns: median, min, max and an interval of
 * the median of the @repeat ratios. @samples has room for @repeat values.
 */
struct paired pair_runs(const struct replay_result *a, const struct prow *wa,
			const struct replay_result *b, const struct prow *wb, unsigned long repeat,
			double tpn, double *samples);

/* replay_rows.c */

/* The table's columns: the keys of each row it shows (JSON and CSV carry every key). */
extern const struct output_column replay_table_columns[];
extern const size_t replay_table_ncolumns;

/* batch_floor_ns - ns per switch of @n's saves and restores at @ti's batch save and restore. */
double batch_floor_ns(const struct trace_info *ti, const struct replay_counts *n);

/*
 * oracle_row, policy_row - a trace's row (new JSON object) as data, or as
 * the table shows it (@table: ratios as text, the cost sources in one cell).
 * @oracle_ns, @best: ns per switch; @be: the policy's break-even, or NULL.
 */
json_t *oracle_row(const struct trace_info *ti, const struct opts *o,
		   const struct oracle_counts *oc, double oracle_ns, bool table);
json_t *policy_row(const struct trace_info *ti, const struct opts *o, const struct prow *w,
		   const struct oracle_counts *oc, double oracle_ns, double best,
		   const struct break_even *be, bool table);

/* replay_print.c: one trace's comments before its table, its rows, the comments after. */
void trace_print_header(const struct trace_replay *tr);
void trace_print_rows(struct trace_replay *tr);
void trace_print_footer(const struct trace_replay *tr);

/* replay_targets.c */

/* targets_add - one trace's figures @in into @tg. */
void targets_add(struct targets *tg, const struct target_input *in);

/* targets_print - @tg's verdicts over every trace as comments to @out; @repeat runs each. */
void targets_print(struct output *out, const struct targets *tg, unsigned long repeat);

/* replay_linux.c: traces imported from Linux (docs/linux-traces.md) */

/* linux_busy_ns - a Linux trace's busy time over its CPUs, ns; 0 for any other trace. */
double linux_busy_ns(const struct trace *t);

/* linux_row - the "linux (recorded)" row: Linux's own loads and switch saves (@lx). */
json_t *linux_row(const struct trace_info *ti, const struct opts *o, const struct oracle_counts *oc,
		  const struct fpulab_trace_linux *lx, bool table);

/*
 * linux_bound_policies - the policies @tr replays again at the evidence
 * bound: its lazy-style ones (they trap on a use), the baseline (eager:
 * what they save traps against) and deferred, into @pols
 * (NULL: only count). Return: how many; 0 without a lazy-style one.
 */
int linux_bound_policies(const struct trace_replay *tr, const char **pols);

/*
 * linux_lower_trace - @t at the evidence bound: its uses without the
 * evidence flag left out, their returned flag kept on the next event of
 * their CPU, in memory (the events it keeps: 16 bytes each). Return: 0, or
 * -1 out of memory or where @t's file could not be read again.
 */
int linux_lower_trace(const struct trace *t, struct trace *out);

/*
 * linux_row_keys - the keys a Linux trace adds to each of its rows @r (the
 * row of @policy: a policy, "oracle" or the linux row), null in any other
 * trace's rows so that CSV has them: the --fp-use model, the lossy flag,
 * perf's losses and resyncs, Linux's loads at the window start and for
 * signal frames, the forks and execs (null when not counted),
 * the busy time and duration, and the row's counts, total (with its range)
 * and CPU-time share at the evidence bound (null where not replayed there).
 * Returns @r.
 */
json_t *linux_row_keys(const struct trace_replay *tr, const char *policy, json_t *r);

/* linux_print_footer - deferred against Linux by cause, each policy's share of the
 * workload's CPU time, and the lazy-style policies at both --fp-use bounds. */
void linux_print_footer(const struct trace_replay *tr);

/* replay_trace.c */

/*
 * replay_trace - replay the trace at @path under each of @np policies
 * @pols, @o->repeat runs interleaved, and print its header, rows and footer
 * to @o->out. @tpn: TSC ticks per ns. Return: 0, or 1 after an error (said
 * on stderr); a trace that cannot be read or replayed prints nothing.
 */
int replay_trace(const char *path, const char *name, const struct opts *o, const char **pols,
		 int np, double tpn);

#endif
