// SPDX-License-Identifier: MIT
/*
 * The signal-frame helpers (include/fpu/signal.h) on the host: frame layout
 * as Linux's x86-64 frame, save/restore round trips, legacy-only frames,
 * each rejection (and that a rejection changes nothing), fpu_task_reset, and
 * that the CPU's own XRSTOR takes a saved frame as it is.
 * The tasks here are not running: their state is in memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fpu/signal.h>

static unsigned int cpu_id(void)
{
	return 0;
}
static void host_panic(const char *msg)
{
	fail_msg("libfpu panic: %s", msg);
}
static void no_ts(void)
{
}
static const struct fpu_arch_ops ops = {
	.cpu_id = cpu_id, .panic = host_panic, .set_ts = no_ts, .clear_ts = no_ts
};

#define FRAME_MAX (XSTATE_MAX_SIZE + 64)
static uint8_t frame[FRAME_MAX] __attribute__((aligned(64)));
static uint8_t img[XSTATE_MAX_SIZE] __attribute__((aligned(64)));
static uint8_t img2[XSTATE_MAX_SIZE] __attribute__((aligned(64)));
static struct fpu task;

static bool has(unsigned int feature)
{
	return xstate_cfg.xcr0 & XFEATURE_MASK(feature);
}

static int setup(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	assert_int_equal(xstate_init(&o), XSTATE_OK);
	assert_int_equal(fpu_init(&ops), 0);
	return 0;
}

/* A task whose state has FCW, MXCSR, XMM0..15 and (with AVX) YMM_Hi128 set. */
static int task_setup(void **state)
{
	struct xregs_state *buf = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	struct xregs_state *x = (struct xregs_state *)img;

	assert_non_null(buf);
	fpu_task_init(&task, buf, 1);
	assert_int_equal(fpu_export_std(&task, img, sizeof(img)), (int)xstate_cfg.user_size);
	x->legacy.fcw = 0x027f;
	x->legacy.mxcsr = 0x3f80;
	for (unsigned int i = 0; i < 256; i++)
		x->legacy.xmm_space[i] = (uint8_t)(i * 7 + 1);
	x->header.xstate_bv |= XFEATURE_MASK_FPSSE;
	if (has(XFEATURE_YMM)) {
		uint32_t off = xstate_cfg.comp[XFEATURE_YMM].std_offset;
		for (unsigned int i = 0; i < 256; i++)
			img[off + i] = (uint8_t)(i * 13 + 5);
		x->header.xstate_bv |= XFEATURE_MASK(XFEATURE_YMM);
	}
	assert_int_equal(fpu_import_std(&task, img, sizeof(img)), XSTATE_OK);
	return 0;
}

static int task_teardown(void **state)
{
	fpu_task_exit(&task);
	free(task.state);
	return 0;
}

/* The task's state as export gives it. */
static void exported(uint8_t *out)
{
	memset(out, 0, XSTATE_MAX_SIZE);
	assert_int_equal(fpu_export_std(&task, out, XSTATE_MAX_SIZE), (int)xstate_cfg.user_size);
}

static struct fpu_sw_bytes sw_of(const uint8_t *f)
{
	struct fpu_sw_bytes sw;
	memcpy(&sw, f + FPU_SIGFRAME_SW_OFFSET, sizeof(sw));
	return sw;
}

static uint32_t magic2_of(const uint8_t *f)
{
	uint32_t m;
	memcpy(&m, f + xstate_cfg.user_size, sizeof(m));
	return m;
}

static void save_frame(void)
{
	memset(frame, 0xcc, sizeof(frame));
	assert_int_equal(fpu_sigframe_save(&task, frame, sizeof(frame)), (int)fpu_sigframe_size());
}

static void test_size(void **state)
{
	assert_int_equal(fpu_sigframe_size(), xstate_cfg.user_size + 4);
	assert_int_equal(sizeof(struct fpu_sw_bytes), 48);
}

/* The frame: the export image, x87|SSE forced in XSTATE_BV, sw bytes, magic2. */
static void test_save_layout(void **state)
{
	struct xregs_state *f = (struct xregs_state *)frame;

	exported(img);
	save_frame();
	struct fpu_sw_bytes sw = sw_of(frame);
	assert_int_equal(sw.magic1, FPU_SIGFRAME_MAGIC1);
	assert_int_equal(sw.extended_size, xstate_cfg.user_size + 4);
	assert_int_equal(sw.xfeatures, xstate_cfg.xcr0);
	assert_int_equal(sw.xstate_size, xstate_cfg.user_size);
	for (unsigned int i = 0; i < 7; i++)
		assert_int_equal(sw.padding[i], 0);
	assert_int_equal(magic2_of(frame), FPU_SIGFRAME_MAGIC2);
	assert_int_equal(frame[xstate_cfg.user_size + 4], 0xcc); /* nothing written past it */
	assert_memory_equal(frame, img, FPU_SIGFRAME_SW_OFFSET);
	assert_int_equal(f->header.xstate_bv,
			 ((struct xregs_state *)img)->header.xstate_bv | XFEATURE_MASK_FPSSE);
	assert_memory_equal(frame + 520, img + 520, xstate_cfg.user_size - 520);
	assert_int_equal(f->legacy.fcw, 0x027f);
	assert_int_equal(f->legacy.mxcsr, 0x3f80);
}

/* Even a task in init state gets x87|SSE in XSTATE_BV, as Linux's frames. */
static void test_save_init_task_sets_fpsse(void **state)
{
	fpu_task_reset(&task);
	save_frame();
	assert_int_equal(((struct xregs_state *)frame)->header.xstate_bv & ~XFEATURE_MASK_FPSSE, 0);
	assert_int_equal(((struct xregs_state *)frame)->header.xstate_bv & XFEATURE_MASK_FPSSE,
			 XFEATURE_MASK_FPSSE);
	assert_int_equal(((struct xregs_state *)frame)->legacy.fcw, FCW_DEFAULT);
}

/* A handler edits FCW, MXCSR, an XMM and a YMM upper half; sigreturn takes them all. */
static void test_round_trip_with_edits(void **state)
{
	struct xregs_state *f = (struct xregs_state *)frame;

	save_frame();
	f->legacy.fcw = 0x0b7f;
	f->legacy.mxcsr = 0x5f80;
	f->legacy.xmm_space[16 * 3 + 2] ^= 0xff;
	if (has(XFEATURE_YMM))
		frame[xstate_cfg.comp[XFEATURE_YMM].std_offset + 16 * 5 + 9] ^= 0xff;
	memcpy(img2, frame, xstate_cfg.user_size);
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	exported(img);
	assert_int_equal(((struct xregs_state *)img)->legacy.fcw, 0x0b7f);
	assert_int_equal(((struct xregs_state *)img)->legacy.mxcsr, 0x5f80);
	assert_memory_equal(img, img2, FPU_SIGFRAME_SW_OFFSET);
	assert_memory_equal(img + 576, img2 + 576, xstate_cfg.user_size - 576);
}

/* Unchanged frame: the state is exactly what it was. */
static void test_round_trip_identity(void **state)
{
	uint8_t before[XSTATE_MAX_SIZE];

	exported(before);
	save_frame();
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	exported(img);
	assert_memory_equal(before, img, xstate_cfg.user_size);
}

/* The frame's xfeatures is the RFBM of sigreturn: components outside it come back init. */
static void test_xfeatures_limits_restore(void **state)
{
	struct fpu_sw_bytes sw;

	if (!has(XFEATURE_YMM))
		skip();
	save_frame();
	sw = sw_of(frame);
	sw.xfeatures = XFEATURE_MASK_FPSSE;
	memcpy(frame + FPU_SIGFRAME_SW_OFFSET, &sw, sizeof(sw));
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	exported(img);
	assert_int_equal(
		((struct xregs_state *)img)->header.xstate_bv & XFEATURE_MASK(XFEATURE_YMM), 0);
	assert_int_equal(((struct xregs_state *)img)->legacy.fcw, 0x027f);
	for (unsigned int i = 0; i < 256; i++)
		assert_int_equal(img[xstate_cfg.comp[XFEATURE_YMM].std_offset + i], 0);
}

/* Each way a frame fails to describe itself makes it legacy-only. */
enum spoil { NO_MAGIC1, BAD_MAGIC2, SIZE_SMALL, SIZE_BIG, SIZE_OVER_EXTENDED, NO_ROOM, NR_SPOIL };

static void spoil(enum spoil how, size_t *len)
{
	struct fpu_sw_bytes sw = sw_of(frame);
	uint32_t zero = 0;

	*len = fpu_sigframe_size();
	switch (how) {
	case NO_MAGIC1:
		memset(frame + FPU_SIGFRAME_SW_OFFSET, 0, sizeof(sw));
		return;
	case BAD_MAGIC2:
		memcpy(frame + xstate_cfg.user_size, &zero, 4);
		return;
	case SIZE_SMALL:
		sw.xstate_size = 575;
		break;
	case SIZE_BIG:
		sw.xstate_size = xstate_cfg.user_size + 64;
		sw.extended_size = sw.xstate_size + 4;
		break;
	case SIZE_OVER_EXTENDED:
		sw.extended_size = sw.xstate_size - 1;
		break;
	case NO_ROOM:
		*len = xstate_cfg.user_size + 3; /* magic2 would lie past the frame */
		return;
	default:
		break;
	}
	memcpy(frame + FPU_SIGFRAME_SW_OFFSET, &sw, sizeof(sw));
}

static void test_legacy_only_frames(void **state)
{
	for (int how = 0; how < NR_SPOIL; how++) {
		struct xregs_state *f = (struct xregs_state *)frame;
		size_t len;

		task_setup(state);
		save_frame();
		f->legacy.fcw = 0x0f7f;
		f->legacy.mxcsr = 0x1fc0;
		f->legacy.xmm_space[0] = 0x5a;
		memcpy(img2, frame, 464);
		spoil((enum spoil)how, &len);
		assert_int_equal(fpu_sigframe_restore(&task, frame, len), XSTATE_OK);
		exported(img);
		struct xregs_state *x = (struct xregs_state *)img;
		/* x87 and SSE from the FXSAVE area, every other component init. */
		assert_memory_equal(img, img2, 24);
		assert_int_equal(x->legacy.mxcsr, 0x1fc0);
		assert_memory_equal(img + 32, img2 + 32, 464 - 32);
		assert_int_equal(x->header.xstate_bv & ~XFEATURE_MASK_FPSSE, 0);
		for (unsigned int i = 576; i < xstate_cfg.user_size; i++)
			if (img[i])
				fail_msg(
					"spoil %d: byte %u of the extended region is %#x, not init",
					how, i, img[i]);
		task_teardown(state);
	}
}

/* A legacy FXSAVE image alone (512 bytes, e.g. from an old kernel) is legacy-only too. */
static void test_legacy_512_bytes(void **state)
{
	save_frame();
	memset(frame + FPU_SIGFRAME_SW_OFFSET, 0, 48);
	assert_int_equal(fpu_sigframe_restore(&task, frame, 512), XSTATE_OK);
	exported(img);
	assert_int_equal(((struct xregs_state *)img)->legacy.fcw, 0x027f);
	assert_int_equal(((struct xregs_state *)img)->header.xstate_bv & ~XFEATURE_MASK_FPSSE, 0);
}

/* A rejected frame changes nothing. */
static void expect_reject(const void *f, size_t len, int want)
{
	uint8_t before[XSTATE_MAX_SIZE], after[XSTATE_MAX_SIZE];

	exported(before);
	assert_int_equal(fpu_sigframe_restore(&task, f, len), want);
	exported(after);
	assert_memory_equal(before, after, xstate_cfg.user_size);
}

static void test_rejections(void **state)
{
	struct xregs_state *f = (struct xregs_state *)frame;
	size_t n = fpu_sigframe_size();

	assert_int_equal(fpu_sigframe_restore(NULL, frame, n), XSTATE_E_INVAL);
	expect_reject(NULL, n, XSTATE_E_INVAL);
	save_frame();
	expect_reject(frame + 16, n, XSTATE_E_ALIGN);
	expect_reject(frame, 511, XSTATE_E_SHORT);

	save_frame();
	f->header.xstate_bv |= 1ULL << 62;
	expect_reject(frame, n, XSTATE_E_XSTATE_BV);
	save_frame();
	f->header.xcomp_bv = XCOMP_BV_COMPACTED | xstate_cfg.xcr0;
	expect_reject(frame, n, XSTATE_E_XCOMP_BV);
	save_frame();
	f->header.reserved[2] = 1;
	expect_reject(frame, n, XSTATE_E_RESERVED);
	save_frame();
	f->legacy.mxcsr = 0xffffffff;
	expect_reject(frame, n, XSTATE_E_MXCSR);
	/* Legacy-only, and FXRSTOR would #GP on MXCSR. */
	save_frame();
	f->legacy.mxcsr = 1u << 31;
	memset(frame + FPU_SIGFRAME_SW_OFFSET, 0, 48);
	expect_reject(frame, n, XSTATE_E_MXCSR);
	/* The image is only xstate_size long: XSTATE_BV naming more is short. */
	if (has(XFEATURE_YMM)) {
		struct fpu_sw_bytes sw;
		uint32_t m2 = FPU_SIGFRAME_MAGIC2;
		save_frame();
		sw = sw_of(frame);
		sw.xstate_size = 576;
		memcpy(frame + FPU_SIGFRAME_SW_OFFSET, &sw, sizeof(sw));
		memcpy(frame + 576, &m2, 4);
		f->header.xstate_bv |= XFEATURE_MASK(XFEATURE_YMM);
		expect_reject(frame, n, XSTATE_E_SHORT);
	}
}

static void test_save_rejections(void **state)
{
	assert_int_equal(fpu_sigframe_save(NULL, frame, sizeof(frame)), XSTATE_E_INVAL);
	assert_int_equal(fpu_sigframe_save(&task, NULL, sizeof(frame)), XSTATE_E_INVAL);
	assert_int_equal(fpu_sigframe_save(&task, frame + 8, sizeof(frame) - 8), XSTATE_E_ALIGN);
	assert_int_equal(fpu_sigframe_save(&task, frame, fpu_sigframe_size() - 1), XSTATE_E_SHORT);
}

static void test_task_reset(void **state)
{
	struct xregs_state *x = (struct xregs_state *)img;

	fpu_task_reset(&task);
	exported(img);
	assert_int_equal(x->legacy.fcw, FCW_DEFAULT);
	assert_int_equal(x->legacy.mxcsr, MXCSR_DEFAULT);
	assert_int_equal(x->header.xstate_bv, 0);
	for (unsigned int i = 32; i < 464; i++)
		assert_int_equal(img[i], 0);
	for (unsigned int i = 576; i < xstate_cfg.user_size; i++)
		assert_int_equal(img[i], 0);
}

/* The CPU takes a saved frame as it is: XRSTOR of the frame's image does not fault. */
static void test_cpu_takes_the_frame(void **state)
{
	static uint8_t own[XSTATE_MAX_SIZE] __attribute__((aligned(64)));

	if (xstate_cfg.save_insn == FPU_INSN_FXSAVE)
		skip();
	save_frame();
	memset(own, 0, sizeof(own));
	xstate_save_insn(FPU_INSN_XSAVE, (struct xregs_state *)own, xstate_cfg.xcr0);
	xstate_restore_insn(FPU_INSN_XSAVE, (const struct xregs_state *)frame, xstate_cfg.xcr0);
	uint16_t fcw;
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
	xstate_restore_insn(FPU_INSN_XSAVE, (const struct xregs_state *)own, xstate_cfg.xcr0);
	assert_int_equal(fcw, 0x027f);
}

/* Both flags in /proc/cpuinfo: the CPU has protection keys and the OS set CR4.PKE. */
static bool host_has_ospke(void)
{
	char line[8192];
	bool pku = false, ospke = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			pku = strstr(line, " pku ") || strstr(line, " pku\n");
			ospke = strstr(line, " ospke ") || strstr(line, " ospke\n");
			break;
		}
	fclose(f);
	return pku && ospke;
}

/*
 * PKRU in frames, on real hardware: the frame carries the task's PKRU with
 * XSTATE_BV[9] set; sigreturn takes it back, or 0 (init) when the bit is clear.
 * Values keep key 0 usable (bits 1:0 clear): the test's own pages have key 0.
 */
static void test_pkru_in_frames_hardware(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER,
				      .insn = FPU_INSN_AUTO,
				      .pkru = true };
	struct xregs_state *f = (struct xregs_state *)frame;
	uint32_t v;

	if (!host_has_ospke()) {
		print_message("    skipped: this host lacks pku and ospke in /proc/cpuinfo "
			      "(PKRU is tested through the fake kernel in test_guarantees)\n");
		skip();
	}
	assert_int_equal(xstate_init(&o), XSTATE_OK);
	assert_true(xstate_cfg.pkru);
	assert_true(xstate_cfg.xcr0 & XFEATURE_MASK_PKRU);
	task_setup(state);
	uint32_t off = xstate_cfg.comp[XFEATURE_PKRU].std_offset;
	fpu_set_pkru(&task, 0x55555554);
	save_frame();
	memcpy(&v, frame + off, 4);
	assert_int_equal(v, 0x55555554);
	assert_true(f->header.xstate_bv & XFEATURE_MASK_PKRU);
	v = 0x4;
	memcpy(frame + off, &v, 4);
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	assert_int_equal(fpu_get_pkru(&task), 0x4);
	f->header.xstate_bv &= ~XFEATURE_MASK_PKRU;
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	assert_int_equal(fpu_get_pkru(&task), 0);
	task_teardown(state);
	o.pkru = false;
	assert_int_equal(xstate_init(&o), XSTATE_OK);
}

/*
 * PKRU without PKU hardware: a fake PKRU component (XSAVE format, PKRU right
 * after the last enabled component) on a task that never runs, so nothing
 * but libfpu's C code sees it (no XSAVE or XRSTOR of the faked mask runs).
 */
static void fake_pkru_begin(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_XSAVE };
	uint32_t off;

	assert_int_equal(xstate_init(&o), XSTATE_OK);
	off = (xstate_cfg.user_size + 63) & ~63u;
	xstate_cfg.comp[XFEATURE_PKRU] = (struct xstate_component){ .size = 8, .std_offset = off };
	xstate_cfg.xcr0 |= XFEATURE_MASK_PKRU;
	xstate_cfg.kernel_mask |= XFEATURE_MASK_PKRU;
	xstate_cfg.user_size = off + 8;
	xstate_cfg.kernel_size = off + 8;
	xstate_cfg.pkru = true;
	xstate_cfg.pkru_offset = off;
	task_setup(state);
}

static void fake_pkru_end(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };

	task_teardown(state);
	assert_int_equal(xstate_init(&o), XSTATE_OK);
}

static uint32_t frame_pkru(const uint8_t *f)
{
	uint32_t v;
	memcpy(&v, f + xstate_cfg.comp[XFEATURE_PKRU].std_offset, 4);
	return v;
}

static void set_frame_pkru(uint8_t *f, uint32_t v)
{
	memcpy(f + xstate_cfg.comp[XFEATURE_PKRU].std_offset, &v, 4);
}

/*
 * Linux's PKRU fixes, on libfpu's frames and ptrace images:
 * - "x86/pkeys: Ensure updated PKRU value is XRSTOR'd" (ae6012d72fa6): a
 *   frame of a task whose PKRU is 0 (init) must still have XSTATE_BV[9] set,
 *   or XRSTOR of the frame ignores the value the handler writes there;
 * - "x86/fpu: Emulate XRSTOR's behavior if the xfeatures PKRU bit is not set"
 *   (Kyle Huey, Fixes e84ba47e313d) and "x86/pkru: Write hardware init value
 *   to PKRU when xstate is init" (510b80a6a0f1): XSTATE_BV[9] clear means
 *   PKRU 0, not a default and not the old value;
 * - "x86/fpu: Allow PKRU to be (once again) written by ptrace" (Kyle Huey):
 *   an imported image's PKRU is the task's PKRU.
 */
static void test_pkru_linux_fixes_fake(void **state)
{
	struct xregs_state *f = (struct xregs_state *)frame;

	fake_pkru_begin(state);
	fpu_set_pkru(&task, 0);
	save_frame();
	assert_true(f->header.xstate_bv & XFEATURE_MASK_PKRU);
	assert_int_equal(frame_pkru(frame), 0);
	set_frame_pkru(frame, 0x0c); /* the handler's edit */
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	assert_int_equal(fpu_get_pkru(&task), 0x0c);
	/* the kernel buffer's copy is the task's, with its bit set */
	assert_int_equal(frame_pkru((uint8_t *)task.state), 0x0c);
	assert_true(task.state->header.xstate_bv & XFEATURE_MASK_PKRU);

	save_frame();
	assert_int_equal(frame_pkru(frame), 0x0c);
	f->header.xstate_bv &= ~XFEATURE_MASK_PKRU;
	set_frame_pkru(frame, 0x30); /* ignored: the bit is clear */
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	assert_int_equal(fpu_get_pkru(&task), 0);

	/* ptrace SETREGSET: the image's PKRU is taken */
	exported(img);
	assert_true(((struct xregs_state *)img)->header.xstate_bv & XFEATURE_MASK_PKRU);
	set_frame_pkru(img, 0x44);
	assert_int_equal(fpu_import_std(&task, img, xstate_cfg.user_size), XSTATE_OK);
	assert_int_equal(fpu_get_pkru(&task), 0x44);
	exported(img);
	assert_int_equal(frame_pkru(img), 0x44);
	fake_pkru_end(state);
}

/*
 * A frame whose xfeatures lacks PKRU, or a legacy-only frame: Linux (5.14+,
 * signal.c __restore_fpregs_from_user) XRSTORs init_fpstate for
 * user_xfeatures & ~xrestore, PKRU included, and init_fpstate's PKRU is init
 * since "x86/pkeys: Revert a5eff7259790" (before: the restrictive default):
 * PKRU 0. libfpu: 0 (fpu_pkru_import, signal.h "PKRU included").
 */
static void test_pkru_init_when_frame_omits_it_fake(void **state)
{
	struct fpu_sw_bytes sw;

	fake_pkru_begin(state);
	fpu_set_pkru(&task, 0x0c);
	save_frame();
	sw = sw_of(frame);
	sw.xfeatures &= ~XFEATURE_MASK_PKRU;
	memcpy(frame + FPU_SIGFRAME_SW_OFFSET, &sw, sizeof(sw));
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	uint32_t after_rfbm = fpu_get_pkru(&task);
	fpu_set_pkru(&task, 0x0c);
	save_frame();
	memset(frame + FPU_SIGFRAME_SW_OFFSET, 0, sizeof(sw)); /* legacy-only */
	assert_int_equal(fpu_sigframe_restore(&task, frame, fpu_sigframe_size()), XSTATE_OK);
	uint32_t after_legacy = fpu_get_pkru(&task);
	fake_pkru_end(state);
	assert_int_equal(after_rfbm, 0);
	assert_int_equal(after_legacy, 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, task_setup, task_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		T(test_save_layout),
		T(test_save_init_task_sets_fpsse),
		T(test_round_trip_with_edits),
		T(test_round_trip_identity),
		T(test_xfeatures_limits_restore),
		cmocka_unit_test(test_legacy_only_frames),
		T(test_legacy_512_bytes),
		T(test_rejections),
		T(test_save_rejections),
		T(test_task_reset),
		T(test_cpu_takes_the_frame),
		cmocka_unit_test(test_pkru_in_frames_hardware),
		cmocka_unit_test(test_pkru_linux_fixes_fake),
		cmocka_unit_test(test_pkru_init_when_frame_omits_it_fake),
	};
	return cmocka_run_group_tests_name("libfpu signal frames (host)", tests, setup, NULL);
}
