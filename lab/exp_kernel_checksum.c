/* SPDX-License-Identifier: MIT */
/*
 * Experiment kernel-checksum (seed 002: "improved throughput of the AVX
 * based checksumming function inside the kernel by ~15% as xsave/xrstor is
 * faster than the serializing clts/stts pair"). One ring-3 task on CPU 0
 * (user/kernel_checksum.c) has the kernel checksum one buffer per syscall:
 * with AVX2 (or SSE2 without it) inside kernel_fpu_begin/end, or with the
 * integer reference and no FPU (regset scalar). With fp_users one the task
 * keeps an XMM pattern between calls. Nothing else runs on CPU 0 in the
 * window, so there are no switches: every count is the calls' own.
 * Configurations: implementation (simd, scalar) x fp users (none, one).
 */
#include "boot_info.h"
#include "cpu.h"
#include "csum.h"
#include "experiment.h"
#include "kfpu.h"
#include "syscall.h"

#define KCSUM_WARMUP 16 /* calls before the window opens */

static struct {
	uint64_t calls, bytes;
	bool fp[FP_NR], fp_given;
	unsigned int nconfigs;
	struct kcsum_config {
		unsigned char impl, fp;
	} configs[2 * FP_NR];
} opt;

static struct kcsum_args args;
static uint64_t csum_buf[CSUM_MAX_BYTES / 8 + 1];

static void kcsum_parse(void)
{
	char buf[32];

	opt.calls = exp_num(FPULAB_OPT_calls, fpulab_options[FPULAB_OPT_calls].dflt);
	opt.bytes = exp_num(FPULAB_OPT_buffer_bytes, fpulab_options[FPULAB_OPT_buffer_bytes].dflt);
	exp_set(FPULAB_OPT_fp_users, opt.fp, FP_NR);
	/* One task: 'both' means nothing. Absent, the list is none and one. */
	opt.fp_given = cmdline_get(fpulab_options[FPULAB_OPT_fp_users].key, buf, sizeof(buf));
	opt.nconfigs = 0;
	for (unsigned char impl = KCSUM_SIMD; impl <= KCSUM_SCALAR; impl++)
		for (unsigned char fp = 0; fp < FP_NR; fp++)
			if (opt.fp[fp] && (fp != FP_BOTH || opt.fp_given))
				opt.configs[opt.nconfigs++] = (struct kcsum_config){ impl, fp };
}

static unsigned int kcsum_configs(void)
{
	return opt.nconfigs;
}

static const char *kcsum_label(unsigned int config, struct result *res)
{
	const struct kcsum_config *c = &opt.configs[config];

	res->placement = "same-cpu";
	res->fp_users = fp_names[c->fp];
	res->regset = c->impl == KCSUM_SCALAR ? "scalar" : kfpu_uses_avx2() ? "avx2" : "sse2";
	return c->fp == FP_BOTH ? "needs-2-tasks" : NULL;
}

static void kcsum_run(unsigned int config, struct result *res)
{
	const struct kcsum_config *c = &opt.configs[config];
	struct semaphore exited;
	uint64_t x = 0x243f6a8885a308d3ull;

	for (uint64_t i = 0; i < (opt.bytes + 7) / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		csum_buf[i] = x;
	}
	sem_init(&exited, 0);
	args = (struct kcsum_args){ .task = 1,
				    .fp = c->fp == FP_ONE,
				    .impl = c->impl,
				    .calls = opt.calls,
				    .warmup = KCSUM_WARMUP,
				    .bytes = opt.bytes,
				    .buf = csum_buf };
	task_create_user_fp("kcsum", kcsum_main, &args, 0, &exited,
			    c->fp == FP_ONE ? FP_SLICES_ALL : 0);
	sem_down(&exited);
	fill_counts(res);
	res->tasks = 1;
	res->round_trips = opt.calls; /* ticks per call */
}

const struct experiment kernel_checksum_experiment = {
	.id = FPULAB_EXP_kernel_checksum,
	.parse = kcsum_parse,
	.configs = kcsum_configs,
	.label = kcsum_label,
	.run = kcsum_run,
};
