/* SPDX-License-Identifier: MIT */
/* The kernel's watchdog: see watchdog.h. */
#include "watchdog.h"
#include "apic.h"
#include "cpu.h"
#include "io.h"
#include "lab.h"
#include "restart.h"

static uint64_t seconds, limit_ticks; /* 0: off */
static uint64_t last_pet;
static int fired;

void watchdog_init(void)
{
	seconds = exp_num(FPULAB_OPT_watchdog, 0);
	limit_ticks = seconds * tsc_khz * 1000;
	watchdog_pet();
	if (seconds)
		kprintf("watchdog: a run without a record for %lu s is reported hung\n", seconds);
}

void watchdog_pet(void)
{
	WRITE_ONCE(last_pet, rdtsc());
}

/* On CPU 0: say so, stop the other CPUs, restart at the next experiment. */
static noreturn void watchdog_fire(void)
{
	const char *experiment, *policy;
	uint64_t repeat;

	console_break_lock(); /* a hung CPU may hold it */
	exp_now(&experiment, &policy, &repeat);
	struct hung h = { experiment, policy, repeat, seconds };
	RECORD_PRINT(FPULAB_REC_HUNG, FPULAB_HUNG_FIELDS, &h);
	kprintf("watchdog: HUNG: %s, policy %s, repeat %lu: no record for %lu s; the rest of %s "
		"is skipped, the kernel restarts and goes on with the next experiment\n",
		experiment, policy, repeat, seconds, experiment);
	for (unsigned int i = 1; i < ncpus; i++)
		apic_send_init(cpus[i]->apic_id);
	restart.hung++;
	restart.next++;
	restart_kernel();
}

void watchdog_tick(void)
{
	if (!limit_ticks || READ_ONCE(fired))
		return;
	/* Signed: another CPU's TSC may be a little behind the one that wrote. */
	if ((int64_t)(rdtsc() - READ_ONCE(last_pet)) < (int64_t)limit_ticks)
		return;
	if (__atomic_exchange_n(&fired, 1, __ATOMIC_ACQ_REL))
		return;
	if (this_cpu()->id == 0)
		watchdog_fire();
	apic_send_nmi(cpus[0]->apic_id);
}

bool watchdog_nmi(void)
{
	if (!READ_ONCE(fired) || this_cpu()->id != 0)
		return false;
	watchdog_fire();
}
