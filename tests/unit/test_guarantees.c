// SPDX-License-Identifier: MIT
/*
 * The guarantees of fpu.h ("Export, import and ownership") under every
 * policy, on a fake kernel with more than one CPU, on the host with real
 * XSAVE-family instructions in user mode.
 *
 * The fake kernel: cpu_id() returns the simulated CPU that runs; each
 * simulated CPU has its own register file, which the harness swaps in and
 * out with raw XSAVE/XRSTOR when it changes CPU (run_on()); CR0.TS is a
 * per-CPU flag, and a task that would trap calls fpu_handle_nm() itself;
 * send_flush_ipi() queues an IPI, which the harness (and ops->wait_relax,
 * as a waiting CPU lets the others run) delivers by running fpu_flush_ipi()
 * on the CPU it was sent to.
 *
 * Task state lives in the x87 stack, FCW and MXCSR: compiled code between
 * two steps never touches those (XMM is the compiler's and glibc's scratch).
 *
 * Built against the FPU_TESTING library, so that a test can show the
 * injected fault import-stale-regs is caught by these checks.
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
#include <fpu/signal.h>
#include <fpu/xstate.h>

#define NCPU 3

/* ---- the fake kernel ---- */

static unsigned int this_cpu;
static bool fake_ts[NCPU];
static bool ipi_pending[NCPU];
static uint64_t ipis_sent[NCPU], ipis_served[NCPU];
static uint8_t regfile[NCPU][XSTATE_MAX_SIZE] __attribute__((aligned(64)));

static unsigned int cpu_id(void)
{
	return this_cpu;
}
static void set_ts(void)
{
	fake_ts[this_cpu] = true;
}
static void clear_ts(void)
{
	fake_ts[this_cpu] = false;
}
static void host_panic(const char *msg)
{
	fail_msg("libfpu panic on CPU %u: %s", this_cpu, msg);
}
static void send_flush_ipi(unsigned int cpu)
{
	assert_true(cpu < NCPU);
	assert_int_not_equal(cpu, this_cpu);
	ipi_pending[cpu] = true;
	ipis_sent[cpu]++;
}

/* The registers of the CPU that runs now go to its register file; @cpu's come back. */
static void run_on(unsigned int cpu)
{
	if (cpu == this_cpu)
		return;
	__asm__ volatile("xsave64 %0"
			 : "+m"(regfile[this_cpu])
			 : "a"((uint32_t)xstate_cfg.xcr0), "d"((uint32_t)(xstate_cfg.xcr0 >> 32))
			 : "memory");
	this_cpu = cpu;
	__asm__ volatile("xrstor64 %0"
			 :
			 : "m"(regfile[cpu]), "a"((uint32_t)xstate_cfg.xcr0),
			   "d"((uint32_t)(xstate_cfg.xcr0 >> 32))
			 : "memory");
}

/* Every other CPU serves the IPIs sent to it, then the caller's CPU runs again. */
static void serve_ipis(void)
{
	unsigned int me = this_cpu;

	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		if (!ipi_pending[cpu] || cpu == me)
			continue;
		ipi_pending[cpu] = false;
		ipis_served[cpu]++;
		run_on(cpu);
		fpu_flush_ipi();
	}
	run_on(me);
}

static unsigned int relax_calls;
static void wait_relax(void)
{
	relax_calls++;
	if (relax_calls > 1000)
		fail_msg("waited 1000 times on CPU %u for a flush that never came", this_cpu);
	serve_ipis();
}

static struct fpu *cur_fpu[NCPU];
static void nop(void)
{
}
static bool no_irq(void)
{
	return false;
}

/* PKRU: one register per simulated CPU (no host here needs PKU for these tests). */
static uint32_t pkru_reg[NCPU];
static uint64_t pkru_writes;
static uint32_t read_pkru(void)
{
	return pkru_reg[this_cpu];
}
static void write_pkru(uint32_t v)
{
	pkru_reg[this_cpu] = v;
	pkru_writes++;
}

static const struct fpu_arch_ops ops = {
	.read_pkru = read_pkru,
	.write_pkru = write_pkru,
	.cpu_id = cpu_id,
	.panic = host_panic,
	.set_ts = set_ts,
	.clear_ts = clear_ts,
	.send_flush_ipi = send_flush_ipi,
	.preempt_disable = nop,
	.preempt_enable = nop,
	.in_interrupt = no_irq,
	.wait_relax = wait_relax,
};

/* ---- tasks ---- */

struct task {
	struct fpu fpu;
	int id;
	uint64_t seq;
};

static uint64_t value(const struct task *t, uint64_t seq, unsigned int reg)
{
	return (1ull << 62) | ((uint64_t)t->id << 40) | (seq << 8) | reg;
}
static uint16_t fcw_of(const struct task *t, uint64_t seq)
{
	return (uint16_t)(0x037f | (((t->id + seq) & 3) << 10));
}
static uint32_t mxcsr_of(const struct task *t, uint64_t seq)
{
	return 0x1f80u | ((uint32_t)((t->id + seq) & 3) << 13);
}

/*
 * The task's FPU work in ring 3: count the registers that differ from what it
 * last wrote (or was given by an import), then write the next values.
 */
static int task_runs(struct task *t)
{
	uint64_t v[4], got[4];
	uint16_t fcw;
	uint32_t mxcsr;
	int wrong = 0;

	if (fake_ts[this_cpu])
		fpu_handle_nm(&t->fpu); /* what the #NM trap would do */
	assert_false(fake_ts[this_cpu]);
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fistpq %0\n\tfistpq %1\n\tfistpq %2\n\tfistpq %3"
			 : "=m"(got[3]), "=m"(got[2]), "=m"(got[1]), "=m"(got[0]));
	wrong += fcw != fcw_of(t, t->seq);
	wrong += mxcsr != mxcsr_of(t, t->seq);
	for (unsigned int r = 0; r < 4; r++)
		wrong += got[r] != value(t, t->seq, r);

	t->seq++;
	for (unsigned int r = 0; r < 4; r++)
		v[r] = value(t, t->seq, r);
	fcw = fcw_of(t, t->seq);
	mxcsr = mxcsr_of(t, t->seq);
	__asm__ volatile("fninit\n\tfldcw %0\n\tldmxcsr %1" : : "m"(fcw), "m"(mxcsr));
	__asm__ volatile("fildq %0\n\tfildq %1\n\tfildq %2\n\tfildq %3"
			 :
			 : "m"(v[0]), "m"(v[1]), "m"(v[2]), "m"(v[3]));
	return wrong;
}

/* First FPU use: no check, only the first values. */
static void task_starts(struct task *t)
{
	if (fake_ts[this_cpu])
		fpu_handle_nm(&t->fpu);
	t->seq = 0;
	uint64_t v[4];
	uint16_t fcw = fcw_of(t, 0);
	uint32_t mxcsr = mxcsr_of(t, 0);
	for (unsigned int r = 0; r < 4; r++)
		v[r] = value(t, 0, r);
	__asm__ volatile("fninit\n\tfldcw %0\n\tldmxcsr %1" : : "m"(fcw), "m"(mxcsr));
	__asm__ volatile("fildq %0\n\tfildq %1\n\tfildq %2\n\tfildq %3"
			 :
			 : "m"(v[0]), "m"(v[1]), "m"(v[2]), "m"(v[3]));
}

#define TASK_OK(t) assert_int_equal(task_runs(t), 0)

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

/* The task exits as a kernel's task does: itself, on its CPU, then switched out for good. */
static void free_task(struct task *t)
{
	unsigned int me = this_cpu;

	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		if (cur_fpu[cpu] != &t->fpu)
			continue;
		run_on(cpu);
		fpu_task_exit(&t->fpu);
		fpu_switch(NULL, NULL);
		cur_fpu[cpu] = NULL;
		run_on(me);
		goto freed;
	}
	fpu_task_exit(&t->fpu); /* never ran, or stopped */
freed:
	free(t->fpu.state);
	free(t);
}

/* The kernel's switch on @cpu, then (for a task) its way back to ring 3. */
static void switch_on(unsigned int cpu, struct task *prev, struct task *next)
{
	run_on(cpu);
	fpu_switch(prev ? &prev->fpu : NULL, next ? &next->fpu : NULL);
	cur_fpu[cpu] = next ? &next->fpu : NULL;
	if (next)
		fpu_return_to_user(&next->fpu);
}

/* @t, running on @from, is moved to @to: switched out there, in here; IPIs not served. */
static void migrate(struct task *t, unsigned int from, unsigned int to, struct task *in_to)
{
	run_on(from);
	fpu_task_migrated(&t->fpu);
	switch_on(from, t, NULL);
	switch_on(to, in_to, t);
}

/* ---- images ---- */

/* x87 extended-precision encoding of an integer 0 < v < 2^64. */
static void put_st(uint8_t *st, uint64_t v)
{
	int msb = 63 - __builtin_clzll(v);
	uint64_t mant = v << (63 - msb);
	uint16_t exp = (uint16_t)(16383 + msb);
	memset(st, 0, 16);
	memcpy(st, &mant, 8);
	memcpy(st + 8, &exp, 2);
}

static uint64_t get_st(const uint8_t *st)
{
	uint64_t mant;
	uint16_t exp;
	memcpy(&mant, st, 8);
	memcpy(&exp, st + 8, 2);
	return mant >> (63 - (exp - 16383));
}

static uint8_t img[XSTATE_MAX_SIZE] __attribute__((aligned(64)));

/* The exported image holds @t's values of @seq (FCW, MXCSR, ST0..ST3). */
static int image_wrong(const uint8_t *im, const struct task *t, uint64_t seq)
{
	const struct xregs_state *x = (const struct xregs_state *)im;
	int wrong = 0;

	wrong += x->legacy.fcw != fcw_of(t, seq);
	wrong += x->legacy.mxcsr != mxcsr_of(t, seq);
	for (unsigned int r = 0; r < 4; r++)
		wrong += get_st(x->legacy.st_space + 16 * r) != value(t, seq, 3 - r);
	return wrong;
}

/* Edit an exported image of @t (four values on the x87 stack) to hold @seq's values. */
static void image_set(uint8_t *im, const struct task *t, uint64_t seq)
{
	struct xregs_state *x = (struct xregs_state *)im;

	x->legacy.fcw = fcw_of(t, seq);
	x->legacy.mxcsr = mxcsr_of(t, seq);
	for (unsigned int r = 0; r < 4; r++)
		put_st(x->legacy.st_space + 16 * r, value(t, seq, 3 - r));
	x->header.xstate_bv |= XFEATURE_MASK_FPSSE;
}

/* Import into @t (from the CPU that runs now) the values of its next seq. */
static void import_next(struct task *t)
{
	memset(img, 0, sizeof(img));
	assert_int_equal(fpu_export_std(&t->fpu, img, sizeof(img)), (int)xstate_cfg.user_size);
	assert_int_equal(image_wrong(img, t, t->seq), 0);
	t->seq++;
	image_set(img, t, t->seq);
	assert_int_equal(fpu_import_std(&t->fpu, img, sizeof(img)), XSTATE_OK);
}

/* ---- set-up ---- */

static enum fpu_save_insn insn_under_test = FPU_INSN_AUTO;

static void start_policy(const char *name)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = insn_under_test };

	assert_int_equal(xstate_init(&o), XSTATE_OK);
	assert_int_equal(fpu_init(&ops), 0);
	assert_int_equal(fpu_set_policy(name), 0);
	assert_int_equal(fpu_set_fault(FPU_FAULT_NONE), 0);
	xstate_cfg.pkru = true; /* the fake CPUs have PKU, through ops->read/write_pkru */
	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		run_on(cpu);
		cur_fpu[cpu] = NULL;
		fpu_cpu_quiesce();
		ipi_pending[cpu] = false;
	}
	run_on(0);
	fpu_stats_reset();
	relax_calls = 0;
	pkru_writes = 0;
}

static int group_setup(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = insn_under_test };

	if (xstate_init(&o) != XSTATE_OK)
		return -1;
	this_cpu = 0;
	for (unsigned int cpu = 0; cpu < NCPU; cpu++)
		__asm__ volatile("xsave64 %0"
				 : "+m"(regfile[cpu])
				 : "a"((uint32_t)xstate_cfg.xcr0),
				   "d"((uint32_t)(xstate_cfg.xcr0 >> 32))
				 : "memory");
	return 0;
}

static const char *const all_policies[] = { "eager",    "lazy",     "lazy-counter", "owner",
					    "deferred", "smp-lazy", "adaptive" };
#define FOR_EACH_POLICY(p)                                                           \
	for (const char *const *p = all_policies;                                    \
	     p < all_policies + sizeof(all_policies) / sizeof(all_policies[0]); p++) \
		if ((start_policy(*p), print_message("  policy %s\n", *p)), 1)

/* ---- scenarios ---- */

/*
 * Import into the running task (sigreturn), then straight back to ring 3, no
 * switch in between. Another task on the same CPU keeps its own state.
 * Returns the registers found wrong (0 unless a fault is armed).
 */
static int import_then_return(void)
{
	struct task *a = new_task(1), *b = new_task(2);
	int wrong = 0;

	switch_on(0, NULL, b);
	task_starts(b);
	switch_on(0, b, a);
	task_starts(a);
	wrong += task_runs(a);
	/* syscall: sigreturn */
	import_next(a);
	fpu_return_to_user(&a->fpu);
	wrong += task_runs(a);
	/* and it keeps it across switches */
	switch_on(0, a, b);
	TASK_OK(b);
	switch_on(0, b, a);
	wrong += task_runs(a);
	free_task(a);
	free_task(b);
	return wrong;
}

static void test_import_then_return_to_user(void **state)
{
	FOR_EACH_POLICY(p)
	{
		assert_int_equal(import_then_return(), 0);
	}
}

/* fpu_task_reset on the running task: ring 3 next sees the init state. */
static void test_reset_then_return_to_user(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(3);
		uint16_t fcw;
		uint32_t mxcsr;
		uint16_t fsw;

		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		fpu_task_reset(&a->fpu);
		fpu_return_to_user(&a->fpu);
		if (fake_ts[this_cpu])
			fpu_handle_nm(&a->fpu);
		__asm__ volatile("fnstcw %0\n\tstmxcsr %1\n\tfnstsw %2"
				 : "=m"(fcw), "=m"(mxcsr), "=m"(fsw));
		assert_int_equal(fcw, FCW_DEFAULT);
		assert_int_equal(mxcsr, MXCSR_DEFAULT);
		assert_int_equal((fsw >> 11) & 7, 0); /* TOP: empty stack */
		task_starts(a);
		free_task(a);
	}
}

/*
 * Export of a task just moved to another CPU, before the flush IPI has been
 * served: the export has the latest values, and so do the registers after.
 */
static void test_export_after_migration(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(4), *b = new_task(5);

		switch_on(1, NULL, b);
		task_starts(b);
		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		migrate(a, 0, 1, b);
		/* a's syscall on CPU 1: signal delivery */
		memset(img, 0, sizeof(img));
		assert_int_equal(fpu_export_std(&a->fpu, img, sizeof(img)),
				 (int)xstate_cfg.user_size);
		assert_int_equal(image_wrong(img, a, a->seq), 0);
		serve_ipis();
		TASK_OK(a);
		switch_on(1, a, b);
		TASK_OK(b);
		free_task(a);
		free_task(b);
	}
}

/*
 * A load balancer moves a switched-out task, its state maybe still in the
 * registers of the CPU it left: from that CPU (@mover 0) or from another
 * (@mover 2). It runs next on CPU 1 with its own values. Adaptive, told on
 * the CPU that holds the state, saves it there: no flush IPI follows.
 */
static void migrate_switched_out(unsigned int mover)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(18), *b = new_task(19);
		uint64_t sent = 0;

		switch_on(1, NULL, b);
		task_starts(b);
		switch_on(0, NULL, a);
		task_starts(a);
		for (int slice = 0; slice < 8; slice++) {
			TASK_OK(a);
			switch_on(0, a, NULL);
			switch_on(0, NULL, a);
		}
		TASK_OK(a);
		switch_on(0, a, NULL);
		bool held = a->fpu.holder == 0;
		run_on(mover);
		fpu_task_migrated(&a->fpu);
		for (unsigned int cpu = 0; cpu < NCPU; cpu++)
			ipis_sent[cpu] = 0;
		switch_on(1, b, a);
		TASK_OK(a);
		serve_ipis();
		for (unsigned int cpu = 0; cpu < NCPU; cpu++)
			sent += ipis_sent[cpu];
		if (!strcmp(*p, "adaptive") && mover == 0) {
			assert_true(held); /* else this test tests nothing */
			assert_int_equal(sent, 0);
		}
		switch_on(1, a, b);
		TASK_OK(b);
		free_task(a);
		free_task(b);
	}
}

static void test_migrate_switched_out_from_holder(void **state)
{
	migrate_switched_out(0);
}

static void test_migrate_switched_out_elsewhere(void **state)
{
	migrate_switched_out(2);
}

/*
 * Export of the running task from its own syscall, with no reset or import
 * after it (a kernel's own "read my xstate" call, or signal delivery that
 * keeps the state for the handler), then back to ring 3, where it changes
 * its registers again: its next switch-out must save them. Another task
 * then loads on that CPU, and the task moves to another CPU.
 */
static void test_export_running_then_use(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(16), *b = new_task(17);

		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		for (int round = 0; round < 2; round++) {
			memset(img, 0, sizeof(img));
			assert_int_equal(fpu_export_std(&a->fpu, img, sizeof(img)),
					 (int)xstate_cfg.user_size);
			assert_int_equal(image_wrong(img, a, a->seq), 0);
			fpu_return_to_user(&a->fpu);
			TASK_OK(a); /* new values, after the export */
			if (round == 0) {
				switch_on(0, a, b);
				task_starts(b); /* b's state in CPU 0's registers */
				switch_on(0, b, a);
			} else {
				migrate(a, 0, 1, NULL);
				serve_ipis();
			}
			TASK_OK(a);
		}
		free_task(a);
		free_task(b);
	}
}

/*
 * A sigreturn whose frame is refused (MXCSR reserved bit 31, as XRSTOR would
 * #GP on) into the running task, which the kernel then lets run on (a
 * FreeBSD-like sigreturn returns EINVAL): its registers, saved by the
 * import's fetch before the check, must be live again in ring 3, so that
 * what it writes there is saved at its next switch-out.
 */
static void test_refused_import_then_use(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(18), *b = new_task(19);
		struct xregs_state *x = (struct xregs_state *)img;

		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		memset(img, 0, sizeof(img));
		x->legacy.fcw = 0x037f;
		x->legacy.mxcsr = 0x1f80u | 1u << 31;
		x->header.xstate_bv = XFEATURE_MASK_FPSSE;
		assert_int_equal(fpu_import_std(&a->fpu, img, sizeof(img)), XSTATE_E_MXCSR);
		fpu_return_to_user(&a->fpu);
		TASK_OK(a); /* its own state still, then new values */
		switch_on(0, a, b);
		task_starts(b); /* b's state in CPU 0's registers */
		switch_on(0, b, a);
		TASK_OK(a);
		free_task(a);
		free_task(b);
	}
}

/* A debugger on CPU 2 exports a stopped task whose state CPU 0 may still hold. */
static void test_export_stopped_task(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(6), *dbg = new_task(7);

		switch_on(2, NULL, dbg);
		task_starts(dbg);
		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		switch_on(0, a, NULL); /* stopped */
		run_on(2);
		memset(img, 0, sizeof(img));
		assert_int_equal(fpu_export_std(&a->fpu, img, sizeof(img)),
				 (int)xstate_cfg.user_size);
		assert_int_equal(image_wrong(img, a, a->seq), 0);
		TASK_OK(dbg);
		switch_on(0, NULL, a);
		TASK_OK(a);
		free_task(a);
		free_task(dbg);
	}
}

/*
 * Import into a task whose live state another CPU still holds: it has just
 * moved from CPU 0 to CPU 1 and does sigreturn there before CPU 0 served the
 * flush IPI. A later flush must not overwrite the imported state, and CPU 0's
 * stale registers must not be trusted when it goes back there.
 */
static void test_import_while_other_cpu_holds(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(8), *b = new_task(9), *c = new_task(10);

		switch_on(1, NULL, b);
		task_starts(b);
		switch_on(0, NULL, c);
		task_starts(c);
		switch_on(0, c, a);
		task_starts(a);
		TASK_OK(a);
		migrate(a, 0, 1, b);
		import_next(a); /* a's sigreturn on CPU 1 */
		serve_ipis();   /* the flush, late */
		fpu_return_to_user(&a->fpu);
		TASK_OK(a);
		/* back to CPU 0, where c ran meanwhile */
		switch_on(0, NULL, c);
		TASK_OK(c);
		migrate(a, 1, 0, c);
		serve_ipis();
		TASK_OK(a);
		free_task(a);
		free_task(b);
		free_task(c);
	}
}

/*
 * ptrace: a debugger on CPU 2 writes the state of a stopped task whose
 * registers CPU 0 still holds (live under smp-lazy, valid under the others).
 * When the task runs again on CPU 0, it sees what was written.
 */
static void test_import_stopped_task(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(11), *dbg = new_task(12);

		switch_on(2, NULL, dbg);
		task_starts(dbg);
		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		switch_on(0, a, NULL); /* stopped; CPU 0 idles */
		run_on(2);
		import_next(a);
		TASK_OK(dbg);
		serve_ipis();
		switch_on(0, NULL, a);
		TASK_OK(a);
		free_task(a);
		free_task(dbg);
	}
}

/*
 * A quiescent point with a task last switched in (the caller stopped it
 * there): libfpu takes no task as running on CPU 0 after it, so importing
 * that task does not reload it into CPU 0's registers, where a later save
 * would overwrite what it writes on CPU 1.
 */
static void test_quiesce_then_import(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(18), *b = new_task(19);

		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		fpu_cpu_quiesce(); /* a stopped at the quiescent point */
		cur_fpu[0] = NULL;
		import_next(a); /* on CPU 0, by a debugger there */
		switch_on(1, NULL, a);
		TASK_OK(a);
		task_starts(a); /* new values, on CPU 1 */
		switch_on(1, a, NULL);
		switch_on(0, NULL, b);
		task_starts(b); /* CPU 0 saves whatever it holds first */
		switch_on(0, b, a);
		TASK_OK(a);
		free_task(a);
		free_task(b);
	}
}

/* The signal frame round trip through the helpers, right after a migration. */
static void test_sigframe_after_migration(void **state)
{
	static uint8_t frame[XSTATE_MAX_SIZE + 64] __attribute__((aligned(64)));

	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(13), *b = new_task(14);

		switch_on(1, NULL, b);
		task_starts(b);
		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		migrate(a, 0, 1, b);
		assert_int_equal(fpu_sigframe_save(&a->fpu, frame, sizeof(frame)),
				 (int)fpu_sigframe_size());
		assert_int_equal(image_wrong(frame, a, a->seq), 0);
		fpu_task_reset(&a->fpu); /* the handler starts in init state */
		fpu_return_to_user(&a->fpu);
		task_starts(a); /* the handler's own FPU work */
		migrate(a, 1, 2, NULL);
		serve_ipis();
		a->seq = 41; /* the handler edits the frame */
		image_set(frame, a, a->seq);
		assert_int_equal(fpu_sigframe_restore(&a->fpu, frame, fpu_sigframe_size()),
				 XSTATE_OK);
		fpu_return_to_user(&a->fpu);
		TASK_OK(a);
		switch_on(1, NULL, b);
		TASK_OK(b);
		free_task(a);
		free_task(b);
	}
}

/* The injected fault import-stale-regs is caught by the first scenario, under every policy. */
static void test_import_stale_regs_is_caught(void **state)
{
	assert_int_equal(fpu_fault_by_name("import-stale-regs"), FPU_FAULT_IMPORT_STALE_REGS);
	FOR_EACH_POLICY(p)
	{
		assert_int_equal(fpu_set_fault(FPU_FAULT_IMPORT_STALE_REGS), 0);
		int wrong = import_then_return();
		fpu_set_fault(FPU_FAULT_NONE);
		print_message("    import-stale-regs: %d registers wrong\n", wrong);
		assert_true(wrong > 0);
	}
}

/* Exit of a task whose state another CPU holds: the flush comes first, nothing is saved later. */
static void test_exit_while_other_cpu_holds(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(15), *b = new_task(16);

		switch_on(0, NULL, a);
		task_starts(a);
		migrate(a, 0, 1, NULL);
		fpu_task_exit(&a->fpu);
		switch_on(1, NULL, b); /* a is dead: NULL prev */
		memset(a->fpu.state, 0x5a, xstate_cfg.kernel_size);
		serve_ipis();
		for (unsigned int i = 0; i < xstate_cfg.kernel_size; i++)
			if (((uint8_t *)a->fpu.state)[i] != 0x5a)
				fail_msg("byte %u of a dead task's area was written", i);
		task_starts(b);
		TASK_OK(b);
		free(a->fpu.state);
		free(a);
		free_task(b);
	}
}

/* ---- PKRU ---- */

/* A ring-3 slice with PKRU checked: the register is the task's, then it runs WRPKRU. */
static void pkru_slice(struct task *t, uint32_t *want, bool fp)
{
	assert_int_equal(pkru_reg[this_cpu], *want);
	if (fp)
		TASK_OK(t);
	*want = (*want + 0x10) & 0xfffffffcu; /* key 0 stays usable */
	pkru_reg[this_cpu] = *want;           /* the task's own WRPKRU */
}

/*
 * Every switch gives the incoming task its PKRU, under every policy: a task
 * that uses the FPU, one that never does (lazy policies never trap for it),
 * switches on one CPU and migrations, each task changing PKRU in ring 3.
 */
static void test_pkru_switched_at_every_switch(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(20), *b = new_task(21);
		uint32_t pa = 0x55555554, pb = 0x0000000c;
		uint64_t writes;

		fpu_set_pkru(&a->fpu, pa);
		fpu_set_pkru(&b->fpu, pb);
		assert_int_equal(pkru_writes, 0); /* neither runs: only stored */
		switch_on(0, NULL, a);
		task_starts(a);
		pkru_slice(a, &pa, false);
		for (int i = 0; i < 6; i++) {
			unsigned int cpu = (unsigned int)i % 2;
			writes = pkru_writes;
			switch_on(cpu, cpu ? NULL : a, b);
			assert_int_equal(pkru_writes, writes + 1);
			pkru_slice(b, &pb, false);
			if (cpu) {
				switch_on(1, b, NULL);
				migrate(a, 0, 1, NULL);
				serve_ipis();
				pkru_slice(a, &pa, true);
				migrate(a, 1, 0, NULL);
			} else {
				switch_on(0, b, a);
			}
			serve_ipis();
			pkru_slice(a, &pa, true);
		}
		/* the same value twice: no WRPKRU */
		writes = pkru_writes;
		fpu_set_pkru(&b->fpu, pa);
		switch_on(0, a, b);
		assert_int_equal(pkru_writes, writes);
		assert_int_equal(fpu_stats_cpu(0)->pkru_writes + fpu_stats_cpu(1)->pkru_writes,
				 writes); /* every WRPKRU was a switch's */
		free_task(a);
		free_task(b);
	}
}

/* A task that exits after its own WRPKRU: the next task still gets its own PKRU. */
static void test_pkru_after_exit(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(24), *b = new_task(25);

		fpu_set_pkru(&b->fpu, 0x30);
		switch_on(0, NULL, b);
		switch_on(0, b, a);
		pkru_reg[0] = 0x30; /* a's WRPKRU: by chance b's value */
		free_task(a);       /* exits on CPU 0, switched out with a NULL prev */
		pkru_reg[0] = 0x30;
		switch_on(0, NULL, b);
		assert_int_equal(pkru_reg[0], 0x30);
		switch_on(0, b, NULL);
		struct task *c = new_task(26);
		fpu_set_pkru(&c->fpu, 0x30); /* so a cached value would look right */
		switch_on(0, NULL, c);
		pkru_reg[0] = 0x70; /* c's WRPKRU, then c exits */
		free_task(c);
		switch_on(0, NULL, b);
		assert_int_equal(pkru_reg[0], 0x30);
		free_task(b);
	}
}

/* fpu_set_pkru/fpu_get_pkru: the register for the running task, fpu->pkru for a stopped one. */
static void test_pkru_set_get(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(22), *dbg = new_task(23);

		switch_on(1, NULL, dbg);
		switch_on(0, NULL, a);
		fpu_set_pkru(&a->fpu, 0x40);
		assert_int_equal(pkru_reg[0], 0x40); /* at once, no switch needed */
		pkru_reg[0] = 0x80;                  /* its WRPKRU */
		assert_int_equal(fpu_get_pkru(&a->fpu), 0x80);
		switch_on(0, a, NULL); /* stopped */
		run_on(1);
		assert_int_equal(fpu_get_pkru(&a->fpu), 0x80);
		fpu_set_pkru(&a->fpu, 0x100); /* a debugger writes it */
		assert_int_equal(pkru_reg[1], 0);
		assert_int_equal(pkru_reg[0], 0x80); /* not yet */
		switch_on(0, NULL, a);
		assert_int_equal(pkru_reg[0], 0x100);
		/* a reset (signal handler) gives the architectural init value */
		fpu_task_reset(&a->fpu);
		assert_int_equal(pkru_reg[0], 0x100); /* this host's images carry no PKRU */
		free_task(a);
		free_task(dbg);
	}
}

/*
 * Linux "x86/fpu: Reset state for all signal restore failures" (efa165504943),
 * "x86/fpu: Invalidate FPU state after a failed XRSTOR from a user buffer"
 * (d8778e393afa) and "x86/fpu: Prevent state corruption in
 * __fpu__restore_sig()" (484cea4f362e): a failed sigreturn must leave
 * neither the task's buffer half written nor another task's registers, which
 * the CPU still holds for it, modified. Here: b's state is in CPU 0's
 * registers (a lazy policy's owner) while a, switched in and not yet
 * trapping, does sigreturn with each kind of bad frame. After every refusal
 * a runs on with its own state and b, switched back in, with its own.
 */
static void test_refused_sigframe_with_victim_regs(void **state)
{
	static uint8_t frame[XSTATE_MAX_SIZE + 64] __attribute__((aligned(64)));
	struct xregs_state *f = (struct xregs_state *)frame;
	enum { MXCSR, BV62, XCOMP, RESERVED, SHORT, LEGACY_MXCSR, NR };

	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(30), *b = new_task(31);
		uint8_t after[XSTATE_MAX_SIZE]
			__attribute__((aligned(64))); /* read as xregs_state */

		switch_on(0, NULL, a);
		task_starts(a);
		TASK_OK(a);
		for (int how = 0; how < NR; how++) {
			switch_on(0, a, b);
			if (how == 0)
				task_starts(b);
			else
				TASK_OK(b);
			switch_on(0, b, a); /* a has not used the FPU in this slice */
			assert_int_equal(fpu_sigframe_save(&a->fpu, frame, sizeof(frame)),
					 (int)fpu_sigframe_size());
			int want = XSTATE_E_MXCSR;
			size_t len = fpu_sigframe_size();
			switch (how) {
			case MXCSR:
				f->legacy.mxcsr |= 1u << 31;
				break;
			case BV62:
				f->header.xstate_bv |= 1ull << 62;
				want = XSTATE_E_XSTATE_BV;
				break;
			case XCOMP:
				f->header.xcomp_bv = xstate_cfg.xcr0 | XCOMP_BV_COMPACTED;
				want = XSTATE_E_XCOMP_BV;
				break;
			case RESERVED:
				f->header.reserved[0] = 1;
				want = XSTATE_E_RESERVED;
				break;
			case SHORT: {
				struct fpu_sw_bytes sw;
				uint32_t m2 = FPU_SIGFRAME_MAGIC2;
				memcpy(&sw, frame + FPU_SIGFRAME_SW_OFFSET, sizeof(sw));
				sw.xstate_size = 576;
				memcpy(frame + FPU_SIGFRAME_SW_OFFSET, &sw, sizeof(sw));
				memcpy(frame + 576, &m2, 4);
				f->header.xstate_bv =
					xstate_cfg.xcr0; /* names more than 576 bytes */
				want = xstate_cfg.user_size > 576 ? XSTATE_E_SHORT : XSTATE_OK;
				break;
			}
			case LEGACY_MXCSR:
				memset(frame + FPU_SIGFRAME_SW_OFFSET, 0, 48);
				f->legacy.mxcsr |= 1u << 31;
				break;
			}
			if (want == XSTATE_OK)
				continue;
			assert_int_equal(fpu_sigframe_restore(&a->fpu, frame, len), want);
			fpu_return_to_user(&a->fpu);
			TASK_OK(a); /* its own state, not b's and not the frame's */
			memset(after, 0, sizeof(after));
			assert_int_equal(fpu_export_std(&a->fpu, after, sizeof(after)),
					 (int)xstate_cfg.user_size);
			assert_int_equal(image_wrong(after, a, a->seq), 0);
		}
		switch_on(0, a, b);
		TASK_OK(b); /* the victim's registers were never touched */
		free_task(a);
		free_task(b);
	}
}

/*
 * Linux "x86/pkru: Write hardware init value to PKRU when xstate is init"
 * (510b80a6a0f1): a task whose own XRSTOR put PKRU in its init state (0)
 * got the restrictive default PKRU at its next switch-in. libfpu reads the
 * register at switch-out, whatever any XSTATE_BV says: 0 stays 0.
 */
static void test_pkru_init_by_user_survives_switch(void **state)
{
	FOR_EACH_POLICY(p)
	{
		struct task *a = new_task(32), *b = new_task(33);

		fpu_set_pkru(&a->fpu, 0x55555554);
		fpu_set_pkru(&b->fpu, 0x0000000c);
		switch_on(0, NULL, a);
		task_starts(a);
		pkru_reg[0] = 0; /* a's XRSTOR with XSTATE_BV[9] = 0 */
		switch_on(0, a, b);
		assert_int_equal(pkru_reg[0], 0x0c);
		switch_on(0, b, a);
		assert_int_equal(pkru_reg[0], 0);
		TASK_OK(a);
		migrate(a, 0, 1, NULL);
		serve_ipis();
		assert_int_equal(pkru_reg[1], 0);
		assert_int_equal(fpu_get_pkru(&a->fpu), 0);
		free_task(a);
		free_task(b);
	}
}

static int setup_auto(void **state)
{
	insn_under_test = FPU_INSN_AUTO;
	return group_setup(state);
}
static int setup_fxsave(void **state)
{
	insn_under_test = FPU_INSN_FXSAVE;
	return group_setup(state);
}
static int setup_xsaveopt(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	assert_int_equal(xstate_init(&o), XSTATE_OK);
	insn_under_test = xstate_cfg.caps.xsaveopt ? FPU_INSN_XSAVEOPT : FPU_INSN_AUTO;
	return group_setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_then_return_to_user),
		cmocka_unit_test(test_refused_import_then_use),
		cmocka_unit_test(test_reset_then_return_to_user),
		cmocka_unit_test(test_export_after_migration),
		cmocka_unit_test(test_export_stopped_task),
		cmocka_unit_test(test_export_running_then_use),
		cmocka_unit_test(test_migrate_switched_out_from_holder),
		cmocka_unit_test(test_migrate_switched_out_elsewhere),
		cmocka_unit_test(test_quiesce_then_import),
		cmocka_unit_test(test_import_while_other_cpu_holds),
		cmocka_unit_test(test_import_stopped_task),
		cmocka_unit_test(test_sigframe_after_migration),
		cmocka_unit_test(test_exit_while_other_cpu_holds),
		cmocka_unit_test(test_import_stale_regs_is_caught),
		cmocka_unit_test(test_pkru_switched_at_every_switch),
		cmocka_unit_test(test_pkru_set_get),
		cmocka_unit_test(test_pkru_after_exit),
		cmocka_unit_test(test_refused_sigframe_with_victim_regs),
		cmocka_unit_test(test_pkru_init_by_user_survives_switch),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("libfpu guarantees, 3 fake CPUs, auto insn", tests,
					      setup_auto, NULL);
	failed += cmocka_run_group_tests_name("libfpu guarantees, 3 fake CPUs, xsaveopt", tests,
					      setup_xsaveopt, NULL);
	failed += cmocka_run_group_tests_name("libfpu guarantees, 3 fake CPUs, fxsave", tests,
					      setup_fxsave, NULL);
	return failed;
}
