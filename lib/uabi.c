/* SPDX-License-Identifier: MIT */
/*
 * libfpu: user-visible state in the standard XSAVE format (signal frames,
 * ptrace, core dumps): export from any kernel buffer, validated import.
 * Intel SDM Vol. 1 §13.4, §13.8.1 (the #GP conditions of XRSTOR).
 */
#include <fpu/xstate.h>

#define LEGACY_USED 464u /* bytes 464..511 are software-available: never copied */
#define XMM_OFFSET 160u
#define XMM_SIZE 256u
#define TILECFG_SIZE 64u

/* x87 init values in the legacy region (SDM Vol. 1 §13.6): everything zero but FCW. */
static void x87_init(struct fxregs_state *fx)
{
	fx->fcw = FCW_DEFAULT;
	fx->fsw = 0;
	fx->ftw = 0; /* abridged: all empty */
	fx->reserved1 = 0;
	fx->fop = 0;
	fx->fip = 0;
	fx->fdp = 0;
	__builtin_memset(fx->st_space, 0, sizeof(fx->st_space));
}

/*
 * The standard-format image's legacy region (built in @fx) and XSTATE_BV
 * (the header's first field), written into @dst with byte copies: @dst may
 * have any alignment (xstate_export_std()), so it is never accessed as a
 * struct xregs_state, whose type says 64-byte aligned.
 */
static void put_legacy_and_bv(void *dst, const struct fxregs_state *fx, uint64_t bv)
{
	__builtin_memcpy(dst, fx, LEGACY_USED);
	__builtin_memcpy((uint8_t *)dst + XSTATE_HEADER_OFFSET, &bv, sizeof(bv));
}

static bool kbuf_is_fxsave(void)
{
	return xstate_cfg.save_insn == FPU_INSN_FXSAVE;
}

int xstate_export_std(void *dst, size_t dst_len, const struct xregs_state *kbuf)
{
	const struct xstate_config *cfg = &xstate_cfg;
	struct fxregs_state fx;
	uint64_t bv, xcomp;
	bool compacted;

	if (!dst || !kbuf)
		return XSTATE_E_INVAL;
	if (dst_len < cfg->user_size)
		return XSTATE_E_SHORT;

	__builtin_memset(dst, 0, cfg->user_size);
	__builtin_memcpy(&fx, &kbuf->legacy, LEGACY_USED);
	fx.mxcsr_mask = cfg->caps.mxcsr_mask;
	if (kbuf_is_fxsave()) {
		put_legacy_and_bv(dst, &fx, XFEATURE_MASK_FPSSE);
		return (int)cfg->user_size;
	}

	bv = kbuf->header.xstate_bv & cfg->xcr0;
	xcomp = kbuf->header.xcomp_bv;
	compacted = xcomp & XCOMP_BV_COMPACTED;
	if (!(bv & XFEATURE_MASK(XFEATURE_X87)))
		x87_init(&fx);
	if (!(bv & XFEATURE_MASK(XFEATURE_SSE)))
		__builtin_memset(fx.xmm_space, 0, XMM_SIZE);
	/* Compacted XRSTOR loads MXCSR only with XSTATE_BV[1]; standard XRSTOR always. */
	if (compacted && !(bv & XFEATURE_MASK(XFEATURE_SSE)))
		fx.mxcsr = MXCSR_DEFAULT;

	for (unsigned int i = 2; i < 63; i++) {
		const struct xstate_component *c = &cfg->comp[i];
		uint32_t from;

		if (!(bv & XFEATURE_MASK(i)))
			continue; /* init values: zero for every user component */
		from = compacted ? xstate_offset(i, true, xcomp) : c->std_offset;
		if (compacted && !(xcomp & XFEATURE_MASK(i)))
			continue; /* XRSTOR would #GP on such a buffer; export init */
		__builtin_memcpy((uint8_t *)dst + c->std_offset, (const uint8_t *)kbuf + from,
				 c->size);
	}
	/* Keep XSTATE_BV exact: a component we could not copy is reported as init. */
	if (compacted)
		bv &= xcomp | XFEATURE_MASK_FPSSE;
	put_legacy_and_bv(dst, &fx, bv);
	return (int)cfg->user_size;
}

/*
 * AMX TILECFG (SDM Vol. 1 §3.2.9 / §13.5.13; the layout is LDTILECFG's,
 * SDM Vol. 2): XRSTOR #GPs on a palette it does not know and on reserved
 * bytes set. Palette 1 names 8 tiles: colsb in bytes 16-31, rows in 48-55;
 * bytes 2-15, 32-47 and 56-63 are reserved. Not checked: colsb and rows
 * against palette 1's limits (CPUID leaf 0x1D, not enumerated here).
 */
static bool tilecfg_ok(const uint8_t *cfg)
{
	if (cfg[0] > 1)
		return false;
	for (unsigned int i = 2; i < TILECFG_SIZE; i++)
		if ((i < 16 || (i >= 32 && i < 48) || i >= 56) && cfg[i])
			return false;
	if (cfg[0] == 0) {
		for (unsigned int i = 0; i < TILECFG_SIZE; i++)
			if (cfg[i])
				return false;
	}
	return true;
}

/*
 * The header checks, first, as Linux's validate_user_xstate_header(): what
 * XRSTOR would #GP on (SDM Vol. 1 §13.8.1), and the image's length.
 */
static int validate_header(const uint8_t *s, size_t len, struct xstate_header *hdr)
{
	if (len < XSTATE_EXT_OFFSET)
		return XSTATE_E_SHORT;
	__builtin_memcpy(hdr, s + XSTATE_HEADER_OFFSET, sizeof(*hdr));
	if (hdr->xstate_bv & ~xstate_cfg.xcr0)
		return XSTATE_E_XSTATE_BV;
	if (len < xstate_size_standard(hdr->xstate_bv))
		return XSTATE_E_SHORT;
	if (hdr->xcomp_bv)
		return XSTATE_E_XCOMP_BV;
	for (unsigned int i = 0; i < 6; i++)
		if (hdr->reserved[i])
			return XSTATE_E_RESERVED;
	return XSTATE_OK;
}

/* Then the component data XRSTOR would refuse. */
static int validate_components(const uint8_t *s, uint64_t bv, uint64_t rfbm)
{
	uint32_t mxcsr;

	/* Standard XRSTOR loads MXCSR when RFBM[1] or RFBM[2], whatever XSTATE_BV says. */
	__builtin_memcpy(&mxcsr, s + 24, sizeof(mxcsr));
	if ((rfbm & (XFEATURE_MASK(XFEATURE_SSE) | XFEATURE_MASK(XFEATURE_YMM))) &&
	    (mxcsr & ~xstate_cfg.caps.mxcsr_mask))
		return XSTATE_E_MXCSR;
	if ((bv & rfbm & XFEATURE_MASK(XFEATURE_XTILE_CFG)) &&
	    !tilecfg_ok(s + xstate_cfg.comp[XFEATURE_XTILE_CFG].std_offset))
		return XSTATE_E_COMPONENT;
	return XSTATE_OK;
}

int xstate_import_std_masked(struct xregs_state *kbuf, const void *src, size_t src_len,
			     uint64_t rfbm)
{
	const struct xstate_config *cfg = &xstate_cfg;
	const uint8_t *s = src;
	struct xstate_header hdr;
	uint64_t bv, xcomp, keep;
	int err;

	if (!kbuf || !src)
		return XSTATE_E_INVAL;
	err = validate_header(s, src_len, &hdr);
	if (err == XSTATE_OK)
		err = validate_components(s, hdr.xstate_bv, rfbm);
	if (err != XSTATE_OK)
		return err;

	/* Valid: the legacy region, then one loop over the extended components. */
	bv = hdr.xstate_bv & rfbm;
	__builtin_memcpy(&kbuf->legacy, s, LEGACY_USED);
	__builtin_memset((uint8_t *)&kbuf->legacy + LEGACY_USED, 0,
			 XSTATE_LEGACY_SIZE - LEGACY_USED);
	kbuf->legacy.mxcsr_mask = cfg->caps.mxcsr_mask;
	if (!(rfbm & XFEATURE_MASK(XFEATURE_SSE)))
		kbuf->legacy.mxcsr = MXCSR_DEFAULT;
	if (!(bv & XFEATURE_MASK(XFEATURE_X87)))
		x87_init(&kbuf->legacy);
	if (!(bv & XFEATURE_MASK(XFEATURE_SSE)))
		__builtin_memset(kbuf->legacy.xmm_space, 0, XMM_SIZE);
	if (kbuf_is_fxsave())
		return XSTATE_OK;

	xcomp = cfg->compacted ? cfg->kernel_mask | XCOMP_BV_COMPACTED : 0;
	for (unsigned int i = 2; i < 63; i++) {
		const struct xstate_component *c = &cfg->comp[i];
		uint8_t *to;

		if (!(cfg->xcr0 & XFEATURE_MASK(i)))
			continue;
		to = (uint8_t *)kbuf + xstate_offset(i, cfg->compacted, xcomp);
		if (bv & XFEATURE_MASK(i))
			__builtin_memcpy(to, s + c->std_offset, c->size);
		else
			__builtin_memset(to, 0, c->size);
	}
	/* Compacted XRSTOR loads MXCSR only with XSTATE_BV[1] (XMM were zeroed if it was clear). */
	if (cfg->compacted && kbuf->legacy.mxcsr != MXCSR_DEFAULT)
		bv |= XFEATURE_MASK(XFEATURE_SSE);
	keep = cfg->compacted ? kbuf->header.xstate_bv & cfg->xss : 0; /* supervisor state */
	__builtin_memset(&kbuf->header, 0, sizeof(kbuf->header));
	kbuf->header.xstate_bv = bv | keep;
	kbuf->header.xcomp_bv = xcomp;
	return XSTATE_OK;
}

int xstate_import_std(struct xregs_state *kbuf, const void *src, size_t src_len)
{
	return xstate_import_std_masked(kbuf, src, src_len, ~0ULL);
}

const char *xstate_strerror(int err)
{
	switch (err) {
	case XSTATE_OK:
		return "ok";
	case XSTATE_E_NOXSAVE:
		return "instruction not supported by this CPU";
	case XSTATE_E_MASK:
		return "component mask not offered by the CPU or invalid";
	case XSTATE_E_SHORT:
		return "buffer shorter than required";
	case XSTATE_E_XSTATE_BV:
		return "XSTATE_BV has bits outside the enabled mask";
	case XSTATE_E_RESERVED:
		return "reserved header bytes are not zero";
	case XSTATE_E_XCOMP_BV:
		return "XCOMP_BV is not zero in standard format";
	case XSTATE_E_MXCSR:
		return "MXCSR has reserved bits set (outside MXCSR_MASK)";
	case XSTATE_E_ALIGN:
		return "buffer not 64-byte aligned";
	case XSTATE_E_INVAL:
		return "invalid argument";
	case XSTATE_E_COMPONENT:
		return "component data that XRSTOR would refuse";
	default:
		return "unknown error";
	}
}
