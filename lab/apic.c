/* SPDX-License-Identifier: MIT */
/*
 * Local APIC. The timer counts at apic_khz (divide by 1), measured against a
 * reference clock at boot (clock.c): 1 GHz on QEMU and KVM, the bus or the
 * crystal clock on hardware (tens of MHz).
 */
#include "apic.h"
#include "cpu.h"
#include "io.h"
#include "kernel.h"

#define APIC_MMIO 0xfee00000ul
#define REG_ID 0x20
#define REG_EOI 0xb0
#define REG_SVR 0xf0
#define REG_ICR_LO 0x300
#define REG_ICR_HI 0x310
#define REG_LVT_TIMER 0x320
#define REG_LVT_LINT0 0x350
#define REG_LVT_LINT1 0x360
#define REG_LVT_ERROR 0x370
#define REG_TIMER_INIT 0x380
#define REG_TIMER_CUR 0x390
#define REG_TIMER_DIV 0x3e0

#define LVT_MASKED (1u << 16)
#define ICR_PENDING (1u << 12)

bool apic_x2;
uint64_t apic_khz __persist; /* clock_calibrate() measures it; kept across a restart */

static uint32_t apic_read(uint32_t reg)
{
	if (apic_x2)
		return (uint32_t)rdmsr(0x800 + (reg >> 4));
	return *(volatile uint32_t *)(APIC_MMIO + reg);
}

static void apic_write(uint32_t reg, uint32_t v)
{
	if (apic_x2)
		wrmsr(0x800 + (reg >> 4), v);
	else
		*(volatile uint32_t *)(APIC_MMIO + reg) = v;
}

static void apic_write_icr(unsigned int dest, uint32_t lo)
{
	if (apic_x2) {
		/* WRMSR to the x2APIC ICR is not serializing: earlier stores must
		 * be visible before the IPI is (SDM Vol. 3 §11.12.3). */
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(0x830, ((uint64_t)dest << 32) | lo);
		return;
	}
	apic_write(REG_ICR_HI, dest << 24);
	apic_write(REG_ICR_LO, lo);
	while (apic_read(REG_ICR_LO) & ICR_PENDING)
		cpu_relax();
}

/* Whether any vector is in service (ISR, 8 registers of 32 bits from 0x100). */
static bool apic_in_service(void)
{
	for (uint32_t r = 0x100; r < 0x180; r += 0x10)
		if (apic_read(r))
			return true;
	return false;
}

void apic_init(void)
{
	uint32_t a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	if (!(d & (1u << 9)))
		panic("this CPU has no local APIC (CPUID.1:EDX[9] clear): the lab needs one for "
		      "its timer and IPIs, and cannot run here");
	apic_x2 = c & (1u << 21);
	uint64_t base = rdmsr(MSR_APIC_BASE) | (1u << 11); /* global enable */
	if (apic_x2)
		base |= 1u << 10;
	wrmsr(MSR_APIC_BASE, base);

	apic_write(REG_SVR, 0x100 | VEC_SPURIOUS);
	apic_write(REG_LVT_LINT0, LVT_MASKED);
	apic_write(REG_LVT_LINT1, LVT_MASKED);
	apic_write(REG_LVT_ERROR, LVT_MASKED);
	apic_write(REG_TIMER_DIV, 0xb);       /* divide by 1 */
	apic_write(REG_LVT_TIMER, VEC_TIMER); /* one-shot */
	apic_write(REG_TIMER_INIT, 0);
	/* After the watchdog's restart an interrupt may still be in service
	 * (its handler never returned): end them all, highest first. */
	for (int i = 0; i < 256 && apic_in_service(); i++)
		apic_eoi();
}

unsigned int apic_id(void)
{
	uint32_t id = apic_read(REG_ID);
	return apic_x2 ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(REG_EOI, 0);
}

void apic_send_ipi(unsigned int dest, unsigned int vector)
{
	this_cpu()->ipis_sent++;
	apic_write_icr(dest, vector | (1u << 14)); /* fixed, assert */
}

/* ns to timer counts and back, at apic_khz: 64-bit, a tick is at most ~4 s. */
static uint32_t ns_to_count(uint64_t ns)
{
	uint64_t n = ns * apic_khz / 1000000;
	return n > 0xffffffffu ? 0xffffffffu : n ? (uint32_t)n : 1;
}

void apic_timer_arm(uint32_t ns)
{
	apic_write(REG_TIMER_INIT, ns_to_count(ns));
}

void apic_timer_stop(void)
{
	apic_write(REG_TIMER_INIT, 0);
}

uint32_t apic_timer_remaining(void)
{
	return (uint32_t)((uint64_t)apic_read(REG_TIMER_CUR) * 1000000 / apic_khz);
}

void apic_timer_free_run(bool on)
{
	apic_write(REG_LVT_TIMER, on ? LVT_MASKED : VEC_TIMER);
	apic_write(REG_TIMER_INIT, on ? 0xffffffffu : 0);
}

uint32_t apic_timer_count(void)
{
	return apic_read(REG_TIMER_CUR);
}

void delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + us * tsc_khz / 1000;
	while (rdtsc() < end)
		cpu_relax();
}

void apic_send_nmi(unsigned int dest)
{
	apic_write_icr(dest, 0x4400); /* NMI, assert */
}

void apic_send_init(unsigned int dest)
{
	apic_write_icr(dest, 0x4500); /* INIT, assert */
}

void apic_start_ap(unsigned int dest, unsigned int page)
{
	apic_send_init(dest);
	delay_us(10000);
	for (int i = 0; i < 2; i++) {
		apic_write_icr(dest, 0x4600 | page); /* STARTUP */
		delay_us(200);
	}
}
