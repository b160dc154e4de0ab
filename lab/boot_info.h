/* SPDX-License-Identifier: MIT */
/*
 * What the loader told us, copied out of its structures at boot (they may
 * lie in memory the lab then allocates): PVH start info (QEMU -kernel) or
 * the Multiboot2 information (GRUB, BIOS or UEFI). And what ACPI says.
 */
#ifndef LAB_BOOT_INFO_H
#define LAB_BOOT_INFO_H

#include "kernel.h"
#include "layout.h"
#include <fpulab/abi.h>

#define PVH_START_MAGIC 0x336ec578u
#define BOOT_CMDLINE_MAX 1024
#define BOOT_MMAP_MAX 128
#define BOOT_APIC_MAX 256 /* CPUs the MADT may list; FPULAB_MAX_CPUS of them start */

/* A Multiboot2 framebuffer (type 8 tag). */
enum fb_type { FB_NONE, FB_RGB, FB_EGA_TEXT };
struct boot_fb {
	enum fb_type type;
	uint64_t addr;
	uint32_t pitch, width, height; /* bytes per line; pixels, or characters for text */
	uint8_t bpp;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct boot_mmap_entry {
	uint64_t addr, size;
	uint32_t type; /* 1: usable RAM */
};

struct boot_info {
	unsigned int protocol;       /* BOOT_PVH | BOOT_MULTIBOOT2 (layout.h) */
	bool uefi;                   /* Multiboot2 under UEFI: GRUB passed an EFI system table */
	const char *cmdline;         /* a copy */
	char loader[48];             /* the boot loader's name, "" if it gave none */
	uint64_t ram_start, ram_end; /* usable RAM above the kernel, below 4 GiB */
	uint64_t rsdp;               /* physical address of the RSDP (or of its copy), 0: none */
	uint32_t trampoline;         /* the AP trampoline's page, below 1 MiB */
	struct boot_fb fb;
	unsigned int nmmap;
	struct boot_mmap_entry mmap[BOOT_MMAP_MAX];
	/* acpi.c, from the MADT */
	unsigned int napic; /* enabled CPUs the MADT lists */
	uint32_t apic_ids[BOOT_APIC_MAX];
};

extern struct boot_info boot_info;

/* boot_info_parse - read the loader's structure at @paddr as @protocol
 * (boot.S) into boot_info; panics when it is not what the entry promised. */
void boot_info_parse(uint32_t paddr, unsigned int protocol);
/* The loader, as the hello record and the screen name it: "pvh", "multiboot2-bios", "multiboot2-uefi". */
const char *boot_name(void);

/* "key=value" word of the command line; NULL if absent. Copies into @buf. */
const char *cmdline_get(const char *key, char *buf, size_t size);

/* acpi.c: the enabled CPUs' local APIC IDs from the MADT (the boot CPU alone without one). */
void acpi_find_cpus(void);
/* acpi.c: the ACPI table with signature @sig ("APIC", "HPET", "FACP"), or NULL. */
const void *acpi_table(const char *sig);

#endif
