/* SPDX-License-Identifier: MIT */
/* Constants shared by the lab's assembly and C. */
#ifndef LAB_LAYOUT_H
#define LAB_LAYOUT_H

/* Boot GDT (boot.S), also used by the AP trampoline. */
#define BOOT_CS64 0x08
#define BOOT_DS 0x10
#define BOOT_CS32 0x18

/* Per-CPU GDT (cpu.c). SYSRET takes user SS = STAR[63:48]+8, CS = +16. */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define USER_DS (0x18 | 3)
#define USER_CS (0x20 | 3)
#define TSS_SEL 0x28
#define GDT_ENTRIES 7

/* How the BSP was entered (boot.S; kmain's second argument). */
#define BOOT_UNKNOWN 0    /* the Multiboot2 entry without the boot loader's magic in EAX */
#define BOOT_PVH 1        /* PVH (QEMU -kernel): start info in EBX */
#define BOOT_MULTIBOOT2 2 /* GRUB multiboot2: information structure in EBX */

/* Multiboot2 (specification 2.0, section 3.1). */
#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_BOOTLOADER_MAGIC 0x36d76289

/* struct cpu fields read by entry.S through %gs (cpu.h asserts them). */
#define CPU_OFF_SELF 0
#define CPU_OFF_KSTACK 8
#define CPU_OFF_USER_RSP 16

/* Interrupt vectors. */
#define VEC_NM 7
#define VEC_TIMER 32
#define VEC_RESCHED 0xf0
#define VEC_FLUSH 0xf1
#define VEC_CALL 0xf2
#define VEC_SPURIOUS 0xff

#endif
