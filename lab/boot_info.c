/* SPDX-License-Identifier: MIT */
/*
 * The loader's information, copied into boot_info: PVH start info (Xen's
 * hvm_start_info, version 0 or 1), or the Multiboot2 information structure
 * (specification 2.0, section 3.6; framebuffer tag as GRUB lays it out).
 * Then the RAM the lab allocates from and the AP trampoline's page, both
 * from the memory map.
 */
#include "boot_info.h"
#include "cpu.h"
#include "font.h"

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

/* Multiboot2 tag types (specification 2.0, section 3.6). */
enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_EFI32 = 11,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14, /* a copy of the RSDP, ACPI 1.0 */
	MB2_TAG_ACPI_NEW = 15, /* a copy of the RSDP, ACPI 2.0+ (XSDT) */
	MB2_TAG_EFI_MMAP = 17,
};

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap_entry {
	uint64_t addr, len;
	uint32_t type, reserved;
};

struct boot_info boot_info __persist; /* kept across the watchdog's restart */
extern char __kernel_end[];
static char cmdline_copy[BOOT_CMDLINE_MAX] __persist;
static uint8_t rsdp_copy[36] __persist; /* ACPI 2.0 RSDP: 36 bytes */

#define RAM_LIMIT (4ul << 30) /* the identity map (boot.S) */
#define LOW_LIMIT 0x9f000ul   /* SIPI pages: below the EBDA and 1 MiB */
#define TRAMPOLINE_DEFAULT 0x8000u

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = 0;
	for (; src && src[n] && n + 1 < size; n++)
		dst[n] = src[n];
	dst[n] = 0;
}

static void mmap_add(uint64_t addr, uint64_t size, uint32_t type)
{
	if (boot_info.nmmap < BOOT_MMAP_MAX)
		boot_info.mmap[boot_info.nmmap++] = (struct boot_mmap_entry){ addr, size, type };
}

static void pvh_parse(const struct hvm_start_info *si, uint32_t paddr)
{
	if (!si || si->magic != PVH_START_MAGIC)
		panic("no PVH start info in EBX (%#x)", paddr);
	copy_str(cmdline_copy, sizeof(cmdline_copy), (const char *)si->cmdline_paddr);
	boot_info.rsdp = si->rsdp_paddr;
	if (si->version >= 1 && si->memmap_paddr) {
		const struct hvm_memmap_entry *e = (const void *)si->memmap_paddr;
		for (uint32_t i = 0; i < si->memmap_entries; i++)
			mmap_add(e[i].addr, e[i].size, e[i].type);
	}
}

static void mb2_framebuffer(const uint8_t *t)
{
	struct boot_fb *fb = &boot_info.fb;
	uint8_t type = t[29];

	fb->addr = *(const uint64_t *)(t + 8);
	fb->pitch = *(const uint32_t *)(t + 16);
	fb->width = *(const uint32_t *)(t + 20);
	fb->height = *(const uint32_t *)(t + 24);
	fb->bpp = t[28];
	fb->type = type == 1 ? FB_RGB : type == 2 ? FB_EGA_TEXT : FB_NONE;
	if (fb->type == FB_RGB) {
		fb->red_pos = t[32], fb->red_size = t[33];
		fb->green_pos = t[34], fb->green_size = t[35];
		fb->blue_pos = t[36], fb->blue_size = t[37];
	}
}

static void mb2_mmap(const uint8_t *t, uint32_t size)
{
	uint32_t esize = *(const uint32_t *)(t + 8);
	for (uint32_t off = 16; esize && off + esize <= size; off += esize) {
		const struct mb2_mmap_entry *e = (const void *)(t + off);
		mmap_add(e->addr, e->len, e->type);
	}
}

static void mb2_parse(const uint8_t *mbi)
{
	uint32_t total = *(const uint32_t *)mbi;
	const uint8_t *rsdp_new = NULL, *rsdp_old = NULL;

	for (uint32_t off = 8; off + 8 <= total;) {
		const struct mb2_tag *t = (const void *)(mbi + off);
		const uint8_t *p = (const uint8_t *)t;
		if (t->type == MB2_TAG_END || t->size < 8)
			break;
		switch (t->type) {
		case MB2_TAG_CMDLINE:
			copy_str(cmdline_copy, sizeof(cmdline_copy), (const char *)(p + 8));
			break;
		case MB2_TAG_LOADER:
			copy_str(boot_info.loader, sizeof(boot_info.loader), (const char *)(p + 8));
			break;
		case MB2_TAG_MODULE: /* the screen's font (tools/mkimage), copied out now */
			font_load_pf2((const uint8_t *)(uint64_t) * (const uint32_t *)(p + 8),
				      *(const uint32_t *)(p + 12) - *(const uint32_t *)(p + 8));
			break;
		case MB2_TAG_MMAP:
			mb2_mmap(p, t->size);
			break;
		case MB2_TAG_FRAMEBUFFER:
			mb2_framebuffer(p);
			break;
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
		case MB2_TAG_EFI_MMAP:
			boot_info.uefi = true;
			break;
		case MB2_TAG_ACPI_OLD:
			rsdp_old = p + 8;
			break;
		case MB2_TAG_ACPI_NEW:
			rsdp_new = p + 8;
			break;
		}
		off += ALIGN_UP(t->size, 8);
	}
	if (rsdp_new || rsdp_old) {
		memcpy(rsdp_copy, rsdp_new ? rsdp_new : rsdp_old, rsdp_new ? 36 : 20);
		boot_info.rsdp = (uint64_t)rsdp_copy;
	}
}

/*
 * Allocate from the usable region that holds the kernel's end, or from the
 * largest one above it when that is larger (UEFI machines split low RAM).
 */
static void choose_ram(void)
{
	uint64_t kend = ALIGN_UP((uint64_t)__kernel_end, 4096), best = 0;

	boot_info.ram_start = kend;
	boot_info.ram_end = kend + (32ul << 20); /* without a map, assume 32 MiB */
	for (unsigned int i = 0; i < boot_info.nmmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		uint64_t start = e->addr, end = e->addr + e->size;
		if (e->type != 1 || end <= kend || start >= RAM_LIMIT)
			continue;
		if (start < kend)
			start = kend;
		if (end > RAM_LIMIT)
			end = RAM_LIMIT;
		if (end - start > best) {
			best = end - start;
			boot_info.ram_start = ALIGN_UP(start, 4096);
			boot_info.ram_end = end;
		}
	}
}

/* Whether [addr, addr + 4 KiB) is usable RAM in the map. */
static bool page_usable(uint64_t addr)
{
	for (unsigned int i = 0; i < boot_info.nmmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		if (e->type == 1 && e->addr <= addr && addr + 4096 <= e->addr + e->size)
			return true;
	}
	return false;
}

/* The trampoline's page: 0x8000 when free (or without a map), else the lowest free one. */
static void choose_trampoline(void)
{
	boot_info.trampoline = TRAMPOLINE_DEFAULT;
	if (!boot_info.nmmap || page_usable(TRAMPOLINE_DEFAULT))
		return;
	for (uint64_t a = 0x1000; a < LOW_LIMIT; a += 4096)
		if (page_usable(a)) {
			boot_info.trampoline = (uint32_t)a;
			return;
		}
	panic("no free page below 1 MiB in the memory map for the AP trampoline");
}

void boot_info_parse(uint32_t paddr, unsigned int protocol)
{
	boot_info.protocol = protocol;
	if (protocol == BOOT_UNKNOWN)
		panic("entered at the Multiboot2 entry without the boot loader's magic in EAX");
	if (protocol == BOOT_PVH)
		pvh_parse((const void *)(uint64_t)paddr, paddr);
	else
		mb2_parse((const uint8_t *)(uint64_t)paddr);
	boot_info.cmdline = cmdline_copy;
	choose_ram();
	choose_trampoline();
}

const char *boot_name(void)
{
	if (boot_info.protocol == BOOT_PVH)
		return "pvh";
	return boot_info.uefi ? "multiboot2-uefi" : "multiboot2-bios";
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
