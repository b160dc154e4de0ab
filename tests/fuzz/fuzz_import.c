/* SPDX-License-Identifier: MIT */
/* libFuzzer target for xstate_import_std(); also the engine of the corpus replay. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <fpu/xstate.h>

#include "fuzz_import.h"

static struct xregs_state *kbuf, *kbuf2;
static uint8_t *raw, *own, *user;

static void setup(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };

	if (xstate_init(&o) != XSTATE_OK)
		abort();
	kbuf = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	kbuf2 = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	raw = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	own = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	user = aligned_alloc(XSTATE_ALIGN, XSTATE_MAX_SIZE);
	if (!kbuf || !kbuf2 || !raw || !own || !user)
		abort();
}

int fuzz_import_one(const uint8_t *data, size_t len)
{
	static bool ready;
	uint64_t xcr0;
	int err;

	if (!ready) {
		setup();
		ready = true;
	}
	xcr0 = xstate_cfg.xcr0;
	xstate_init_buffer(kbuf);
	memcpy(kbuf2, kbuf, xstate_cfg.kernel_size);
	err = xstate_import_std(kbuf, data, len);
	if (err != XSTATE_OK) {
		if (memcmp(kbuf, kbuf2, xstate_cfg.kernel_size))
			__builtin_trap(); /* a rejected import wrote the kernel buffer */
		return err;
	}

	/* The CPU must take both the converted buffer and the raw image. */
	memset(raw, 0, XSTATE_MAX_SIZE);
	memcpy(raw, data, len < XSTATE_MAX_SIZE ? len : XSTATE_MAX_SIZE);
	memset(own, 0, XSTATE_MAX_SIZE);
	xstate_save_insn(FPU_INSN_XSAVE, (struct xregs_state *)own, xcr0);
	xstate_restore(kbuf, xstate_cfg.kernel_mask);
	xstate_restore_insn(FPU_INSN_XSAVE, (const struct xregs_state *)raw, xcr0);
	xstate_restore_insn(FPU_INSN_XSAVE, (const struct xregs_state *)own, xcr0);

	/* Export of what was imported is itself importable, to the same kernel buffer. */
	if (xstate_export_std(user, XSTATE_MAX_SIZE, kbuf) != (int)xstate_cfg.user_size)
		__builtin_trap();
	xstate_init_buffer(kbuf2);
	if (xstate_import_std(kbuf2, user, xstate_cfg.user_size) != XSTATE_OK)
		__builtin_trap();
	if (memcmp(kbuf, kbuf2, xstate_cfg.kernel_size))
		__builtin_trap();
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one(data, size);
	return 0;
}
