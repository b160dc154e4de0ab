/* SPDX-License-Identifier: MIT */
/*
 * fpulab host context-switch: two tasks ping-pong through a pipe, a futex
 * or sched_yield(), like Anton Blanchard's context_switch.c (seed 003), with
 * FP state in none, one or both of them.
 *
 * An FP-using task holds unique non-zero values in every register of its
 * set across each round trip (host_regs_run: only raw syscalls run between
 * the load and the store) and checks them after it: a difference is an
 * integrity error. XGETBV(1), read while the values are loaded, shows the
 * components really are in use.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate.h"
#include "common/catalog.h"
#include "common/clock.h"
#include "host.h"
#include "host_cpu.h"
#include "common/stats.h"
#include "common/result_file.h"
#include "common/util.h"

#define CMD "host context-switch"
#define FLOOR_REPEAT 2000

enum ipc { IPC_PIPE, IPC_FUTEX, IPC_YIELD, IPC_NR };
enum mode { MODE_THREADS, MODE_PROCESSES, MODE_NR };
enum placement { PL_SAME, PL_CROSS, PL_NR };
enum fp_users { FP_NONE, FP_ONE, FP_BOTH, FP_NR };

static const char *const ipc_names[] = { "pipe", "futex", "yield", NULL };
static const char *const mode_names[] = { "threads", "processes", NULL };
static const char *const placement_names[] = { "same-cpu", "cross-cpu", NULL };
static const char *const fp_names[] = { "none", "one", "both", NULL };

struct cs_config {
	enum ipc ipc;
	enum mode mode;
	enum placement placement;
	enum fp_users fp;
	enum host_regset regset; /* NONE when fp is FP_NONE */
	double *samples;         /* ns per round trip, one per run */
	double fill_check_ns;    /* user-mode load+store+compare of the set, once */
	unsigned int runs;
	uint64_t round_trips, errors, xinuse_missing;
	uint64_t xinuse[2];         /* XGETBV(1) seen by task A and B in the last round trip */
	struct host_mismatch first; /* the first integrity error */
	char first_task;
};

/* What the two tasks share (MAP_SHARED: also across fork). */
struct cs_shared {
	uint32_t word; /* futex: 0 = A's turn, 1 = B's */
	volatile int stop;
	volatile int failed;
	int pipe_ab[2], pipe_ba[2];
	double seconds;
	const struct cs_config *cfg;
	int cpu[2];
	/* results, per task */
	uint64_t round_trips, ns;
	uint64_t errors[2], xinuse_missing[2], xinuse[2];
	struct host_mismatch first[2];
	char why[2][160];
	struct host_regs regs[2][2]; /* fill, dump of each task */
};

static uint64_t futex_op(const struct cs_config *c, int op)
{
	return (uint64_t)(c->mode == MODE_THREADS ? (op | FUTEX_PRIVATE_FLAG) : op);
}

static void step(struct host_step *s, uint64_t kind, uint64_t nr, uint64_t a0, uint64_t a1,
		 uint64_t a2, int64_t expect)
{
	*s = (struct host_step){
		.kind = kind, .nr = nr, .arg = { a0, a1, a2, 0 }, .expect = expect
	};
}

/* The steps of one round trip for task @side (0: A, who starts it; 1: B). */
static void cs_steps(struct cs_shared *sh, int side, struct host_step *s, char *byte)
{
	const struct cs_config *c = sh->cfg;
	uint64_t w = (uint64_t)(uintptr_t)&sh->word;
	int n = 0;

	switch (c->ipc) {
	case IPC_PIPE:
		if (side == 0) {
			step(&s[n++], HOST_STEP_SYSCALL, SYS_write, (uint64_t)sh->pipe_ab[1],
			     (uint64_t)(uintptr_t)byte, 1, 1);
			step(&s[n++], HOST_STEP_SYSCALL, SYS_read, (uint64_t)sh->pipe_ba[0],
			     (uint64_t)(uintptr_t)byte, 1, 1);
		} else {
			step(&s[n++], HOST_STEP_SYSCALL, SYS_read, (uint64_t)sh->pipe_ab[0],
			     (uint64_t)(uintptr_t)byte, 1, 1);
			step(&s[n++], HOST_STEP_SYSCALL, SYS_write, (uint64_t)sh->pipe_ba[1],
			     (uint64_t)(uintptr_t)byte, 1, 1);
		}
		break;
	case IPC_FUTEX:
		if (side == 0) {
			step(&s[n++], HOST_STEP_STORE32, 0, w, 1, 0, 0);
			step(&s[n++], HOST_STEP_SYSCALL, SYS_futex, w, futex_op(c, FUTEX_WAKE), 1,
			     HOST_EXPECT_NONNEG);
			step(&s[n++], HOST_STEP_FUTEX_WAIT, 0, w, 1, futex_op(c, FUTEX_WAIT), 0);
		} else {
			step(&s[n++], HOST_STEP_FUTEX_WAIT, 0, w, 0, futex_op(c, FUTEX_WAIT), 0);
			step(&s[n++], HOST_STEP_STORE32, 0, w, 0, 0, 0);
			step(&s[n++], HOST_STEP_SYSCALL, SYS_futex, w, futex_op(c, FUTEX_WAKE), 1,
			     HOST_EXPECT_NONNEG);
		}
		break;
	default:
		step(&s[n++], HOST_STEP_SYSCALL, SYS_sched_yield, 0, 0, 0, 0);
		break;
	}
	step(&s[n], HOST_STEP_END, 0, 0, 0, 0, 0);
}

/* Let the other task out of its wait once this one stops. */
static void cs_release(struct cs_shared *sh, int side)
{
	char b = 'q';

	if (sh->cfg->ipc == IPC_PIPE) {
		if (write(side == 0 ? sh->pipe_ab[1] : sh->pipe_ba[1], &b, 1) != 1)
			return;
	} else if (sh->cfg->ipc == IPC_FUTEX) {
		__atomic_store_n(&sh->word, side == 0 ? 1u : 0u, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &sh->word, futex_op(sh->cfg, FUTEX_WAKE), 1, NULL, NULL, 0);
	}
}

static void cs_task(struct cs_shared *sh, int side)
{
	const struct cs_config *c = sh->cfg;
	bool fp = c->fp == FP_BOTH || (c->fp == FP_ONE && side == 0);
	enum host_regset set = fp ? c->regset : HOST_REGSET_NONE;
	struct host_regs *fill = &sh->regs[side][0], *dump = &sh->regs[side][1];
	struct host_step steps[4];
	struct host_cpu cpu;
	uint64_t mask = host_regset_mask(set), rts = 0, t0, t1;
	char byte = 'x';
	struct host_run r = { .regset = set, .fill = fill, .dump = dump, .steps = steps };

	host_cpu_probe(&cpu);
	r.xgetbv1 = cpu.xgetbv1;
	if (host_pin(0, sh->cpu[side])) {
		snprintf(sh->why[side], sizeof(sh->why[side]), "cannot pin to CPU %d: %s",
			 sh->cpu[side], strerror(errno));
		sh->failed = 1;
		sh->stop = 1;
		cs_release(sh, side);
		return;
	}
	host_regs_fill(fill, 0x1000 + (uint64_t)side);
	cs_steps(sh, side, steps, &byte);
	t0 = host_now_ns();
	for (;;) {
		long rc;

		if (side == 1 && sh->stop)
			break;
		rc = host_regs_run(&r);
		if (rc) {
			snprintf(sh->why[side], sizeof(sh->why[side]),
				 "step %ld of a round trip returned %" PRId64 " (%s)", rc - 1,
				 r.sys_ret,
				 r.sys_ret < 0 ? strerror((int)-r.sys_ret) : "unexpected");
			sh->failed = 1;
			sh->stop = 1;
			break;
		}
		if (fp) {
			struct host_mismatch m;
			if (host_regs_diff(set, fill, dump, &m) && !sh->errors[side]++)
				sh->first[side] = m;
		}
		if (cpu.xgetbv1) {
			sh->xinuse[side] = dump->xinuse;
			if ((dump->xinuse & mask) != mask)
				sh->xinuse_missing[side]++;
		}
		rts++;
		if (side == 0 && (rts & 63) == 0 &&
		    (sh->stop || host_now_ns() - t0 >= (uint64_t)(sh->seconds * 1e9)))
			break;
	}
	t1 = host_now_ns();
	if (side == 0) {
		sh->round_trips = rts;
		sh->ns = t1 - t0;
		sh->stop = 1;
	}
	cs_release(sh, side);
}

struct cs_thread_arg {
	struct cs_shared *sh;
	int side;
};

static void *cs_thread_side(void *p)
{
	struct cs_thread_arg *a = p;
	cs_task(a->sh, a->side);
	return NULL;
}

/* One run of @c for @seconds on CPUs @cpu[2]. Returns 0, or 1 after a message. */
static int cs_run_once(struct cs_config *c, double seconds, const int cpu[2])
{
	struct cs_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int rc = 0;

	if (sh == MAP_FAILED) {
		fprintf(stderr, "fpulab " CMD ": mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(sh, 0, sizeof(*sh));
	sh->cfg = c;
	sh->seconds = seconds;
	sh->cpu[0] = cpu[0];
	sh->cpu[1] = c->placement == PL_SAME ? cpu[0] : cpu[1];
	if (pipe(sh->pipe_ab) || pipe(sh->pipe_ba)) {
		fprintf(stderr, "fpulab " CMD ": pipe: %s\n", strerror(errno));
		munmap(sh, sizeof(*sh));
		return 1;
	}
	if (c->mode == MODE_THREADS) {
		pthread_t t[2];
		struct cs_thread_arg a[2] = { { sh, 0 }, { sh, 1 } };
		for (int i = 0; i < 2; i++)
			if (pthread_create(&t[i], NULL, cs_thread_side, &a[i])) {
				fprintf(stderr, "fpulab " CMD ": cannot create a thread\n");
				exit(1);
			}
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else {
		pid_t pid[2];
		for (int i = 0; i < 2; i++) {
			pid[i] = fork();
			if (pid[i] < 0) {
				fprintf(stderr, "fpulab " CMD ": fork: %s\n", strerror(errno));
				exit(1);
			}
			if (pid[i] == 0) {
				cs_task(sh, i);
				_exit(0);
			}
		}
		for (int i = 0; i < 2; i++)
			waitpid(pid[i], NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		close(sh->pipe_ab[i]);
		close(sh->pipe_ba[i]);
	}
	if (sh->failed) {
		for (int i = 0; i < 2; i++)
			if (sh->why[i][0])
				fprintf(stderr, "fpulab " CMD ": %s/%s task %c: %s\n",
					ipc_names[c->ipc], mode_names[c->mode], 'A' + i,
					sh->why[i]);
		rc = 1;
	} else {
		c->samples[c->runs++] = sh->round_trips ? (double)sh->ns / sh->round_trips : 0;
		c->round_trips += sh->round_trips;
	}
	for (int i = 0; i < 2; i++) {
		if (sh->errors[i] && !c->errors) {
			c->first = sh->first[i];
			c->first_task = (char)('A' + i);
		}
		c->errors += sh->errors[i];
		c->xinuse_missing += sh->xinuse_missing[i];
	}
	c->xinuse[0] = sh->xinuse[0];
	c->xinuse[1] = sh->xinuse[1];
	munmap(sh, sizeof(*sh));
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab host context-switch [--ipc LIST] [--mode LIST] [--placement LIST]\n"
		"         [--fp-users LIST] [--regset LIST] [--cpus A,B] [--seconds S]\n"
		"         [--repeat K] [--format table|json|csv] [--output FILE]\n"
		"Two tasks ping-pong on this Linux (seed 003's context_switch.c, done with raw\n"
		"syscalls): ns per round trip and round trips per s, median/min/max over K runs\n"
		"of S seconds each, configurations interleaved (A B A B) so that drift cancels.\n"
		"LISTs are comma-separated; every combination runs.\n"
		"  --ipc pipe|futex|yield          default pipe (yield needs same-cpu)\n"
		"  --mode threads|processes        default threads\n"
		"  --placement same-cpu|cross-cpu  default same-cpu,cross-cpu (sched_setaffinity)\n"
		"  --fp-users none|one|both        default none,one,both: tasks holding FP state\n"
		"  --regset x87|sse|avx|avx512     default the widest this CPU and kernel offer;\n"
		"                                  sets they do not offer are skipped, and said\n"
		"                                  so\n"
		"  --cpus A,B                      default the first two CPUs this process may\n"
		"                                  use\n"
		"  --seconds S                     default 1 (0.01..86400)\n"
		"  --repeat K                      default 5 (1..%d)\n"
		"Each FP-using task checks every register of its set after every round trip\n"
		"(integrity_errors) and reads XGETBV(1) while they are loaded (xinuse_a for\n"
		"task A, which holds the set for fp one and both; xinuse_b for B). The\n"
		"floor columns: calibrate's user-mode save+XRSTOR pair (all XCR0 components\n"
		"dirty, measured in the same run) times the FP tasks switched per round trip.\n"
		"fill_check_ns_per_fp_task: what holding and checking the set costs an FP task\n"
		"in user mode per round trip (no syscall), measured in the same run.\n"
		"Exit 1 on any integrity error or a failed syscall, 2 on bad usage.\n",
		FPULAB_MAX_REPEAT);
}

struct cs_opts {
	struct host_common h;
	const char *ipc, *mode, *placement, *fp, *regset, *cpus;
};

/* Each word of @list must be in @names; sets bit i of *@bits for names[i]. */
static int parse_list(const char *opt, const char *list, const char *const *names,
		      unsigned int *bits)
{
	char *copy = xstrdup(list), *save = NULL;
	int rc = 0;

	*bits = 0;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int i = parse_choice(CMD, opt, w, names);
		if (i < 0) {
			rc = 2;
			break;
		}
		*bits |= 1u << i;
	}
	if (!rc && !*bits)
		rc = usage_error(CMD, "--%s: empty list", opt);
	free(copy);
	return rc;
}

static int parse_cpus(const char *text, int cpu[2])
{
	const char *comma = strchr(text, ',');
	uint64_t v[2];

	if (!comma)
		return usage_error(CMD, "--cpus: '%s' is not two CPU numbers A,B", text);
	char *first = strndup(text, (size_t)(comma - text));
	if (!first)
		abort();
	int rc = parse_u64_arg(CMD, "cpus", first, 0, CPU_SETSIZE - 1, &v[0]) ||
		 parse_u64_arg(CMD, "cpus", comma + 1, 0, CPU_SETSIZE - 1, &v[1]);
	free(first);
	if (rc)
		return 2;
	for (int i = 0; i < 2; i++) {
		cpu[i] = (int)v[i];
		if (!host_cpu_allowed(cpu[i]))
			return usage_error(CMD, "--cpus: this process may not run on CPU %d",
					   cpu[i]);
	}
	return 0;
}

/* One of context-switch's own options (host_opt_fn): each a list, checked later. */
static int cs_opt(void *ctx, int c, const char *arg)
{
	struct cs_opts *o = ctx;

	switch (c) {
	case 'i':
		o->ipc = arg;
		return 0;
	case 'm':
		o->mode = arg;
		return 0;
	case 'p':
		o->placement = arg;
		return 0;
	case 'f':
		o->fp = arg;
		return 0;
	case 'r':
		o->regset = arg;
		return 0;
	case 'c':
		o->cpus = arg;
		return 0;
	default:
		return usage_error(CMD, "unknown option");
	}
}

/* Parse @argv into @o. Returns -1 to go on, or the exit status (0 after --help). */
static int cs_parse(int argc, char **argv, struct cs_opts *o)
{
	static const struct option longopts[] = {
		{ "ipc", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, 'm' },
		{ "placement", required_argument, NULL, 'p' },
		{ "fp-users", required_argument, NULL, 'f' },
		{ "regset", required_argument, NULL, 'r' },
		{ "cpus", required_argument, NULL, 'c' },
		HOST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};

	return host_parse(&o->h, argc, argv, longopts, cs_opt, o, usage);
}

static const struct output_column cs_columns[] = {
	{ "ipc", NULL, -5, 0 },
	{ "mode", NULL, -9, 0 },
	{ "placement", NULL, -9, 0 },
	{ "fp_users", "fp", -4, 0 },
	{ "regset", NULL, -6, 0 },
	{ RESULT_RUNS, "runs", 4, 0 },
	{ "ns_per_round_trip_median", "ns/rt med", 9, 0 },
	{ "ns_per_round_trip_min", "min", 7, 0 },
	{ "ns_per_round_trip_max", "max", 7, 0 },
	{ "round_trips_per_s_median", "rt/s med", 9, 0 },
	{ "xinuse_a", "XINUSE A", 8, 0 },
	{ "xinuse_b", "B", 5, 0 },
	{ "integrity_errors", "errors", 6, 0 },
	{ "floor_ns_per_round_trip", "floor ns", 8, 0 },
	{ "floor_share", "share", 6, 3 },
};

/*
 * The user-mode cost an FP task adds to each round trip beyond the kernel's:
 * load, store and compare of @set with no syscall between, in ns; the
 * median of 11 batches of 2000 (a differing register here would show in
 * the rows' own checks). Measured in the same run as the rows.
 */
static double fill_check_ns(enum host_regset set, bool xgetbv1)
{
	static struct host_regs fill, dump;
	static const struct host_step end[] = { { .kind = HOST_STEP_END } };
	struct host_run r = {
		.regset = set, .fill = &fill, .dump = &dump, .steps = end, .xgetbv1 = xgetbv1
	};
	double v[11];

	host_regs_fill(&fill, 7);
	for (int b = 0; b < 11; b++) {
		uint64_t t0 = host_now_ns();
		for (int i = 0; i < 2000; i++) {
			host_regs_run(&r);
			host_regs_diff(set, &fill, &dump, NULL);
		}
		v[b] = (double)(host_now_ns() - t0) / 2000;
	}
	return stats_summarise(v, 11).median;
}

static json_t *cs_row(const struct cs_config *c, const struct cs_opts *o, const int cpu[2],
		      const struct calibrate_floor *fl, bool cpu_xgetbv1)
{
	json_t *row = json_object();
	double rate[FPULAB_MAX_REPEAT];
	struct stats_summary ns, rt;
	double samples[FPULAB_MAX_REPEAT];
	int pairs = c->fp == FP_BOTH ? 2 : c->fp == FP_ONE ? 1 : 0;
	char buf[64];

	memcpy(samples, c->samples, c->runs * sizeof(double));
	for (unsigned int i = 0; i < c->runs; i++)
		rate[i] = samples[i] > 0 ? 1e9 / samples[i] : 0;
	ns = stats_summarise(samples, c->runs);
	rt = stats_summarise(rate, c->runs);
	json_object_set_new(row, "ipc", json_string(ipc_names[c->ipc]));
	json_object_set_new(row, "mode", json_string(mode_names[c->mode]));
	json_object_set_new(row, "placement", json_string(placement_names[c->placement]));
	snprintf(buf, sizeof(buf), "%d,%d", cpu[0], c->placement == PL_SAME ? cpu[0] : cpu[1]);
	json_object_set_new(row, "cpus", json_string(buf));
	json_object_set_new(row, "fp_users", json_string(fp_names[c->fp]));
	json_object_set_new(row, "regset", json_string(host_regset_names[c->regset]));
	json_object_set_new(row, "seconds_per_run", json_real(o->h.seconds));
	json_object_set_new(row, RESULT_RUNS, json_integer(c->runs));
	json_object_set_new(row, "round_trips", json_integer((json_int_t)c->round_trips));
	json_object_set_new(row, "ns_per_round_trip_median", json_real(ns.median));
	json_object_set_new(row, "ns_per_round_trip_min", json_real(ns.min));
	json_object_set_new(row, "ns_per_round_trip_max", json_real(ns.max));
	json_object_set_new(row, "round_trips_per_s_median", json_real(rt.median));
	json_object_set_new(row, "round_trips_per_s_min", json_real(rt.min));
	json_object_set_new(row, "round_trips_per_s_max", json_real(rt.max));
	for (int i = 0; i < 2; i++) {
		if (cpu_xgetbv1) {
			snprintf(buf, sizeof(buf), "0x%" PRIx64, c->xinuse[i]);
			json_object_set_new(row, i ? "xinuse_b" : "xinuse_a", json_string(buf));
		} else {
			json_object_set_new(row, i ? "xinuse_b" : "xinuse_a", json_null());
		}
	}
	/* Task A holds the set for fp one and both; B for both. */
	snprintf(buf, sizeof(buf), "0x%" PRIx64, host_regset_mask(c->regset));
	json_object_set_new(row, "xinuse_expected", json_string(buf));
	json_object_set_new(row, "xinuse_missing", json_integer((json_int_t)c->xinuse_missing));
	json_object_set_new(row, "integrity_errors", json_integer((json_int_t)c->errors));
	json_object_set_new(row, "floor_pair", json_string(fl->pair));
	json_object_set_new(row, "floor_pair_ns_median", json_real(fl->median_ns));
	json_object_set_new(row, "floor_pair_runs", json_integer((json_int_t)fl->repeat));
	json_object_set_new(row, "fill_check_ns_per_fp_task",
			    c->fp == FP_NONE ? json_null() : json_real(c->fill_check_ns));
	if (pairs && ns.median > 0) {
		json_object_set_new(row, "floor_ns_per_round_trip",
				    json_real(pairs * fl->median_ns));
		json_object_set_new(row, "floor_share",
				    json_real(pairs * fl->median_ns / ns.median));
	} else {
		json_object_set_new(row, "floor_ns_per_round_trip", json_null());
		json_object_set_new(row, "floor_share", json_null());
	}
	json_object_set_new(row, "clock", json_string(clock_kinds[CLOCK_HOST_MONOTONIC].key));
	return row;
}

/* The values of the list options, as bit masks (bit i: value i of its names). */
struct cs_selection {
	unsigned int ipcs, modes, places, fps, sets;
};

/* The lists of @o as masks; no --regset: the widest set @cpu offers. -1 to go on, else 2. */
static int cs_select(const struct cs_opts *o, const struct host_cpu *cpu, struct cs_selection *s)
{
	*s = (struct cs_selection){ 0 };
	if (parse_list("ipc", o->ipc, ipc_names, &s->ipcs) ||
	    parse_list("mode", o->mode, mode_names, &s->modes) ||
	    parse_list("placement", o->placement, placement_names, &s->places) ||
	    parse_list("fp-users", o->fp, fp_names, &s->fps))
		return 2;
	if (o->regset && parse_list("regset", o->regset, host_regset_names, &s->sets))
		return 2;
	if (s->sets & 1u << HOST_REGSET_NONE)
		return usage_error(CMD, "--regset: none is --fp-users none");
	if (!o->regset)
		for (int r = HOST_REGSET_AVX512; r > HOST_REGSET_NONE && !s->sets; r--)
			if (cpu->regset_ok[r])
				s->sets = 1u << r;
	if ((s->ipcs & 1u << IPC_YIELD) && (s->places & 1u << PL_CROSS))
		return usage_error(CMD, "--ipc yield needs --placement same-cpu (both tasks on "
					"one CPU)");
	return -1;
}

/* The two CPUs: --cpus, or the first two this process may use. -1 to go on, else the status. */
static int cs_choose_cpus(const struct cs_opts *o, unsigned int places, int cpus[2])
{
	int allowed[HOST_MAX_CPUS], nallowed = host_allowed_cpus(allowed, HOST_MAX_CPUS);
	bool cross = places & 1u << PL_CROSS;

	if (o->cpus) {
		int rc = parse_cpus(o->cpus, cpus);
		if (rc)
			return rc;
	} else {
		if (nallowed < 1 || (cross && nallowed < 2)) {
			fprintf(stderr,
				"fpulab " CMD ": cross-cpu needs two CPUs; this process may "
				"use %d\n",
				nallowed);
			return 1;
		}
		cpus[0] = allowed[0];
		cpus[1] = nallowed > 1 ? allowed[1] : allowed[0];
	}
	if (cross && cpus[0] == cpus[1])
		return usage_error(CMD, "--cpus: cross-cpu needs two different CPUs");
	return -1;
}

/* Leave out of @sets the register sets @cpu does not offer, saying so. */
static void cs_drop_unoffered(struct output *out, const struct host_cpu *cpu, unsigned int *sets)
{
	for (int s = HOST_REGSET_X87; s < HOST_REGSET_NR; s++)
		if ((*sets & 1u << s) && !cpu->regset_ok[s]) {
			fprintf(stderr, "fpulab " CMD ": skipping --regset %s: %s\n",
				host_regset_names[s], cpu->why_not[s]);
			output_comment(out, "skipped regset %s: %s", host_regset_names[s],
				       cpu->why_not[s]);
			*sets &= ~(1u << s);
		}
}

/* Whether the configuration (@ipc, @m, @p, @f, @s) is one of @sel's. */
static bool cs_selected(const struct cs_selection *sel, int ipc, int m, int p, int f, int s)
{
	if (!(sel->ipcs >> ipc & 1) || !(sel->modes >> m & 1) || !(sel->places >> p & 1) ||
	    !(sel->fps >> f & 1))
		return false;
	return f == FP_NONE ? s == HOST_REGSET_NONE : (sel->sets >> s & 1);
}

/* Every configuration @sel asks for, in the rows' order, into @cfg. Returns the count. */
static int cs_configs(const struct cs_selection *sel, struct cs_config *cfg)
{
	int n = 0;

	for (int i = 0; i < IPC_NR; i++)
		for (int m = 0; m < MODE_NR; m++)
			for (int p = 0; p < PL_NR; p++)
				for (int f = 0; f < FP_NR; f++)
					for (int s = HOST_REGSET_NONE; s < HOST_REGSET_NR; s++)
						if (cs_selected(sel, i, m, p, f, s))
							cfg[n++] =
								(struct cs_config){ .ipc = i,
										    .mode = m,
										    .placement = p,
										    .fp = f,
										    .regset = s };
	return n;
}

/* The table's lines on the machine, the runs and the floor. */
static void cs_comments(struct output *out, const struct cs_opts *o,
			const struct calibrate_floor *floor)
{
	host_comment_machine(out);
	output_comment(out,
		       "%u runs of %.3g s per configuration, interleaved; ns per round trip "
		       "(two switches) and round trips per s: median, min, max of the runs",
		       o->h.repeat, o->h.seconds);
	output_comment(out,
		       "floor: %s user-mode pair %.1f ns median (min %.1f, max %.1f, %lu samples), "
		       "XCR0 0x%" PRIx64 " dirty, times the FP tasks per round trip; a proxy "
		       "(the kernel uses XSAVES/XRSTORS)",
		       floor->pair, floor->median_ns, floor->min_ns, floor->max_ns, floor->repeat,
		       floor->xcr0);
}

/* --repeat runs of every configuration, interleaved. 0, or the first failing run's status. */
static int cs_measure(struct cs_config *cfg, int ncfg, const struct cs_opts *o, const int cpus[2],
		      bool xgetbv1)
{
	int rc = 0;

	for (int i = 0; i < ncfg; i++) {
		cfg[i].samples = calloc(o->h.repeat, sizeof(double));
		cfg[i].fill_check_ns = fill_check_ns(cfg[i].regset, xgetbv1);
	}
	for (unsigned int r = 0; r < o->h.repeat && !rc; r++)
		for (int i = 0; i < ncfg && !rc; i++)
			rc = cs_run_once(&cfg[i], o->h.seconds, cpus);
	return rc;
}

/* A configuration's integrity errors on stderr: how many, and the first. */
static void cs_say_errors(const struct cs_config *c)
{
	fprintf(stderr,
		"fpulab " CMD ": %s %s %s fp=%s %s: %" PRIu64
		" integrity errors; first: task %c %s lane %u expected 0x%016" PRIx64
		" found 0x%016" PRIx64 "\n",
		ipc_names[c->ipc], mode_names[c->mode], placement_names[c->placement],
		fp_names[c->fp], host_regset_names[c->regset], c->errors, c->first_task,
		c->first.reg, c->first.lane, c->first.expected, c->first.found);
}

/*
 * The rows of the configurations that ran, their errors on stderr; frees the
 * samples. Returns 1 when a row had integrity errors or (with @cpu's
 * XGETBV(1)) a component not in use, else 0.
 */
static int cs_rows(struct output *out, struct cs_config *cfg, int ncfg, const struct cs_opts *o,
		   const int cpus[2], const struct calibrate_floor *floor,
		   const struct host_cpu *cpu)
{
	uint64_t errors = 0, missing = 0;

	for (int i = 0; i < ncfg; i++) {
		if (cfg[i].runs)
			output_row(out, cs_row(&cfg[i], o, cpus, floor, cpu->xgetbv1));
		errors += cfg[i].errors;
		missing += cfg[i].xinuse_missing;
		if (cfg[i].errors)
			cs_say_errors(&cfg[i]);
		free(cfg[i].samples);
	}
	if (missing && cpu->xgetbv1)
		fprintf(stderr,
			"fpulab " CMD ": %" PRIu64
			" round trips had a component of the set not in use (XINUSE)\n",
			missing);
	return errors || (missing && cpu->xgetbv1) ? 1 : 0;
}

int host_context_switch(int argc, char **argv)
{
	struct cs_opts o = { .h = { .sub = fpulab_experiments[FPULAB_EXP_context_switch].name,
				    .repeat = 5,
				    .seconds = 1 },
			     .ipc = "pipe",
			     .mode = "threads",
			     .placement = "same-cpu,cross-cpu",
			     .fp = "none,one,both" };
	struct cs_config cfg[IPC_NR * MODE_NR * PL_NR * FP_NR * HOST_REGSET_NR];
	struct cs_selection sel;
	struct calibrate_floor floor;
	struct host_cpu cpu;
	struct output out;
	int cpus[2], ncfg, rc, bad;

	if ((rc = cs_parse(argc, argv, &o)) >= 0)
		return rc;
	host_cpu_probe(&cpu);
	if ((rc = cs_select(&o, &cpu, &sel)) >= 0 ||
	    (rc = cs_choose_cpus(&o, sel.places, cpus)) >= 0)
		return rc;
	if (host_output_open(&out, &o.h, CMD, argc + 2, argv - 2))
		return 2; /* an --output or --plot that cannot be made */
	output_columns(&out, cs_columns, sizeof(cs_columns) / sizeof(cs_columns[0]));
	cs_drop_unoffered(&out, &cpu, &sel.sets);
	ncfg = cs_configs(&sel, cfg);
	if (!ncfg) {
		fprintf(stderr, "fpulab " CMD ": nothing to run (no register set offered)\n");
		output_close(&out);
		return 1;
	}
	if (calibrate_switch_floor(FLOOR_REPEAT, &floor)) {
		output_close(&out);
		return 1;
	}
	cs_comments(&out, &o, &floor);
	rc = cs_measure(cfg, ncfg, &o, cpus, cpu.xgetbv1);
	bad = cs_rows(&out, cfg, ncfg, &o, cpus, &floor, &cpu);
	if (output_close(&out))
		rc = 1;
	return rc || bad ? 1 : 0;
}
