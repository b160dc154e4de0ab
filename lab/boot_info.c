/* SPDX-License-Identifier: MIT */
/*
 * PVH start info (Xen's hvm_start_info, version 0 or 1) and the ACPI MADT,
 * read for the command line, the RAM map and the list of local APIC IDs.
 */
#include "boot_info.h"
#include "cpu.h"

struct hvm_start_info {
	uint32_t magic, version, flags, nr_modules;
	uint64_t modlist_paddr, cmdline_paddr, rsdp_paddr;
	uint64_t memmap_paddr; /* version >= 1 */
	uint32_t memmap_entries, reserved;
};

struct hvm_memmap_entry {
	uint64_t addr, size;
	uint32_t type, reserved;
};

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_revision, creator, creator_revision;
} __attribute__((packed));

struct boot_info boot_info;
extern char __kernel_end[];

void boot_info_parse(uint32_t paddr)
{
	const struct hvm_start_info *si = (const void *)(uint64_t)paddr;
	uint64_t kend = ALIGN_UP((uint64_t)__kernel_end, 4096);

	if (!si || si->magic != PVH_START_MAGIC)
		panic("no PVH start info in EBX (%#x)", paddr);
	boot_info.cmdline = si->cmdline_paddr ? (const char *)si->cmdline_paddr : "";
	boot_info.rsdp = si->rsdp_paddr;
	boot_info.ram_start = kend;
	boot_info.ram_end = kend + (32ul << 20); /* without a map, assume 32 MiB */
	if (si->version >= 1 && si->memmap_paddr) {
		const struct hvm_memmap_entry *e = (const void *)si->memmap_paddr;
		for (uint32_t i = 0; i < si->memmap_entries; i++) {
			uint64_t end = e[i].addr + e[i].size;
			if (e[i].type == 1 && e[i].addr <= kend && end > kend)
				boot_info.ram_end = end < (4ul << 30) ? end : (4ul << 30);
		}
	}
}

const char *cmdline_get(const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	for (const char *p = boot_info.cmdline; *p;) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - w) > klen && !strncmp(w, key, klen) && w[klen] == '=') {
			size_t n = (size_t)(p - w) - klen - 1;
			if (n >= size)
				n = size - 1;
			memcpy(buf, w + klen + 1, n);
			buf[n] = 0;
			return buf;
		}
	}
	return NULL;
}

static uint64_t find_rsdp(void)
{
	if (boot_info.rsdp)
		return boot_info.rsdp;
	for (uint64_t p = 0xe0000; p < 0x100000; p += 16)
		if (!memcmp((const void *)p, "RSD PTR ", 8))
			return p;
	return 0;
}

static const struct acpi_header *find_table(uint64_t rsdp, const char *sig)
{
	const uint8_t *r = (const uint8_t *)rsdp;
	uint64_t xsdt = r[15] >= 2 ? *(const uint64_t *)(r + 24) : 0;
	uint64_t root = xsdt ? xsdt : *(const uint32_t *)(r + 16);
	size_t esize = xsdt ? 8 : 4;
	const struct acpi_header *h = (const void *)root;
	size_t n = (h->length - sizeof(*h)) / esize;
	const uint8_t *entries = (const uint8_t *)(h + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = esize == 8 ? *(const uint64_t *)(entries + 8 * i)
					: *(const uint32_t *)(entries + 4 * i);
		const struct acpi_header *t = (const void *)a;
		if (!memcmp(t->signature, sig, 4))
			return t;
	}
	return NULL;
}

/* Local APIC IDs of the enabled CPUs, from the MADT; the BSP alone without one. */
void acpi_find_cpus(void)
{
	uint64_t rsdp = find_rsdp();
	const struct acpi_header *madt = rsdp ? find_table(rsdp, "APIC") : NULL;
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
