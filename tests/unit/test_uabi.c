/* SPDX-License-Identifier: MIT */
/* Standard-format export/import: conversion from and to every kernel format,
 * every rejection class, and the hardware's own #GP as the judge. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fpu/xstate.h>
#include "xregs.h"

static struct xregs A, refA, got;
static uint8_t *ubuf, *ubuf2;
static struct xregs_state *kbuf, *kbuf2;

static int setup(void **state)
{
	ubuf = aligned_alloc(64, XSTATE_MAX_SIZE);
	ubuf2 = aligned_alloc(64, XSTATE_MAX_SIZE);
	kbuf = aligned_alloc(64, XSTATE_MAX_SIZE);
	kbuf2 = aligned_alloc(64, XSTATE_MAX_SIZE);
	xregs_fill(&A, 3);
	return 0;
}

static int teardown(void **state)
{
	free(ubuf);
	free(ubuf2);
	free(kbuf);
	free(kbuf2);
	return 0;
}

static bool user_init(enum fpu_save_insn insn)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = insn };
	return xstate_init(&o) == XSTATE_OK;
}

/* ---- does the CPU's XRSTOR fault on this standard-format image? ---- */
static sigjmp_buf fault_jmp;
static volatile sig_atomic_t faulted;

static void on_fault(int sig)
{
	faulted = 1;
	siglongjmp(fault_jmp, 1);
}

static bool hw_xrstor_faults(const void *img, size_t len)
{
	static uint8_t save[XSTATE_MAX_SIZE] __attribute__((aligned(64)));
	static uint8_t area[XSTATE_MAX_SIZE] __attribute__((aligned(64)));
	struct sigaction sa = { .sa_handler = on_fault }, old;
	/* #GP for XSTATE_BV bits outside XCR0 does not depend on RFBM; keep AMX (XFD) out. */
	uint64_t m = xstate_cfg.xcr0;

	memset(area, 0, sizeof(area));
	memcpy(area, img, len < sizeof(area) ? len : sizeof(area));
	sigaction(SIGSEGV, &sa, &old);
	faulted = 0;
	__asm__ volatile("xsave64 %0"
			 : "+m"(save)
			 : "a"((uint32_t)m), "d"((uint32_t)(m >> 32))
			 : "memory");
	if (!sigsetjmp(fault_jmp, 1))
		__asm__ volatile("xrstor64 %0"
				 :
				 : "m"(area), "a"((uint32_t)m), "d"((uint32_t)(m >> 32))
				 : "memory");
	__asm__ volatile("xrstor64 %0"
			 :
			 : "m"(save), "a"((uint32_t)m), "d"((uint32_t)(m >> 32))
			 : "memory");
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

/* A valid standard image of A's registers, made by the CPU's own XSAVE. */
static void make_std_image(uint8_t *img)
{
	memset(img, 0, XSTATE_MAX_SIZE);
	xregs_load(&A, xstate_cfg.xcr0);
	xstate_save_insn(FPU_INSN_XSAVE, (struct xregs_state *)img, xstate_cfg.xcr0);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}
static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* export(kernel buffer of @insn) equals the CPU's own standard image; import brings the registers back. */
static void convert(enum fpu_save_insn insn)
{
	if (!user_init(insn))
		skip();
	uint64_t mask = xstate_cfg.xcr0;
	uint32_t us = xstate_cfg.user_size;

	xregs_load(&A, mask);
	xregs_read(&refA, mask);
	make_std_image(ubuf2);
	xstate_init_buffer(kbuf);
	xregs_load(&A, mask);
	xstate_save(kbuf, mask);

	memset(ubuf, 0xcc, XSTATE_MAX_SIZE);
	assert_int_equal(xstate_export_std(ubuf, us, kbuf), (int)us);
	assert_int_equal(ubuf[us], 0xcc);
	assert_int_equal(get64(ubuf + 512),
			 insn == FPU_INSN_FXSAVE ? XFEATURE_MASK_FPSSE : get64(ubuf2 + 512));
	for (unsigned i = 520; i < 576; i++)
		assert_int_equal(ubuf[i], 0);
	for (unsigned i = 464; i < 512; i++)
		assert_int_equal(ubuf[i], 0);
	assert_memory_equal(ubuf, ubuf2, 24); /* FCW..FDP */
	assert_int_equal(get64(ubuf + 24) & 0xffffffff, A.mxcsr);
	assert_memory_equal(ubuf + 32, ubuf2 + 32, 464 - 32); /* ST, XMM */
	for (unsigned i = 2; i < 63; i++)
		if (mask & XFEATURE_MASK(i))
			assert_memory_equal(ubuf + xstate_cfg.comp[i].std_offset,
					    ubuf2 + xstate_cfg.comp[i].std_offset,
					    xstate_cfg.comp[i].size);
	assert_false(hw_xrstor_faults(ubuf, us));

	/* Import into a fresh kernel buffer and restore: A's registers come back. */
	xstate_init_buffer(kbuf2);
	assert_int_equal(xstate_import_std(kbuf2, ubuf, us), XSTATE_OK);
	if (insn != FPU_INSN_FXSAVE)
		assert_int_equal(kbuf2->header.xcomp_bv,
				 xstate_cfg.compacted ? (mask | XCOMP_BV_COMPACTED) : 0);
	xstate_load_init();
	xstate_restore(kbuf2, mask);
	xregs_read(&got, mask);
	int n, w;
	xregs_shape(mask, &n, &w);
	assert_int_equal(xregs_x87_cmp(&got, &refA), 0);
	assert_int_equal(got.mxcsr, refA.mxcsr);
	for (int i = 0; i < n; i++)
		assert_memory_equal(got.zmm[i], refA.zmm[i], w);
}

static void test_convert_fxsave(void **state)
{
	convert(FPU_INSN_FXSAVE);
}
static void test_convert_xsave(void **state)
{
	convert(FPU_INSN_XSAVE);
}
static void test_convert_xsaveopt(void **state)
{
	convert(FPU_INSN_XSAVEOPT);
}
static void test_convert_xsavec(void **state)
{
	convert(FPU_INSN_XSAVEC);
}

/* Init components are exported with init values and XSTATE_BV says so. */
static void test_export_init(void **state)
{
	if (!user_init(FPU_INSN_AUTO))
		skip();
	uint32_t us = xstate_cfg.user_size;

	xstate_init_buffer(kbuf);
	memset(ubuf, 0xcc, XSTATE_MAX_SIZE);
	assert_int_equal(xstate_export_std(ubuf, us, kbuf), (int)us);
	assert_int_equal(get64(ubuf + 512), 0);
	assert_int_equal(ubuf[0] | ubuf[1] << 8, FCW_DEFAULT);
	assert_int_equal(get64(ubuf + 24),
			 MXCSR_DEFAULT | (uint64_t)xstate_cfg.caps.mxcsr_mask << 32);
	for (unsigned i = 2; i < us; i++)
		if (i < 24 || i >= 32)
			assert_int_equal(ubuf[i], 0);

	/* A compacted buffer whose YMM is init but whose memory holds garbage exports zeros. */
	if (xstate_cfg.compacted && (xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM))) {
		uint32_t off = xstate_offset(XFEATURE_YMM, true, kbuf->header.xcomp_bv);
		memset((uint8_t *)kbuf + off, 0x77, 256);
		memset(kbuf->legacy.st_space, 0x77, 128 + 256);
		assert_int_equal(xstate_export_std(ubuf, us, kbuf), (int)us);
		for (unsigned i = 32; i < us; i++)
			if (i < 464 || i >= 512)
				assert_int_equal(ubuf[i], 0);
	}
	assert_int_equal(xstate_export_std(ubuf, us - 1, kbuf), XSTATE_E_SHORT);
	assert_int_equal(xstate_export_std(NULL, us, kbuf), XSTATE_E_INVAL);
}

/* Reject @img with @err, leave kbuf untouched, and (when @hw) check the CPU agrees it is bad. */
static void expect_reject(const uint8_t *img, size_t len, int err, bool hw)
{
	memset(kbuf, 0x3c, XSTATE_MAX_SIZE);
	memcpy(kbuf2, kbuf, XSTATE_MAX_SIZE);
	assert_int_equal(xstate_import_std(kbuf, img, len), err);
	assert_memory_equal(kbuf, kbuf2, XSTATE_MAX_SIZE);
	if (hw)
		assert_true(hw_xrstor_faults(img, len));
}

static void test_import_valid_image_accepted(void **state)
{
	assert_true(user_init(FPU_INSN_AUTO));
	make_std_image(ubuf);
	assert_false(hw_xrstor_faults(ubuf, xstate_cfg.user_size));
	xstate_init_buffer(kbuf);
	assert_int_equal(xstate_import_std(kbuf, ubuf, xstate_cfg.user_size), XSTATE_OK);
	/* Bytes the CPU ignores are ignored: software-available area and MXCSR_MASK. */
	memset(ubuf + 464, 0xff, 48);
	put32(ubuf + 28, 0xffffffff);
	assert_int_equal(xstate_import_std(kbuf, ubuf, xstate_cfg.user_size), XSTATE_OK);
	assert_int_equal(kbuf->legacy.mxcsr_mask, xstate_cfg.caps.mxcsr_mask);
	assert_int_equal(((uint8_t *)kbuf)[470], 0);
	assert_int_equal(xstate_import_std(NULL, ubuf, 4096), XSTATE_E_INVAL);
	assert_int_equal(xstate_import_std(kbuf, NULL, 4096), XSTATE_E_INVAL);
}

static void test_reject_short(void **state)
{
	assert_true(user_init(FPU_INSN_AUTO));
	make_std_image(ubuf);
	put64(ubuf + 512, XFEATURE_MASK_FPSSE);
	expect_reject(ubuf, 575, XSTATE_E_SHORT, false);
	expect_reject(ubuf, 0, XSTATE_E_SHORT, false);
	assert_int_equal(xstate_import_std(kbuf, ubuf, 576), XSTATE_OK);
	if (xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM)) {
		uint64_t bv = XFEATURE_MASK_FPSSE | XFEATURE_MASK(XFEATURE_YMM);
		put64(ubuf + 512, bv);
		expect_reject(ubuf, xstate_size_standard(bv) - 1, XSTATE_E_SHORT, false);
		assert_int_equal(xstate_import_std(kbuf, ubuf, xstate_size_standard(bv)),
				 XSTATE_OK);
	}
}

static void test_reject_xstate_bv(void **state)
{
	assert_true(user_init(FPU_INSN_AUTO));
	uint64_t os = xstate_cfg.caps.xcr0_supported;
	for (unsigned i = 0; i < 64; i++) {
		if (xstate_cfg.xcr0 & XFEATURE_MASK(i))
			continue;
		make_std_image(ubuf);
		put64(ubuf + 512, get64(ubuf + 512) | XFEATURE_MASK(i));
		/* The CPU itself #GPs on bits outside XCR0 (here: outside what CPUID offers). */
		expect_reject(ubuf, XSTATE_MAX_SIZE, XSTATE_E_XSTATE_BV,
			      !(os & XFEATURE_MASK(i)) && i != 63);
	}
	/* Bit 63 in XSTATE_BV. */
	make_std_image(ubuf);
	put64(ubuf + 512, XCOMP_BV_COMPACTED | XFEATURE_MASK_FPSSE);
	expect_reject(ubuf, XSTATE_MAX_SIZE, XSTATE_E_XSTATE_BV, true);
}

static void test_reject_xcomp_bv(void **state)
{
	assert_true(user_init(FPU_INSN_AUTO));
	static const uint64_t vals[] = { 1, XFEATURE_MASK(XFEATURE_YMM), 1ull << 40, 1ull << 62 };
	for (unsigned k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
		make_std_image(ubuf);
		put64(ubuf + 520, vals[k]);
		expect_reject(ubuf, XSTATE_MAX_SIZE, XSTATE_E_XCOMP_BV,
			      true); /* bytes 23:8 must be 0 */
	}
	/* A compacted image offered as standard. */
	make_std_image(ubuf);
	put64(ubuf + 520, xstate_cfg.xcr0 | XCOMP_BV_COMPACTED);
	expect_reject(ubuf, XSTATE_MAX_SIZE, XSTATE_E_XCOMP_BV, false);
}

static void test_reject_reserved(void **state)
{
	assert_true(user_init(FPU_INSN_AUTO));
	for (unsigned byte = 528; byte < 576; byte++) {
		make_std_image(ubuf);
		ubuf[byte] = 0x10;
		/* Bytes 23:16 of the header #GP on the CPU; 63:24 it ignores, we refuse. */
		expect_reject(ubuf, XSTATE_MAX_SIZE, XSTATE_E_RESERVED, byte < 536);
	}
}

static void test_reject_mxcsr(void **state)
{
	assert_true(user_init(FPU_INSN_AUTO));
	uint32_t mm = xstate_cfg.caps.mxcsr_mask;
	int rejected = 0;
	for (unsigned bit = 0; bit < 32; bit++) {
		make_std_image(ubuf);
		put32(ubuf + 24, MXCSR_DEFAULT | (1u << bit));
		if (mm & (1u << bit)) {
			xstate_init_buffer(kbuf);
			assert_int_equal(xstate_import_std(kbuf, ubuf, XSTATE_MAX_SIZE), XSTATE_OK);
			assert_false(hw_xrstor_faults(ubuf, XSTATE_MAX_SIZE));
		} else {
			expect_reject(ubuf, XSTATE_MAX_SIZE, XSTATE_E_MXCSR, true);
			rejected++;
		}
	}
	assert_true(rejected >= 14); /* bits 31:18 are reserved on every CPU */
	/* Even with SSE and AVX in init state: standard XRSTOR still loads MXCSR. */
	make_std_image(ubuf);
	put64(ubuf + 512, XFEATURE_MASK(XFEATURE_X87));
	put32(ubuf + 24, 0x80000000u | MXCSR_DEFAULT);
	expect_reject(ubuf, XSTATE_MAX_SIZE, XSTATE_E_MXCSR, true);
}

/* A non-default MXCSR with XSTATE_BV[1] clear survives import into any format. */
static void test_import_mxcsr_without_sse(void **state)
{
	for (int insn = FPU_INSN_FXSAVE; insn <= FPU_INSN_XSAVEC; insn++) {
		if (!user_init(insn))
			continue;
		memset(ubuf, 0, XSTATE_MAX_SIZE);
		ubuf[0] = 0x7f, ubuf[1] = 0x03;
		put32(ubuf + 24, 0x7f80);
		put64(ubuf + 512, 0);
		xstate_init_buffer(kbuf);
		assert_int_equal(xstate_import_std(kbuf, ubuf, 576), XSTATE_OK);
		xstate_restore(kbuf, xstate_cfg.kernel_mask);
		uint32_t m;
		__asm__ volatile("stmxcsr %0" : "=m"(m));
		xstate_load_init();
		assert_int_equal(m, 0x7f80);
	}
}

/* AMX TILECFG: no CPU here has AMX, so pretend it is enabled (import touches no register). */
static void test_reject_tilecfg(void **state)
{
	assert_true(user_init(FPU_INSN_XSAVE));
	struct xstate_config saved = xstate_cfg;
	uint64_t bv = XFEATURE_MASK_FPSSE | XFEATURE_MASK(XFEATURE_XTILE_CFG);

	xstate_cfg.comp[XFEATURE_XTILE_CFG] = (struct xstate_component){ .size = 64,
									 .std_offset = 2752 };
	xstate_cfg.xcr0 |= XFEATURE_MASK(XFEATURE_XTILE_CFG);
	memset(ubuf, 0, XSTATE_MAX_SIZE);
	ubuf[0] = 0x7f, ubuf[1] = 0x03;
	put32(ubuf + 24, MXCSR_DEFAULT);
	put64(ubuf + 512, bv);
	xstate_init_buffer(kbuf);
	assert_int_equal(xstate_import_std(kbuf, ubuf, 2816), XSTATE_OK); /* palette 0, all zero */
	ubuf[2752] = 2;
	expect_reject(ubuf, 2816, XSTATE_E_COMPONENT, false); /* unknown palette */
	ubuf[2752] = 0, ubuf[2760] = 1;
	expect_reject(ubuf, 2816, XSTATE_E_COMPONENT, false); /* palette 0 with data */
	ubuf[2752] = 1, ubuf[2760] = 0, ubuf[2755] = 1;
	expect_reject(ubuf, 2816, XSTATE_E_COMPONENT, false); /* reserved byte */
	ubuf[2755] = 0, ubuf[2768] = 64, ubuf[2800] = 16;
	xstate_init_buffer(kbuf);
	assert_int_equal(xstate_import_std(kbuf, ubuf, 2816), XSTATE_OK); /* palette 1, tile 0 */
	/* palette 1 names 8 tiles: bytes 32-47 and 56-63 (past tile 7's colsb and rows) reserved */
	static const unsigned int past_tile7[] = { 32, 47, 56, 63 };
	for (unsigned int k = 0; k < 4; k++) {
		ubuf[2752 + past_tile7[k]] = 1;
		expect_reject(ubuf, 2816, XSTATE_E_COMPONENT, false);
		ubuf[2752 + past_tile7[k]] = 0;
	}
	ubuf[2752 + 31] = 1, ubuf[2752 + 55] = 1; /* tile 7's colsb and rows: its own */
	xstate_init_buffer(kbuf);
	assert_int_equal(xstate_import_std(kbuf, ubuf, 2816), XSTATE_OK);
	xstate_cfg = saved;
}

/*
 * Linux "x86/fpu: Fix copy_xstate_to_kernel() gap handling" (b8be15d58806's
 * fix, tglx 2021-06, patch V2 02/52): with a compacted kernel buffer, the
 * export filled components whose XSTATE_BV bit is clear (and the gaps between
 * components) from the wrong place. Here: a compacted buffer full of garbage,
 * every subset of XSTATE_BV over the extended components; the export holds
 * each set component from its compacted offset and zeros everywhere else,
 * and the CPU's own XRSTOR of the kernel buffer then XSAVE agrees with it.
 */
static void test_export_gaps_compacted(void **state)
{
	if (!user_init(FPU_INSN_XSAVEC))
		skip();
	uint64_t ext = xstate_cfg.xcr0 & ~XFEATURE_MASK_FPSSE;
	uint64_t xcomp = xstate_cfg.kernel_mask | XCOMP_BV_COMPACTED;
	uint32_t us = xstate_cfg.user_size;
	unsigned int bits[64], nb = 0;

	for (unsigned int i = 2; i < 63; i++)
		if (ext & XFEATURE_MASK(i))
			bits[nb++] = i;
	for (uint64_t sub = 0; sub < (1ull << nb); sub++) {
		uint64_t bv = XFEATURE_MASK_FPSSE;
		for (unsigned int k = 0; k < nb; k++)
			if (sub & (1ull << k))
				bv |= XFEATURE_MASK(bits[k]);
		for (uint32_t i = 0; i < XSTATE_MAX_SIZE; i++)
			((uint8_t *)kbuf)[i] = (uint8_t)(i * 37 + sub * 11 + 1) | 0x80;
		kbuf->legacy.mxcsr = MXCSR_DEFAULT;
		kbuf->legacy.ftw = 0; /* abridged: all empty, so no garbage NaNs matter */
		memset(&kbuf->header, 0, sizeof(kbuf->header));
		kbuf->header.xstate_bv = bv;
		kbuf->header.xcomp_bv = xcomp;
		memset(ubuf, 0xcc, XSTATE_MAX_SIZE);
		assert_int_equal(xstate_export_std(ubuf, us, kbuf), (int)us);
		assert_int_equal(get64(ubuf + 512), bv);
		for (unsigned int i = 2; i < 63; i++) {
			const struct xstate_component *c = &xstate_cfg.comp[i];
			if (!(xstate_cfg.xcr0 & XFEATURE_MASK(i)))
				continue;
			if (bv & XFEATURE_MASK(i))
				assert_memory_equal(ubuf + c->std_offset,
						    (uint8_t *)kbuf + xstate_offset(i, true, xcomp),
						    c->size);
		}
		/* every byte past the header not inside a set component is zero */
		for (uint32_t b = 576; b < us; b++) {
			bool inside = false;
			for (unsigned int i = 2; i < 63; i++) {
				const struct xstate_component *c = &xstate_cfg.comp[i];
				if ((bv & XFEATURE_MASK(i)) && b >= c->std_offset &&
				    b < c->std_offset + c->size)
					inside = true;
			}
			if (!inside && ubuf[b])
				fail_msg("bv %#llx: byte %u is %#x, not zero",
					 (unsigned long long)bv, b, ubuf[b]);
		}
		for (uint32_t b = 464; b < 512; b++)
			assert_int_equal(ubuf[b], 0);
		assert_false(hw_xrstor_faults(ubuf, us));
		/* The CPU's view of the same kernel buffer: XRSTOR it, XSAVE standard. */
		memset(ubuf2, 0, XSTATE_MAX_SIZE); /* glibc's memset uses vector registers */
		xstate_restore(kbuf, xstate_cfg.kernel_mask);
		xstate_save_insn(FPU_INSN_XSAVE, (struct xregs_state *)ubuf2, xstate_cfg.xcr0);
		xstate_load_init();
		assert_memory_equal(ubuf + 576, ubuf2 + 576, us - 576);
		assert_memory_equal(ubuf + 160, ubuf2 + 160, 256); /* XMM */
	}
}

/*
 * Linux "x86/fpu: Make init_fpstate correct with optimized XSAVE"
 * (f9dfb5e390fa): init_fpstate was captured with XSAVEOPT/XSAVES, whose init
 * optimization skips components in init state, so it kept FCW = MXCSR = 0.
 * libfpu's counterpart: a buffer written by an optimized save while (some)
 * state is in its init state, over stale contents of an earlier save. The
 * export must give the init values, not the stale bytes, and no FCW/MXCSR 0.
 */
static void optimized_save_of_init(enum fpu_save_insn insn)
{
	if (!user_init(insn))
		skip();
	uint64_t mask = xstate_cfg.kernel_mask;
	uint32_t us = xstate_cfg.user_size;
	struct xregs_state *x = (struct xregs_state *)ubuf;

	/* 1: the buffer last held A; the registers are then put in init state. */
	xstate_init_buffer(kbuf);
	xregs_load(&A, mask);
	xstate_save(kbuf, mask);
	xstate_load_init();
	xstate_save(kbuf, mask);
	unsigned int stale = 0;
	for (unsigned int i = 0; i < 256; i++)
		stale += kbuf->legacy.xmm_space[i] != 0;
	print_message("    %s: %u stale XMM bytes left in the buffer by the save of init state, "
		      "FCW in buffer %#x\n",
		      fpu_insn_name(insn), stale, kbuf->legacy.fcw);
	memset(ubuf, 0xcc, XSTATE_MAX_SIZE);
	assert_int_equal(xstate_export_std(ubuf, us, kbuf), (int)us);
	assert_int_equal(x->legacy.fcw, FCW_DEFAULT);
	assert_int_equal(x->legacy.mxcsr, MXCSR_DEFAULT);
	for (uint32_t b = 32; b < us; b++)
		if ((b < 464 || b >= 520) && ubuf[b]) /* 464..511 sw bytes, 512..519 XSTATE_BV */
			fail_msg("%s: byte %u is %#x after a save of the init state",
				 fpu_insn_name(insn), b, ubuf[b]);
	/* 2: XSAVEOPT's modified optimization: XRSTOR from the buffer, the task
	 * itself zeroes its vector registers, then the save into the same buffer. */
	xregs_load(&A, mask);
	xstate_save(kbuf, mask);
	xstate_restore(kbuf, mask);
	__asm__ volatile("vzeroall" ::: "memory");
	xstate_save(kbuf, mask);
	xstate_load_init();
	assert_int_equal(xstate_export_std(ubuf, us, kbuf), (int)us);
	for (unsigned int i = 0; i < 256; i++)
		assert_int_equal(x->legacy.xmm_space[i], 0);
	if (xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM))
		for (unsigned int i = 0; i < 256; i++)
			assert_int_equal(ubuf[xstate_cfg.comp[XFEATURE_YMM].std_offset + i], 0);
	assert_int_equal(x->legacy.mxcsr, A.mxcsr);
}
static void test_optimized_save_of_init_xsaveopt(void **state)
{
	optimized_save_of_init(FPU_INSN_XSAVEOPT);
}
static void test_optimized_save_of_init_xsavec(void **state)
{
	optimized_save_of_init(FPU_INSN_XSAVEC);
}

/*
 * Linux "x86/fpu: Preserve supervisor states in sanitize_restored_user_xstate()"
 * (b71eae26cb25): a legacy-only (fx_only) sigreturn put the task's
 * supervisor states in init state. libfpu: a fake supervisor component (PT,
 * bit 8, after every user component here) in an XSAVEC-format buffer (only
 * C code reads it); every import, full, masked to x87|SSE (a legacy-only
 * frame) or of an all-init image, keeps its data and its XSTATE_BV bit.
 */
static void test_import_keeps_supervisor_state(void **state)
{
	if (!user_init(FPU_INSN_XSAVEC))
		skip();
	struct xstate_config saved = xstate_cfg;
	const uint64_t sup = XFEATURE_MASK(XFEATURE_PT);
	static const uint64_t rfbms[] = { ~0ull, XFEATURE_MASK_FPSSE, XFEATURE_MASK(XFEATURE_X87) };

	if (xstate_cfg.kernel_mask >> XFEATURE_PT) /* a user component after bit 8: skip */
		skip();
	xstate_cfg.comp[XFEATURE_PT] = (struct xstate_component){ .size = 128, .supervisor = true };
	xstate_cfg.xss = sup;
	xstate_cfg.kernel_mask |= sup;
	xstate_cfg.kernel_size = xstate_size_compacted(xstate_cfg.kernel_mask);
	uint64_t xcomp = xstate_cfg.kernel_mask | XCOMP_BV_COMPACTED;
	uint32_t off = xstate_offset(XFEATURE_PT, true, xcomp);
	assert_true(off + 128 <= XSTATE_MAX_SIZE);
	for (unsigned int k = 0; k < 3; k++) {
		for (int img = 0; img < 2; img++) {
			xstate_init_buffer(kbuf);
			memset((uint8_t *)kbuf + off, 0xa5, 128);
			kbuf->header.xstate_bv |= sup;
			memset(ubuf, 0, XSTATE_MAX_SIZE);
			ubuf[0] = 0x7f, ubuf[1] = 0x03;
			put32(ubuf + 24, MXCSR_DEFAULT);
			put64(ubuf + 512, img ? (xstate_cfg.xcr0 & ~sup) : 0);
			assert_int_equal(xstate_import_std_masked(kbuf, ubuf, xstate_cfg.user_size,
								  rfbms[k]),
					 XSTATE_OK);
			assert_true(kbuf->header.xstate_bv & sup);
			assert_int_equal(kbuf->header.xcomp_bv, xcomp);
			for (unsigned int i = 0; i < 128; i++)
				assert_int_equal(((uint8_t *)kbuf)[off + i], 0xa5);
		}
	}
	xstate_cfg = saved;
}

static void test_strerror(void **state)
{
	static const int errs[] = { XSTATE_OK,         XSTATE_E_NOXSAVE,   XSTATE_E_MASK,
				    XSTATE_E_SHORT,    XSTATE_E_XSTATE_BV, XSTATE_E_RESERVED,
				    XSTATE_E_XCOMP_BV, XSTATE_E_MXCSR,     XSTATE_E_ALIGN,
				    XSTATE_E_INVAL,    XSTATE_E_COMPONENT };
	const unsigned n = sizeof(errs) / sizeof(errs[0]);
	for (unsigned i = 0; i < n; i++) {
		assert_string_not_equal(xstate_strerror(errs[i]), "unknown error");
		for (unsigned j = 0; j < i; j++)
			assert_string_not_equal(xstate_strerror(errs[i]), xstate_strerror(errs[j]));
	}
	assert_string_equal(xstate_strerror(-100), "unknown error");
	assert_string_equal(xstate_strerror(XSTATE_E_MXCSR),
			    "MXCSR has reserved bits set (outside MXCSR_MASK)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convert_fxsave),
		cmocka_unit_test(test_convert_xsave),
		cmocka_unit_test(test_convert_xsaveopt),
		cmocka_unit_test(test_convert_xsavec),
		cmocka_unit_test(test_export_init),
		cmocka_unit_test(test_import_valid_image_accepted),
		cmocka_unit_test(test_reject_short),
		cmocka_unit_test(test_reject_xstate_bv),
		cmocka_unit_test(test_reject_xcomp_bv),
		cmocka_unit_test(test_reject_reserved),
		cmocka_unit_test(test_reject_mxcsr),
		cmocka_unit_test(test_import_mxcsr_without_sse),
		cmocka_unit_test(test_reject_tilecfg),
		cmocka_unit_test(test_export_gaps_compacted),
		cmocka_unit_test(test_optimized_save_of_init_xsaveopt),
		cmocka_unit_test(test_optimized_save_of_init_xsavec),
		cmocka_unit_test(test_import_keeps_supervisor_state),
		cmocka_unit_test(test_strerror),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
