/* SPDX-License-Identifier: MIT */
/*
 * Reference clocks for calibration, tried in order: the HPET (ACPI "HPET"
 * table; IA-PC HPET specification 1.0a, section 2.3), the ACPI PM timer
 * (FADT PM_TMR_BLK, 3.579545 MHz, 24 or 32 bits; ACPI 6.5, section 4.8.3.3)
 * and the PIT (channel 0, 1.193182 MHz, read by latching; the 8254 data
 * sheet). Each is read as a count that only grows (wraps undone), with its
 * frequency in Hz.
 */
#include "clock.h"
#include "apic.h"
#include "boot_info.h"
#include "io.h"

#define CAL_WINDOW_MS 10

struct clock_facts clock_facts __persist; /* kept across the watchdog's restart */
uint64_t tsc_khz __persist;

struct ref_clock {
	const char *name;
	uint64_t (*probe)(void); /* its frequency in Hz when found and running, else 0 */
	uint64_t (*read)(void);
};

/* ---- HPET ---- */
static volatile uint64_t *hpet;

static uint64_t hpet_read(void)
{
	return hpet[0xf0 / 8]; /* main counter; 32-bit counters read as 64 with the top 0 */
}

/* ---- ACPI PM timer ---- */
static uint16_t pm_port;
static uint32_t pm_mask;
static uint64_t pm_last, pm_total;

static uint64_t pm_read(void)
{
	uint32_t v = inl(pm_port) & pm_mask;
	pm_total += (v - (uint32_t)pm_last) & pm_mask;
	pm_last = v;
	return pm_total;
}

static uint64_t pm_probe(void)
{
	const uint8_t *fadt = acpi_table("FACP");
	if (!fadt || *(const uint32_t *)(fadt + 4) < 116)
		return 0;
	pm_port = (uint16_t) * (const uint32_t *)(fadt + 76);
	pm_mask = (*(const uint32_t *)(fadt + 112) & (1u << 8)) ? 0xffffffffu : 0xffffffu;
	if (!pm_port || fadt[91] != 4)
		return 0;
	pm_last = inl(pm_port) & pm_mask;
	for (int i = 0; i < 100000; i++)
		if (pm_read())
			return 3579545;
	return 0;
}

/* ---- PIT ---- */
static uint16_t pit_last;
static uint64_t pit_total;

static uint16_t pit_latch(void)
{
	outb(0x43, 0x00); /* latch channel 0 */
	uint8_t lo = inb(0x40), hi = inb(0x40);
	return (uint16_t)(hi << 8 | lo);
}

static uint64_t pit_read(void)
{
	uint16_t v = pit_latch();
	pit_total += (uint16_t)(pit_last - v); /* it counts down, reloading 65536 */
	pit_last = v;
	return pit_total;
}

static uint64_t pit_probe(void)
{
	outb(0x43, 0x34); /* channel 0, low then high byte, mode 2 (rate generator) */
	outb(0x40, 0);
	outb(0x40, 0); /* 65536: wraps every 54.9 ms */
	pit_last = pit_latch();
	if (pit_last == 0xffff)
		return 0; /* nothing answers at 0x40 */
	for (int i = 0; i < 100000; i++)
		if (pit_read())
			return 1193182;
	return 0;
}

static uint64_t hpet_probe(void)
{
	const uint8_t *t = acpi_table("HPET");
	if (!t || t[40] != 0) /* the base must be in memory space */
		return 0;
	uint64_t base = *(const uint64_t *)(t + 44);
	if (!base || base >= (4ul << 30))
		return 0;
	hpet = (volatile uint64_t *)base;
	uint64_t period_fs = hpet[0] >> 32;
	if (!period_fs || period_fs > 100000000) /* the specification's limit: 100 ns */
		return 0;
	hpet[0x10 / 8] |= 1; /* ENABLE_CNF: the main counter runs */
	uint64_t t0 = hpet_read();
	for (int i = 0; i < 100000; i++)
		if (hpet_read() != t0)
			return 1000000000000000ull / period_fs;
	return 0;
}

static struct ref_clock refs[] = {
	{ "hpet", hpet_probe, hpet_read },
	{ "pm-timer", pm_probe, pm_read },
	{ "pit", pit_probe, pit_read },
};

static void cpu_facts(void)
{
	uint32_t a, b, c, d, sig[3];

	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a >= 0x80000007) {
		cpuid(0x80000007, 0, &a, &b, &c, &d);
		clock_facts.tsc_invariant = d & (1u << 8);
	}
	cpuid(1, 0, &a, &b, &c, &d);
	clock_facts.hypervisor = c & (1u << 31);
	clock_facts.hypervisor_name = "none";
	if (!clock_facts.hypervisor)
		return;
	static char name[13] __persist;
	cpuid(0x40000000, 0, &a, &sig[0], &sig[1], &sig[2]);
	memcpy(name, sig, 12);
	/* A record's value has no spaces: keep letters and digits, lower case. */
	size_t n = 0;
	for (size_t i = 0; i < 12; i++) {
		char ch = name[i];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			name[n++] = ch;
	}
	name[n] = 0;
	clock_facts.hypervisor_name = !strcmp(name, "tcgtcgtcgtcg") ? "tcg"
				      : !strcmp(name, "kvmkvmkvm")  ? "kvm"
				      : n                           ? name
								    : "unknown";
}

struct mark {
	uint64_t ref, tsc;
	uint32_t apic;
};

/* The first reading of @r at least @after counts after @from, with the TSC and APIC timer. */
static void mark_after(const struct ref_clock *r, uint64_t from, uint64_t after, struct mark *m)
{
	do
		m->ref = r->read();
	while (m->ref - from < after);
	m->tsc = rdtsc();
	m->apic = apic_timer_count();
}

/*
 * TSC ticks and APIC timer counts over CAL_WINDOW_MS of @r (at @hz): between
 * two marks taken by the same code, so that the time a reading takes (long
 * under emulation) cancels.
 */
static void measure(const struct ref_clock *r, uint64_t hz)
{
	struct mark a, b;

	apic_timer_free_run(true);
	mark_after(r, r->read(), hz / 1000, &a); /* 1 ms of warm-up */
	mark_after(r, a.ref, hz * CAL_WINDOW_MS / 1000, &b);
	apic_timer_free_run(false);
	tsc_khz = (b.tsc - a.tsc) * hz / (b.ref - a.ref) / 1000;
	apic_khz = (uint64_t)(a.apic - b.apic) * hz / (b.ref - a.ref) / 1000;
}

void clock_calibrate(void)
{
	cpu_facts();
	for (size_t i = 0; i < ARRAY_SIZE(refs); i++) {
		uint64_t hz = refs[i].probe();
		if (!hz)
			continue;
		clock_facts.ref = refs[i].name;
		measure(&refs[i], hz);
		return;
	}
	/* No reference: the APIC timer at 1 GHz, as QEMU and KVM run it. */
	clock_facts.ref = "none";
	apic_khz = 1000000;
	uint32_t a0;
	apic_timer_free_run(true);
	a0 = apic_timer_count();
	uint64_t t0 = rdtsc();
	while (a0 - apic_timer_count() < CAL_WINDOW_MS * 1000000u)
		cpu_relax();
	tsc_khz = (rdtsc() - t0) / CAL_WINDOW_MS;
	apic_timer_free_run(false);
}
