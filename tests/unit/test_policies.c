// SPDX-License-Identifier: MIT
/*
 * libfpu's policies on the host, with real XSAVE-family instructions in user mode: this
 * test plays a one-CPU kernel. CR0.TS cannot be touched in ring 3, so the
 * arch ops record it and the "task" calls fpu_handle_nm() itself when it
 * would have trapped. Task state lives in the x87 stack, FCW and MXCSR,
 * which compiler-generated code between two steps never touches (XMM is
 * caller-saved scratch for the compiler and glibc, so it is not used here).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fpu/fpu.h>
#include <fpu/xstate.h>

static bool fake_ts;
static unsigned int preempt_count;

static unsigned int cpu_id(void)
{
	return 0;
}
static void set_ts(void)
{
	fake_ts = true;
}
static void clear_ts(void)
{
	fake_ts = false;
}
static void preempt_disable(void)
{
	preempt_count++;
}
static void preempt_enable(void)
{
	preempt_count--;
}
static bool in_irq;
static bool in_interrupt(void)
{
	return in_irq;
}

/* A panic fails the test, unless the test waits for one (expect_panic). */
static jmp_buf panic_jump;
static bool panic_expected;
static char panic_msg[128];
static void host_panic(const char *msg)
{
	if (!panic_expected)
		fail_msg("libfpu panic: %s", msg);
	snprintf(panic_msg, sizeof(panic_msg), "%s", msg);
	panic_expected = false;
	longjmp(panic_jump, 1);
}

static unsigned int traced_uses;
static void trace_use(struct fpu *cur)
{
	traced_uses++;
}

static const struct fpu_arch_ops ops = {
	.cpu_id = cpu_id,
	.panic = host_panic,
	.set_ts = set_ts,
	.clear_ts = clear_ts,
	.preempt_disable = preempt_disable,
	.preempt_enable = preempt_enable,
	.in_interrupt = in_interrupt,
	.trace_use = trace_use,
};

struct task {
	struct fpu fpu;
	int id;
	uint64_t seq;
};

static uint64_t value(const struct task *t, unsigned int reg)
{
	return (1ull << 62) | ((uint64_t)t->id << 40) | (t->seq << 8) | reg;
}

static uint16_t fcw_of(const struct task *t)
{
	return (uint16_t)(0x037f | ((t->id & 3) << 10));
}
static uint32_t mxcsr_of(const struct task *t)
{
	return 0x1f80u | ((uint32_t)(t->id & 3) << 13);
}

/* The task's FPU work for one slice: check what it left, write the next. */
static void task_uses_fpu(struct task *t, bool check)
{
	uint64_t v[4], got[4];
	uint16_t fcw;
	uint32_t mxcsr;

	if (fake_ts)
		fpu_handle_nm(&t->fpu); /* what the #NM trap would do */
	assert_false(fake_ts);
	if (check) {
		__asm__ volatile("fnstcw %0" : "=m"(fcw));
		__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
		__asm__ volatile("fistpq %0\n\tfistpq %1\n\tfistpq %2\n\tfistpq %3"
				 : "=m"(got[3]), "=m"(got[2]), "=m"(got[1]), "=m"(got[0]));
		assert_int_equal(fcw, fcw_of(t));
		assert_int_equal(mxcsr, mxcsr_of(t));
		for (unsigned int r = 0; r < 4; r++)
			assert_int_equal(got[r], value(t, r));
	} else {
		__asm__ volatile("fninit");
	}
	t->seq++;
	for (unsigned int r = 0; r < 4; r++)
		v[r] = value(t, r);
	fcw = fcw_of(t);
	mxcsr = mxcsr_of(t);
	__asm__ volatile("fldcw %0" : : "m"(fcw));
	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
	__asm__ volatile("fildq %0\n\tfildq %1\n\tfildq %2\n\tfildq %3"
			 :
			 : "m"(v[0]), "m"(v[1]), "m"(v[2]), "m"(v[3]));
}

static struct task *new_task(int id)
{
	struct task *t = calloc(1, sizeof(*t));
	struct xregs_state *buf = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	assert_non_null(t);
	assert_non_null(buf);
	memset(buf, 0, XSTATE_MAX_SIZE);
	fpu_task_init(&t->fpu, buf, (unsigned int)id);
	t->id = id;
	return t;
}

static void free_task(struct task *t)
{
	fpu_task_exit(&t->fpu);
	free(t->fpu.state);
	free(t);
}

/* The kernel's switch path, then the way back to ring 3. */
static void switch_to(struct task *prev, struct task *next)
{
	fpu_switch(prev ? &prev->fpu : NULL, &next->fpu);
	fpu_return_to_user(&next->fpu);
}

static int setup(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	assert_int_equal(xstate_init(&o), XSTATE_OK);
	assert_int_equal(fpu_init(&ops), 0);
	return 0;
}

static void start_policy(const char *name)
{
	assert_int_equal(fpu_set_policy(name), 0);
	fake_ts = false;
	fpu_cpu_quiesce();
	fpu_stats_reset();
}

/* Two FP tasks ping-pong on one CPU: each finds its own registers every time. */
static void both_tasks_keep_their_state(const char *policy, uint64_t want_nm,
					uint64_t want_restores)
{
	struct task *a = new_task(1), *b = new_task(2);
	const int rounds = 8;

	start_policy(policy);
	switch_to(NULL, a);
	task_uses_fpu(a, false);
	switch_to(a, b);
	task_uses_fpu(b, false);
	fpu_stats_reset();
	for (int i = 0; i < rounds; i++) {
		switch_to(b, a);
		task_uses_fpu(a, true);
		switch_to(a, b);
		task_uses_fpu(b, true);
	}
	struct fpu_stats *s = fpu_stats_cpu(0);
	assert_int_equal(s->switches, 2 * rounds);
	assert_int_equal(s->nm_traps, want_nm);
	assert_int_equal(s->restores, want_restores);
	free_task(a);
	free_task(b);
}

static void test_eager_both(void **state)
{
	both_tasks_keep_their_state("eager", 0, 16);
}
static void test_lazy_both(void **state)
{
	both_tasks_keep_their_state("lazy", 16, 16);
}
static void test_lazy_counter_both(void **state)
{
	both_tasks_keep_their_state("lazy-counter", 8, 16);
}
static void test_owner_both(void **state)
{
	both_tasks_keep_their_state("owner", 0, 16);
}
static void test_deferred_both(void **state)
{
	both_tasks_keep_their_state("deferred", 0, 16);
}
static void test_smp_lazy_both(void **state)
{
	both_tasks_keep_their_state("smp-lazy", 16, 16);
}

/* ts_writes counts the CR0 writes that change TS: none under eager, a set at
 * each switch and a clear at each #NM under lazy; a set TS is not set again. */
static void test_ts_writes(void **state)
{
	static const struct {
		const char *policy;
		uint64_t want, idle_pair;
	} cases[] = {
		{ "eager", 0, 0 },
		{ "deferred", 0, 0 },
		{ "lazy", 32, 1 }, /* TS set for a; still set for b */
		{ "smp-lazy", 32,
		  2 }, /* TS set for a; cleared for b, whose registers this CPU holds */
	};

	for (unsigned int k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct task *a = new_task(11), *b = new_task(12);
		start_policy(cases[k].policy);
		switch_to(NULL, a);
		task_uses_fpu(a, false);
		switch_to(a, b);
		task_uses_fpu(b, false);
		fpu_stats_reset();
		for (int i = 0; i < 8; i++) {
			switch_to(b, a);
			task_uses_fpu(a, true);
			switch_to(a, b);
			task_uses_fpu(b, true);
		}
		assert_int_equal(fpu_stats_cpu(0)->ts_writes, cases[k].want);
		/* a slice without FPU use, then back: a TS already set is not set again */
		uint64_t before = fpu_stats_cpu(0)->ts_writes;
		switch_to(b, a);
		switch_to(a, b);
		assert_int_equal(fpu_stats_cpu(0)->ts_writes, before + cases[k].idle_pair);
		free_task(a);
		free_task(b);
	}
}

/* Costs measured on the AMD machine of docs/model.md (trap: its syscall round trip). */
static const struct fpu_costs amd_host = {
	.trap_ns = 929, .cr0_ns = 44, .ipi_ns = 22272, .save_ns = 47, .restore_ns = 108
};

/*
 * adaptive after a reset (an exec, say): a task that used the FPU in every
 * watched slice is given its registers, but the slices after a reset are not
 * the switch-in slices its estimate was made from, so some reset is sampled
 * (left with TS set) within ADAPT_RELOAD_K (32) x (observations + 1) of them
 * rather than after the ~1,300 its margin alone would allow at these costs.
 */
static void test_adaptive_samples_after_reset(void **state)
{
	struct fpu_costs saved;
	struct task *a = new_task(21), *b = new_task(22);
	const unsigned int watched = 1;
	unsigned int resets = 0;

	fpu_get_costs(&saved);
	fpu_set_costs(&amd_host);
	start_policy("adaptive");
	switch_to(NULL, a);
	assert_true(fake_ts); /* no estimate yet: watched */
	task_uses_fpu(a, false);
	switch_to(a, b); /* b never uses the FPU */
	switch_to(b, a);
	assert_false(fake_ts); /* a use in its one observation: given at once */
	while (!fake_ts && resets < 2000) {
		fpu_task_reset(&a->fpu);
		fpu_return_to_user(&a->fpu);
		resets++;
	}
	if (resets <= 1 || resets > 32 * (watched + 1))
		fail_msg("first sampled reset: %u of them (want 2..%u)", resets,
			 32 * (watched + 1));
	task_uses_fpu(a, false); /* the sample's #NM */
	fpu_set_costs(&saved);
	free_task(a);
	free_task(b);
}

/*
 * A newcomer given its registers by the newcomers' prior, switched out with
 * them held unsaved, and switched back in with TS set (by a task seen not to
 * use the FPU) is judged by the prior again: it has no estimate of its own
 * (it was not watched). It had none before: watched, it trapped at its use.
 */
static void test_adaptive_held_newcomer_judged_by_prior(void **state)
{
	struct fpu_costs saved;
	struct task *z = new_task(31), *a = new_task(32), *b = new_task(33);

	fpu_get_costs(&saved);
	fpu_set_costs(&amd_host);
	start_policy("adaptive");
	switch_to(NULL, z); /* watched, no use: z is seen not to use the FPU */
	switch_to(z, a);    /* one newcomer in the prior: watched too */
	assert_true(fake_ts);
	task_uses_fpu(a, false);
	switch_to(a, b); /* the prior (2 slices, 1 use) gives b its registers */
	assert_false(fake_ts);
	switch_to(b, z); /* b's live registers held here; z runs with TS set */
	assert_true(fake_ts);
	uint64_t traps = fpu_stats_cpu(0)->nm_traps;
	switch_to(z, b);
	assert_false(fake_ts); /* given back: TS cleared, no trap */
	task_uses_fpu(b, false);
	assert_int_equal(fpu_stats_cpu(0)->nm_traps, traps);
	fpu_set_costs(&saved);
	free_task(z);
	free_task(a);
	free_task(b);
}

/*
 * A task the newcomers' prior gives its registers, and which never uses
 * them, is sampled on its own count of the prior's decisions for it, not
 * only when the prior's own interval (shared by every task it judges, long
 * once its samples agree) falls on it: here after 682 switch-ins. With a
 * prior of 1 use in 2 first slices, b's held registers given back cost the
 * two CR0 writes (about 66 ns at f = 1/2) against a trap's half of
 * 929 + 66: sampled once 16 x 434 / 66 = 105 such decisions are made.
 * Once seen not to use the FPU, it is watched as under lazy.
 */
static void test_adaptive_prior_outlived(void **state)
{
	struct fpu_costs saved;
	struct task *z = new_task(51), *a = new_task(52), *b = new_task(53);
	unsigned int given = 0;

	fpu_get_costs(&saved);
	fpu_set_costs(&amd_host);
	start_policy("adaptive");
	switch_to(NULL, z); /* watched, no use */
	switch_to(z, a);    /* watched, a use: the prior is 1 use in 2 */
	task_uses_fpu(a, false);
	switch_to(a, z);
	for (;;) {
		switch_to(z, b);
		if (fake_ts || ++given > 2000)
			break; /* the sample (TS left set), or none */
		switch_to(b, z);
	}
	if (given < 31 || given > 127)
		fail_msg("b given its registers %u times before its sample (want 31..127)", given);
	switch_to(b, z); /* the sample: no use */
	for (int i = 0; i < 8; i++) {
		switch_to(z, b);
		assert_true(fake_ts); /* seen not to use the FPU: watched */
		switch_to(b, z);
	}
	fpu_set_costs(&saved);
	free_task(z);
	free_task(a);
	free_task(b);
}

/*
 * One watched slice with a use is no certainty: a task's own estimate counts
 * the newcomers' prior as one observation more (count_the_prior). Here the
 * prior is 1 use in 2 first slices and b used the FPU in its one watched
 * slice: p = (1 + 1/2) / 2, not 1, so its margin is smaller and b, which
 * never uses its registers again, is sampled after fewer gives (each a
 * restore and a save: c, which uses the FPU in every slice, takes the
 * registers between them). At these costs the interval is ADAPT_K x
 * (margin / waste)^2: 892 gives with the prior counted, 1343 at p = 1.
 */
static void test_adaptive_one_use_is_no_certainty(void **state)
{
	struct fpu_costs saved;
	struct task *z = new_task(61), *b = new_task(62), *c = new_task(63);
	unsigned int given = 0;

	fpu_get_costs(&saved);
	fpu_set_costs(&amd_host);
	start_policy("adaptive");
	switch_to(NULL, z); /* watched, no use */
	switch_to(z, b);    /* watched, a use: the prior is 1 use in 2 */
	task_uses_fpu(b, false);
	switch_to(b, c);
	task_uses_fpu(c, false);
	for (;;) {
		switch_to(c, b);
		if (fake_ts || ++given > 2000)
			break; /* the sample (TS left set), or none */
		switch_to(b, c);
		task_uses_fpu(c, false);
	}
	if (given < 600 || given > 1200)
		fail_msg("b given its registers %u times before its sample (want 600..1200)",
			 given);
	fpu_set_costs(&saved);
	free_task(z);
	free_task(b);
	free_task(c);
}

/*
 * s is measured after slices without registers too: would they have been
 * kept? t alternates a slice without a use (then z, which never uses the
 * FPU) and one with a use (then u, which loads its own state). At a 10-ns
 * trap t is trapped at every use, so it has registers only after its uses,
 * and u takes them each time; measured only then, s read 0 and hid that
 * registers given at the slice without a use would last to the next.
 */
static void test_adaptive_kept_measured_without_registers(void **state)
{
	static const struct fpu_costs cheap_trap = {
		.trap_ns = 10, .cr0_ns = 44, .ipi_ns = 22272, .save_ns = 47, .restore_ns = 108
	};
	struct fpu_costs saved;
	struct task *t = new_task(71), *z = new_task(72), *u = new_task(73);

	fpu_get_costs(&saved);
	fpu_set_costs(&cheap_trap);
	start_policy("adaptive");
	switch_to(NULL, u);
	task_uses_fpu(u, false);
	for (int i = 0; i < 8; i++) {
		switch_to(u, t); /* no use */
		switch_to(t, z); /* nothing loaded: t's registers, had it had them, stay */
		switch_to(z, t);
		task_uses_fpu(t, false);
		switch_to(t, u); /* u loads its own: t's are gone */
		task_uses_fpu(u, false);
	}
	assert_int_equal(t->fpu.adaptive.nkept, 8);
	assert_int_equal(__builtin_popcount(t->fpu.adaptive.kept), 4);
	fpu_set_costs(&saved);
	free_task(t);
	free_task(z);
	free_task(u);
}

/*
 * A sure call stays sure at any cost. Here the margin of giving held
 * registers back is 128 slices x an 8.4-ms trap = 2^30 ns-slices, and the
 * sampling test's 16 x margin^2 is 2^64: in 64 bits it wrapped to 0, and a
 * task that uses the FPU in every slice was sampled (a trap of 8.4 ms) once
 * its level's 1,024 switch-ins had passed. Saturated, it is never sampled.
 */
static void test_adaptive_huge_trap_not_sampled(void **state)
{
	static const struct fpu_costs dear = {
		.trap_ns = 1u << 23, .cr0_ns = 44, .ipi_ns = 22272, .save_ns = 47, .restore_ns = 108
	};
	struct fpu_costs saved;
	struct task *z = new_task(61), *t = new_task(62);
	unsigned int sampled = 0;

	fpu_get_costs(&saved);
	fpu_set_costs(&dear);
	start_policy("adaptive");
	switch_to(NULL, z);         /* z: watched, never a use */
	t->fpu.adaptive.nobs = 128; /* t: a use in each of 128 slices, long trusted */
	t->fpu.adaptive.uses = 128;
	t->fpu.adaptive.level = 10;
	for (int i = 0; i < 3000; i++) {
		switch_to(z, t);
		sampled += fake_ts;
		task_uses_fpu(t, false);
		switch_to(t, z);
	}
	assert_int_equal(sampled, 0);
	fpu_set_costs(&saved);
	free_task(z);
	free_task(t);
}

/*
 * The CR0 write that sets TS again is charged by what this CPU's switch-ins
 * do: where every one would leave TS set, to the use that clears it (as
 * under lazy, a slice without a use writes no CR0); where none would, to the
 * switch-in that sets it. At this host's costs (a 63-ns trap, 44-ns CR0
 * writes) a task using the FPU in 1 of 6 slices, found with TS clear, is
 * watched on a CPU of tasks that keep TS set, and given its registers on a
 * fresh one, where one switch-in came before (restore 36 + 5/6 of a save 30
 * = 61 ns against nearly 44 + 1/6 (63 + 44 + 36) = 68).
 */
static void cpu_of_watchers(bool watchers)
{
	struct task *z = new_task(41), *y = new_task(42), *u = new_task(43), *t = new_task(44);

	start_policy("adaptive");
	if (watchers) {
		switch_to(NULL, z); /* z and y: watched, never a use */
		for (int i = 0; i < 64; i++) {
			switch_to(z, y);
			switch_to(y, z);
		}
		switch_to(z, u); /* the prior (z and y) says watch */
	} else {
		switch_to(NULL, u); /* no prior yet: watched */
	}
	task_uses_fpu(u, false);  /* its #NM clears TS */
	t->fpu.adaptive.nobs = 6; /* its estimate: 1 use in 6 slices, */
	t->fpu.adaptive.uses = 1;
	t->fpu.adaptive.level = 10; /* long trusted: a close call given, not sampled */
	switch_to(u, t);
	if (watchers)
		assert_true(fake_ts);
	else
		assert_false(fake_ts);
	free_task(z);
	free_task(y);
	free_task(u);
	free_task(t);
}

static void test_adaptive_cr0_set_charged_by_the_cpu(void **state)
{
	const struct fpu_costs host = {
		.trap_ns = 63, .cr0_ns = 44, .ipi_ns = 16651, .save_ns = 30, .restore_ns = 36
	};
	struct fpu_costs saved;

	fpu_get_costs(&saved);
	fpu_set_costs(&host);
	cpu_of_watchers(true);
	cpu_of_watchers(false);
	fpu_set_costs(&saved);
}

/* One FP task and one that never touches the FPU: owner tracking skips every reload. */
static void one_fp_task(const char *policy, uint64_t want_restores, uint64_t want_skipped)
{
	struct task *a = new_task(3), *b = new_task(4);
	const int rounds = 8;

	start_policy(policy);
	switch_to(NULL, a);
	task_uses_fpu(a, false);
	fpu_stats_reset();
	for (int i = 0; i < rounds; i++) {
		switch_to(a, b);
		switch_to(b, a);
		task_uses_fpu(a, true);
	}
	assert_int_equal(fpu_stats_cpu(0)->restores, want_restores);
	assert_int_equal(fpu_stats_cpu(0)->restores_skipped, want_skipped);
	free_task(a);
	free_task(b);
}

static void test_eager_one(void **state)
{
	one_fp_task("eager", 16, 0);
}
static void test_lazy_one(void **state)
{
	one_fp_task("lazy", 0, 8);
}
static void test_owner_one(void **state)
{
	one_fp_task("owner", 0, 8);
}
static void test_smp_lazy_one(void **state)
{
	one_fp_task("smp-lazy", 0, 8);
}

/* A kernel-mode FPU section in a task's syscall clobbers the registers; the
 * task still finds its own state when it next uses the FPU, under every policy. */
static void test_kernel_fpu_section(void **state)
{
	for (const char *const *p = fpu_policy_names(); *p; p++) {
		struct task *a = new_task(5), *b = new_task(6);
		start_policy(*p);
		switch_to(NULL, a);
		task_uses_fpu(a, false);
		switch_to(a, b);
		task_uses_fpu(b, false);
		switch_to(b, a);
		task_uses_fpu(a, true);

		kernel_fpu_begin();
		assert_int_equal(preempt_count, 1);
		assert_false(fake_ts);
		uint32_t mxcsr;
		__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
		assert_int_equal(mxcsr, MXCSR_DEFAULT);
		kernel_fpu_end();
		assert_int_equal(preempt_count, 0);
		fpu_return_to_user(&a->fpu);
		task_uses_fpu(a, true);

		assert_int_equal(fpu_stats_cpu(0)->kernel_fpu_sections, 1);
		free_task(a);
		free_task(b);
	}
}

/* Nested sections and sections in interrupt context are bugs: libfpu panics. */
static void test_kernel_fpu_misuse_panics(void **state)
{
	start_policy("eager");

	kernel_fpu_begin();
	panic_expected = true;
	if (!setjmp(panic_jump))
		kernel_fpu_begin();
	assert_false(panic_expected);
	assert_non_null(strstr(panic_msg, "nested"));
	preempt_count = 1; /* the refused begin never returned */
	kernel_fpu_end();
	assert_int_equal(preempt_count, 0);

	in_irq = true;
	panic_expected = true;
	if (!setjmp(panic_jump))
		kernel_fpu_begin();
	in_irq = false;
	assert_false(panic_expected);
	assert_non_null(strstr(panic_msg, "interrupt"));
	assert_int_equal(preempt_count, 0);

	panic_expected = true;
	if (!setjmp(panic_jump))
		kernel_fpu_end();
	assert_false(panic_expected);
	assert_non_null(strstr(panic_msg, "without"));
}

/*
 * The preconditions libfpu can check without a cost in its hooks are
 * checked: an error return or a panic, not a wild access later.
 */
static void test_bad_arguments_refused(void **state)
{
	static uint8_t area[XSTATE_MAX_SIZE + 64] __attribute__((aligned(64)));
	struct fpu f;

	start_policy("eager");
	assert_int_equal(fpu_set_policy(NULL), XSTATE_E_INVAL);
	assert_null(fpu_stats_cpu(FPU_MAX_CPUS));
	assert_non_null(fpu_stats_cpu(FPU_MAX_CPUS - 1));
	for (int k = 0; k < 2; k++) {
		panic_msg[0] = 0;
		panic_expected = true;
		if (!setjmp(panic_jump))
			fpu_task_init(&f, k ? (struct xregs_state *)(area + 16) : NULL, 1);
		assert_false(panic_expected);
		assert_non_null(strstr(panic_msg, "64-byte aligned"));
	}
	fpu_task_init(&f, (struct xregs_state *)area, 1); /* aligned: accepted */
	assert_ptr_equal(f.state, area);
}

/* Import replaces the task's state and no CPU may trust its old registers. */
static void test_import_invalidates(void **state)
{
	struct task *a = new_task(7);
	uint8_t img[XSTATE_MAX_SIZE] __attribute__((aligned(64)));
	uint16_t fcw;

	start_policy("owner");
	switch_to(NULL, a);
	task_uses_fpu(a, false);
	assert_true(fpu_export_std(&a->fpu, img, sizeof(img)) > 0);
	((struct xregs_state *)img)->legacy.fcw = 0x027f;
	assert_int_equal(fpu_import_std(&a->fpu, img, sizeof(img)), XSTATE_OK);
	assert_int_equal(a->fpu.last_cpu, -1);

	struct task *b = new_task(8);
	switch_to(a, b);
	switch_to(b, a); /* owner policy: must load the imported state, not skip */
	if (fake_ts)
		fpu_handle_nm(&a->fpu);
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
	assert_int_equal(fcw, 0x027f);
	free_task(a);
	free_task(b);
}

/*
 * Tracing (fpu_set_tracing): three tasks, one using the FPU only now and then,
 * kernel-thread slices, kernel-FPU sections and resets (signal delivery)
 * between. Returns the first uses (in a slice, after a section or a reset)
 * it made; *out: the counters.
 */
static unsigned int tracing_scenario(const char *policy, struct fpu_stats *out)
{
	struct task *t[3] = { new_task(21), new_task(22), new_task(23) }, *prev = NULL;
	unsigned int first = 0;

	start_policy(policy);
	for (int i = 0; i < 30; i++) {
		struct task *next = t[i % 3];
		if (i % 5 == 4) { /* a kernel thread runs between */
			fpu_switch(prev ? &prev->fpu : NULL, NULL);
			prev = NULL;
		}
		switch_to(prev, next);
		if (next != t[1] || i % 4 == 1) {
			task_uses_fpu(next, next->seq > 0);
			task_uses_fpu(next, true); /* not a first use: no trap */
			first++;
		}
		if (i % 6 == 0) {
			kernel_fpu_begin();
			kernel_fpu_end();
			fpu_return_to_user(&next->fpu); /* the syscall returns */
			if (next->seq > 0) {
				task_uses_fpu(next, true);
				first++;
			}
		}
		if (i % 7 == 3 && next->seq > 0) { /* a signal: the handler starts in init */
			fpu_task_reset(&next->fpu);
			fpu_return_to_user(&next->fpu);
			task_uses_fpu(next, false); /* a first use again, even if it used before */
			first++;
		}
		prev = next;
	}
	*out = *fpu_stats_cpu(0);
	fpu_switch(&prev->fpu, NULL);
	for (int k = 0; k < 3; k++)
		free_task(t[k]);
	return first;
}

/* Tracing sees every first use, whatever the policy, and changes no counter. */
static void test_tracing_counts_nothing(void **state)
{
	for (const char *const *p = fpu_policy_names(); *p; p++) {
		struct fpu_stats off, on;

		traced_uses = 0;
		unsigned int uses = tracing_scenario(*p, &off);
		assert_int_equal(traced_uses, 0);
		fpu_set_tracing(true);
		assert_int_equal(tracing_scenario(*p, &on), uses);
		fpu_set_tracing(false);
		if (traced_uses != uses)
			fail_msg("%s: tracing saw %u first uses of %u", *p, traced_uses, uses);
		if (memcmp(&on, &off, sizeof(on)))
			fail_msg("%s: tracing changed the counters: #NM %lu/%lu, TS writes "
				 "%lu/%lu, restores %lu/%lu",
				 *p, (unsigned long)on.nm_traps, (unsigned long)off.nm_traps,
				 (unsigned long)on.ts_writes, (unsigned long)off.ts_writes,
				 (unsigned long)on.restores, (unsigned long)off.restores);
		fpu_cpu_quiesce();
		assert_false(fake_ts);
	}
}

/* fpu_set_insn_trace: what the hook heard of the ping-pong below. */
static struct {
	uint64_t saves, restores, bad;
	const struct xregs_state *a, *b;
} heard;

static void hear_insn(bool restore, enum fpu_save_insn insn, const struct xregs_state *area,
		      uint64_t mask)
{
	uint64_t want = restore ? xstate_cfg.kernel_mask & ~XFEATURE_MASK_PKRU
				: xstate_cfg.kernel_mask;

	if (restore)
		heard.restores++;
	else
		heard.saves++;
	if (insn != xstate_cfg.save_insn || (area != heard.a && area != heard.b) || mask != want)
		heard.bad++;
}

/* The hook hears each save and restore the counters count, on the tasks' own areas. */
static void test_insn_trace_hears_each_instruction(void **state)
{
	for (const char *const *p = fpu_policy_names(); *p; p++) {
		struct task *a = new_task(1), *b = new_task(2);
		uint64_t saves = 0;

		memset(&heard, 0, sizeof(heard));
		heard.a = a->fpu.state;
		heard.b = b->fpu.state;
		start_policy(*p);
		fpu_set_insn_trace(hear_insn);
		switch_to(NULL, a);
		task_uses_fpu(a, false);
		for (int i = 0; i < 4; i++) {
			switch_to(a, b);
			task_uses_fpu(b, i > 0);
			switch_to(b, a);
			task_uses_fpu(a, true);
		}
		fpu_set_insn_trace(NULL);
		struct fpu_stats *s = fpu_stats_cpu(0);
		for (int k = 0; k < FPU_INSN_NR; k++)
			saves += s->saves[k];
		if (heard.saves != saves || heard.restores != s->restores || heard.bad)
			fail_msg("%s: heard %lu saves, %lu restores (%lu wrong); counted %lu, %lu",
				 *p, (unsigned long)heard.saves, (unsigned long)heard.restores,
				 (unsigned long)heard.bad, (unsigned long)saves,
				 (unsigned long)s->restores);
		assert_true(heard.restores >= 8);
		uint64_t restores = s->restores;
		switch_to(a, b); /* unhooked: b's use still loads its state, unheard */
		task_uses_fpu(b, true);
		assert_true(s->restores > restores);
		assert_int_equal(heard.restores, restores);
		assert_int_equal(heard.bad, 0);
		free_task(a);
		free_task(b);
	}
}

/* The policy properties tools rank by are data (fpu_policy_flags), one baseline: eager. */
static void test_policy_flags(void **state)
{
	int baselines = 0, break_evens = 0, linux_policies = 0;

	for (const char *const *p = fpu_policy_names(); *p; p++) {
		int f = fpu_policy_flags(*p);
		assert_true(f >= 0);
		if (strcmp(*p, "adaptive"))
			assert_true(f & FPU_POLICY_STATIC);
		else
			assert_false(f & FPU_POLICY_STATIC);
		baselines += !!(f & FPU_POLICY_BASELINE);
		break_evens += !!(f & FPU_POLICY_BREAK_EVEN);
		linux_policies += !!(f & FPU_POLICY_LINUX);
	}
	assert_int_equal(baselines, 1);
	assert_int_equal(linux_policies, 1);
	assert_true(fpu_policy_flags("deferred") & FPU_POLICY_LINUX);
	/* the traps flag follows from the policy's #NM handler */
	assert_false(fpu_policy_flags("eager") & FPU_POLICY_TRAPS);
	assert_false(fpu_policy_flags("deferred") & FPU_POLICY_TRAPS);
	assert_true(fpu_policy_flags("lazy") & FPU_POLICY_TRAPS);
	assert_true(fpu_policy_flags("lazy-counter") & FPU_POLICY_TRAPS);
	assert_true(fpu_policy_flags("owner") & FPU_POLICY_TRAPS);
	assert_true(fpu_policy_flags("smp-lazy") & FPU_POLICY_TRAPS);
	assert_true(fpu_policy_flags("adaptive") & FPU_POLICY_TRAPS);
	assert_int_equal(break_evens, 2);
	assert_true(fpu_policy_flags("eager") & FPU_POLICY_BASELINE);
	assert_true(fpu_policy_flags("lazy") & FPU_POLICY_BREAK_EVEN);
	assert_true(fpu_policy_flags("lazy-counter") & FPU_POLICY_BREAK_EVEN);
	assert_false(fpu_policy_flags("owner") & FPU_POLICY_BREAK_EVEN);
	assert_int_equal(fpu_policy_flags("no-such-policy"), XSTATE_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eager_both),
		cmocka_unit_test(test_lazy_both),
		cmocka_unit_test(test_lazy_counter_both),
		cmocka_unit_test(test_owner_both),
		cmocka_unit_test(test_deferred_both),
		cmocka_unit_test(test_smp_lazy_both),
		cmocka_unit_test(test_eager_one),
		cmocka_unit_test(test_lazy_one),
		cmocka_unit_test(test_owner_one),
		cmocka_unit_test(test_smp_lazy_one),
		cmocka_unit_test(test_kernel_fpu_section),
		cmocka_unit_test(test_kernel_fpu_misuse_panics),
		cmocka_unit_test(test_bad_arguments_refused),
		cmocka_unit_test(test_import_invalidates),
		cmocka_unit_test(test_ts_writes),
		cmocka_unit_test(test_adaptive_samples_after_reset),
		cmocka_unit_test(test_adaptive_held_newcomer_judged_by_prior),
		cmocka_unit_test(test_adaptive_cr0_set_charged_by_the_cpu),
		cmocka_unit_test(test_adaptive_prior_outlived),
		cmocka_unit_test(test_adaptive_one_use_is_no_certainty),
		cmocka_unit_test(test_adaptive_kept_measured_without_registers),
		cmocka_unit_test(test_adaptive_huge_trap_not_sampled),
		cmocka_unit_test(test_tracing_counts_nothing),
		cmocka_unit_test(test_insn_trace_hears_each_instruction),
		cmocka_unit_test(test_policy_flags),
	};
	return cmocka_run_group_tests_name("libfpu policies (host, one CPU)", tests, setup, NULL);
}
