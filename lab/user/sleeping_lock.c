/* SPDX-License-Identifier: MIT */
/*
 * sleeping-lock, ring 3 (after the unlink microbenchmark of seed 001): each
 * task creates, closes and removes its own name in one shared directory,
 * over and over, so every task contends on the directory's sleeping lock.
 * An FP user checks its register pattern after every operation: each
 * operation may have slept on the lock and come back on a CPU whose
 * registers another task used.
 */
#include "../exp.h"
#include "ulib.h"

void sleeping_lock_main(void *p)
{
	struct sleeping_lock_args *a = p;
	uint64_t errors = 0;

	if (a->fp)
		regs_write(a->regset, a->task, 0);
	sys_sem_up(a->sem_ready);
	sys_sem_down(a->sem_go);
	for (uint64_t i = 0; i < a->ops; i++) {
		long fd = sys_open(a->name, TD_O_CREAT | TD_O_EXCL);
		if (fd < 0)
			errors++;
		else if (sys_close(fd))
			errors++;
		if (sys_unlink(a->name))
			errors++;
		if (a->fp) {
			regs_check(a->regset, a->task, i);
			regs_write(a->regset, a->task, i + 1);
		}
	}
	a->errors = errors;
}
