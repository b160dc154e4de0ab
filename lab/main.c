/* SPDX-License-Identifier: MIT */
/* Boot of the lab kernel: the BSP's kmain(), then each AP's ap_main(). */
#include "apic.h"
#include "boot_info.h"
#include "cpu.h"
#include "fputrace.h"
#include "io.h"
#include "lab.h"
#include "smp.h"
#include <fpulab/abi.h>

void kmain(uint32_t start_info);
noreturn void ap_main(void);

static void mask_8259(void)
{
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

static void join(char *buf, size_t size, const char *const *names)
{
	size_t n = 0;
	buf[0] = 0;
	for (; *names; names++)
		n += (size_t)ksnprintf(buf + n, size - n, "%s%s", n ? "," : "", *names);
}

static void say_hello(void)
{
	char policies[128], test_policies[64];
	join(policies, sizeof(policies), fpu_policy_names());
	join(test_policies, sizeof(test_policies), fpu_test_policy_names());
	struct hello h = {
		.apic = apic_x2 ? "x2apic" : "xapic",
		.insn = fpu_insn_name(xstate_cfg.save_insn),
		.policies = policies,
		.test_policies = test_policies[0] ? test_policies : "-",
		.version = FPULAB_ABI_VERSION,
		.cpus = ncpus,
		.xcr0 = xstate_cfg.xcr0,
		.kernel_size = xstate_cfg.kernel_size,
		.user_size = xstate_cfg.user_size,
		.tsc_khz = tsc_khz,
	};
	RECORD_PRINT(FPULAB_REC_HELLO, FPULAB_HELLO_FIELDS, &h);
}

void kmain(uint32_t start_info)
{
	console_init();
	kprintf("\n"); /* firmware (SeaBIOS on q35/pc) may leave a line unfinished */
	boot_info_parse(start_info);
	mem_init(boot_info.ram_start, boot_info.ram_end);
	mask_8259();

	struct cpu *bsp = cpu_alloc(0, 0);
	cpu_setup(bsp);
	ncpus = 1;
	apic_init();
	bsp->apic_id = apic_id();
	apic_calibrate();

	lab_fpu_init();
	fpu_cpu_init();
	sched_init_cpu();

	acpi_find_cpus();
	smp_boot();
	fputrace_init();
	say_hello();

	cpu_start_timer();
	task_create_kthread("control", experiment_main, NULL, 0);
	idle_loop();
}

/* An AP, from the trampoline (boot.S) that smp_boot() started: the BSP's set-up, for this CPU. */
noreturn void ap_main(void)
{
	cpu_setup(smp_booting_cpu());
	apic_init();
	fpu_cpu_init();
	sched_init_cpu();
	smp_ap_online();
	cpu_start_timer();
	idle_loop();
}
