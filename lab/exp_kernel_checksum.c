/* SPDX-License-Identifier: MIT */
/*
 * Experiment kernel-checksum (seed 002: "improved throughput of the AVX
 * based checksumming function inside the kernel by ~15% as xsave/xrstor is
 * faster than the serializing clts/stts pair"). One ring-3 task on CPU 0
 * (user/kernel_checksum.c) has the kernel checksum one buffer per syscall:
 * with AVX2 (or SSE2 without it) inside kernel_fpu_begin/end, or with the
 * integer reference and no FPU (impl scalar). With fp_users one the task
 * keeps an XMM pattern between calls. Nothing else runs on CPU 0 in the
 * window, so there are no switches: every count is the calls' own.
 */
#include "boot_info.h"
#include "cpu.h"
#include "csum.h"
#include "kfpu.h"
#include "lab.h"
#include "syscall.h"

#define KCSUM_DEFAULT_CALLS 200
#define KCSUM_DEFAULT_BYTES 4096
#define KCSUM_WARMUP 16

static struct kcsum_args args;
static uint64_t csum_buf[CSUM_MAX_BYTES / 8 + 1];

static void kcsum_run(struct result *res, bool fp, unsigned int impl, uint64_t calls,
		      uint64_t bytes)
{
	struct semaphore exited;
	uint64_t x = 0x243f6a8885a308d3ull;

	for (uint64_t i = 0; i < (bytes + 7) / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		csum_buf[i] = x;
	}
	sem_init(&exited, 0);
	args = (struct kcsum_args){ .task = 1,
				    .fp = fp,
				    .impl = impl,
				    .calls = calls,
				    .warmup = KCSUM_WARMUP,
				    .bytes = bytes,
				    .buf = csum_buf };
	task_create_user_fp("kcsum", kcsum_main, &args, 0, &exited, fp ? FP_SLICES_ALL : 0);
	sem_down(&exited);
	fill_counts(res);
	res->tasks = 1;
	res->round_trips = calls; /* ticks per call */
}

unsigned int kernel_checksum_experiment(void)
{
	unsigned int runs = 0;
	uint64_t calls = parse_num(FPULAB_KEY_CALLS, KCSUM_DEFAULT_CALLS, 100000000);
	uint64_t bytes = parse_num(FPULAB_KEY_BUFFER_BYTES, KCSUM_DEFAULT_BYTES, CSUM_MAX_BYTES);
	const char *simd = kfpu_uses_avx2() ? "avx2" : "sse2";
	char buf[8];

	if (!calls) {
		kprintf("error: kernel-checksum: calls must be >= 1\n");
		qemu_exit(FPULAB_EXIT_PANIC);
	}
	/* fp_users: none and one; the default is both of them. */
	bool fp_set[FP_NR] = { !cmdline_get(FPULAB_KEY_FP_USERS, buf, sizeof(buf)),
			       !cmdline_get(FPULAB_KEY_FP_USERS, buf, sizeof(buf)), false };
	if (!fp_set[FP_NONE]) {
		fp_set[FP_NONE] = cfg.fp[FP_NONE];
		fp_set[FP_ONE] = cfg.fp[FP_ONE];
		if (cfg.fp[FP_BOTH])
			kprintf("warning: kernel-checksum: fp users 'both' means nothing with one task, skipped\n");
	}
	for (unsigned int impl = KCSUM_SIMD; impl <= KCSUM_SCALAR; impl++) {
		for (int fp = FP_NONE; fp <= FP_ONE; fp++) {
			if (!fp_set[fp])
				continue;
			for (uint64_t rep = 0; rep < cfg.repeat; rep++) {
				for (unsigned int p = 0; p < cfg.npolicies; p++) {
					struct result res = {
						.experiment = cfg.experiment,
						.policy = cfg.policies[p],
						.placement = "same-cpu",
						.fp_users = fp_names[fp],
						.regset = impl == KCSUM_SIMD ? simd : "scalar",
						.repeat = rep,
						.cpus = ncpus,
					};
					begin_run(cfg.policies[p]);
					kcsum_run(&res, fp == FP_ONE, impl, calls, bytes);
					print_result(&res);
					runs++;
				}
			}
		}
	}
	return runs;
}
