/* SPDX-License-Identifier: MIT */
/*
 * The time slice: each CPU's one-shot APIC timer, re-armed at every tick,
 * optionally jittered (stress), and the count of ticks that preempted a
 * ring-3 task.
 */
#include "apic.h"
#include "cpu.h"
#include "lab.h"
#include "smp.h"

uint32_t tick_ns = 1000000; /* 1 ms time slices */
void (*volatile timer_hook)(void);
static volatile int timers_paused;
bool timer_preempt = true;
bool timer_whole_slices;
static uint64_t jitter_seed, jitter_rng[FPULAB_MAX_CPUS]; /* 0: no jitter */
static uint64_t user_preempts[FPULAB_MAX_CPUS];

uint64_t timer_user_preempts(void)
{
	uint64_t n = 0;
	for (unsigned int i = 0; i < ncpus; i++)
		n += READ_ONCE(user_preempts[i]);
	return n;
}

/* Each CPU's generator restarts from the seed at its next tick. */
void timer_jitter(uint64_t seed)
{
	for (unsigned int i = 0; i < FPULAB_MAX_CPUS; i++)
		WRITE_ONCE(jitter_rng[i], 0);
	WRITE_ONCE(jitter_seed, seed);
}

static uint32_t next_tick_ns(struct cpu *c)
{
	uint64_t x = READ_ONCE(jitter_rng[c->id]), seed = READ_ONCE(jitter_seed), base = tick_ns;
	if (!seed)
		return tick_ns;
	if (!x)
		x = (seed * 0x9e3779b97f4a7c15ull + c->id) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	jitter_rng[c->id] = x;
	return (uint32_t)(base * 3 / 10 + x % (base * 14 / 10 + 1));
}

void timer_tick(void)
{
	struct cpu *c = this_cpu();
	/* Whole slices: the switch re-armed the timer for a full slice, so a
	 * tick that fired while it ran (and arrives now) is stale: ignore it. */
	if (READ_ONCE(timer_whole_slices) && apic_timer_remaining())
		return;
	c->timer_ticks++;
	void (*hook)(void) = timer_hook;
	if (c->id == 0 && hook)
		hook();
	if (c->current != c->idle && READ_ONCE(c->rq.nr) && READ_ONCE(timer_preempt)) {
		c->need_resched = true;
		user_preempts[c->id] += c->current->user;
	}
	if (!READ_ONCE(timers_paused))
		apic_timer_arm(next_tick_ns(c));
}

void cpu_start_timer(void)
{
	apic_timer_arm(tick_ns);
}

void timers_pause(void)
{
	WRITE_ONCE(timers_paused, 1);
	smp_call_all(apic_timer_stop);
}

void timers_resume(void)
{
	WRITE_ONCE(timers_paused, 0);
	smp_call_all(cpu_start_timer);
}
