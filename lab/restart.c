/* SPDX-License-Identifier: MIT */
/* The kernel restarted in place: see restart.h. */
#include "restart.h"
#include "boot_info.h"

#define DATA_COPY_MAX 4096

struct restart_state restart __persist;
static char data_copy[DATA_COPY_MAX] __persist;
static bool data_saved __persist;
extern char __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t boot_info_paddr, boot_protocol;

void kmain(uint32_t boot_paddr, uint32_t protocol);
noreturn void kernel_restart(void); /* boot.S: the boot stack, then restart_main() */
noreturn void restart_main(void);

/* Linker symbols: addresses, not objects to subtract. */
static size_t span(const char *start, const char *end)
{
	return (size_t)((uintptr_t)end - (uintptr_t)start);
}

void restart_save(void)
{
	size_t n = span(__data_start, __data_end);
	data_saved = n <= sizeof(data_copy);
	if (data_saved)
		memcpy(data_copy, __data_start, n);
}

noreturn void restart_main(void)
{
	memset(__bss_start, 0, span(__bss_start, __bss_end));
	memcpy(__data_start, data_copy, span(__data_start, __data_end));
	kmain(boot_info_paddr, boot_protocol);
	for (;;)
		__asm__ volatile("cli; hlt");
}

noreturn void restart_kernel(void)
{
	if (!data_saved)
		panic("cannot restart: .data is larger than its copy (%u bytes)", DATA_COPY_MAX);
	restart.restarts++;
	kernel_restart();
}
