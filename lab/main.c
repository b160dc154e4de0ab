/* SPDX-License-Identifier: MIT */
/* Boot of the lab kernel on the BSP. */
#include "apic.h"
#include "boot_info.h"
#include "cpu.h"
#include "io.h"
#include "lab.h"
#include "smp.h"
#include <fpulab/abi.h>

uint32_t tick_ns = 1000000; /* 1 ms time slices */
bool timer_preempt = true;
bool timer_whole_slices;
static uint64_t jitter_seed, jitter_rng[MAX_CPUS]; /* 0: no jitter */
static uint64_t user_preempts[MAX_CPUS];

uint64_t timer_user_preempts(void)
{
	uint64_t n = 0;
	for (unsigned int i = 0; i < ncpus; i++)
		n += READ_ONCE(user_preempts[i]);
	return n;
}

void kmain(uint32_t start_info);

/* Each CPU's generator restarts from the seed at its next tick. */
void timer_jitter(uint64_t seed)
{
	for (unsigned int i = 0; i < MAX_CPUS; i++)
		WRITE_ONCE(jitter_rng[i], 0);
	WRITE_ONCE(jitter_seed, seed);
}

static uint32_t next_tick_ns(struct cpu *c)
{
	uint64_t x = READ_ONCE(jitter_rng[c->id]), seed = READ_ONCE(jitter_seed), base = tick_ns;
	if (!seed)
		return tick_ns;
	if (!x)
		x = (seed * 0x9e3779b97f4a7c15ull + c->id) | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	jitter_rng[c->id] = x;
	return (uint32_t)(base * 3 / 10 + x % (base * 14 / 10 + 1));
}

void timer_tick(void)
{
	struct cpu *c = this_cpu();
	/* Whole slices: the switch re-armed the timer for a full slice, so a
	 * tick that fired while it ran (and arrives now) is stale: ignore it. */
	if (READ_ONCE(timer_whole_slices) && apic_timer_remaining())
		return;
	c->timer_ticks++;
	if (c->current != c->idle && READ_ONCE(c->rq.nr) && READ_ONCE(timer_preempt)) {
		c->need_resched = true;
		user_preempts[c->id] += c->current->user;
	}
	apic_timer_arm(next_tick_ns(c));
}

void cpu_start_timer(void)
{
	apic_timer_arm(tick_ns);
}

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
	kprintf(FPULAB_RECORD_PREFIX FPULAB_REC_HELLO
		" version=%d cpus=%u apic=%s insn=%s xcr0=0x%lx kernel_size=%u user_size=%u"
		" tsc_khz=%lu policies=%s test_policies=%s\n",
		FPULAB_ABI_VERSION, ncpus, apic_x2 ? "x2apic" : "xapic",
		fpu_insn_name(xstate_cfg.save_insn), xstate_cfg.xcr0, xstate_cfg.kernel_size,
		xstate_cfg.user_size, tsc_khz, policies, test_policies[0] ? test_policies : "-");
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
	say_hello();

	cpu_start_timer();
	task_create_kthread("control", experiment_main, NULL, 0);
	idle_loop();
}
