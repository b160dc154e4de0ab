/* SPDX-License-Identifier: MIT */
/* cli/host/host_cpu.c and cli/host/host_regs.S: register images survive the runner, a
 * change is found and named, a failing syscall step is reported; cli/common/cpu_model.c:
 * the CPUID brand string is the model Linux shows. */
#include <cpuid.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/cpu_model.h"
#include "host/host_cpu.h"
#include <fpu/xstate.h>

static struct host_regs fill, dump;

static void test_fill_nonzero_unique(void **state)
{
	struct host_regs other;
	static const uint8_t zero[64];

	host_regs_fill(&fill, 1);
	host_regs_fill(&other, 2);
	for (int i = 0; i < 32; i++) {
		for (int l = 0; l < 8; l++)
			assert_memory_not_equal(fill.zmm[i] + 8 * l, zero, 8);
		assert_memory_not_equal(fill.zmm[i], other.zmm[i], 64);
	}
	for (int i = 0; i < 8; i++) {
		assert_int_not_equal(fill.k[i], 0);
		assert_memory_not_equal(fill.st[i], other.st[i], 10);
	}
	assert_int_equal(host_regs_diff(HOST_REGSET_AVX512, &fill, &other, NULL), 8 + 32 + 8);
}

/* Every set the host offers comes back intact across a getpid() and a
 * sched_yield(), with its components in use. */
static void test_run_roundtrip(void **state)
{
	struct host_cpu cpu;
	struct host_step steps[] = {
		{ .kind = HOST_STEP_SYSCALL, .nr = SYS_getpid, .expect = getpid() },
		{ .kind = HOST_STEP_SPIN, .arg = { 100 } },
		{ .kind = HOST_STEP_SYSCALL, .nr = SYS_sched_yield, .expect = 0 },
		{ .kind = HOST_STEP_END },
	};
	int tried = 0;

	host_cpu_probe(&cpu);
	for (int s = HOST_REGSET_X87; s < HOST_REGSET_NR; s++) {
		struct host_run r = { .regset = (uint64_t)s,
				      .fill = &fill,
				      .dump = &dump,
				      .steps = steps,
				      .xgetbv1 = cpu.xgetbv1 };
		struct host_mismatch m;
		if (!cpu.regset_ok[s])
			continue;
		tried++;
		host_regs_fill(&fill, 100 + (uint64_t)s);
		memset(&dump, 0, sizeof(dump));
		assert_int_equal(host_regs_run(&r), 0);
		assert_int_equal(host_regs_diff(s, &fill, &dump, &m), 0);
		if (cpu.xgetbv1)
			assert_int_equal(dump.xinuse & host_regset_mask(s), host_regset_mask(s));
	}
	assert_true(tried >= 2); /* x87 and SSE always */
}

static void test_diff_names_register(void **state)
{
	struct host_mismatch m;

	host_regs_fill(&fill, 7);
	dump = fill;
	dump.zmm[17][42] ^= 0x10; /* lane 5 of ZMM17 */
	assert_int_equal(host_regs_diff(HOST_REGSET_AVX512, &fill, &dump, &m), 1);
	assert_string_equal(m.reg, "zmm17");
	assert_int_equal(m.lane, 5);
	assert_int_equal(m.expected ^ m.found, 0x10ull << 16);
	/* ZMM17 is not in the AVX set: the same change is not its business. */
	assert_int_equal(host_regs_diff(HOST_REGSET_AVX, &fill, &dump, NULL), 0);
	dump = fill;
	dump.k[3] ^= 1;
	assert_int_equal(host_regs_diff(HOST_REGSET_AVX512, &fill, &dump, &m), 1);
	assert_string_equal(m.reg, "k3");
	dump = fill;
	dump.st[6][9] ^= 1;
	assert_int_equal(host_regs_diff(HOST_REGSET_X87, &fill, &dump, &m), 1);
	assert_string_equal(m.reg, "st6");
	assert_int_equal(m.lane, 1);
}

static void test_failing_step(void **state)
{
	struct host_step steps[] = {
		{ .kind = HOST_STEP_SYSCALL, .nr = SYS_getpid, .expect = getpid() },
		{ .kind = HOST_STEP_SYSCALL, .nr = SYS_close, .arg = { 100000 }, .expect = 0 },
		{ .kind = HOST_STEP_END },
	};
	struct host_run r = {
		.regset = HOST_REGSET_SSE, .fill = &fill, .dump = &dump, .steps = steps
	};

	host_regs_fill(&fill, 9);
	assert_int_equal(host_regs_run(&r), 2); /* 1 + index of the close() */
	assert_int_equal(r.sys_ret, -9);        /* -EBADF */
	assert_int_equal(host_regs_diff(HOST_REGSET_SSE, &fill, &dump, NULL), 0);
	steps[1] = (struct host_step){ .kind = HOST_STEP_SYSCALL,
				       .nr = SYS_getppid,
				       .expect = HOST_EXPECT_NONNEG };
	assert_int_equal(host_regs_run(&r), 0);
}

/* The brand leaves 0x80000002-4 as user mode reads them, spaces trimmed. */
static void user_brand(char *out)
{
	uint32_t r[13] = { 0 };
	char *s = (char *)r;

	for (unsigned int i = 0; i < 3; i++)
		__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
	s += strspn(s, " ");
	strcpy(out, s);
	for (size_t n = strlen(out); n && out[n - 1] == ' '; n--)
		out[n - 1] = '\0';
}

/*
 * The brand string is /proc/cpuinfo's "model name": Linux reads the same
 * CPUID leaves. Not always the same answer, though: some hypervisors
 * answer the guest kernel's CPUID and let user mode's run on the level
 * below (seen here: "AMD EPYC" in the kernel, read again through
 * /dev/cpu/0/cpuid, and "Oxide Virtual Turin-like Processor" in user
 * mode). Then cpu_model() must give user mode's.
 */
static void test_cpu_model_is_linux_model_name(void **state)
{
	char model[64], line[512], brand[52], *linux_model = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !linux_model && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			linux_model = strchr(line, ':') + 1;
			linux_model += *linux_model == ' ';
			linux_model[strcspn(linux_model, "\n")] = '\0';
		}
	if (f)
		fclose(f);
	if (!linux_model)
		skip(); /* no procfs, or a CPU Linux names without the brand leaves */
	assert_true(cpu_model(model, sizeof(model)));
	user_brand(brand);
	if (strcmp(brand, linux_model)) /* then user mode's is the answer */
		print_message("  kernel and user CPUID differ: Linux \"%s\", user mode \"%s\"\n",
			      linux_model, brand);
	assert_string_equal(model, brand);
	assert_true(cpu_model(model, 5)); /* cut to fit, NUL-terminated */
	assert_int_equal(strlen(model), 4);
}

/* host_cpu_probe's XCR0 is libfpu's XGETBV(0): x87 and SSE always, on x86-64 Linux. */
static void test_xcr0_from_xgetbv(void **state)
{
	struct host_cpu c;

	host_cpu_probe(&c);
	assert_int_equal(c.xcr0 & 0x3, 0x3);
	assert_int_equal(c.xcr0, xstate_xgetbv(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_nonzero_unique),
		cmocka_unit_test(test_run_roundtrip),
		cmocka_unit_test(test_diff_names_register),
		cmocka_unit_test(test_failing_step),
		cmocka_unit_test(test_cpu_model_is_linux_model_name),
		cmocka_unit_test(test_xcr0_from_xgetbv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
