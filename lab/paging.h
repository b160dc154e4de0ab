/* SPDX-License-Identifier: MIT */
/* The identity map beyond boot.S's first 4 GiB (a framebuffer may lie above). */
#ifndef LAB_PAGING_H
#define LAB_PAGING_H

#include "kernel.h"

/* map_identity - map [@addr, @addr + @size) to itself, 2 MiB pages,
 * uncached, unless boot.S's map already covers it. Panics when its few
 * page-table pages run out. */
void map_identity(uint64_t addr, uint64_t size);

#endif
