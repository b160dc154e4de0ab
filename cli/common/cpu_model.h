/* SPDX-License-Identifier: MIT */
/*
 * The host CPU's model, from one source for every output: the CPUID brand
 * string (leaves 0x80000002..4, SDM Vol. 2A CPUID). Linux's /proc/cpuinfo
 * "model name" is its copy of the same string (arch/x86/kernel/cpu/common.c,
 * get_model_name()), so reading the CPU itself gives the same text without a
 * file to open and parse, also where procfs is absent or faked.
 */
#ifndef FPULAB_CLI_COMMON_CPU_MODEL_H
#define FPULAB_CLI_COMMON_CPU_MODEL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * cpu_model - the brand string, without its leading and trailing spaces,
 * into @buf (@len bytes, at least 1; 49 hold any). Returns false, with
 * "unknown" in @buf, when the CPU has no brand-string leaves.
 */
bool cpu_model(char *buf, size_t len);

/*
 * xcr0_text - "XCR0 0xe7" into @buf (@len bytes; 64 hold any), the OS's
 * XCR0 (XGETBV(0)); where it enables components libfpu leaves out (AMX's
 * tile state, which Linux grants a process only on arch_prctl(ARCH_REQ_XCOMP_PERM),
 * SDM Vol. 1 §13.14), "XCR0 0x600e7, libfpu's 0xe7". After xstate_init() in
 * user mode. Returns @buf.
 */
const char *xcr0_text(char *buf, size_t len);

#endif
