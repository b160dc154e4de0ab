/* SPDX-License-Identifier: MIT */
/* The human table: see table.h. */
#include "table.h"
#include "apic.h"
#include "boot_info.h"
#include "clock.h"
#include "cpu.h"
#include "screen.h"

#define TABLE_REPEATS 64 /* runs kept per policy for the median; more: the first 64 */

static const struct experiment *exp;
static unsigned int npol;
static uint64_t vals[CFG_MAX_POLICIES][TABLE_REPEATS];
static unsigned int nvals[CFG_MAX_POLICIES];
static char label[64];

const char *table_clock_label(void)
{
	static char buf[64];
	const char *h = clock_facts.hypervisor_name;
	if (!clock_facts.hypervisor)
		return "hardware TSC, bare metal";
	if (!strcmp(h, "tcg"))
		return "EMULATED TSC (QEMU TCG), not hardware timings";
	ksnprintf(buf, sizeof(buf), "hardware TSC, under a hypervisor (%s)", h);
	return buf;
}

void table_boot_facts(void)
{
	static const char *const refs[][2] = {
		{ "hpet", "the HPET" },
		{ "pm-timer", "the ACPI PM timer" },
		{ "pit", "the PIT" },
		{ "none", "nothing (APIC timer taken as 1 GHz)" },
	};
	const char *ref = clock_facts.ref;
	for (size_t i = 0; i < ARRAY_SIZE(refs); i++)
		if (!strcmp(ref, refs[i][0]))
			ref = refs[i][1];
	kprintf("fpulab lab kernel: booted by %s%s%s\n", boot_name(),
		boot_info.loader[0] ? ", " : "", boot_info.loader);
	kprintf("screen: %s\n", screen_name());
	kprintf("CPUs: %u running of %u found; APIC %s; XCR0 0x%lx, saved with %s\n", ncpus,
		boot_info.napic ? boot_info.napic : 1, apic_x2 ? "x2apic" : "xapic",
		(uint64_t)xstate_cfg.xcr0, fpu_insn_name(xstate_cfg.save_insn));
	kprintf("clock: TSC %lu kHz (%sinvariant), APIC timer %lu kHz, both measured against %s\n",
		tsc_khz, clock_facts.tsc_invariant ? "" : "not ", apic_khz, ref);
	kprintf("ticks: %s\n", table_clock_label());
	if (xstate_cfg.save_insn == FPU_INSN_FXSAVE)
		kprintf("no XSAVE (CPUID.1:ECX[26] clear): FXSAVE saves x87 and SSE only; the avx "
			"configurations are skipped\n");
	if (console_serial())
		kprintf("serial: COM1 has every record: capture it, then fpulab import-serial LOG "
			"-o FILE\n");
	else
		kprintf("serial: no COM1 port: the results are on this screen only (photograph "
			"it); nothing can be read back automatically\n");
}

/* The median of @n values (the lower middle one), sorting them. */
static uint64_t median(uint64_t *v, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1], v[j - 1] = t;
		}
	return v[(n - 1) / 2];
}

/* The main figure of one run: ticks per op, or the count abi.h names. */
static uint64_t figure(const struct result *r)
{
	const char *f = experiment_abi(exp)->figure;
#define U(name)                                      \
	if (!strcmp(f, #name) && strcmp(f, "ticks")) \
		return r->name;
#define S(name)
	FPULAB_RESULT_FIELDS(S, U)
#undef U
#undef S
	uint64_t per = r->round_trips && r->round_trips != FPULAB_NOT_MEASURED ? r->round_trips
		       : r->switches                                           ? r->switches
									       : 1;
	return r->ticks / per;
}

void table_begin(const struct experiment *e, unsigned int npolicies)
{
	char head[160];
	size_t n = 0;
	exp = e;
	npol = npolicies;
	kprintf("%s: %s, median of %lu run%s each (%s)\n", experiment_abi(e)->name,
		experiment_abi(e)->unit, cfg.repeat, cfg.repeat == 1 ? "" : "s",
		table_clock_label());
	n += (size_t)ksnprintf(head, sizeof(head), "  %-22s", "configuration");
	for (unsigned int p = 0; p < npolicies && n < sizeof(head); p++)
		n += (size_t)ksnprintf(head + n, sizeof(head) - n, " %6.6s", cfg.policies[p]);
	kprintf("%s\n", head);
	memset(nvals, 0, sizeof(nvals));
}

void table_add(unsigned int p, const struct result *r)
{
	if (r->cost != record_unset && r->cost)
		ksnprintf(label, sizeof(label), "%s", r->cost);
	else if (r->variant != record_unset && r->variant)
		ksnprintf(label, sizeof(label), "%lut %s %s", r->tasks,
			  r->fp_users ? r->fp_users : "-", r->variant);
	else
		ksnprintf(label, sizeof(label), "%s %s %s", r->placement ? r->placement : "-",
			  r->fp_users ? r->fp_users : "-", r->regset ? r->regset : "-");
	if (p < CFG_MAX_POLICIES && nvals[p] < TABLE_REPEATS)
		vals[p][nvals[p]++] = figure(r);
}

void table_row(void)
{
	char row[160];
	size_t n = (size_t)ksnprintf(row, sizeof(row), "  %-22.22s", label);
	for (unsigned int p = 0; p < npol && n < sizeof(row); p++) {
		uint64_t v = nvals[p] ? median(vals[p], nvals[p]) : 0;
		char cell[16];
		if (!nvals[p])
			ksnprintf(cell, sizeof(cell), "-");
		else if (v < 1000000)
			ksnprintf(cell, sizeof(cell), "%lu", v);
		else if (v < 100000000)
			ksnprintf(cell, sizeof(cell), "%luk", v / 1000);
		else
			ksnprintf(cell, sizeof(cell), "%luM", v / 1000000);
		n += (size_t)ksnprintf(row + n, sizeof(row) - n, " %6s", cell);
	}
	kprintf("%s\n", row);
	memset(nvals, 0, sizeof(nvals));
}
