/* SPDX-License-Identifier: MIT */
/*
 * context-switch ping-pong (after Anton Blanchard's context_switch.c), ring 3.
 * Role 0 ups the other's semaphore and waits on its own; role 1 the reverse.
 * An FP user checks its register pattern after every switch back, then
 * writes the next one. The window (MARK_START..MARK_END) holds exactly
 * round_trips round trips. With migrate, both tasks move to the other CPU
 * after every round trip, so they swap CPUs at the same moment.
 */
#include "../exp.h"
#include "ulib.h"

void context_switch_main(void *p)
{
	const struct context_switch_args *a = p;
	uint64_t seq = 0, total = a->warmup + a->round_trips;

	if (a->fp)
		regs_write(a->regset, a->task, seq);
	for (uint64_t i = 0; i < total; i++) {
		if (a->role == 0) {
			if (i == a->warmup)
				sys_mark(MARK_START);
			sys_sem_up(a->sem_other);
			sys_sem_down(a->sem_mine);
		} else {
			sys_sem_down(a->sem_mine);
		}
		if (a->fp) {
			regs_check(a->regset, a->task, seq);
			regs_write(a->regset, a->task, ++seq);
		}
		if (a->migrate)
			sys_migrate((unsigned int)(1 - sys_getcpu()));
		if (a->role == 1)
			sys_sem_up(a->sem_other);
	}
	/* The responder blocks once more, so that every switch in the window is
	 * a plain block/wake one; the initiator releases it after the window. */
	if (a->role == 0) {
		sys_mark(MARK_END);
		sys_sem_up(a->sem_other);
	} else {
		sys_sem_down(a->sem_mine);
	}
}
