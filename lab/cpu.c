/* SPDX-License-Identifier: MIT */
/* Descriptor tables, GS base and SYSCALL set-up, per CPU. */
#include "cpu.h"
#include "io.h"

struct cpu *cpus[FPULAB_MAX_CPUS];
unsigned int ncpus;

struct idt_gate {
	uint16_t offset_lo, selector;
	uint8_t ist, type;
	uint16_t offset_mid;
	uint32_t offset_hi, reserved;
} __attribute__((packed));

static struct idt_gate idt[256] __attribute__((aligned(16)));
extern char isr_stubs[];
extern char syscall_entry[];

struct cpu *cpu_alloc(unsigned int id, unsigned int apic_id)
{
	struct cpu *c = kalloc(sizeof(*c), 64);
	c->self = c;
	c->id = id;
	c->apic_id = apic_id;
	cpus[id] = c;
	return c;
}

struct cpu *cpu_maybe(void)
{
	return rdmsr(MSR_GS_BASE) ? this_cpu() : NULL;
}

static void idt_init_once(void)
{
	if (idt[0].type)
		return;
	for (int v = 0; v < 256; v++) {
		uint64_t a = (uint64_t)isr_stubs + 16 * v;
		idt[v] = (struct idt_gate){
			.offset_lo = (uint16_t)a,
			.selector = KERNEL_CS,
			.type = 0x8e, /* present, DPL 0, 64-bit interrupt gate: IF cleared */
			.offset_mid = (uint16_t)(a >> 16),
			.offset_hi = (uint32_t)(a >> 32),
		};
	}
}

void cpu_setup(struct cpu *c)
{
	uint64_t tss = (uint64_t)&c->tss;
	c->gdt[0] = 0;
	c->gdt[1] = 0x00af9a000000ffff; /* KERNEL_CS: 64-bit code, DPL 0 */
	c->gdt[2] = 0x00cf92000000ffff; /* KERNEL_DS */
	c->gdt[3] = 0x00cff2000000ffff; /* USER_DS: DPL 3 */
	c->gdt[4] = 0x00affa000000ffff; /* USER_CS: 64-bit code, DPL 3 */
	c->gdt[5] = (sizeof(struct tss) - 1) | ((tss & 0xffffff) << 16) | (0x89ull << 40) |
		    ((tss >> 24 & 0xff) << 56);
	c->gdt[6] = tss >> 32;
	c->tss.iopb = sizeof(struct tss);

	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) gdtr = { sizeof(c->gdt) - 1, (uint64_t)c->gdt }, idtr;

	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 "xorl %%eax, %%eax\n\t"
			 "movw %%ax, %%fs\n\t"
			 "movw %%ax, %%gs\n\t"
			 "ltr %w3"
			 :
			 : "m"(gdtr), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SEL)
			 : "rax", "memory");

	idt_init_once();
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (uint64_t)idt;
	__asm__ volatile("lidt %0" : : "m"(idtr));

	/* GS base = this CPU (after the segment reloads above, which zero it). */
	wrmsr(MSR_GS_BASE, (uint64_t)c);
	wrmsr(MSR_KERNEL_GS_BASE, 0);

	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | 1); /* SCE */
	wrmsr(MSR_STAR, ((uint64_t)(USER_DS - 8 - 3) << 48) | ((uint64_t)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_FMASK, 0x44700); /* AC, NT, DF, IF, TF */

	/* Where the CPU offers PKU, enable it: libfpu then switches PKRU per task.
	 * Every page has key 0, and every task keeps key 0 usable. */
	uint32_t a, b, ecx, d;
	cpuid(0, 0, &a, &b, &ecx, &d);
	if (a >= 7) {
		cpuid(7, 0, &a, &b, &ecx, &d);
		if (ecx & (1u << 3))
			write_cr4(read_cr4() | CR4_PKE);
	}
}
