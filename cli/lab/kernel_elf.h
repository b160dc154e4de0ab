/* SPDX-License-Identifier: MIT */
/* Checking that a file is a kernel QEMU can boot the PVH way, before booting it. */
#ifndef FPULAB_CLI_LAB_KERNEL_ELF_H
#define FPULAB_CLI_LAB_KERNEL_ELF_H

#include <stddef.h>

/*
 * kernel_elf_check - whether @path is an x86-64 ELF64 executable with a PVH
 * entry note (Xen's XEN_ELFNOTE_PHYS32_ENTRY, type 18, name "Xen", in a
 * PT_NOTE segment), which is how QEMU's -kernel boots the lab kernel.
 * Reads only the ELF header, the program headers and the notes.
 * Returns 0, or -1 with a reason in @why (@len bytes), e.g. "not an ELF file
 * (it starts with 00 00 00 00)" or "no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY)".
 */
int kernel_elf_check(const char *path, char *why, size_t len);

#endif
