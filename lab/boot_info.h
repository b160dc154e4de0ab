/* SPDX-License-Identifier: MIT */
/* What the loader told us: PVH start info and ACPI MADT. */
#ifndef LAB_BOOT_INFO_H
#define LAB_BOOT_INFO_H

#include "kernel.h"

#define PVH_START_MAGIC 0x336ec578u

struct boot_info {
	const char *cmdline;
	uint64_t ram_start, ram_end; /* usable RAM above the kernel */
	uint64_t rsdp;
	unsigned int napic;
	uint32_t apic_ids[16];
};

extern struct boot_info boot_info;

void boot_info_parse(uint32_t start_info_paddr);
void acpi_find_cpus(void);

/* "key=value" word of the command line; NULL if absent. Copies into @buf. */
const char *cmdline_get(const char *key, char *buf, size_t size);

#endif
