/* SPDX-License-Identifier: MIT */
/*
 * libfpu: the FPU part of a signal frame, laid out as Linux's x86-64 frame
 * (arch/x86/include/uapi/asm/sigcontext.h, struct _fpx_sw_bytes;
 * arch/x86/kernel/fpu/signal.c):
 *
 *      0  the standard (non-compacted) XSAVE image of xstate_cfg.xcr0,
 *         xstate_cfg.user_size bytes (SDM Vol. 1 §13.4):
 *           0..463    legacy region (FXSAVE layout)
 *         464..511    software-reserved bytes, struct fpu_sw_bytes below
 *         512..575    XSAVE header
 *         576..       extended components at their standard offsets
 *  user_size  FPU_SIGFRAME_MAGIC2 (4 bytes)
 *
 * The frame must be placed 64-byte aligned (XSAVE/XRSTOR alignment, as
 * Linux's fpu__alloc_mathframe rounds down to 64). A frame whose
 * software-reserved bytes do not describe an xstate frame (no magic1, a bad
 * magic2, sizes out of range) is taken as legacy-only: x87 and SSE from the
 * 512-byte FXSAVE area, every other user component in its init state.
 */
#ifndef FPU_SIGNAL_H
#define FPU_SIGNAL_H

#include <fpu/fpu.h>

/* In the legacy area's software-reserved bytes (464..511), as Linux's FP_XSTATE_MAGIC1. */
#define FPU_SIGFRAME_MAGIC1 0x46505853u
/* The 4 bytes right after the xstate, as Linux's FP_XSTATE_MAGIC2. */
#define FPU_SIGFRAME_MAGIC2 0x46505845u
#define FPU_SIGFRAME_MAGIC2_SIZE 4u
#define FPU_SIGFRAME_SW_OFFSET 464u /* struct fpu_sw_bytes within the frame */

/* Bytes 464..511 of the frame (Linux's struct _fpx_sw_bytes), little-endian. */
struct fpu_sw_bytes {
	uint32_t magic1;        /* FPU_SIGFRAME_MAGIC1 */
	uint32_t extended_size; /* bytes of the whole FPU frame: xstate_size + 4 (magic2) */
	uint64_t xfeatures;     /* user components the frame may hold: xstate_cfg.xcr0 */
	uint32_t xstate_size;   /* bytes of the XSAVE image: xstate_cfg.user_size */
	uint32_t padding[7];
} __attribute__((packed));

/**
 * fpu_sigframe_size - bytes of the FPU part of a signal frame:
 * xstate_cfg.user_size + 4 (magic2), as Linux's xstate_sigframe_size() (and
 * so the FPU share of AT_MINSIGSTKSZ). Place it 64-byte aligned.
 */
size_t fpu_sigframe_size(void);

/**
 * fpu_sigframe_save - write @fpu's latest state into a signal frame: the
 * standard XSAVE image from fpu_export_std() (so every rule of export holds:
 * the state is fetched wherever it is), XSTATE_BV with x87|SSE always set
 * (as Linux, so that a legacy handler's edits to the FXSAVE area are taken
 * on sigreturn), PKRU's bit set when PKRU is enabled, struct fpu_sw_bytes at
 * 464 (magic1, extended_size, xfeatures = xcr0, xstate_size = user_size),
 * magic2 at user_size. Callers: as fpu_export_std(). The task's state and
 * ownership do not change.
 * @frame: 64-byte aligned, @len bytes, at least fpu_sigframe_size().
 * Return: bytes written (fpu_sigframe_size()), XSTATE_E_ALIGN, XSTATE_E_SHORT
 * or XSTATE_E_INVAL.
 */
int fpu_sigframe_save(struct fpu *fpu, void *frame, size_t len);

/**
 * fpu_sigframe_restore - sigreturn: replace @fpu's state with an untrusted
 * frame, as Linux's __fpu_restore_sig() would.
 * - magic1 present, xstate_size in 576..user_size, xstate_size <=
 *   extended_size, xstate_size + 4 <= @len and magic2 at xstate_size: the
 *   image (its first xstate_size bytes) through fpu_import_std(); components
 *   outside the frame's xfeatures are put in init state (Linux restores with
 *   RFBM = xfeatures);
 * - otherwise (no magic1, bad magic2 or sizes): legacy-only: x87 and SSE
 *   (with MXCSR) from the 512-byte FXSAVE area, every other user component,
 *   PKRU included, in its init state.
 * Validation (fpu_import_std(), or for a legacy-only frame MXCSR against
 * MXCSR_MASK, which FXRSTOR would #GP on) failing: nothing changes.
 * On success every guarantee of fpu_import_std() holds.
 * @frame: 64-byte aligned, @len bytes (at least 512).
 * Return: XSTATE_OK, or a negative enum xstate_err (XSTATE_E_ALIGN,
 * XSTATE_E_SHORT, XSTATE_E_INVAL, or any of xstate_import_std()).
 */
int fpu_sigframe_restore(struct fpu *fpu, const void *frame, size_t len);

#endif
