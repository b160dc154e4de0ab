/* SPDX-License-Identifier: MIT */
/* Boot-time bump allocator: everything the lab allocates lives until exit. */
#include "kernel.h"

static uint64_t mem_next, mem_end;
static struct spinlock mem_lock;

void mem_init(uint64_t start, uint64_t end)
{
	mem_next = start;
	mem_end = end;
}

void *kalloc_raw(size_t size, size_t align)
{
	spin_lock(&mem_lock);
	uint64_t p = ALIGN_UP(mem_next, align);
	if (p + size > mem_end)
		panic("kalloc: out of memory (%lu bytes)", (unsigned long)size);
	mem_next = p + size;
	spin_unlock(&mem_lock);
	return (void *)p;
}

void *kalloc(size_t size, size_t align)
{
	void *p = kalloc_raw(size, align);
	memset(p, 0, size);
	return p;
}

uint64_t kalloc_avail(size_t align)
{
	uint64_t p = ALIGN_UP(READ_ONCE(mem_next), align);
	return p < mem_end ? mem_end - p : 0;
}
