/* SPDX-License-Identifier: MIT */
/*
 * fpulab calibrate: native user-mode cost of the XSAVE family on this host,
 * the floor libfpu's switch path is measured against.
 *
 * Every figure is per operation, in TSC ticks and ns: a sample times a batch
 * of BATCH operations between LFENCE-fenced RDTSC/RDTSCP, minus the median
 * cost of an empty batch, divided by BATCH; median, min and max over
 * --repeat samples. The register state (init or dirty) is checked with
 * XGETBV(1) before and after each figure.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fpu/fpu.h>
#include <fpu/xstate.h>

#include "calibrate.h"
#include "cli.h"
#include "common/clock.h"
#include "common/cpu_model.h"
#include "common/output.h"
#include "common/result_file.h"
#include "common/stats.h"
#include "common/tsc.h"
#include "common/util.h"

#define BATCH 16
#define REPEAT_DEFAULT 2000
#define REPEAT_MAX 10000000ul

struct figure {
	const char *name;        /* what is timed */
	const char *state;       /* "init", "dirty", "-" */
	double median, min, max; /* TSC ticks per operation */
	uint64_t xinuse;         /* XGETBV(1) just before the figure (~0: unknown) */
	bool state_ok;           /* the registers were in the state claimed */
};

/* ---- the operations timed; each runs BATCH times ---- */

struct bench {
	struct xregs_state *a, *b, *dirty_std, *dirty_cmp;
	enum fpu_save_insn insn;
	uint64_t mask;
};

typedef void (*op_fn)(struct bench *);

static void op_empty(struct bench *b)
{
	for (int i = 0; i < BATCH; i++)
		__asm__ volatile("" : : : "memory");
}

static void op_save(struct bench *b)
{
	for (int i = 0; i < BATCH; i++)
		xstate_save_insn(b->insn, b->a, b->mask);
}

static void op_xrstor_std(struct bench *b)
{
	for (int i = 0; i < BATCH; i++)
		xstate_restore_insn(FPU_INSN_XSAVE, b->dirty_std, b->mask);
}

static void op_xrstor_cmp(struct bench *b)
{
	for (int i = 0; i < BATCH; i++)
		xstate_restore_insn(FPU_INSN_XSAVEC, b->dirty_cmp, b->mask);
}

static void op_fxrstor(struct bench *b)
{
	for (int i = 0; i < BATCH; i++)
		xstate_restore_insn(FPU_INSN_FXSAVE, b->dirty_std, b->mask);
}

/*
 * libfpu's real switch hook under the eager policy, run in user mode: the
 * host stands in for a kernel with one CPU. Two tasks, switched back and
 * forth; each fpu_switch() saves the live one and loads the other.
 */
static unsigned int host_cpu_id(void)
{
	return 0;
}

static void host_panic(const char *msg)
{
	fprintf(stderr, "fpulab calibrate: libfpu: %s\n", msg);
	abort();
}

/* User mode cannot write CR0: TS lives in libfpu's mirror only, and its cost is not timed. */
static void host_ts_nop(void)
{
}

static const struct fpu_arch_ops host_ops = {
	.cpu_id = host_cpu_id,
	.panic = host_panic,
	.set_ts = host_ts_nop,
	.clear_ts = host_ts_nop,
};
static struct fpu task_a, task_b;

static void op_switch_eager(struct bench *b)
{
	for (int i = 0; i < BATCH / 2; i++) {
		fpu_switch(&task_a, &task_b);
		fpu_switch(&task_b, &task_a);
	}
}

/*
 * The raw pair, inline: save into one buffer, restore from the other, with
 * the save instruction libfpu's switch uses (b->insn), so the comparison is
 * like for like. XRSTOR reads either format (XCOMP_BV[63]).
 */
#define RAW_PAIR(save, restore)                                                              \
	for (int i = 0; i < BATCH / 2; i++) {                                                \
		__asm__ volatile(save " %0" : "+m"(*b->a) : "a"(lo), "d"(hi) : "memory");    \
		__asm__ volatile(restore " %0" : : "m"(*b->b), "a"(lo), "d"(hi) : "memory"); \
		__asm__ volatile(save " %0" : "+m"(*b->b) : "a"(lo), "d"(hi) : "memory");    \
		__asm__ volatile(restore " %0" : : "m"(*b->a), "a"(lo), "d"(hi) : "memory"); \
	}

static void op_switch_raw(struct bench *b)
{
	uint32_t lo = (uint32_t)b->mask, hi = (uint32_t)(b->mask >> 32);

	switch (b->insn) {
	case FPU_INSN_FXSAVE:
		RAW_PAIR("fxsave64", "fxrstor64");
		break;
	case FPU_INSN_XSAVE:
		RAW_PAIR("xsave64", "xrstor64");
		break;
	case FPU_INSN_XSAVEOPT:
		RAW_PAIR("xsaveopt64", "xrstor64");
		break;
	default: /* XSAVEC: the only other user-mode choice */
		RAW_PAIR("xsavec64", "xrstor64");
		break;
	}
}

/* "fxrstor" for FXSAVE, else "xrstor". */
static const char *restore_name(enum fpu_save_insn insn)
{
	return insn == FPU_INSN_FXSAVE ? "fxrstor" : "xrstor";
}

/* ---- register state ---- */

/* A standard image with every enabled component non-zero (all-zero reads as init). */
static void make_dirty(struct xregs_state *img, uint64_t xcr0)
{
	memset(img, 0, XSTATE_MAX_SIZE);
	img->legacy.fcw = FCW_DEFAULT;
	img->legacy.mxcsr = MXCSR_DEFAULT;
	img->legacy.ftw = 0xff;
	for (int r = 0; r < 8; r++) { /* ST(r) = 1.0 + r */
		uint64_t mant = 0x8000000000000000ull | ((uint64_t)r << 56);
		uint16_t se = 0x3fff;
		memcpy(img->legacy.st_space + 16 * r, &mant, 8);
		memcpy(img->legacy.st_space + 16 * r + 8, &se, 2);
	}
	memset(img->legacy.xmm_space, 0x5a, sizeof(img->legacy.xmm_space));
	for (unsigned int i = 2; i < 63; i++)
		if (xcr0 & XFEATURE_MASK(i))
			memset((uint8_t *)img + xstate_cfg.comp[i].std_offset, 0x5a ^ i,
			       xstate_cfg.comp[i].size);
	img->header.xstate_bv = xcr0;
}

static struct xregs_state *dirty_std_img;

static void enter_state(bool dirty)
{
	if (dirty)
		xstate_restore_insn(FPU_INSN_XSAVE, dirty_std_img, xstate_cfg.xcr0);
	else
		xstate_load_init();
}

/* Dirty: every enabled component in use. Init: nothing beyond x87/SSE in use
 * (this AMD CPU may report SSE in use right after an init load). */
static bool state_is(bool dirty, uint64_t xinuse)
{
	uint64_t m = xstate_cfg.xcr0;
	if (!xstate_cfg.caps.xgetbv1)
		return true;
	if (dirty)
		return (xinuse & m) == m;
	return (xinuse & m & ~XFEATURE_MASK_FPSSE) == 0;
}

static double overhead_ticks;

static void measure(struct figure *f, op_fn op, struct bench *b, bool dirty, unsigned long repeat,
		    double *samples, void (*prep)(struct bench *))
{
	f->state_ok = true;
	for (unsigned long i = 0; i < repeat; i++) {
		if (f->state[0] != '-')
			enter_state(dirty);
		if (prep)
			prep(b);
		if (i == 0)
			f->xinuse = xstate_xinuse();
		if (f->state[0] != '-' && !state_is(dirty, xstate_xinuse()))
			f->state_ok = false;
		uint64_t t0 = tsc_begin();
		op(b);
		uint64_t t1 = tsc_end();
		samples[i] = ((double)(t1 - t0) - overhead_ticks) / BATCH;
	}
	struct stats_summary st = stats_summarise(samples, repeat);
	f->median = st.median;
	f->min = st.min;
	f->max = st.max;
}

/* XSAVEOPT modified-optimization hit: XRSTOR from the very buffer it saves to. */
static void prep_xsaveopt_hit(struct bench *b)
{
	memcpy(b->a, dirty_std_img, xstate_size_standard(xstate_cfg.xcr0));
	xstate_restore_insn(FPU_INSN_XSAVE, b->a, b->mask);
}

static void prep_switch(struct bench *b)
{
	enter_state(true);
	xstate_save(b->a, xstate_cfg.kernel_mask);
	xstate_save(b->b, xstate_cfg.kernel_mask);
	task_a = (struct fpu){ .state = b->a, .last_cpu = -1, .holder = -1, .id = 1 };
	task_b = (struct fpu){ .state = b->b, .last_cpu = -1, .holder = -1, .id = 2 };
	fpu_cpu_quiesce();
	fpu_switch(NULL, &task_a); /* task_a runs: its registers are live */
}

/*
 * The skipped-restore path (smp-lazy, one CPU): task_a has used the FPU and
 * its registers are live; op_switch_eager's pairs then switch it out (held,
 * unsaved, TS set for task_b, which never uses the FPU) and back in (its
 * registers still hold it: TS cleared, no save, no restore).
 */
static void prep_switch_held(struct bench *b)
{
	prep_switch(b);
	fpu_handle_nm(&task_a); /* its first use: loaded, live, owned */
}

static void prep_switch_raw(struct bench *b)
{
	enter_state(true);
	xstate_save_insn(b->insn, b->a, b->mask);
	xstate_save_insn(b->insn, b->b, b->mask);
}

static bool insn_ok(enum fpu_save_insn insn)
{
	const struct xstate_cpu_caps *c = &xstate_cfg.caps;
	switch (insn) {
	case FPU_INSN_FXSAVE:
		return c->fxsr;
	case FPU_INSN_XSAVE:
		return c->xsave;
	case FPU_INSN_XSAVEOPT:
		return c->xsave && c->xsaveopt;
	case FPU_INSN_XSAVEC:
		return c->xsave && c->xsavec;
	default:
		return false;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab calibrate [--format table|json|csv] [--output FILE] [--repeat N]\n"
		"                        [--insn auto|xsaveopt|...]\n"
		"Native user-mode cost of FXSAVE/XSAVE/XSAVEOPT/XSAVEC (registers init and\n"
		"dirty), XRSTOR standard/compacted, the XSAVEOPT modified-optimization hit,\n"
		"and libfpu's eager switch path against a raw save+XRSTOR pair that uses the\n"
		"same save instruction as libfpu (the output names it).\n"
		"Figures per operation in TSC ticks and ns: median/min/max of N samples\n"
		"(default %d, 1..%lu), each a batch of %d operations.\n"
		"--insn makes libfpu's switch path, and so the raw pair, use that save\n"
		"instruction (default auto: the best user-mode one, xsavec where offered).\n"
		"--format json: one object per line, one per figure; csv: the same keys.\n"
		"--output FILE: opened before measuring; kept on stdout if it cannot be written.\n",
		REPEAT_DEFAULT, REPEAT_MAX, BATCH);
}

static int parse_args(int argc, char **argv, struct output_opts *out, unsigned long *repeat,
		      enum fpu_save_insn *insn)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strncmp(a, "--format=", 9))
			v = a + 9, a = "--format";
		else if (!strncmp(a, "--repeat=", 9))
			v = a + 9, a = "--repeat";
		else if (!strncmp(a, "--insn=", 7))
			v = a + 7, a = "--insn";
		else if (!strncmp(a, "--output=", 9))
			v = a + 9, a = "--output";
		else if ((!strcmp(a, "--format") || !strcmp(a, "--repeat") ||
			  !strcmp(a, "--insn") || !strcmp(a, "--output")) &&
			 i + 1 < argc)
			v = argv[++i];
		if ((!strcmp(a, "--format") || !strcmp(a, "--output")) && v) {
			if (output_opt(out, "calibrate", a + 2, v))
				return 2;
		} else if (!strcmp(a, "--repeat") && v) {
			uint64_t n;
			if (parse_u64_arg("calibrate", "repeat", v, 1, REPEAT_MAX, &n))
				return 2;
			*repeat = (unsigned long)n;
		} else if (!strcmp(a, "--insn") && v) {
			*insn = FPU_INSN_NR;
			if (!strcmp(v, "auto"))
				*insn = FPU_INSN_AUTO;
			for (int k = 0; k < FPU_INSN_NR; k++)
				if (!strcmp(v, fpu_insn_name(k)))
					*insn = k;
			if (*insn == FPU_INSN_NR || *insn == FPU_INSN_XSAVES) {
				fprintf(stderr,
					"fpulab calibrate: --insn: '%s' is not auto, fxsave, xsave, xsaveopt or xsavec\n",
					v);
				return 2;
			}
		} else {
			fprintf(stderr,
				"fpulab calibrate: %s option '%s'\n"
				"try 'fpulab calibrate --help'\n",
				v || !strncmp(a, "--format", 8) || !strncmp(a, "--repeat", 8) ||
						!strncmp(a, "--insn", 6) ||
						!strncmp(a, "--output", 8)
					? "incomplete"
					: "unknown",
				argv[i]);
			return 2;
		}
	}
	return -1;
}

static json_t *rounded(double v, double scale)
{
	return json_real(round(v * scale) / scale);
}

/* One figure as a row: the same keys in JSON and CSV. */
static json_t *figure_row(const struct figure *f, double tpn, unsigned long repeat, double ratio)
{
	char xinuse[24], xcr0[24];
	json_t *o = json_object();

	if (!o)
		abort();
	snprintf(xinuse, sizeof(xinuse), "0x%" PRIx64, f->xinuse);
	snprintf(xcr0, sizeof(xcr0), "0x%" PRIx64, xstate_cfg.xcr0);
	json_object_set_new(o, "experiment", json_string("calibrate"));
	json_object_set_new(o, "name", json_string(f->name));
	json_object_set_new(o, "state", json_string(f->state));
	result_put_stats(o, "ticks_per_op", rounded(f->median, 10), rounded(f->min, 10),
			 rounded(f->max, 10));
	result_put_stats(o, "ns_per_op", rounded(f->median / tpn, 100), rounded(f->min / tpn, 100),
			 rounded(f->max / tpn, 100));
	json_object_set_new(o, "unit", json_string("TSC ticks per operation"));
	json_object_set_new(o, "xinuse", json_string(xinuse));
	json_object_set_new(o, "state_verified", json_boolean(f->state_ok));
	json_object_set_new(o, "vs_raw_pair", ratio > 0 ? rounded(ratio, 1000) : json_null());
	json_object_set_new(o, "clock", json_string(clock_kinds[CLOCK_NATIVE_TSC].key));
	json_object_set_new(o, "source", json_string(clock_kinds[CLOCK_NATIVE_TSC].source));
	json_object_set_new(o, "tsc_mhz", rounded(tpn * 1000.0, 1000));
	json_object_set_new(o, RESULT_RUNS, json_integer((json_int_t)repeat)); /* samples */
	json_object_set_new(o, "batch", json_integer(BATCH));
	json_object_set_new(o, "overhead_ticks", rounded(overhead_ticks, 10));
	json_object_set_new(o, "xcr0", json_string(xcr0));
	json_object_set_new(o, "save_insn", json_string(fpu_insn_name(xstate_cfg.save_insn)));
	json_object_set_new(o, "kernel_size", json_integer(xstate_cfg.kernel_size));
	return o;
}

static const struct output_column table_columns[] = {
	{ "name", "operation", -30, -1 },
	{ "state", NULL, -6, -1 },
	{ "ticks_per_op_median", "ticks median", 12, 1 },
	{ "ticks_per_op_min", "min", 9, 1 },
	{ "ticks_per_op_max", "max", 9, 1 },
	{ "ns_per_op_median", "ns median", 11, 2 },
	{ "ns_per_op_min", "min", 9, 2 },
	{ "ns_per_op_max", "max", 9, 2 },
	{ "xinuse", "XINUSE", 8, -1 },
	{ "verified", "state", 5, -1 },
};

/* The figures through the one result writer: a table, JSON lines or CSV. */
static void print_results(struct output *out, const struct figure *f, int n, double tpn,
			  unsigned long repeat, double ratio, int ratio_fig)
{
	const char *insn = fpu_insn_name(xstate_cfg.save_insn);
	char xcr0[64];

	output_columns(out, table_columns, sizeof(table_columns) / sizeof(table_columns[0]));
	output_comment(out,
		       "fpulab calibrate: native user-mode costs (source: host TSC, user mode)");
	output_comment(out,
		       "TSC %.3f MHz (measured against CLOCK_MONOTONIC); %lu samples of %d "
		       "operations each; empty-batch overhead %.1f ticks subtracted; figures per "
		       "operation: median, min and max of the samples",
		       tpn * 1000.0, repeat, BATCH, overhead_ticks);
	output_comment(out, "%s, libfpu uses %s (%s format, %u bytes)",
		       xcr0_text(xcr0, sizeof(xcr0)), insn,
		       xstate_cfg.compacted ? "compacted" : "standard", xstate_cfg.kernel_size);
	for (int i = 0; i < n; i++) {
		json_t *row = figure_row(&f[i], tpn, repeat, i == ratio_fig ? ratio : 0);
		if (out->format == OUTPUT_TABLE)
			json_object_set_new(row, "verified",
					    json_string(f[i].state_ok ? "ok" : "NOT"));
		output_row(out, row);
	}
	if (ratio > 0)
		output_comment(out,
			       "libfpu eager switch (%s) / raw %s+%s pair (medians, same run, same "
			       "save instruction): %.3f",
			       insn, insn, restore_name(xstate_cfg.save_insn), ratio);
}

/* ---- the steps of a calibration ---- */

/* One calibration: its buffers, samples and the figures measured so far. */
struct calib {
	struct bench b;
	double *samples, *samples2; /* --repeat entries each */
	unsigned long repeat;
	double tpn; /* TSC ticks per ns */
	struct figure fig[24];
	int n;
	double ratio; /* libfpu eager switch / raw pair, medians; 0: not measured */
	int ratio_fig;
};

static void calib_free(struct calib *c)
{
	free(c->samples);
	free(c->samples2);
	free(c->b.a);
	free(c->b.b);
	free(c->b.dirty_std);
	free(c->b.dirty_cmp);
	xstate_load_init();
}

/*
 * calib_setup - xstate_init() in user mode with save instruction @insn,
 * libfpu's eager policy, the buffers and the dirty images. Returns 0, or 1
 * after a message (no XSAVE, out of memory).
 */
static int calib_setup(struct calib *c, enum fpu_save_insn insn, unsigned long repeat,
		       const char *cmd)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = insn };
	int err;

	memset(c, 0, sizeof(*c));
	c->repeat = repeat;
	c->ratio_fig = -1;
	err = xstate_init(&o);
	if (err) {
		fprintf(stderr, "fpulab %s: %s\n", cmd, xstate_strerror(err));
		return 1;
	}
	if (!xstate_cfg.caps.xsave) {
		fprintf(stderr, "fpulab %s: this CPU has no XSAVE\n", cmd);
		return 1;
	}
	if (fpu_init(&host_ops) || fpu_set_policy("eager")) {
		fprintf(stderr, "fpulab %s: libfpu would not take the eager policy\n", cmd);
		return 1;
	}
	c->samples = malloc(repeat * sizeof(*c->samples));
	c->samples2 = malloc(repeat * sizeof(*c->samples2));
	c->b.a = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	c->b.b = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	c->b.dirty_std = dirty_std_img = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	c->b.dirty_cmp = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	if (!c->samples || !c->samples2 || !c->b.a || !c->b.b || !c->b.dirty_std ||
	    !c->b.dirty_cmp) {
		fprintf(stderr, "fpulab %s: out of memory\n", cmd);
		calib_free(c);
		return 1;
	}
	memset(c->b.a, 0, XSTATE_MAX_SIZE);
	memset(c->b.b, 0, XSTATE_MAX_SIZE);
	memset(c->b.dirty_cmp, 0, XSTATE_MAX_SIZE);
	c->b.mask = xstate_cfg.xcr0;
	make_dirty(c->b.dirty_std, xstate_cfg.xcr0);
	if (xstate_cfg.caps.xsavec) {
		enter_state(true);
		xstate_save_insn(FPU_INSN_XSAVEC, c->b.dirty_cmp, c->b.mask);
	}
	return 0;
}

/* calib_clock - the TSC rate, and the cost of an empty batch (subtracted from every sample). */
static void calib_clock(struct calib *c)
{
	struct figure e = { .name = "empty batch", .state = "-" };

	c->tpn = tsc_per_ns();
	overhead_ticks = 0;
	measure(&e, op_empty, &c->b, false, c->repeat, c->samples, NULL);
	overhead_ticks = e.median * BATCH;
}

/* calib_saves - every save instruction the CPU offers, registers init and dirty. */
static void calib_saves(struct calib *c)
{
	for (enum fpu_save_insn insn = FPU_INSN_FXSAVE; insn <= FPU_INSN_XSAVEC; insn++) {
		if (!insn_ok(insn))
			continue;
		c->b.insn = insn;
		for (int dirty = 0; dirty < 2; dirty++) {
			c->fig[c->n] = (struct figure){ .name = fpu_insn_name(insn),
							.state = dirty ? "dirty" : "init" };
			/* XSAVEOPT here misses: the last XRSTOR (enter_state) was from another buffer. */
			measure(&c->fig[c->n++], op_save, &c->b, dirty, c->repeat, c->samples,
				NULL);
		}
	}
	if (insn_ok(FPU_INSN_XSAVEOPT)) {
		c->b.insn = FPU_INSN_XSAVEOPT;
		c->fig[c->n] = (struct figure){ .name = "xsaveopt (modified-opt hit)",
						.state = "dirty" };
		measure(&c->fig[c->n++], op_save, &c->b, true, c->repeat, c->samples,
			prep_xsaveopt_hit);
	}
}

/* calib_restores - FXRSTOR, and XRSTOR from the standard and the compacted format. */
static void calib_restores(struct calib *c)
{
	c->fig[c->n] = (struct figure){ .name = "fxrstor", .state = "dirty" };
	measure(&c->fig[c->n++], op_fxrstor, &c->b, true, c->repeat, c->samples, NULL);
	c->fig[c->n] = (struct figure){ .name = "xrstor standard", .state = "dirty" };
	measure(&c->fig[c->n++], op_xrstor_std, &c->b, true, c->repeat, c->samples, NULL);
	if (xstate_cfg.caps.xsavec) {
		c->fig[c->n] = (struct figure){ .name = "xrstor compacted", .state = "dirty" };
		measure(&c->fig[c->n++], op_xrstor_cmp, &c->b, true, c->repeat, c->samples, NULL);
	}
}

static void summarise(struct figure *f, double *s, unsigned long n)
{
	struct stats_summary st = stats_summarise(s, n);
	f->median = st.median;
	f->min = st.min;
	f->max = st.max;
}

/*
 * calib_switches - libfpu's eager switch against the raw save+XRSTOR pair
 * with the same save instruction (like for like), interleaved A B A B so
 * that drift hits both alike; one sample each per round. With @with_libfpu
 * false only the raw pair is measured.
 */
static void calib_switches(struct calib *c, bool with_libfpu)
{
	static char ename[64], rname[64];
	struct figure *eager = NULL, *raw;

	if (!insn_ok(xstate_cfg.save_insn))
		return;
	c->b.insn = xstate_cfg.save_insn;
	snprintf(ename, sizeof(ename), "switch: libfpu eager (%s)", fpu_insn_name(c->b.insn));
	snprintf(rname, sizeof(rname), "switch: raw %s+%s", fpu_insn_name(c->b.insn),
		 restore_name(c->b.insn));
	if (with_libfpu) {
		eager = &c->fig[c->n++];
		*eager = (struct figure){ .name = ename, .state = "dirty", .state_ok = true };
		c->ratio_fig = (int)(eager - c->fig);
	}
	raw = &c->fig[c->n++];
	*raw = (struct figure){ .name = rname, .state = "dirty", .state_ok = true };
	for (unsigned long i = 0; i < c->repeat; i++) {
		uint64_t t0, t1;
		if (eager) {
			prep_switch(&c->b);
			if (!i)
				eager->xinuse = xstate_xinuse();
			if (!state_is(true, xstate_xinuse()))
				eager->state_ok = false;
			t0 = tsc_begin();
			op_switch_eager(&c->b);
			t1 = tsc_end();
			c->samples[i] = ((double)(t1 - t0) - overhead_ticks) / BATCH;
		}
		prep_switch_raw(&c->b);
		if (!i)
			raw->xinuse = xstate_xinuse();
		if (!state_is(true, xstate_xinuse()))
			raw->state_ok = false;
		t0 = tsc_begin();
		op_switch_raw(&c->b);
		t1 = tsc_end();
		c->samples2[i] = ((double)(t1 - t0) - overhead_ticks) / BATCH;
	}
	if (eager)
		summarise(eager, c->samples, c->repeat);
	summarise(raw, c->samples2, c->repeat);
	if (eager && raw->median > 0)
		c->ratio = eager->median / raw->median;
}

/*
 * calib_held - libfpu's switch when nothing is saved or restored: per
 * switch, the mean of "out, held unsaved, TS set" and "back, registers still
 * held, restore skipped" (smp-lazy), timed in batches, so it resolves less
 * than the host TSC's step. Runs smp-lazy for the measurement, then eager
 * again.
 */
static void calib_held(struct calib *c)
{
	struct figure *f = &c->fig[c->n];

	fpu_cpu_quiesce();
	if (fpu_set_policy("smp-lazy"))
		return;
	*f = (struct figure){ .name = "switch: libfpu held (smp-lazy)", .state = "dirty" };
	measure(f, op_switch_eager, &c->b, true, c->repeat, c->samples, prep_switch_held);
	if (fpu_stats_cpu(0)->restores_skipped < BATCH / 2)
		f->state_ok = false; /* not the path it claims to time */
	c->n++;
	fpu_cpu_quiesce();
	fpu_set_policy("eager");
}

/* calib_check_states - 0, or 1 after naming a figure whose register state was not as claimed. */
static int calib_check_states(const struct calib *c)
{
	for (int i = 0; i < c->n; i++)
		if (!c->fig[i].state_ok) {
			fprintf(stderr,
				"fpulab calibrate: register state of '%s' (%s) was not as claimed\n",
				c->fig[i].name, c->fig[i].state);
			return 1;
		}
	return 0;
}

int calibrate_switch_floor(unsigned long repeat, struct calibrate_floor *out)
{
	struct calib c;
	const struct figure *raw;

	if (calib_setup(&c, FPU_INSN_AUTO, repeat, "host"))
		return 1;
	calib_clock(&c);
	calib_switches(&c, false);
	if (!c.n || !c.fig[c.n - 1].state_ok) {
		calib_free(&c);
		return 1;
	}
	raw = &c.fig[c.n - 1];
	*out = (struct calibrate_floor){ .median_ns = raw->median / c.tpn,
					 .min_ns = raw->min / c.tpn,
					 .max_ns = raw->max / c.tpn,
					 .repeat = repeat,
					 .xcr0 = xstate_cfg.xcr0,
					 .tsc_mhz = c.tpn * 1000.0 };
	snprintf(out->pair, sizeof(out->pair), "%s+%s", fpu_insn_name(xstate_cfg.save_insn),
		 restore_name(xstate_cfg.save_insn));
	calib_free(&c);
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	enum fpu_save_insn insn = FPU_INSN_AUTO;
	struct output_opts oo = { .format = OUTPUT_TABLE };
	unsigned long repeat = REPEAT_DEFAULT;
	struct output out;
	struct calib c;
	int rc;

	rc = parse_args(argc, argv, &oo, &repeat, &insn);
	if (rc >= 0)
		return rc;
	if (output_open(&out, oo.format, oo.path, "calibrate") < 0) {
		fprintf(stderr, "fpulab calibrate: %s\n", out.error);
		output_close(&out);
		return 2;
	}
	output_provenance_host(&out, argc, argv);
	if (calib_setup(&c, insn, repeat, "calibrate")) {
		output_close(&out);
		return 1;
	}
	calib_clock(&c);
	calib_saves(&c);
	calib_restores(&c);
	calib_switches(&c, true);
	calib_held(&c);
	xstate_load_init();
	print_results(&out, c.fig, c.n, c.tpn, repeat, c.ratio, c.ratio_fig);
	rc = calib_check_states(&c);
	calib_free(&c);
	if (output_close(&out) < 0)
		rc = rc ? rc : 1;
	return rc;
}
