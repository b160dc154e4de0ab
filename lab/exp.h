/* SPDX-License-Identifier: MIT */
/* Experiment parameters shared by the kernel side (exp*.c) and ring 3 (user/). */
#ifndef LAB_EXP_H
#define LAB_EXP_H

#include <stdbool.h>
#include <stdint.h>

enum regset { REGSET_X87, REGSET_SSE, REGSET_AVX, REGSET_NR };
enum placement { PLACE_SAME_CPU, PLACE_CROSS_CPU, PLACE_NR };
enum fp_users { FP_NONE, FP_ONE, FP_BOTH, FP_NR };

/* One side of the context-switch ping-pong. */
struct pingpong_args {
	unsigned int role;      /* 0: initiator, marks the window; 1: responder */
	unsigned int task;      /* pattern id, unique per task */
	bool fp;                /* keeps a pattern in its register set */
	enum regset regset;
	unsigned int sem_mine, sem_other;
	uint64_t warmup, round_trips;
};

void pingpong_main(void *args); /* user/pingpong.c, ring 3 */

#endif
