/* SPDX-License-Identifier: MIT */
/* Exceptions, device interrupts and IPIs: one dispatcher for every vector. */
#include "trap.h"
#include "apic.h"
#include "cpu.h"
#include "fputrace.h"
#include "io.h"
#include "lab.h"
#include "signal.h"
#include "smp.h"
#include "watchdog.h"

static const char *const exception_names[32] = {
	"#DE divide error",
	"#DB debug",
	"NMI",
	"#BP breakpoint",
	"#OF overflow",
	"#BR bound",
	"#UD invalid opcode",
	"#NM device not available",
	"#DF double fault",
	"coprocessor overrun",
	"#TS invalid TSS",
	"#NP segment not present",
	"#SS stack fault",
	"#GP general protection",
	"#PF page fault",
	"reserved",
	"#MF x87 error",
	"#AC alignment check",
	"#MC machine check",
	"#XM SIMD exception",
	"#VE virtualization",
	"#CP control protection",
};

static noreturn void exception(struct trap_frame *f)
{
	const char *name = exception_names[f->vector] ? exception_names[f->vector] : "reserved";
	panic("exception %lu (%s) in ring %lu, error 0x%lx, rip 0x%lx, cr2 0x%lx\n"
	      "  rax %lx rbx %lx rcx %lx rdx %lx rsi %lx rdi %lx\n"
	      "  rsp %lx rbp %lx rflags %lx cr0 %lx",
	      f->vector, name, f->cs & 3, f->error, f->rip, read_cr2(), f->rax, f->rbx, f->rcx,
	      f->rdx, f->rsi, f->rdi, f->rsp, f->rbp, f->rflags, read_cr0());
}

void trap_dispatch(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	if (f->vector == VEC_NM && from_user(f) && costs_nm_probe()) {
		/* the costs experiment's #NM: TS cleared, nothing else */
	} else if (f->vector == VEC_NM && from_user(f)) {
		bool step = fputrace_step_begin(); /* its use event is stamped inside */
		fpu_handle_nm(&c->current->fpu);
		fputrace_step_end(step);
	} else if (f->vector == 2 && watchdog_nmi()) {
		/* not reached: the watchdog restarted the kernel */
	} else if (f->vector < 32) {
		exception(f);
	} else {
		c->in_irq = true;
		switch (f->vector) {
		case VEC_TIMER:
			apic_eoi();
			timer_tick();
			if (from_user(f))
				signal_timer(c->current);
			break;
		case VEC_RESCHED:
			apic_eoi();
			c->need_resched = c->current != c->idle;
			break;
		case VEC_FLUSH:
			apic_eoi();
			fpu_flush_ipi();
			break;
		case VEC_CALL:
			apic_eoi();
			smp_handle_call();
			break;
		case VEC_SPURIOUS:
			break;
		default:
			panic("unexpected interrupt vector %lu", f->vector);
		}
		c->in_irq = false;
	}
	if (from_user(f))
		exit_to_user();
}
