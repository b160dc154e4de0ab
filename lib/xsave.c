/* SPDX-License-Identifier: MIT */
/*
 * libfpu: the save/restore instructions (FXSAVE/FXRSTOR, XSAVE, XSAVEOPT,
 * XSAVEC, XSAVES, XRSTOR, XRSTORS), loading the init image and the AMD
 * pointer-leak scrub. Intel SDM Vol. 1 §13.7-13.12; AMD APM Vol. 2 §11.5.
 *
 * Reads xstate_cfg (xstate.c) and calls nothing there but xstate_init_image().
 * The instructions themselves are in xsave_insn.h, inline, shared with core.c.
 */
#include "xsave_insn.h"

void xstate_save_insn(enum fpu_save_insn insn, struct xregs_state *buf, uint64_t mask)
{
	xsave_insn(insn, buf, mask);
}

void xstate_save(struct xregs_state *buf, uint64_t mask)
{
	xstate_save_insn(xstate_cfg.save_insn, buf, mask);
}

void xstate_restore_insn(enum fpu_save_insn insn, const struct xregs_state *buf, uint64_t mask)
{
	xrstor_insn(insn, buf, mask);
}

void xstate_restore(const struct xregs_state *buf, uint64_t mask)
{
	xstate_restore_insn(xstate_cfg.save_insn, buf, mask);
}

void xstate_load_init(void)
{
	xstate_restore((const struct xregs_state *)xstate_init_image(), xstate_cfg.kernel_mask);
}

bool xstate_scrub_fxsave_leak(void)
{
	static const uint32_t zero;

	if (!xstate_cfg.force_fxsave_scrub && !(xstate_cfg.caps.amd && !xstate_cfg.caps.xsaveerptr))
		return false;
	/*
	 * An x87 load sets FIP/FDP/FOP to this code and this variable. FNCLEX so
	 * it cannot raise a pending #MF, EMMS so the push cannot overflow. The
	 * caller restores the task's state right after, overwriting ST0/FTW.
	 */
	__asm__ volatile("fnclex\n\temms\n\tfildl %0" : : "m"(zero));
	return true;
}

uint64_t xstate_xinuse(void)
{
	return xstate_cfg.caps.xgetbv1 ? xstate_xgetbv(1) : ~0ULL;
}

const char *fpu_insn_name(enum fpu_save_insn insn)
{
	static const char *const names[FPU_INSN_NR] = {
		[FPU_INSN_FXSAVE] = "fxsave",     [FPU_INSN_XSAVE] = "xsave",
		[FPU_INSN_XSAVEOPT] = "xsaveopt", [FPU_INSN_XSAVEC] = "xsavec",
		[FPU_INSN_XSAVES] = "xsaves",
	};
	if (insn == FPU_INSN_AUTO)
		return "auto";
	if ((int)insn < 0 || insn >= FPU_INSN_NR)
		return "?";
	return names[insn];
}

const char *xstate_name(unsigned int feature)
{
	static const char *const names[] = {
		[XFEATURE_X87] = "x87",
		[XFEATURE_SSE] = "sse",
		[XFEATURE_YMM] = "ymm",
		[XFEATURE_BNDREGS] = "bndregs",
		[XFEATURE_BNDCSR] = "bndcsr",
		[XFEATURE_OPMASK] = "opmask",
		[XFEATURE_ZMM_HI256] = "zmm_hi256",
		[XFEATURE_HI16_ZMM] = "hi16_zmm",
		[XFEATURE_PT] = "pt",
		[XFEATURE_PKRU] = "pkru",
		[XFEATURE_PASID] = "pasid",
		[XFEATURE_CET_U] = "cet_u",
		[XFEATURE_CET_S] = "cet_s",
		[XFEATURE_HDC] = "hdc",
		[XFEATURE_UINTR] = "uintr",
		[XFEATURE_LBR] = "lbr",
		[XFEATURE_HWP] = "hwp",
		[XFEATURE_XTILE_CFG] = "xtile_cfg",
		[XFEATURE_XTILE_DATA] = "xtile_data",
	};
	if (feature < sizeof(names) / sizeof(names[0]) && names[feature])
		return names[feature];
	return "unknown";
}
