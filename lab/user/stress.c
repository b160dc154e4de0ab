/* SPDX-License-Identifier: MIT */
/*
 * stress, ring 3. Each task keeps a pattern unique to (task, sequence
 * number) in every enabled FPU component and checks it after every step,
 * since any step may have switched it out, then writes the next one. A step
 * is a random choice: yield, wake another task, block on its own semaphore,
 * migrate to a random CPU, have the kernel checksum a buffer with SIMD
 * (result checked), spin, or (rarely) exit. Spins check the patterns every
 * spin_check TSC ticks too, because a timer preemption is invisible to the
 * task. The kernel replaces an exited task with a new generation, which
 * first checks that it starts in the init state: nothing of its
 * predecessor's (or anyone's) state may show through.
 *
 * The choices come from a per-task PRNG seeded from (seed, task, gen): the
 * same seed makes the same sequence of choices.
 *
 * No deadlock: a task blocks only while fewer than ntasks - 1 others are in
 * a block (shared->blocked), so some task is always runnable, and it wakes a
 * random other one now and then. At stop, the kernel ups every task's
 * semaphore once; a task reads stop after joining shared->blocked and before
 * blocking, so that up ends the last block it can enter.
 *
 * All state is local: the tasks share this code and its globals.
 */
#include "../csum.h"
#include "../exp.h"
#include "ulib.h"

#define CSUM_WORDS 66   /* checksum buffers: up to 8 * 65 bytes at offsets 0..7 */
#define EXIT_CHANCE 256 /* a task exits after one step in this many */

struct stress_task {
	const struct stress_args *a;
	struct stress_shared *sh;
	uint64_t rng, seq;
	unsigned int id;
};

static uint64_t rnd(struct stress_task *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (x ^ (x >> 31)) | 1;
}

/* After anything that may have switched: check, then the next pattern. */
static void verify(struct stress_task *t)
{
	regs_check_all(t->id, t->seq, t->a->ymm);
	regs_write_all(t->id, ++t->seq, t->a->ymm);
}

static void report_csum(struct stress_task *t, unsigned int what, uint64_t want, uint64_t got)
{
	struct integrity_report r = {
		.count = 1,
		.task = t->id,
		.regset = REPORT_CSUM,
		.reg = what,
		.expected = want,
		.got = got,
	};
	sys_integrity(&r);
}

static void kernel_csum(struct stress_task *t)
{
	uint64_t buf[CSUM_WORDS];
	for (unsigned int i = 0; i < CSUM_WORDS; i++)
		buf[i] = rnd(t);
	const char *p = (const char *)buf + rnd(t) % 8;
	uint64_t bytes = rnd(t) % (8 * (CSUM_WORDS - 1) + 1);
	uint64_t want = csum64_ref(p, bytes), got = sys_kernel_csum(p, bytes);
	if (got != want)
		report_csum(t, 0, want, got);
}

/* The kernel must refuse ranges outside its image and RAM (reg 1 of a csum report). */
static void kernel_csum_refusals(struct stress_task *t)
{
	uint64_t buf[4] = { 0 };
	if (sys_kernel_csum((const void *)8, 8) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, 8);
	if (sys_kernel_csum((const void *)(1ull << 40), 64) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, 1ull << 40);
	if (sys_kernel_csum(buf, CSUM_MAX_BYTES + 1ull) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, CSUM_MAX_BYTES + 1ull);
	if (sys_kernel_csum(buf, -8ull) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, -8ull);
}

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Spin in TSC ticks, so that long spins meet the timer however fast the CPU is. */
static void spin(struct stress_task *t)
{
	const struct stress_args *a = t->a;
	uint64_t len = rnd(t) % 4 ? rnd(t) % a->spin_short : rnd(t) % a->spin_long;
	uint64_t start = rdtsc(), last = start, now;

	while ((now = rdtsc()) - start < len) {
		if (now - last >= a->spin_check) {
			verify(t);
			last = rdtsc();
		}
	}
}

static void block(struct stress_task *t)
{
	if (__atomic_add_fetch(&t->sh->blocked, 1, __ATOMIC_SEQ_CST) < (int)t->a->ntasks &&
	    !t->sh->stop)
		sys_sem_down(t->a->task);
	__atomic_sub_fetch(&t->sh->blocked, 1, __ATOMIC_SEQ_CST);
}

static void wake_other(struct stress_task *t)
{
	unsigned int n = t->a->ntasks;
	if (n < 2)
		return;
	unsigned int o = (unsigned int)(rnd(t) % (n - 1));
	sys_sem_up(o >= t->a->task ? o + 1 : o);
}

void stress_main(void *p)
{
	struct stress_task t = { .a = p, .sh = ((const struct stress_args *)p)->shared };
	/* Unique among live tasks (task < 64) and between generations in a row. */
	t.id = 1 + t.a->task + 64 * (t.a->gen % 63);
	t.rng = splitmix(splitmix(t.a->seed) ^ ((uint64_t)t.a->gen << 8 | t.a->task));

	if (t.a->task == 0 && t.a->gen == 0)
		kernel_csum_refusals(&t);
	regs_check_init(t.id, t.a->ymm);
	regs_write_all(t.id, t.seq, t.a->ymm);
	if (t.a->gen == 0) {
		sys_sem_up(t.a->sem_ready);
		sys_sem_down(t.a->sem_go);
	}
	verify(&t);

	while (!t.sh->stop) {
		if (rnd(&t) % EXIT_CHANCE == 0) {
			t.sh->exiting[t.a->task] = 1;
			return;
		}
		unsigned int r = (unsigned int)(rnd(&t) % 100);
		if (r < 20)
			sys_yield();
		else if (r < 40)
			wake_other(&t);
		else if (r < 55)
			block(&t);
		else if (r < 65)
			sys_migrate((unsigned int)(rnd(&t) % t.a->ncpus));
		else if (r < 80)
			kernel_csum(&t);
		else
			spin(&t);
		verify(&t);
	}
}
