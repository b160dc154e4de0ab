/* SPDX-License-Identifier: MIT */
/* Experiment parameters shared by the kernel side (exp*.c) and ring 3 (user/). */
#ifndef LAB_EXP_H
#define LAB_EXP_H

#include <stdbool.h>
#include <stdint.h>
#include <fpulab/abi.h>

/* The orders of abi.h's FPULAB_REGSETS, FPULAB_PLACEMENTS, FPULAB_FP_USERS. */
enum regset { REGSET_X87, REGSET_SSE, REGSET_AVX, REGSET_NR };
/* migrating: cross-cpu, and both tasks move to the other CPU every round trip. */
enum placement { PLACE_SAME_CPU, PLACE_CROSS_CPU, PLACE_MIGRATING, PLACE_NR };
enum fp_users { FP_NONE, FP_ONE, FP_BOTH, FP_NR };
#define REGSET_ALL REGSET_NR          /* stress: x87 + FCW, MXCSR, XMM or YMM at once */
#define REPORT_CSUM (REGSET_NR + 1)   /* integrity_report.regset: a wrong kernel checksum */
#define REPORT_SIGNAL (REGSET_NR + 2) /* a bad signal frame, ptrace error or missed kill */
#define REPORT_PKRU (REGSET_NR + 3) /* PKRU: reg 0 the register, 1 a frame's, 2 a ptrace image's */

/* One side of the context-switch ping-pong. */
struct context_switch_args {
	unsigned int role; /* 0: initiator, marks the window; 1: responder */
	unsigned int task; /* pattern id, unique per task */
	bool fp;           /* keeps a pattern in its register set */
	bool migrate;      /* moves to the other CPU after every round trip */
	enum regset regset;
	unsigned int sem_mine, sem_other;
	uint64_t warmup, round_trips;
};

void context_switch_main(void *args); /* user/context_switch.c, ring 3 */

/*
 * The x87 pointer registers (FNSTENV's 32-bit format: the low 32 bits of
 * FIP and FDP, and FOP) as the AMD scrub leaves them: a new task may find
 * these, or zero, and nothing else (CVE-2006-1056, Xen XSA-172).
 */
struct x87_ptrs {
	uint32_t fip, fdp;
	uint16_t fop;
	bool valid; /* the scrub runs (forced, or AMD without XSaveErPtr) */
};

/* Experiment stress: state shared by every task of a run and the kernel. */
#define STRESS_MAX_TASKS \
	FPULAB_MAX_TASKS /* user_sems[0..63] are theirs, 64 and 65 the start barrier */
struct stress_shared {
	volatile int stop;    /* set by the kernel once the window holds enough switches */
	volatile int blocked; /* tasks inside (or about to enter) a block on their own semaphore */
	volatile unsigned char exiting[STRESS_MAX_TASKS]; /* task n is exiting: start its successor */
	volatile uint64_t bad_frames; /* tasks that left with a frame the kernel must kill them for */
};

/*
 * One stress task: task number @task of @ntasks, generation @gen (each task
 * exits now and then and the kernel starts a new generation in its place).
 * Its own semaphore is user_sems[task].
 */
struct stress_args {
	unsigned int task, gen;
	unsigned int ntasks, ncpus;
	bool ymm; /* XCR0 enables YMM: patterns in YMM, else XMM */
	uint64_t seed;
	unsigned int sem_ready, sem_go; /* start barrier */
	uint64_t spin_short, spin_long; /* TSC ticks: most spins, one in four */
	uint64_t spin_check;            /* TSC ticks between checks while spinning */
	struct x87_ptrs scrub;          /* what the scrub leaves in FIP/FDP/FOP */
	bool pkru;                      /* libfpu switches PKRU: each task keeps its own */
	unsigned int pkru_offset;       /* bytes: PKRU in a standard-format image */
	struct stress_shared *shared;
};

void stress_main(void *args); /* user/stress.c, ring 3 */

/*
 * One sleeping-lock task: @ops times open(O_CREAT|O_EXCL), close and unlink
 * of its own @name in the lab's tiny directory. Starts after a barrier
 * (up @sem_ready, down @sem_go). An FP user keeps a pattern in @regset and
 * checks it after every operation.
 */
struct sleeping_lock_args {
	unsigned int task; /* pattern id, unique per task */
	bool fp;
	enum regset regset;
	uint64_t ops;
	unsigned int sem_ready, sem_go;
	char name[16];
	uint64_t errors; /* written by the task: system calls that failed */
};

void sleeping_lock_main(void *args); /* user/sleeping_lock.c, ring 3 */
/* fp-vs-spinner: an FP task and a task that never uses the FPU share CPU 0. */
#define FP_UNIT_ADDS 1000 /* ADDPDs in one unit of the FP task's work */
struct spinner_shared {
	int stop; /* the FP task is done: the spinner exits */
};
struct spinner_args {
	bool fp; /* the FP task; else the spinner */
	unsigned int task;
	uint64_t units; /* FP task: units of work */
	struct spinner_shared *shared;
};

void spinner_main(void *args); /* user/fp_vs_spinner.c, ring 3 */

/*
 * short-tasks: a task runs @slices slices, each ended by a yield (the last by
 * its exit), and uses SSE as a memcpy would in the first @fp_slices. Its
 * XMM pattern is checked at the start of each FP slice after the first.
 */
#define SHORT_COPY_BYTES 256
struct short_args {
	unsigned int task;
	uint64_t slices, fp_slices;
	int done;  /* set by the task as it exits */
	int *stop; /* companion: exit at the next slice */
};

void short_main(void *args);     /* user/short_tasks.c, ring 3 */
void companion_main(void *args); /* user/short_tasks.c: yields until *stop */

/* kernel-checksum: one task calls SYS_KERNEL_CSUM @calls times on one buffer. */
struct kcsum_args {
	unsigned int task;
	bool fp;           /* uses SSE between calls (pattern checked after each call) */
	unsigned int impl; /* KCSUM_SIMD | KCSUM_SCALAR */
	uint64_t calls, warmup, bytes;
	void *buf;
};

void kcsum_main(void *args); /* user/kernel_checksum.c, ring 3 */

/* costs: the #NM round trip, @ops operations after @warmup of each kind. */
struct costs_args {
	uint64_t ops, warmup;
	uint64_t ticks, base_ticks; /* written by the task: TSC ticks of each loop */
};

void costs_main(void *args); /* user/costs.c, ring 3 */

#endif
