/* SPDX-License-Identifier: MIT */
/*
 * AP start-up with INIT-SIPI-SIPI, and cross-CPU function calls. The AP's
 * own bring-up is main.c's ap_main(): this file calls only the APIC, the
 * CPU table and the allocator, so the timer and the experiments can use
 * smp_call_all() without a cycle.
 */
#include "smp.h"
#include "apic.h"
#include "boot_info.h"
#include "cpu.h"
#include "io.h"

extern char ap_trampoline_start[], ap_trampoline_end[];
extern uint64_t ap_boot_stack;

static struct cpu *volatile ap_booting;
static volatile int ap_alive;

struct cpu *smp_booting_cpu(void)
{
	return ap_booting;
}

void smp_ap_online(void)
{
	__atomic_store_n(&ap_alive, 1, __ATOMIC_RELEASE);
}

void smp_boot(void)
{
	unsigned int bsp = apic_id();
	memcpy((void *)AP_TRAMPOLINE, ap_trampoline_start,
	       (size_t)((uintptr_t)ap_trampoline_end - (uintptr_t)ap_trampoline_start));
	for (unsigned int i = 0; i < boot_info.napic; i++) {
		unsigned int id = boot_info.apic_ids[i];
		if (id == bsp || ncpus == FPULAB_MAX_CPUS)
			continue;
		ap_booting = cpu_alloc(ncpus, id);
		ap_boot_stack = (uint64_t)kalloc(16384, 4096) + 16384;
		ap_alive = 0;
		apic_start_ap(id, AP_TRAMPOLINE >> 12);
		/*
		 * Under TCG the guest TSC follows host time, and a loaded host
		 * can take seconds to schedule the new vCPU thread: allow 20 s
		 * (the host's watchdog still catches a real hang).
		 */
		uint64_t deadline = rdtsc() + tsc_khz * 20000;
		while (!__atomic_load_n(&ap_alive, __ATOMIC_ACQUIRE))
			if (rdtsc() > deadline)
				panic("CPU with APIC ID %u did not start", id);
		ncpus++;
	}
}

void smp_handle_call(void)
{
	struct cpu *c = this_cpu();
	void (*fn)(void) = c->call_fn;
	if (fn)
		fn();
	__atomic_store_n(&c->call_fn, NULL, __ATOMIC_RELEASE);
}

void smp_call_all(void (*fn)(void))
{
	struct cpu *self = this_cpu();
	for (unsigned int i = 0; i < ncpus; i++) {
		if (cpus[i] == self)
			continue;
		cpus[i]->call_fn = fn;
		apic_send_ipi(cpus[i]->apic_id, VEC_CALL);
	}
	fn();
	for (unsigned int i = 0; i < ncpus; i++)
		while (__atomic_load_n(&cpus[i]->call_fn, __ATOMIC_ACQUIRE))
			cpu_relax();
}
