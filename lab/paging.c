/* SPDX-License-Identifier: MIT */
/* More of the identity map: see paging.h. 4-level paging, SDM Vol. 3 §4.5. */
#include "paging.h"

#define PT_P 0x1
#define PT_RW 0x2
#define PT_PWT 0x8
#define PT_PCD 0x10
#define PT_PS 0x80
#define PT_ADDR 0x000ffffffffff000ull

extern uint64_t boot_pml4[512];
static uint64_t pool[8][512] __attribute__((aligned(4096))) __persist;
static unsigned int pool_used __persist;

/* The table @e points to, made (zeroed) when absent. */
static uint64_t *next_table(uint64_t *e)
{
	if (!(*e & PT_P)) {
		if (pool_used == ARRAY_SIZE(pool))
			panic("map_identity: out of page-table pages");
		uint64_t *t = pool[pool_used++];
		memset(t, 0, 4096);
		*e = (uint64_t)t | PT_P | PT_RW;
	}
	return (uint64_t *)(*e & PT_ADDR);
}

void map_identity(uint64_t addr, uint64_t size)
{
	uint64_t end = addr + size;
	if (end <= (4ull << 30))
		return; /* boot.S mapped it */
	for (uint64_t a = addr & ~((2ull << 20) - 1); a < end; a += 2ull << 20) {
		uint64_t *pdpt = next_table(&boot_pml4[(a >> 39) & 511]);
		uint64_t *pd = next_table(&pdpt[(a >> 30) & 511]);
		pd[(a >> 21) & 511] = a | PT_P | PT_RW | PT_PS | PT_PCD | PT_PWT;
	}
	__asm__ volatile("mov %%cr3, %%rax; mov %%rax, %%cr3" ::: "rax", "memory");
}
