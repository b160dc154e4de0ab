/* SPDX-License-Identifier: MIT */
/*
 * Entry of the lab kernel (BSP through PVH or Multiboot2, APs through a
 * real-mode trampoline) and the switch to long mode.
 *
 * Memory map: the first 4 GiB are identity-mapped with 2 MiB pages, user
 * accessible (tasks run in ring 3 on code linked into this image), and the
 * top 32 MiB (APIC, IOAPIC) uncached.
 */
#include "layout.h"

/* PVH ELF note: XEN_ELFNOTE_PHYS32_ENTRY (18), 32-bit physical entry. */
	.section .note.pvh, "a"
	.p2align 2
	.long 4
	.long 4
	.long 18
	.asciz "Xen"
	.p2align 2
	.long pvh_start32

/*
 * Multiboot2 header (GRUB's multiboot2 command, BIOS and UEFI alike): in the
 * first 32 KiB of the file, 8-byte aligned. Tags: the entry address (the
 * ELF entry is PVH's), a framebuffer (optional:
 * VGA text will do), end.
 */
	.section .multiboot2, "a"
	.p2align 3
mb2_header:
	.long MB2_HEADER_MAGIC
	.long 0					/* i386: 32-bit protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_HEADER_MAGIC + (mb2_header_end - mb2_header))
	.p2align 3
	.short 3, 0				/* entry address */
	.long 12
	.long mb2_start32
	.p2align 3
	.short 5, 1				/* framebuffer, optional */
	.long 20
	.long 0, 0, 32				/* any size, 32 bits per pixel */
	.p2align 3
	.short 0, 0				/* end */
	.long 8
mb2_header_end:

	.section .text.boot, "ax"
	.code32
	.globl pvh_start32, mb2_start32
pvh_start32:
	/* The start info is found by its magic in EBX, not trusted from EAX. */
	movl $BOOT_PVH, %edx
	jmp start32
mb2_start32:
	movl $BOOT_MULTIBOOT2, %edx
	cmpl $MB2_BOOTLOADER_MAGIC, %eax
	je start32
	movl $BOOT_UNKNOWN, %edx
start32:
	cli
	cld
	movl %ebx, %esi
	movl $boot_stack_top, %esp

	/* Zero .bss and .persist (page tables live there). */
	movl $__bss_start, %edi
	movl $__persist_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	movl %esi, boot_info_paddr
	movl %edx, boot_protocol

	/* PD: 2048 x 2 MiB = 4 GiB; P|RW|US|PS, PCD|PWT for >= 0xFE000000. */
	movl $boot_pd, %edi
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $0x87, %eax
	cmpl $(0xfe000000 >> 21), %ecx
	jb 2f
	orl $0x18, %eax
2:	movl %eax, (%edi,%ecx,8)
	movl $0, 4(%edi,%ecx,8)
	incl %ecx
	cmpl $2048, %ecx
	jb 1b

	/* PDPT[0..3] -> the four PD pages, PML4[0] -> PDPT. */
	movl $boot_pdpt, %edi
	xorl %ecx, %ecx
3:	movl %ecx, %eax
	shll $12, %eax
	addl $boot_pd, %eax
	orl $0x7, %eax
	movl %eax, (%edi,%ecx,8)
	incl %ecx
	cmpl $4, %ecx
	jb 3b
	movl $boot_pdpt, %eax
	orl $0x7, %eax
	movl %eax, boot_pml4

	call enter_long_mode
	lgdt boot_gdt_ptr
	ljmp $BOOT_CS64, $bsp_long_entry

/* Shared by BSP and APs: PAE, CR3, EFER.LME|NXE, paging. Keeps %esp. */
enter_long_mode:
	movl %cr4, %eax
	orl $0x20, %eax			/* CR4.PAE */
	movl %eax, %cr4
	movl $boot_pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx		/* IA32_EFER */
	rdmsr
	orl $0x900, %eax		/* LME | NXE */
	wrmsr
	movl %cr0, %eax
	orl $0x80000001, %eax		/* PG | PE */
	andl $~0x6000000c, %eax		/* CD, NW, TS, EM clear */
	orl $0x22, %eax			/* MP | NE */
	movl %eax, %cr0
	ret

	.code64
bsp_long_entry:
	movw $BOOT_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq $boot_stack_top, %rsp
	xorl %ebp, %ebp
	movl boot_info_paddr, %edi
	movl boot_protocol, %esi
	call kmain
4:	hlt
	jmp 4b

/*
 * AP trampoline, copied to a free page below 1 MiB (smp.c, from the memory
 * map; the SIPI vector is its page number). Runs from there in real mode
 * with CS = page << 8, so it addresses itself relative to CS (%ebx holds
 * its physical base); smp.c writes the base into tramp_gdt_ptr and
 * tramp_far, the two linear addresses the CPU needs.
 */
#define TOFF(sym) ((sym) - ap_trampoline_start)
	.code16
	.globl ap_trampoline_start, ap_trampoline_end, tramp_gdt_base, tramp_far_offset
ap_trampoline_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	movzwl %ax, %ebx
	shll $4, %ebx
	lgdtl TOFF(tramp_gdt_ptr)
	movl %cr0, %eax
	orl $1, %eax
	movl %eax, %cr0
	ljmpl *TOFF(tramp_far)
	.code32
tramp_32:
	movw $BOOT_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	leal TOFF(tramp_stack_top)(%ebx), %esp
	movl $enter_long_mode, %eax
	call *%eax
	ljmp $BOOT_CS64, $ap_long_entry
	.p2align 3
tramp_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* BOOT_CS64: 64-bit code */
	.quad 0x00cf92000000ffff	/* BOOT_DS: data */
	.quad 0x00cf9a000000ffff	/* BOOT_CS32: 32-bit code */
tramp_gdt_ptr:
	.word 4 * 8 - 1
tramp_gdt_base:				/* base + TOFF(tramp_gdt), written by smp.c */
	.long TOFF(tramp_gdt)
	.p2align 2
tramp_far:
tramp_far_offset:			/* base + TOFF(tramp_32), written by smp.c */
	.long TOFF(tramp_32)
	.word BOOT_CS32
	.p2align 4
	.space 64
tramp_stack_top:
ap_trampoline_end:

	.code64
	.text
ap_long_entry:
	movw $BOOT_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq ap_boot_stack, %rsp
	xorl %ebp, %ebp
	call ap_main
5:	hlt
	jmp 5b

	.section .rodata
	.p2align 3
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff
	.quad 0x00cf92000000ffff
	.quad 0x00cf9a000000ffff
boot_gdt_ptr:
	.word 4 * 8 - 1
	.quad boot_gdt

	.data
	.globl boot_info_paddr, boot_protocol, ap_boot_stack
boot_info_paddr: .long 0		/* EBX at entry: PVH start info or Multiboot2 info */
boot_protocol:	.long 0			/* BOOT_PVH | BOOT_MULTIBOOT2 | BOOT_UNKNOWN */
	.p2align 3
ap_boot_stack:	.quad 0

/* The watchdog's restart (restart.c): on the boot stack again, from the top. */
	.text
	.globl kernel_restart
kernel_restart:
	cli
	movq $boot_stack_top, %rsp
	xorl %ebp, %ebp
	call restart_main
6:	hlt
	jmp 6b

	.section .persist, "aw", @nobits
	.p2align 12
	.globl boot_pml4
boot_pml4:	.space 4096
boot_pdpt:	.space 4096
boot_pd:	.space 4 * 4096
	.p2align 4
	.space 16384
boot_stack_top:
