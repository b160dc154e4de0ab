/* SPDX-License-Identifier: MIT */
/* `fpulab run` options. One table per kind of option; every default is here. */
#include "run_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fpulab/abi.h"
#include "common/catalog.h"
#include "common/util.h"
#include <fpu/fpu.h>
#include "qemu.h"

/* The guest options and their ranges are abi.h's, shared with the kernel. */
static const struct fpulab_option *const guest_options = fpulab_options;

/* Options only the bootable image's kernel reads (docs/bare-metal.md): one
 * boot of fpulab run is one experiment, with the host as its watchdog. */
static bool image_only(int id)
{
	return guest_options[id].experiments == 0;
}

#define OPT_BASE 256 /* getopt_long values: OPT_BASE + option id */

enum host_option_id {
	HOPT_CPUS = FPULAB_OPT_NR,
	HOPT_ACCEL,
	HOPT_QEMU_CPU,
	HOPT_TIMEOUT,
	HOPT_FORMAT,
	HOPT_OUTPUT,
	HOPT_KERNEL,
	HOPT_PLOT,
	HOPT_ICOUNT,
	HOPT_TCG_THREADS,
	HOPT_MACHINE,
	HOPT_PIN,
	HOPT_VERBOSE,
	HOPT_TRACE,
	HOPT_LIST,
	HOPT_HELP,
	HOPT_END
};

struct host_option {
	const char *option;
	bool takes_value;
	const char *metavar, *help;
};

static const struct host_option host_options[HOPT_END - FPULAB_OPT_NR] = {
	[HOPT_CPUS - FPULAB_OPT_NR] = { "cpus", true, "N", "guest CPUs (default 2)" },
	[HOPT_ACCEL - FPULAB_OPT_NR] = { "accel", true, "auto|tcg|kvm",
					 "auto: KVM only with vmx/svm and a usable /dev/kvm" },
	[HOPT_QEMU_CPU -
		FPULAB_OPT_NR] = { "qemu-cpu", true, "MODEL",
				   "QEMU -cpu model (default max under TCG, host under KVM)" },
	[HOPT_TIMEOUT -
		FPULAB_OPT_NR] = { "timeout", true, "S",
				   "watchdog: seconds without a record (progress records count) before QEMU is killed (default 60)" },
	[HOPT_FORMAT - FPULAB_OPT_NR] = { "format", true, "table|json|csv", "output format" },
	[HOPT_OUTPUT - FPULAB_OPT_NR] = { "output", true, "FILE", "write results to FILE" },
	[HOPT_PLOT -
		FPULAB_OPT_NR] = { "plot", true, "DIR",
				   "SVG plots into DIR (gnuplot): each policy per configuration, min-max bars" },
	[HOPT_KERNEL - FPULAB_OPT_NR] = { "kernel", true, "PATH",
					  "lab kernel (default lab.elf next to fpulab)" },
	[HOPT_ICOUNT -
		FPULAB_OPT_NR] = { "icount", false, NULL,
				   "TCG -icount shift=0: deterministic, clock = instructions" },
	[HOPT_TCG_THREADS - FPULAB_OPT_NR] = { "tcg-threads", true, "single|multi",
					       "TCG threading (default " QEMU_DEFAULT_TCG_THREADS
					       ")" },
	[HOPT_MACHINE - FPULAB_OPT_NR] = { "machine", true, "microvm|q35|pc",
					   "QEMU machine (default " QEMU_DEFAULT_MACHINE ")" },
	[HOPT_PIN - FPULAB_OPT_NR] = { "pin", true, "on|off",
				       "pin each vCPU thread to a host CPU (default on; KVM and"
				       " --tcg-threads multi only)" },
	[HOPT_VERBOSE -
		FPULAB_OPT_NR] = { "verbose", false, NULL, "echo the guest console to stderr" },
	[HOPT_TRACE - FPULAB_OPT_NR] = { "trace", true, "FILE|DIR/",
					 "record each run's trace (docs/trace.md): FILE for a"
					 " single run, DIR/ for one file per run" },
	[HOPT_LIST - FPULAB_OPT_NR] = { "list", false, NULL,
					"list experiments, policies, faults and every value" },
	[HOPT_HELP - FPULAB_OPT_NR] = { "help", false, NULL, "this text" },
};

void run_usage(FILE *f)
{
	char left[64], text[512];

	fprintf(f, "usage: fpulab run [options]\n"
		   "Boots the lab kernel once under QEMU; it runs every configuration and policy\n"
		   "(policies interleaved A B A B) and the table/JSON/CSV summarises the runs.\n"
		   "Lists are comma-separated; 'all' expands to every value.\n\nGuest options:\n");
	for (int i = 0; i < FPULAB_OPT_NR; i++) {
		const struct fpulab_option *g = &guest_options[i];
		if (image_only(i))
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", g->option, g->metavar ? " " : "",
			 g->metavar ? g->metavar : "");
		snprintf(text, sizeof(text), "%s", g->help);
		if (g->type == FPULAB_NUMBER)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "; %llu..%llu",
				 g->min, g->max);
		if (g->type == FPULAB_NUMBER && g->dflt)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), ", default %llu",
				 g->dflt);
		help_item(f, 28, left, text);
	}
	fprintf(f, "Host options:\n");
	for (int i = 0; i < HOPT_END - FPULAB_OPT_NR; i++) {
		const struct host_option *h = &host_options[i];
		snprintf(left, sizeof(left), "--%s%s%s", h->option, h->metavar ? " " : "",
			 h->metavar ? h->metavar : "");
		help_item(f, 28, left, h->help);
	}
	fprintf(f, "  (--cpus: 1..%d; --timeout: 1..%d)\n", FPULAB_MAX_CPUS, FPULAB_MAX_TIMEOUT_S);
	fprintf(f, "Exit status: 0 ok, 1 failure (panic, hang, integrity errors, QEMU missing),\n"
		   "2 usage error.\n");
}

static void list_names(FILE *f, const char *title, const char *const *names)
{
	fprintf(f, "%s:", title);
	for (; *names; names++)
		fprintf(f, " %s", *names);
	fprintf(f, "\n");
}

void run_list(FILE *f)
{
	fprintf(f, "experiments (--experiment):\n");
	for (int e = 0; e < FPULAB_EXP_NR; e++) {
		const struct fpulab_experiment *x = &fpulab_experiments[e];
		fprintf(f, "  %s: %s\n    main figure: %s (%s, %s is better); default repeat %u\n",
			x->name, x->summary, x->figure, x->unit, x->better, x->repeat);
		fprintf(f, "    options:");
		for (int i = 0; i < FPULAB_OPT_NR; i++) {
			const struct fpulab_option *g = &guest_options[i];
			if ((g->experiments & (1u << e)) && g->experiments != FPULAB_EXP_ALL &&
			    !image_only(i))
				fprintf(f, " --%s", g->option);
		}
		fprintf(f, " (and every option all experiments read)\n");
	}
	fprintf(f, "options all experiments read:");
	for (int i = 0; i < FPULAB_OPT_NR; i++)
		if (guest_options[i].experiments == FPULAB_EXP_ALL && !image_only(i))
			fprintf(f, " --%s", guest_options[i].option);
	fprintf(f, "\nnumeric options (min..max, default):\n");
	for (int i = 0; i < FPULAB_OPT_NR; i++) {
		const struct fpulab_option *g = &guest_options[i];
		if (g->type != FPULAB_NUMBER || image_only(i))
			continue;
		fprintf(f, "  --%s %llu..%llu", g->option, g->min, g->max);
		if (g->dflt)
			fprintf(f, ", default %llu\n", g->dflt);
		else
			fprintf(f, ", default computed (--help says how)\n");
	}
	fprintf(f, "  --cpus 1..%d, default %d\n  --timeout 1..%d, default %d\n", FPULAB_MAX_CPUS,
		RUN_DEFAULT_CPUS, FPULAB_MAX_TIMEOUT_S, RUN_DEFAULT_TIMEOUT_S);
	list_names(f, "policies (--policy; lab.elf and lab-test.elf)", fpu_policy_names());
	list_names(f, "test policies (lab-test.elf only)", fpulab_names_test_policies);
	list_names(f, "faults (--inject; boots lab-test.elf)", fpulab_names_faults);
	list_names(f, "placements (--placement)", fpulab_names_placements);
	list_names(f, "fp users (--fp-users)", fpulab_names_fp_users);
	list_names(f, "register sets (--regset)", fpulab_names_regsets);
	list_names(f, "save instructions (--insn)", fpulab_names_save_insns);
	list_names(f, "prefetch modes (--prefetch)", fpulab_names_prefetch_modes);
}

/* One line saying what is wrong, then where the options are (util.h's
 * usage_error for run): the full usage would bury the error. */
static int __attribute__((format(printf, 1, 2))) run_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_error("run", fmt, ap);
	va_end(ap);
	return 2;
}

static bool is_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '_'))
			return false;
	return true;
}

static bool in_choices(const char *const *choices, const char *word, size_t len)
{
	for (; *choices; choices++)
		if (strlen(*choices) == len && !strncmp(*choices, word, len))
			return true;
	return false;
}

static char *join_choices(const char *const *choices)
{
	size_t len = 1;
	for (const char *const *c = choices; *c; c++)
		len += strlen(*c) + 1;
	char *s = calloc(1, len);
	if (!s)
		abort();
	for (const char *const *c = choices; *c; c++) {
		if (c != choices)
			strcat(s, ",");
		strcat(s, *c);
	}
	return s;
}

/* Decimal only, no sign; "out of range" is its own message. */
static int parse_number(const char *opt, const char *text, uint64_t min, uint64_t max,
			uint64_t *out)
{
	char *end, range[64];

	snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, min, max);
	if (!(*text >= '0' && *text <= '9'))
		return run_usage_error("--%s: '%s' is not a non-negative integer (%s)", opt, text,
				       range);
	errno = 0;
	*out = strtoull(text, &end, 10);
	if (*end)
		return run_usage_error("--%s: '%s' is not a non-negative integer (%s)", opt, text,
				       range);
	if (errno == ERANGE || *out < min || *out > max)
		return run_usage_error("--%s: %s is out of range (%s)", opt, text, range);
	return 0;
}

static int set_guest_option(struct run_options *o, int id, const char *text)
{
	const struct fpulab_option *g = &guest_options[id];
	char buf[32];
	uint64_t n;

	if (image_only(id))
		return run_usage_error(
			"--%s is for the bootable image (docs/bare-metal.md), not fpulab "
			"run: it boots one --experiment and is its own watchdog (--timeout)",
			g->option);
	free(o->guest_value[id]);
	o->guest_value[id] = NULL;
	switch (g->type) {
	case FPULAB_FLAG:
		o->guest_value[id] = strdup("1");
		return 0;
	case FPULAB_NUMBER:
		if (parse_number(g->option, text, g->min, g->max, &n))
			return 2;
		snprintf(buf, sizeof(buf), "%" PRIu64, n);
		o->guest_value[id] = strdup(buf);
		return 0;
	case FPULAB_WORD:
		if (g->choices ? !in_choices(g->choices, text, strlen(text)) : !is_name(text)) {
			char *c = g->choices ? join_choices(g->choices) : strdup("[a-z0-9_-]+");
			int rc = run_usage_error("--%s: unknown value '%s' (one of: %s)", g->option,
						 text, c);
			free(c);
			return rc;
		}
		o->guest_value[id] = strdup(text);
		return 0;
	case FPULAB_LIST:
		break;
	}
	if (!strcmp(text, "all")) {
		/* Policies: only the kernel knows which it has built in, so 'all' is
		 * "send no list". The fixed vocabularies expand here. */
		o->guest_value[id] = g->choices ? join_choices(g->choices) : NULL;
		o->list_all[id] = true;
		return 0;
	}
	for (const char *p = text;;) {
		size_t len = strcspn(p, ",");
		bool ok = len > 0 && (g->choices ? in_choices(g->choices, p, len) : true);
		if (ok && !g->choices) {
			char word[64];
			ok = len < sizeof(word);
			if (ok) {
				memcpy(word, p, len);
				word[len] = '\0';
				ok = is_name(word) && strcmp(word, "all") != 0;
			}
		}
		if (!ok) {
			char *c = g->choices ? join_choices(g->choices)
					     : strdup("names of [a-z0-9_-]");
			int rc = run_usage_error(
				"--%s: bad list '%s' (a comma-separated list of: %s; or all)",
				g->option, text, c);
			free(c);
			return rc;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	o->guest_value[id] = strdup(text);
	o->list_all[id] = false;
	return 0;
}

static int set_word(const char *opt, const char *text, const char *const *choices, const char **out)
{
	for (const char *const *c = choices; *c; c++) {
		if (!strcmp(*c, text)) {
			*out = *c;
			return 0;
		}
	}
	char *c = join_choices(choices);
	int rc = run_usage_error("--%s: unknown value '%s' (one of: %s)", opt, text, c);
	free(c);
	return rc;
}

static const char *const accel_names[] = { "auto", "tcg", "kvm", NULL };
static const char *const thread_names[] = { "single", "multi", NULL };
static const char *const machine_names[] = { "microvm", "q35", "pc", NULL };
static const char *const on_off[] = { "on", "off", NULL };

static int set_host_option(struct run_options *o, int id, const char *text)
{
	const char *opt = host_options[id - FPULAB_OPT_NR].option, *word = NULL;
	uint64_t n;
	int rc = 0;

	switch (id) {
	case HOPT_CPUS:
		rc = parse_number(opt, text, 1, FPULAB_MAX_CPUS, &n);
		o->cpus = (unsigned)n;
		break;
	case HOPT_TIMEOUT:
		rc = parse_number(opt, text, 1, FPULAB_MAX_TIMEOUT_S, &n);
		o->timeout_s = (unsigned)n;
		break;
	case HOPT_ACCEL:
		rc = set_word(opt, text, accel_names, &word);
		if (!rc)
			o->accel = !strcmp(word, "kvm")   ? ACCEL_KVM
				   : !strcmp(word, "tcg") ? ACCEL_TCG
							  : ACCEL_AUTO;
		break;
	case HOPT_FORMAT:
	case HOPT_OUTPUT:
		return output_opt(&o->output, "run", opt, text);
	case HOPT_TCG_THREADS:
		rc = set_word(opt, text, thread_names, &o->tcg_threads);
		break;
	case HOPT_MACHINE:
		rc = set_word(opt, text, machine_names, &o->machine);
		break;
	case HOPT_PIN:
		rc = set_word(opt, text, on_off, &word);
		if (!rc)
			o->pin = !strcmp(word, "on");
		break;
	case HOPT_QEMU_CPU:
		if (!*text || strpbrk(text, " \t\n"))
			return run_usage_error("--%s: bad CPU model '%s'", opt, text);
		o->qemu_cpu = text;
		break;
	case HOPT_KERNEL:
		if (!*text)
			return run_usage_error("--%s: empty path", opt);
		o->kernel_path = text;
		break;
	case HOPT_PLOT:
		if (!*text)
			return run_usage_error("--%s: empty directory name", opt);
		o->plot_dir = text;
		break;
	case HOPT_ICOUNT:
		o->icount = true;
		break;
	case HOPT_VERBOSE:
		o->verbose = true;
		break;
	case HOPT_TRACE:
		if (!*text)
			return run_usage_error("--%s: empty path", opt);
		o->trace_path = text;
		break;
	}
	return rc ? 2 : 0;
}

/* The experiments that read option @id, comma-separated, into @buf. */
static const char *experiments_reading(int id, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int e = 0; e < FPULAB_EXP_NR; e++) {
		if (!(guest_options[id].experiments & (1u << e)))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
				 fpulab_experiments[e].name);
		if (w > 0 && (size_t)w < len - used)
			used += (size_t)w;
	}
	return buf;
}

/* @o's NUMBER option @i as given, or its default. */
static unsigned long long number_or_default(const struct run_options *o, int i)
{
	const char *v = o->guest_value[i];
	return v ? strtoull(v, NULL, 10) : fpulab_options[i].dflt;
}

/*
 * short-tasks: S and K (--slices, --fp-slices) are --mix fixed's, K <= S;
 * --mix boot|build draws them from --seed (which fixed ignores). Said here,
 * exit 2, rather than by the guest's panic after boot.
 */
static int check_short_tasks(const struct run_options *o)
{
	const char *mix = o->guest_value[FPULAB_OPT_mix];
	bool fixed = !mix || !strcmp(mix, "fixed");

	if (!fixed && (o->guest_value[FPULAB_OPT_slices] || o->guest_value[FPULAB_OPT_fp_slices]))
		return run_usage_error("--slices and --fp-slices are --mix fixed's (--mix %s draws "
				       "them with --seed)",
				       mix);
	unsigned long long s = number_or_default(o, FPULAB_OPT_slices),
			   k = number_or_default(o, FPULAB_OPT_fp_slices);
	if (fixed && k > s)
		return run_usage_error(
			"--fp-slices %llu is more than --slices %llu (the first K of "
			"S slices use SSE)",
			k, s);
	return 0;
}

bool run_needs_test_kernel(const struct run_options *o)
{
	return o->guest_value[FPULAB_OPT_inject] || o->guest_value[FPULAB_OPT_drop_wakeup];
}

/*
 * The default kernels (lab.elf, lab-test.elf with --inject or --drop-wakeup) are built from
 * this libfpu, so their policies are known before boot. A kernel given with
 * --kernel says in its hello record which it has.
 */
static int check_policies(const struct run_options *o)
{
	const char *list = o->guest_value[FPULAB_OPT_policies];
	bool test_kernel = run_needs_test_kernel(o);

	if (o->kernel_path || !list)
		return 0;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (!in_choices(fpu_policy_names(), p, len) &&
		    !(test_kernel && in_choices(fpulab_names_test_policies, p, len))) {
			char *has = join_choices(fpu_policy_names());
			char *tests = join_choices(fpulab_names_test_policies);
			int rc = run_usage_error(
				"--policy: '%.*s' is not a policy of %s (it has: %s%s%s)", (int)len,
				p, test_kernel ? "lab-test.elf" : "lab.elf", has,
				test_kernel ? "," : "", test_kernel ? tests : "");
			free(has);
			free(tests);
			return rc;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

/*
 * What the guest would skip on one CPU ("needs-2-cpus"), named in a list: refused here,
 * exit 2, not booted to find nothing run. 'all' and the defaults (the matrix finish_options
 * fills in after this) may hold them: the guest skips those and says so.
 */
static int check_one_cpu(const struct run_options *o)
{
	const char *placement = o->guest_value[FPULAB_OPT_placement],
		   *cost = o->list_all[FPULAB_OPT_cost] ? NULL : o->guest_value[FPULAB_OPT_cost];

	if (o->cpus >= 2)
		return 0;
	if (list_has(placement, "cross-cpu", 9) || list_has(placement, "migrating", 9))
		return run_usage_error("--placement cross-cpu and migrating need --cpus 2 or more");
	if (list_has(cost, "ipi", 3))
		return run_usage_error(
			"--cost ipi needs --cpus 2 or more (an IPI round trip to another CPU)");
	return 0;
}

static unsigned list_length(const char *list);

/* How many runs the options ask for (--trace FILE takes one): configurations x
 * policies x repeat; 0 when the kernel decides (every policy it has). */
static void count_runs(struct run_options *o, int exp)
{
	const char *pol = o->guest_value[FPULAB_OPT_policies];
	unsigned configs = run_options_config_count(o), policies = pol ? list_length(pol) : 0;
	unsigned long long repeat = o->guest_value[FPULAB_OPT_repeat]
					    ? strtoull(o->guest_value[FPULAB_OPT_repeat], NULL, 10)
					    : fpulab_experiments[exp].repeat;

	o->trace_runs = configs && policies ? configs * policies * (unsigned)repeat : 0;
	if (o->trace_runs)
		snprintf(o->why_runs, sizeof(o->why_runs),
			 "%u run%s (%u configuration%s x %u polic%s x %llu repeat%s)",
			 o->trace_runs, plural(o->trace_runs), configs, plural(configs), policies,
			 policies == 1 ? "y" : "ies", repeat, plural(repeat));
	else
		snprintf(o->why_runs, sizeof(o->why_runs), "%s configurations x %s x %llu repeat%s",
			 configs ? "some" : "an unknown number of",
			 policies ? "some policies" : "every policy the kernel has", repeat,
			 plural(repeat));
}

/* Defaults that depend on other options, and combinations that cannot run. */
static int finish_options(struct run_options *o)
{
	bool tcg_only = o->icount || o->tcg_threads;
	char readers[128];
	int exp;

	if (o->accel == ACCEL_KVM && tcg_only)
		return run_usage_error("--accel kvm: %s is a TCG option",
				       o->icount ? "--icount" : "--tcg-threads");
	if (o->icount && o->tcg_threads && strcmp(o->tcg_threads, "single"))
		return run_usage_error("--icount needs --tcg-threads single");
	/* one file: the trace would be written, then the rows over it */
	if (o->trace_path && o->output.path && !strcmp(o->trace_path, o->output.path))
		return run_usage_error("--output %s is the --trace file too", o->output.path);
	if (refuse_output_over_file("run", o->output.path, o->trace_path, "the --trace file"))
		return 2;
	if (o->icount && o->accel == ACCEL_AUTO)
		o->accel = ACCEL_TCG;
	if (!o->tcg_threads)
		o->tcg_threads = o->icount ? "single" : QEMU_DEFAULT_TCG_THREADS;
	if (!o->guest_value[FPULAB_OPT_experiment])
		o->guest_value[FPULAB_OPT_experiment] = strdup(
			fpulab_experiments[RUN_DEFAULT_EXPERIMENT].name);
	exp = experiment_find(o->guest_value[FPULAB_OPT_experiment]);
	/* Options the chosen experiment does not read are errors, not silently ignored. */
	for (int i = 0; i < FPULAB_OPT_NR; i++) {
		if (o->guest_value[i] && !(guest_options[i].experiments & (1u << exp)))
			return run_usage_error("--%s only applies to --experiment %s (this is %s)",
					       guest_options[i].option,
					       experiments_reading(i, readers, sizeof(readers)),
					       o->guest_value[FPULAB_OPT_experiment]);
	}
	if (check_policies(o) || (exp == FPULAB_EXP_short_tasks && check_short_tasks(o)))
		return 2;
	/* 'all' means every placement these CPUs can run; a list naming one means it. */
	if (o->cpus < 2 && o->list_all[FPULAB_OPT_placement]) {
		free(o->guest_value[FPULAB_OPT_placement]);
		o->guest_value[FPULAB_OPT_placement] = strdup("same-cpu");
	}
	if (check_one_cpu(o))
		return 2;
	/* The default matrix: every value of every list the experiment reads (every
	 * placement the CPUs allow), so that the number of configurations is known. */
	if (!o->guest_value[FPULAB_OPT_placement] && o->cpus < 2 &&
	    (guest_options[FPULAB_OPT_placement].experiments & (1u << exp)))
		o->guest_value[FPULAB_OPT_placement] = strdup("same-cpu");
	for (int i = 0; i < FPULAB_OPT_NR; i++) {
		const struct fpulab_option *g = &guest_options[i];
		if (g->type != FPULAB_LIST || !g->choices || o->guest_value[i] ||
		    !(g->experiments & (1u << exp)))
			continue;
		if (i == FPULAB_OPT_fp_users && exp == FPULAB_EXP_kernel_checksum)
			o->guest_value[i] = strdup("none,one"); /* one task: 'both' is skipped */
		else
			o->guest_value[i] = join_choices(g->choices);
	}
	count_runs(o, exp);
	return 0;
}

/* getopt_long says '?' for an unknown and for an ambiguous abbreviation alike. */
static int unknown_option(const struct option *longopts, const char *arg)
{
	char names[512] = "";
	size_t len, matches = 0, used = 0;

	if (strncmp(arg, "--", 2) != 0)
		return run_usage_error("unknown option '%s'", arg);
	arg += 2;
	len = strcspn(arg, "=");
	for (const struct option *l = longopts; l->name; l++) {
		if (strncmp(l->name, arg, len) != 0)
			continue;
		int w = snprintf(names + used, sizeof(names) - used, "%s--%s", matches ? ", " : "",
				 l->name);
		if (w > 0 && (size_t)w < sizeof(names) - used)
			used += (size_t)w;
		matches++;
	}
	if (matches > 1)
		return run_usage_error("ambiguous option '--%.*s' (%s)", (int)len, arg, names);
	return run_usage_error("unknown option '--%.*s'", (int)len, arg);
}

int run_options_parse(int argc, char **argv, struct run_options *o)
{
	struct option longopts[HOPT_END + 1];
	int n = 0, c;

	memset(o, 0, sizeof(*o));
	o->cpus = RUN_DEFAULT_CPUS;
	o->timeout_s = RUN_DEFAULT_TIMEOUT_S;
	o->machine = QEMU_DEFAULT_MACHINE;
	o->pin = true;
	for (int i = 0; i < FPULAB_OPT_NR; i++)
		longopts[n++] = (struct option){ guest_options[i].option,
						 guest_options[i].type == FPULAB_FLAG
							 ? no_argument
							 : required_argument,
						 NULL, OPT_BASE + i };
	for (int i = FPULAB_OPT_NR; i < HOPT_END; i++)
		longopts[n++] = (struct option){ host_options[i - FPULAB_OPT_NR].option,
						 host_options[i - FPULAB_OPT_NR].takes_value
							 ? required_argument
							 : no_argument,
						 NULL, OPT_BASE + i };
	longopts[n] = (struct option){ 0 };

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		int rc;
		if (c == 'h' || c == OPT_BASE + HOPT_HELP) {
			run_usage(stdout);
			return -1;
		}
		if (c == OPT_BASE + HOPT_LIST) {
			run_list(stdout);
			return -1;
		}
		if (c == '?' || c == ':') {
			if (optopt >= OPT_BASE && optopt < OPT_BASE + HOPT_END)
				return run_usage_error("--%s needs a value",
						       longopts[optopt - OPT_BASE].name);
			return unknown_option(longopts, argv[optind - 1]);
		}
		c -= OPT_BASE;
		rc = c < FPULAB_OPT_NR ? set_guest_option(o, c, optarg)
				       : set_host_option(o, c, optarg);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return run_usage_error("unexpected argument '%s'", argv[optind]);
	return finish_options(o);
}

void run_options_free(struct run_options *o)
{
	for (int i = 0; i < FPULAB_OPT_NR; i++)
		free(o->guest_value[i]);
}

int run_options_cmdline(const struct run_options *o, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < FPULAB_OPT_NR; i++) {
		if (!o->guest_value[i])
			continue;
		int w = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
				 guest_options[i].key, o->guest_value[i]);
		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += (size_t)w;
	}
	if (o->trace_path) {
		/* FPULAB_TRACE_EVENTS (tests): events per CPU buffer, to fill one up */
		const char *cap = getenv("FPULAB_TRACE_EVENTS");
		int w = snprintf(buf + used, len - used, "%strace=%s", used ? " " : "",
				 cap && *cap && strspn(cap, "0123456789") == strlen(cap) ? cap
											 : "1");
		if (w < 0 || (size_t)w >= len - used)
			return -1;
	}
	return 0;
}

static unsigned list_length(const char *list)
{
	unsigned n = *list != '\0';
	for (; *list; list++)
		n += *list == ',';
	return n;
}

unsigned run_options_config_count(const struct run_options *o)
{
	int exp = experiment_find(o->guest_value[FPULAB_OPT_experiment]);
	unsigned n = 1;

	for (int i = 0; i < FPULAB_OPT_NR && exp >= 0; i++) {
		const struct fpulab_option *g = &guest_options[i];
		if (g->type != FPULAB_LIST || !g->choices || !(g->experiments & (1u << exp)))
			continue;
		if (!o->guest_value[i])
			return 0;
		n *= list_length(o->guest_value[i]);
	}
#define SWEEP(e, opt, count)                                            \
	if (exp == FPULAB_EXP_##e && !o->guest_value[FPULAB_OPT_##opt]) \
		n *= count;
	FPULAB_DEFAULT_SWEEPS(SWEEP)
#undef SWEEP
#define FIXED(e, count)            \
	if (exp == FPULAB_EXP_##e) \
		n *= count;
	FPULAB_FIXED_CONFIGS(FIXED)
#undef FIXED
	return exp >= 0 ? n : 0;
}
