/* SPDX-License-Identifier: MIT */
/*
 * ACPI tables (ACPI 6.5, chapter 5): the RSDP the loader gave (PVH start
 * info, Multiboot2's ACPI tags) or found in the BIOS area, the RSDT/XSDT,
 * and the MADT's list of local APIC IDs.
 */
#include "boot_info.h"
#include "cpu.h"

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_revision, creator, creator_revision;
} __attribute__((packed));

/* The loader's RSDP, else a scan of the BIOS read-only area (never there under UEFI). */
static uint64_t find_rsdp(void)
{
	if (boot_info.rsdp)
		return boot_info.rsdp;
	if (boot_info.uefi)
		return 0;
	for (uint64_t p = 0xe0000; p < 0x100000; p += 16)
		if (!memcmp((const void *)p, "RSD PTR ", 8))
			return p;
	return 0;
}

const void *acpi_table(const char *sig)
{
	const uint8_t *r = (const uint8_t *)find_rsdp();
	if (!r)
		return NULL;
	uint64_t xsdt = r[15] >= 2 ? *(const uint64_t *)(r + 24) : 0;
	uint64_t root = xsdt && xsdt < (4ul << 30) ? xsdt : *(const uint32_t *)(r + 16);
	size_t esize = root == xsdt ? 8 : 4;
	const struct acpi_header *h = (const void *)root;
	size_t n = (h->length - sizeof(*h)) / esize;
	const uint8_t *entries = (const uint8_t *)(h + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = esize == 8 ? *(const uint64_t *)(entries + 8 * i)
					: *(const uint32_t *)(entries + 4 * i);
		const struct acpi_header *t = (const void *)a;
		if (a && a < (4ul << 30) && !memcmp(t->signature, sig, 4))
			return t;
	}
	return NULL;
}

/* Local APIC IDs of the enabled CPUs, from the MADT; the BSP alone without one. */
void acpi_find_cpus(void)
{
	const struct acpi_header *madt = acpi_table("APIC");
	if (!madt) {
		kprintf("acpi: no MADT, running on the boot CPU only\n");
		return;
	}
	const uint8_t *p = (const uint8_t *)madt + 44, *end = (const uint8_t *)madt + madt->length;
	for (; p + 2 <= end && p[1]; p += p[1]) {
		uint32_t id, flags;
		if (p[0] == 0) { /* processor local APIC */
			id = p[3];
			flags = *(const uint32_t *)(p + 4);
		} else if (p[0] == 9) { /* processor local x2APIC */
			id = *(const uint32_t *)(p + 4);
			flags = *(const uint32_t *)(p + 8);
		} else {
			continue;
		}
		if ((flags & 1) && boot_info.napic < ARRAY_SIZE(boot_info.apic_ids))
			boot_info.apic_ids[boot_info.napic++] = id;
	}
}
