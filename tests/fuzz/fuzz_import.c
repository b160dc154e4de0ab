/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the import of untrusted user state, and the engine of
 * the corpus replay.
 *
 * An input is one selector byte and an image. The selector picks the kernel
 * buffer libfpu keeps (FXSAVE, standard XSAVE, standard XSAVEOPT, compacted
 * XSAVEC: each configuration this CPU can have, chosen once with
 * xstate_init() and switched between by copying xstate_cfg) and the path:
 * xstate_import_std() of the image, or fpu_sigframe_restore() of it as a
 * signal frame (magics and sizes checked, else legacy-only).
 *
 * Every accepted image is restored on this CPU: the kernel buffer with the
 * configuration's own restore (FXRSTOR or XRSTOR), and the raw image as the
 * CPU would take it from user memory (XRSTOR with the frame's RFBM, or
 * FXRSTOR of a legacy-only frame). A fault kills the process: libFuzzer
 * reports it. A rejected image must leave the kernel buffer as it was.
 *
 * LLVMFuzzerCustomMutator knows the layout: it sets the selector, XSTATE_BV
 * to subsets of the enabled components, XCOMP_BV and the reserved bytes to
 * zero or one stray bit, MXCSR within or outside MXCSR_MASK, the length to
 * the size XSTATE_BV needs, and the software-reserved bytes and magic2 of a
 * signal frame, each right or spoiled; otherwise libFuzzer's own mutations.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <fpu/signal.h>
#include <fpu/xstate.h>

#include "fuzz_import.h"

enum { CFG_FXSAVE, CFG_XSAVE, CFG_XSAVEOPT, CFG_XSAVEC, NR_CFG };
static const enum fpu_save_insn cfg_insn[NR_CFG] = { FPU_INSN_FXSAVE, FPU_INSN_XSAVE,
						     FPU_INSN_XSAVEOPT, FPU_INSN_XSAVEC };
static struct xstate_config cfgs[NR_CFG], host_cfg;
static int cfg_of[NR_CFG]; /* selector value -> a configuration this CPU has */

static struct xregs_state *kbuf, *kbuf2;
static uint8_t *raw, *own, *user;
static struct fpu task;

static unsigned int cpu_zero(void)
{
	return 0;
}
static void die(const char *msg)
{
	(void)msg;
	__builtin_trap();
}
static void no_ts(void)
{
}
static const struct fpu_arch_ops ops = {
	.cpu_id = cpu_zero, .panic = die, .set_ts = no_ts, .clear_ts = no_ts
};

static void setup(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };

	kbuf = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	kbuf2 = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	raw = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE + 64);
	own = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	user = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	if (!kbuf || !kbuf2 || !raw || !own || !user || fpu_init(&ops))
		abort();
	for (int i = 0; i < NR_CFG; i++) {
		o.insn = cfg_insn[i];
		cfg_of[i] = xstate_init(&o) == XSTATE_OK ? i : CFG_FXSAVE; /* FXSR: always */
		cfgs[i] = xstate_cfg;
	}
	o.insn = FPU_INSN_AUTO;
	if (xstate_init(&o) != XSTATE_OK)
		abort();
	host_cfg = xstate_cfg;
}

/* What fpu_sigframe_restore() takes as an xstate frame (Linux's check_xstate_in_sigframe). */
static bool frame_has_xstate(const uint8_t *f, size_t len, struct fpu_sw_bytes *sw)
{
	uint32_t magic2;

	memcpy(sw, f + FPU_SIGFRAME_SW_OFFSET, sizeof(*sw));
	if (sw->magic1 != FPU_SIGFRAME_MAGIC1 || sw->xstate_size < XSTATE_EXT_OFFSET ||
	    sw->xstate_size > xstate_cfg.user_size || sw->xstate_size > sw->extended_size ||
	    (size_t)sw->xstate_size + 4 > len)
		return false;
	memcpy(&magic2, f + sw->xstate_size, 4);
	return magic2 == FPU_SIGFRAME_MAGIC2;
}

static void ready(void)
{
	static bool done;
	if (!done) {
		setup();
		done = true;
	}
}

/* The CPU's own state around a restore of fuzzed bytes: saved and put back. */
static void save_own(void)
{
	memset(own, 0, XSTATE_MAX_SIZE);
	if (host_cfg.save_insn == FPU_INSN_FXSAVE)
		xstate_save_insn(FPU_INSN_FXSAVE, (struct xregs_state *)own, 0);
	else
		xstate_save_insn(FPU_INSN_XSAVE, (struct xregs_state *)own, host_cfg.xcr0);
}

static void restore_own(void)
{
	if (host_cfg.save_insn == FPU_INSN_FXSAVE)
		xstate_restore_insn(FPU_INSN_FXSAVE, (const struct xregs_state *)own, 0);
	else
		xstate_restore_insn(FPU_INSN_XSAVE, (const struct xregs_state *)own, host_cfg.xcr0);
}

/* The raw bytes as user memory would give them to the CPU: 64-byte aligned. */
static void stage_raw(const uint8_t *data, size_t len)
{
	memset(raw, 0, XSTATE_MAX_SIZE + 64);
	memcpy(raw, data, len < XSTATE_MAX_SIZE + 64 ? len : XSTATE_MAX_SIZE + 64);
}

static int import_path(const uint8_t *data, size_t len)
{
	const struct xstate_config *cfg = &xstate_cfg;
	int err;

	xstate_init_buffer(kbuf);
	memcpy(kbuf2, kbuf, cfg->kernel_size);
	err = xstate_import_std(kbuf, data, len);
	if (err != XSTATE_OK) {
		if (memcmp(kbuf, kbuf2, cfg->kernel_size))
			__builtin_trap(); /* a rejected import wrote the kernel buffer */
		return err;
	}

	/* The CPU must take both the converted buffer and the raw image. */
	stage_raw(data, len);
	save_own();
	xstate_restore(kbuf, cfg->kernel_mask);
	if (cfg->save_insn != FPU_INSN_FXSAVE)
		xstate_restore_insn(FPU_INSN_XSAVE, (const struct xregs_state *)raw, cfg->xcr0);
	restore_own();

	/* Export of what was imported is itself importable, to the same kernel buffer. */
	if (xstate_export_std(user, XSTATE_MAX_SIZE, kbuf) != (int)cfg->user_size)
		__builtin_trap();
	xstate_init_buffer(kbuf2);
	if (xstate_import_std(kbuf2, user, cfg->user_size) != XSTATE_OK)
		__builtin_trap();
	if (memcmp(kbuf, kbuf2, cfg->kernel_size))
		__builtin_trap();
	return err;
}

static int sigframe_path(const uint8_t *data, size_t len)
{
	const struct xstate_config *cfg = &xstate_cfg;
	struct fpu_sw_bytes sw;
	int err;

	fpu_task_init(&task, kbuf, 1);
	memcpy(kbuf2, kbuf, cfg->kernel_size);
	stage_raw(data, len);
	err = fpu_sigframe_restore(&task, raw, len);
	if (err != XSTATE_OK) {
		if (memcmp(kbuf, kbuf2, cfg->kernel_size))
			__builtin_trap(); /* a rejected frame changed the task */
		return err;
	}
	save_own();
	xstate_restore(kbuf, cfg->kernel_mask);
	/* As the CPU would load the frame from the user stack (Linux's sigreturn). */
	if (frame_has_xstate(raw, len, &sw))
		xstate_restore_insn(FPU_INSN_XSAVE, (const struct xregs_state *)raw,
				    sw.xfeatures & cfg->xcr0);
	else
		xstate_restore_insn(FPU_INSN_FXSAVE, (const struct xregs_state *)raw, 0);
	restore_own();
	fpu_task_exit(&task);
	return err;
}

int fuzz_one(unsigned int selector, const uint8_t *data, size_t len)
{
	int err;

	ready();
	xstate_cfg = cfgs[cfg_of[selector % NR_CFG]];
	err = (selector >> 4) & 1 ? sigframe_path(data, len) : import_path(data, len);
	xstate_cfg = host_cfg;
	return err;
}

int fuzz_import_one(const uint8_t *data, size_t len)
{
	ready();
	return import_path(data, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size)
		fuzz_one(data[0], data + 1, size - 1);
	return 0;
}

/* ---- structure-aware mutation (the libFuzzer build only) ---- */
#ifdef FUZZ_LIBFUZZER

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint64_t rng;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static bool one_in(unsigned int n)
{
	return next() % n == 0;
}

static void put32(uint8_t *img, size_t off, uint32_t v)
{
	memcpy(img + off, &v, 4);
}
static void put64(uint8_t *img, size_t off, uint64_t v)
{
	memcpy(img + off, &v, 8);
}

/* A random subset of @mask (x87|SSE often in), now and then one bit more. */
static uint64_t subset(uint64_t mask)
{
	uint64_t v = next() & mask;
	if (one_in(2))
		v |= mask & XFEATURE_MASK_FPSSE;
	if (one_in(16))
		v |= 1ULL << (next() % 64);
	return v;
}

static size_t resize(uint8_t *data, size_t size, size_t want, size_t max)
{
	if (want > max)
		want = max;
	if (want > size)
		memset(data + size, 0, want - size);
	return want;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	const struct xstate_config *cfg;
	uint8_t *img;
	size_t n;

	ready();
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (one_in(3) || max_size < 1 + 600)
		return LLVMFuzzerMutate(data, size, max_size);
	if (size < 1 + XSTATE_EXT_OFFSET)
		size = resize(data, size, 1 + XSTATE_EXT_OFFSET, max_size);
	if (one_in(4))
		data[0] = (uint8_t)next();
	cfg = &cfgs[cfg_of[data[0] % NR_CFG]];
	img = data + 1;
	n = size - 1;

	for (int k = 1 + (int)(next() % 3); k > 0; k--) {
		switch (next() % 9) {
		case 0: /* XSTATE_BV */
			put64(img, XSTATE_HEADER_OFFSET, subset(cfg->xcr0));
			break;
		case 1: /* XCOMP_BV and the reserved bytes: zero, or one stray bit */
			memset(img + XSTATE_HEADER_OFFSET + 8, 0, 56);
			if (one_in(4))
				img[XSTATE_HEADER_OFFSET + 8 + next() % 56] =
					(uint8_t)(1u << (next() % 8));
			break;
		case 2: /* MXCSR */
			put32(img, 24,
			      one_in(4) ? (uint32_t)next()
					: (uint32_t)next() & cfg->caps.mxcsr_mask);
			break;
		case 3: /* x87 control, status and tag */
			put32(img, 0, (uint32_t)next());
			img[4] = (uint8_t)next();
			break;
		case 4: { /* the length XSTATE_BV needs, give or take */
			uint64_t bv;
			memcpy(&bv, img + XSTATE_HEADER_OFFSET, 8);
			size_t want = xstate_size_standard(bv & cfg->xcr0);
			if (one_in(3))
				want = cfg->user_size + FPU_SIGFRAME_MAGIC2_SIZE;
			if (one_in(4))
				want += next() % 9 - 4;
			n = resize(img, n, want, max_size - 1);
			break;
		}
		case 5:
		case 6: { /* a signal frame: software-reserved bytes and magic2 */
			struct fpu_sw_bytes sw = { 0 };
			sw.magic1 = FPU_SIGFRAME_MAGIC1;
			sw.xstate_size = cfg->user_size;
			sw.extended_size = sw.xstate_size + FPU_SIGFRAME_MAGIC2_SIZE;
			sw.xfeatures = one_in(3) ? subset(cfg->xcr0) : cfg->xcr0;
			switch (next() % 8) { /* spoil one field, or none */
			case 0:
				sw.magic1 ^= 1u << (next() % 32);
				break;
			case 1:
				sw.xstate_size = (uint32_t)(next() % (cfg->user_size + 128));
				break;
			case 2:
				sw.extended_size = (uint32_t)(next() % (cfg->user_size + 128));
				break;
			default:
				break;
			}
			memcpy(img + FPU_SIGFRAME_SW_OFFSET, &sw, sizeof(sw));
			data[0] |= 0x10; /* the sigframe path */
			if (sw.xstate_size + 4u <= max_size - 1) {
				n = resize(img, n, sw.xstate_size + 4u, max_size - 1);
				put32(img, sw.xstate_size, one_in(8) ? 0 : FPU_SIGFRAME_MAGIC2);
			}
			break;
		}
		case 7: /* a legacy-only frame: no magic1 */
			memset(img + FPU_SIGFRAME_SW_OFFSET, 0, 48);
			data[0] |= 0x10;
			break;
		default: /* component data: a few random bytes past the header */
			if (n > XSTATE_EXT_OFFSET)
				img[XSTATE_EXT_OFFSET + next() % (n - XSTATE_EXT_OFFSET)] =
					(uint8_t)next();
			break;
		}
	}
	return n + 1;
}
#endif
