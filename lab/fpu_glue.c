/* SPDX-License-Identifier: MIT */
/* The services libfpu asks of the lab kernel, and its set-up at boot. */
#include "apic.h"
#include "boot_info.h"
#include "cpu.h"
#include "fputrace.h"
#include "io.h"
#include "lab.h"
#include <fpulab/abi.h>

static unsigned int lab_cpu_id(void)
{
	return this_cpu()->id;
}

static void lab_panic(const char *msg)
{
	panic("libfpu: %s", msg);
}

static void lab_send_flush_ipi(unsigned int cpu)
{
	fputrace_flush_ipi();
	apic_send_ipi(cpus[cpu]->apic_id, VEC_FLUSH);
}

static void lab_preempt_disable(void)
{
	this_cpu()->preempt_count++;
}

static void lab_preempt_enable(void)
{
	this_cpu()->preempt_count--;
}

static bool lab_in_interrupt(void)
{
	return this_cpu()->in_irq;
}

static void lab_trace_use(struct fpu *cur)
{
	fputrace_use();
}

/* Wait loops run with interrupts on, so flush IPIs aimed at us get served. */
static void lab_wait_relax(void)
{
	irq_window();
	cpu_relax();
}

static const struct fpu_arch_ops lab_fpu_ops = {
	.cpu_id = lab_cpu_id,
	.panic = lab_panic,
	.send_flush_ipi = lab_send_flush_ipi,
	.preempt_disable = lab_preempt_disable,
	.preempt_enable = lab_preempt_enable,
	.in_interrupt = lab_in_interrupt,
	.wait_relax = lab_wait_relax,
	.trace_use = lab_trace_use,
};

void lab_fpu_init(void)
{
	char buf[48];
	struct xstate_init_opts opts = { .mode = XSTATE_MODE_KERNEL, .insn = FPU_INSN_AUTO };

	if (cmdline_get(fpulab_options[FPULAB_OPT_insn].key, buf, sizeof(buf)) &&
	    strcmp(buf, "auto")) {
		for (int i = 0; i < FPU_INSN_NR; i++)
			if (!strcmp(buf, fpu_insn_name(i)))
				opts.insn = i;
		if (opts.insn == FPU_INSN_AUTO)
			panic("unknown save instruction '%s'", buf);
	}
	opts.pkru = true; /* used only where the CPU offers PKU (cpu_setup() set CR4.PKE) */
	opts.force_fxsave_scrub = exp_num(FPULAB_OPT_scrub, 0) == 1;
	int err = xstate_init(&opts);
	if (err)
		panic("xstate_init: %s", xstate_strerror(err));
	if (fpu_init(&lab_fpu_ops))
		panic("fpu_init failed");

	struct fpu_tunables t = { 5, FPU_PREFETCH_CONDITIONAL };
	static const enum fpu_prefetch prefetch[] = {
		FPU_PREFETCH_CONDITIONAL, FPU_PREFETCH_ALWAYS, FPU_PREFETCH_OFF
	}; /* FPULAB_PREFETCH_MODES */
	t.fpu_counter_threshold = (unsigned int)exp_num(
		FPULAB_OPT_fpu_counter, fpulab_options[FPULAB_OPT_fpu_counter].dflt);
	t.prefetch = prefetch[exp_word(FPULAB_OPT_prefetch, 0)];
	/* libfpu loads at count >= threshold; Linux 2.6 at fpu_counter > 5 (gt). */
	if (exp_word(FPULAB_OPT_fpu_counter_rule, 0) == 1)
		t.fpu_counter_threshold++;
	fpu_set_tunables(&t);

	if (cmdline_get(fpulab_options[FPULAB_OPT_inject].key, buf, sizeof(buf))) {
		int fault = fpu_fault_by_name(buf);
		if (fault < 0)
			panic("unknown fault '%s'", buf);
		if (fpu_set_fault((enum fpu_fault)fault))
			panic("fault injection needs the test kernel (lab-test.elf)");
		kprintf("libfpu: fault '%s' injected\n", buf);
	}
}
