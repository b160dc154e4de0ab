/* SPDX-License-Identifier: MIT */
/*
 * The experiment controller, a kernel thread on CPU 0: reads the
 * configuration from the command line, finds the experiment in the table,
 * runs every configuration it chose under every policy (A B A B within each
 * configuration and repeat), and prints one result record per run.
 *
 * Each run happens between two quiescent points (no task has FPU state in
 * any CPU's registers), the only places where the policy may change.
 */
#include "exp.h"
#include "apic.h"
#include "boot_info.h"
#include "cpu.h"
#include "fputrace.h"
#include "io.h"
#include "lab.h"
#include "smp.h"
#include "syscall.h"
#include <fpulab/abi.h>

struct semaphore user_sems[MAX_USER_SEMS];

#define NAME(id, name) name,
const char *const regset_names[REGSET_NR] = { FPULAB_REGSETS(NAME) };
const char *const placement_names[PLACE_NR] = { FPULAB_PLACEMENTS(NAME) };
const char *const fp_names[FP_NR] = { FPULAB_FP_USERS(NAME) };
#undef NAME

/* The experiments: one line each, indexed by their abi.h id. */
static const struct experiment *const experiments[FPULAB_EXP_NR] = {
	[FPULAB_EXP_context_switch] = &context_switch_experiment,
	[FPULAB_EXP_stress] = &stress_experiment,
	[FPULAB_EXP_sleeping_lock] = &sleeping_lock_experiment,
	[FPULAB_EXP_fp_vs_spinner] = &fp_vs_spinner_experiment,
	[FPULAB_EXP_short_tasks] = &short_tasks_experiment,
	[FPULAB_EXP_kernel_checksum] = &kernel_checksum_experiment,
	[FPULAB_EXP_costs] = &costs_experiment,
};

struct config cfg;

/* Counters summed over CPUs at one instant. */
struct snapshot {
	struct fpu_stats fpu;
	uint64_t ipis, migrations, slices, fp_slices, prefetches_useful, prefetches_wasted, tsc;
};

/* The run in progress. */
static struct {
	struct snapshot start, end;
	uint64_t integrity_errors;
	unsigned int reports;
	const char *policy;
	uint64_t repeat;
	uint64_t progress_tsc; /* when the last progress record went out, or the window opened */
} run;

/* ---- configuration ---- */

static noreturn void config_error(enum fpulab_option_id id, const char *value)
{
	kprintf("error: bad value '%s' for %s\n", value, fpulab_options[id].key);
	qemu_exit(FPULAB_EXIT_PANIC);
}

/* @word's index in @names, or -1. */
static int name_index(const char *const *names, const char *word)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], word))
			return i;
	return -1;
}

void exp_set(enum fpulab_option_id id, bool *set, unsigned int n)
{
	const char *const *names = fpulab_options[id].choices;
	char buf[128];

	if (!cmdline_get(fpulab_options[id].key, buf, sizeof(buf))) {
		for (unsigned int i = 0; i < n; i++)
			set[i] = true;
		return;
	}
	for (char *w = buf; *w;) {
		char *comma = strchr(w, ',');
		if (comma)
			*comma = 0;
		int i = name_index(names, w);
		if (i < 0 || (unsigned int)i >= n)
			config_error(id, w);
		set[i] = true;
		w = comma ? comma + 1 : w + strlen(w);
	}
}

unsigned int exp_word(enum fpulab_option_id id, unsigned int dflt)
{
	char buf[48];

	if (!cmdline_get(fpulab_options[id].key, buf, sizeof(buf)))
		return dflt;
	int i = name_index(fpulab_options[id].choices, buf);
	if (i < 0)
		config_error(id, buf);
	return (unsigned int)i;
}

uint64_t exp_num(enum fpulab_option_id id, uint64_t dflt)
{
	const struct fpulab_option *o = &fpulab_options[id];
	char buf[32];
	const char *end;

	if (!cmdline_get(o->key, buf, sizeof(buf)))
		return dflt;
	uint64_t v = parse_u64(buf, &end);
	if (*end || end == buf || v < o->min || v > o->max)
		config_error(id, buf);
	return v;
}

static void parse_config(void)
{
	char name[24];
	int e = 0;

	if (cmdline_get(fpulab_options[FPULAB_OPT_experiment].key, name, sizeof(name))) {
		e = name_index(fpulab_names_experiments, name);
		if (e < 0) {
			kprintf("error: unknown experiment '%s'\n", name);
			qemu_exit(FPULAB_EXIT_PANIC);
		}
	}
	cfg.experiment = experiments[e];
	if (!cmdline_get(fpulab_options[FPULAB_OPT_policies].key, cfg.policy_buf,
			 sizeof(cfg.policy_buf))) {
		size_t n = 0;
		for (const char *const *p = fpu_policy_names(); *p; p++)
			n += (size_t)ksnprintf(cfg.policy_buf + n, sizeof(cfg.policy_buf) - n,
					       "%s%s", n ? "," : "", *p);
	}
	for (char *w = cfg.policy_buf; *w && cfg.npolicies < CFG_MAX_POLICIES;) {
		char *comma = strchr(w, ',');
		if (comma)
			*comma = 0;
		if (fpu_set_policy(w))
			config_error(FPULAB_OPT_policies, w);
		cfg.policies[cfg.npolicies++] = w;
		w = comma ? comma + 1 : w + strlen(w);
	}
	cfg.repeat = exp_num(FPULAB_OPT_repeat, experiment_abi(cfg.experiment)->repeat);
}

/* ---- the measured window ---- */

static void snapshot(struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int i = 0; i < ncpus; i++) {
		const struct fpu_stats *f = fpu_stats_cpu(i);
		s->fpu.switches += f->switches;
		s->fpu.nm_traps += f->nm_traps;
		for (int k = 0; k < FPU_INSN_NR; k++)
			s->fpu.saves[k] += f->saves[k];
		s->fpu.restores += f->restores;
		s->fpu.restores_skipped += f->restores_skipped;
		s->fpu.flush_ipis += f->flush_ipis;
		s->fpu.prefetches += f->prefetches;
		s->fpu.kernel_fpu_sections += f->kernel_fpu_sections;
		s->fpu.scrubs += f->scrubs;
		s->fpu.ts_writes += f->ts_writes;
		s->ipis += cpus[i]->ipis_sent;
		s->migrations += cpus[i]->migrations;
		s->slices += cpus[i]->slices;
		s->fp_slices += cpus[i]->fp_slices;
		s->prefetches_useful += cpus[i]->prefetches_useful;
		s->prefetches_wasted += cpus[i]->prefetches_wasted;
	}
}

void exp_mark(unsigned int which)
{
	if (fputrace_enabled())
		return; /* traced: the window is the whole run (trace_window_open/close) */
	if (which == MARK_START) {
		snapshot(&run.start);
		run.start.tsc = rdtsc();
		WRITE_ONCE(run.progress_tsc, run.start.tsc);
	} else if (which == MARK_END) {
		uint64_t tsc = rdtsc();
		snapshot(&run.end);
		run.end.tsc = tsc;
	}
}

uint64_t exp_window_switches(void)
{
	uint64_t n = 0;
	for (unsigned int i = 0; i < ncpus; i++)
		n += READ_ONCE(fpu_stats_cpu(i)->switches);
	return n - run.start.fpu.switches;
}

/* The first few wrong checks of a run go to the host as integrity records. */
void exp_integrity_error(const void *p)
{
	struct integrity_report r = *(const struct integrity_report *)p;
	char expected[24], found[24];

	__atomic_add_fetch(&run.integrity_errors, r.count, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&run.reports, 1, __ATOMIC_RELAXED) >= FPULAB_INTEGRITY_RECORDS)
		return;
	ksnprintf(expected, sizeof(expected), "0x%lx", (uint64_t)r.expected);
	ksnprintf(found, sizeof(found), "0x%lx", (uint64_t)r.got);
	struct integrity rec = {
		.experiment = experiment_abi(cfg.experiment)->name,
		.policy = run.policy,
		.repeat = run.repeat,
		.cpu = this_cpu()->id,
		.task = r.task,
		.regset = r.regset < REGSET_NR        ? regset_names[r.regset]
			  : r.regset == REGSET_ALL    ? "all"
			  : r.regset == REPORT_CSUM   ? "checksum"
			  : r.regset == REPORT_SIGNAL ? "signal"
			  : r.regset == REPORT_PKRU   ? "pkru"
						      : "?",
		.reg = r.reg,
		.expected = expected,
		.found = found,
		.wrong = r.count,
	};
	RECORD_PRINT(FPULAB_REC_INTEGRITY, FPULAB_INTEGRITY_FIELDS, &rec);
}

void exp_progress(uint64_t done, uint64_t target, const char *unit)
{
	uint64_t last = READ_ONCE(run.progress_tsc), now = rdtsc();

	/* Signed: another CPU's TSC may be a little behind the one that wrote last. */
	if ((int64_t)(now - last) < (int64_t)(tsc_khz * 1000 * FPULAB_PROGRESS_INTERVAL_S))
		return;
	if (!__atomic_compare_exchange_n(&run.progress_tsc, &last, now, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return; /* another CPU sends this one */
	struct progress p = {
		.experiment = experiment_abi(cfg.experiment)->name,
		.policy = run.policy,
		.repeat = run.repeat,
		.done = done,
		.target = target,
		.unit = unit,
	};
	RECORD_PRINT(FPULAB_REC_PROGRESS, FPULAB_PROGRESS_FIELDS, &p);
}

/*
 * Traced runs (trace=1): the window is the whole run, from the quiescent
 * point before it to the moment every other CPU idles after it, and the
 * trace covers exactly that window, so that a replay of the trace starts
 * where the lab started (no task state in any register, every task new)
 * and counts the same events as the row.
 */
static void trace_window_open(void)
{
	snapshot(&run.start);
	run.start.tsc = rdtsc();
	run.progress_tsc = run.start.tsc;
	fputrace_start();
}

static void trace_window_close(void)
{
	struct cpu *self = this_cpu();

	for (unsigned int i = 0; i < ncpus; i++)
		while (cpus[i] != self &&
		       (READ_ONCE(cpus[i]->current) != cpus[i]->idle || READ_ONCE(cpus[i]->rq.nr)))
			cpu_relax();
	fputrace_stop();
	uint64_t tsc = rdtsc();
	snapshot(&run.end);
	run.end.tsc = tsc;
}

void fill_counts(struct result *res)
{
	const struct snapshot *a = &run.start, *b = &run.end;

	if (fputrace_enabled())
		trace_window_close();
	res->switches = b->fpu.switches - a->fpu.switches;
	res->nm_traps = b->fpu.nm_traps - a->fpu.nm_traps;
	uint64_t saves[FPU_INSN_NR];
	res->saves = 0;
	for (int k = 0; k < FPU_INSN_NR; k++) {
		saves[k] = b->fpu.saves[k] - a->fpu.saves[k];
		res->saves += saves[k];
	}
	res->saves_fxsave = saves[FPU_INSN_FXSAVE];
	res->saves_xsave = saves[FPU_INSN_XSAVE];
	res->saves_xsaveopt = saves[FPU_INSN_XSAVEOPT];
	res->saves_xsavec = saves[FPU_INSN_XSAVEC];
	res->saves_xsaves = saves[FPU_INSN_XSAVES];
	res->restores = b->fpu.restores - a->fpu.restores;
	res->restores_skipped = b->fpu.restores_skipped - a->fpu.restores_skipped;
	res->flush_ipis = b->fpu.flush_ipis - a->fpu.flush_ipis;
	res->prefetches = b->fpu.prefetches - a->fpu.prefetches;
	res->slices = b->slices - a->slices;
	res->fp_slices = b->fp_slices - a->fp_slices;
	res->prefetches_useful = b->prefetches_useful - a->prefetches_useful;
	res->prefetches_wasted = b->prefetches_wasted - a->prefetches_wasted;
	res->ts_writes = b->fpu.ts_writes - a->fpu.ts_writes;
	res->kernel_fpu_sections = b->fpu.kernel_fpu_sections - a->fpu.kernel_fpu_sections;
	res->scrubs = b->fpu.scrubs - a->fpu.scrubs;
	res->ipis = b->ipis - a->ipis;
	res->migrations = b->migrations - a->migrations;
	res->ticks = b->tsc - a->tsc;
	res->integrity_errors = run.integrity_errors;
}

/* A quiescent point: no CPU holds task state; then switch policy. */
static void begin_run(const char *policy, uint64_t repeat)
{
	smp_call_all(fpu_cpu_quiesce);
	if (fpu_set_policy(policy))
		panic("unknown policy %s", policy);
	memset(&run, 0, sizeof(run));
	run.policy = policy;
	run.repeat = repeat;
	if (fputrace_enabled())
		trace_window_open();
}

/* Every configuration, repeat x policies, A B A B. Returns the runs reported. */
static unsigned int run_experiment(const struct experiment *e, uint64_t *skipped)
{
	const char *name = experiment_abi(e)->name;
	unsigned int runs = 0, nconfigs = e->configs();
	unsigned int npolicies = e->one_policy ? 1 : cfg.npolicies;

	for (unsigned int c = 0; c < nconfigs; c++) {
		struct result label = { .experiment = name, .cpus = ncpus };
		result_not_measured(&label);
		const char *reason = e->label(c, &label);
		if (reason) {
			struct skip skip = { name, label.placement, label.fp_users, label.regset,
					     reason };
			RECORD_PRINT(FPULAB_REC_SKIP, FPULAB_SKIP_FIELDS, &skip);
			(*skipped)++;
			continue;
		}
		for (uint64_t rep = 0; rep < cfg.repeat; rep++) {
			for (unsigned int p = 0; p < npolicies; p++) {
				struct result res = label;
				res.policy = cfg.policies[p];
				res.repeat = rep;
				begin_run(cfg.policies[p], rep);
				e->run(c, &res);
				RECORD_PRINT(FPULAB_REC_RESULT, FPULAB_RESULT_FIELDS, &res);
				if (fputrace_enabled())
					fputrace_handoff();
				runs++;
			}
		}
	}
	return runs;
}

void experiment_main(void *unused)
{
	struct done done = { 0 };

	parse_config();
	cfg.experiment->parse();
	if (exp_num(FPULAB_OPT_check, 0)) {
		done.checked = 1; /* every option was read and accepted */
	} else {
		done.runs = run_experiment(cfg.experiment, &done.skipped);
		smp_call_all(fpu_cpu_quiesce);
	}
	RECORD_PRINT(FPULAB_REC_DONE, FPULAB_DONE_FIELDS, &done);
	qemu_exit(FPULAB_EXIT_OK);
}
