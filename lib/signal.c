/* SPDX-License-Identifier: MIT */
/*
 * libfpu: the FPU part of a signal frame, in the layout of Linux's x86-64
 * frame (include/fpu/signal.h). Delivery writes the task's standard-format
 * image with fpu_export_std() and describes it in the software-reserved
 * bytes; sigreturn validates and imports it, or takes the legacy FXSAVE
 * area alone when the frame does not describe itself.
 */
#include <fpu/signal.h>

#include "internal.h"

size_t fpu_sigframe_size(void)
{
	return (size_t)xstate_cfg.user_size + FPU_SIGFRAME_MAGIC2_SIZE;
}

static bool aligned64(const void *p)
{
	return ((uintptr_t)p & (XSTATE_ALIGN - 1)) == 0;
}

int fpu_sigframe_save(struct fpu *fpu, void *frame, size_t len)
{
	uint8_t *f = frame;
	struct xregs_state *x = frame;
	struct fpu_sw_bytes sw = { 0 };
	uint32_t magic2 = FPU_SIGFRAME_MAGIC2;
	int n;

	if (!fpu || !frame)
		return XSTATE_E_INVAL;
	if (!aligned64(frame))
		return XSTATE_E_ALIGN;
	if (len < fpu_sigframe_size())
		return XSTATE_E_SHORT;
	n = fpu_export_std(fpu, frame, len);
	if (n < 0)
		return n;

	/* Linux's save_xstate_epilog: a legacy handler edits the FXSAVE area only. */
	x->header.xstate_bv |= XFEATURE_MASK_FPSSE;
	sw.magic1 = FPU_SIGFRAME_MAGIC1;
	sw.extended_size = xstate_cfg.user_size + FPU_SIGFRAME_MAGIC2_SIZE;
	sw.xfeatures = xstate_cfg.xcr0;
	sw.xstate_size = xstate_cfg.user_size;
	__builtin_memcpy(f + FPU_SIGFRAME_SW_OFFSET, &sw, sizeof(sw));
	__builtin_memcpy(f + xstate_cfg.user_size, &magic2, sizeof(magic2));
	return (int)fpu_sigframe_size();
}

/* Linux's check_xstate_in_sigframe(): does the frame describe an xstate image? */
static bool frame_has_xstate(const uint8_t *f, size_t len, struct fpu_sw_bytes *sw)
{
	uint32_t magic2;

	__builtin_memcpy(sw, f + FPU_SIGFRAME_SW_OFFSET, sizeof(*sw));
	if (sw->magic1 != FPU_SIGFRAME_MAGIC1 || sw->xstate_size < XSTATE_EXT_OFFSET ||
	    sw->xstate_size > xstate_cfg.user_size || sw->xstate_size > sw->extended_size ||
	    (size_t)sw->xstate_size + FPU_SIGFRAME_MAGIC2_SIZE > len)
		return false;
	__builtin_memcpy(&magic2, f + sw->xstate_size, sizeof(magic2));
	return magic2 == FPU_SIGFRAME_MAGIC2;
}

int fpu_sigframe_restore(struct fpu *fpu, const void *frame, size_t len)
{
	const uint8_t *f = frame;
	struct fpu_sw_bytes sw;

	if (!fpu || !frame)
		return XSTATE_E_INVAL;
	if (!aligned64(frame))
		return XSTATE_E_ALIGN;
	if (len < XSTATE_LEGACY_SIZE)
		return XSTATE_E_SHORT;
	if (frame_has_xstate(f, len, &sw))
		return fpu_import(fpu, frame, sw.xstate_size, sw.xfeatures);

	/* Legacy-only: an XSAVE image with XSTATE_BV = x87|SSE and nothing else. */
	struct xregs_state legacy __attribute__((aligned(64)));
	__builtin_memcpy(&legacy.legacy, f, FPU_SIGFRAME_SW_OFFSET);
	__builtin_memset((uint8_t *)&legacy + FPU_SIGFRAME_SW_OFFSET, 0,
			 XSTATE_EXT_OFFSET - FPU_SIGFRAME_SW_OFFSET);
	legacy.header.xstate_bv = XFEATURE_MASK_FPSSE;
	return fpu_import(fpu, &legacy, XSTATE_EXT_OFFSET, XFEATURE_MASK_FPSSE);
}
