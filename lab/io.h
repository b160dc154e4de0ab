/* SPDX-License-Identifier: MIT */
/* Privileged x86 instructions used by the lab. */
#ifndef LAB_IO_H
#define LAB_IO_H

#include <stdint.h>

#define COM1 0x3f8 /* the console's UART: the guest's records out, the trace's acks in */

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c,
			 uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline uint64_t read_cr0(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}
static inline void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}
static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}
static inline uint64_t read_cr4(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}
static inline void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline void cli(void)
{
	__asm__ volatile("cli" ::: "memory");
}
static inline void sti(void)
{
	__asm__ volatile("sti" ::: "memory");
}
static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}
/*
 * Let pending interrupts in, from a wait loop that runs with them off.
 * STI holds interrupts off for one more instruction (the interrupt shadow),
 * so the window is the boundary after the NOP. It must be a NOP: under QEMU
 * TCG a PAUSE in the shadow leaves the translated block by a helper with
 * the shadow still set, CLI follows, and no interrupt is ever taken, so two
 * CPUs each waiting for the other's flush IPI wait forever.
 */
static inline void irq_window(void)
{
	__asm__ volatile("sti; nop; cli" ::: "memory");
}
static inline uint64_t read_flags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}
static inline int irqs_enabled(void)
{
	return (read_flags() >> 9) & 1;
}

#define MSR_APIC_BASE 0x1b
#define MSR_EFER 0xc0000080
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_FMASK 0xc0000084
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102

#define CR0_TS (1ull << 3)
#define CR4_PKE (1ull << 22) /* protection keys for user pages: RDPKRU/WRPKRU */

#endif
