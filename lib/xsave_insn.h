/* SPDX-License-Identifier: MIT */
/*
 * libfpu: the save and restore instructions themselves, inline, for
 * xsave.c's public entry points and core.c's switch path (which would
 * otherwise pay a call and a second dispatch on the instruction per save).
 * Intel SDM Vol. 1 §13.7-13.12; AMD APM Vol. 2 §11.5.
 *
 * All forms are the REX.W (64-bit) ones, so FIP/FDP are stored as 64-bit.
 */
#ifndef LIBFPU_XSAVE_INSN_H
#define LIBFPU_XSAVE_INSN_H

#include <fpu/xstate.h>

#define XOP_SAVE(insn, buf, mask)                                               \
	__asm__ volatile(insn " %0"                                             \
			 : "+m"(*(buf))                                         \
			 : "a"((uint32_t)(mask)), "d"((uint32_t)((mask) >> 32)) \
			 : "memory")
#define XOP_RESTORE(insn, buf, mask)                                                         \
	__asm__ volatile(insn " %0"                                                          \
			 :                                                                   \
			 : "m"(*(buf)), "a"((uint32_t)(mask)), "d"((uint32_t)((mask) >> 32)) \
			 : "memory")

static inline bool insn_compacted(enum fpu_save_insn insn)
{
	return insn == FPU_INSN_XSAVEC || insn == FPU_INSN_XSAVES;
}

/*
 * The mask @insn actually saves under: XSAVEC/XSAVES write XCOMP_BV =
 * RFBM | bit 63, which moves every component, so a compacted buffer is
 * always saved with the full kernel mask.
 */
static inline uint64_t xsave_mask(enum fpu_save_insn insn, uint64_t mask)
{
	return insn_compacted(insn) ? xstate_cfg.kernel_mask : mask;
}

static inline void xsave_insn(enum fpu_save_insn insn, struct xregs_state *buf, uint64_t mask)
{
	mask = xsave_mask(insn, mask);
	switch (insn) {
	case FPU_INSN_FXSAVE:
		__asm__ volatile("fxsave64 %0" : "=m"(buf->legacy) : : "memory");
		break;
	case FPU_INSN_XSAVE:
		XOP_SAVE("xsave64", buf, mask);
		break;
	case FPU_INSN_XSAVEOPT:
		XOP_SAVE("xsaveopt64", buf, mask);
		break;
	case FPU_INSN_XSAVEC:
		XOP_SAVE("xsavec64", buf, mask);
		break;
	case FPU_INSN_XSAVES:
		XOP_SAVE("xsaves64", buf, mask);
		break;
	default:
		break;
	}
}

static inline void xrstor_insn(enum fpu_save_insn insn, const struct xregs_state *buf,
			       uint64_t mask)
{
	switch (insn) {
	case FPU_INSN_FXSAVE:
		__asm__ volatile("fxrstor64 %0" : : "m"(buf->legacy) : "memory");
		break;
	case FPU_INSN_XSAVES:
		XOP_RESTORE("xrstors64", buf, mask);
		break;
	case FPU_INSN_XSAVE:
	case FPU_INSN_XSAVEOPT:
	case FPU_INSN_XSAVEC: /* XRSTOR takes either format, from XCOMP_BV[63] */
		XOP_RESTORE("xrstor64", buf, mask);
		break;
	default:
		break;
	}
}

#endif
