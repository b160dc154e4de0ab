/* SPDX-License-Identifier: MIT */
/*
 * libfpu: CPUID leaf 0xD enumeration, layouts (standard and compacted), the
 * choice of masks, format and save instruction, and the init image in the
 * chosen format. Intel SDM Vol. 1 §13.2-13.4, §13.3; AMD APM Vol. 2 §11.5.
 *
 * The bottom of libfpu's xstate layer: it calls nothing in xsave.c or
 * xstate_cpu.c, which read xstate_cfg.
 */
#include <fpu/xstate.h>
#include "internal.h"

struct xstate_config xstate_cfg;

/* The init image in the kernel buffer format, built by xstate_init(), for xstate_load_init(). */
static uint8_t init_area[XSTATE_MAX_SIZE] __attribute__((aligned(64)));

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

uint64_t xstate_xgetbv(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}

/* CPUID bits that say a component's instructions exist (SDM Vol. 2 CPUID). */
struct cpuid_feats {
	uint32_t l1_ecx, l1_edx, l7_ebx, l7_ecx, l7_edx;
};

/*
 * A component may be enabled only if the instructions that use it exist.
 * Components with no such check here (HDC, HWP, LBR, ...) are never enabled.
 */
static bool component_usable(unsigned int i, const struct cpuid_feats *f)
{
	switch (i) {
	case XFEATURE_X87:
	case XFEATURE_SSE:
		return true;
	case XFEATURE_YMM:
		return f->l1_ecx & (1u << 28); /* AVX */
	case XFEATURE_BNDREGS:
	case XFEATURE_BNDCSR:
		return f->l7_ebx & (1u << 14); /* MPX */
	case XFEATURE_OPMASK:
	case XFEATURE_ZMM_HI256:
	case XFEATURE_HI16_ZMM:
		return (f->l1_ecx & (1u << 28)) && (f->l7_ebx & (1u << 16)); /* AVX512F */
	case XFEATURE_PT:
		return f->l7_ebx & (1u << 25);
	case XFEATURE_PKRU:
		return f->l7_ecx & (1u << 3); /* PKU */
	case XFEATURE_PASID:
		return f->l7_ecx & (1u << 29); /* ENQCMD */
	case XFEATURE_CET_U:
	case XFEATURE_CET_S:
		return (f->l7_ecx & (1u << 7)) || (f->l7_edx & (1u << 20)); /* CET_SS or IBT */
	case XFEATURE_UINTR:
		return f->l7_edx & (1u << 5);
	case XFEATURE_XTILE_CFG:
	case XFEATURE_XTILE_DATA:
		return f->l7_edx & (1u << 24); /* AMX-TILE */
	default:
		return false;
	}
}

/* XCR0 validity rules (SDM Vol. 1 §13.3): drop components whose partners are absent. */
static uint64_t xcr0_fixup(uint64_t m)
{
	if (!(m & XFEATURE_MASK(XFEATURE_SSE)))
		m &= ~XFEATURE_MASK(XFEATURE_YMM);
	if (!(m & XFEATURE_MASK(XFEATURE_YMM)) ||
	    (m & XFEATURE_MASK_AVX512) != XFEATURE_MASK_AVX512)
		m &= ~XFEATURE_MASK_AVX512;
	if ((m & (XFEATURE_MASK(XFEATURE_BNDREGS) | XFEATURE_MASK(XFEATURE_BNDCSR))) !=
	    (XFEATURE_MASK(XFEATURE_BNDREGS) | XFEATURE_MASK(XFEATURE_BNDCSR)))
		m &= ~(XFEATURE_MASK(XFEATURE_BNDREGS) | XFEATURE_MASK(XFEATURE_BNDCSR));
	if ((m & (XFEATURE_MASK(XFEATURE_XTILE_CFG) | XFEATURE_MASK(XFEATURE_XTILE_DATA))) !=
	    (XFEATURE_MASK(XFEATURE_XTILE_CFG) | XFEATURE_MASK(XFEATURE_XTILE_DATA)))
		m &= ~(XFEATURE_MASK(XFEATURE_XTILE_CFG) | XFEATURE_MASK(XFEATURE_XTILE_DATA));
	return m;
}

#define CET_MASK (XFEATURE_MASK(XFEATURE_CET_U) | XFEATURE_MASK(XFEATURE_CET_S))

static bool insn_supported(enum fpu_save_insn insn, const struct xstate_cpu_caps *c, bool os_xsave,
			   enum xstate_mode mode)
{
	switch (insn) {
	case FPU_INSN_FXSAVE:
		return c->fxsr;
	case FPU_INSN_XSAVE:
		return os_xsave;
	case FPU_INSN_XSAVEOPT:
		return os_xsave && c->xsaveopt;
	case FPU_INSN_XSAVEC:
		return os_xsave && c->xsavec;
	case FPU_INSN_XSAVES:
		return os_xsave && c->xsaves && mode == XSTATE_MODE_KERNEL;
	default:
		return false;
	}
}

uint32_t xstate_size_standard(uint64_t mask)
{
	uint32_t size = XSTATE_EXT_OFFSET;

	for (unsigned int i = 2; i < 63; i++) {
		const struct xstate_component *c = &xstate_cfg.comp[i];
		if (!(mask & XFEATURE_MASK(i)) || !c->size || c->supervisor)
			continue;
		if (c->std_offset + c->size > size)
			size = c->std_offset + c->size;
	}
	return size;
}

/* SDM Vol. 1 §13.4.3: components in bit order from 576, 64-aligned when ECX[1] says so. */
static uint32_t compacted_layout(uint64_t mask, unsigned int stop)
{
	uint32_t off = XSTATE_EXT_OFFSET;

	for (unsigned int i = 2; i < 63; i++) {
		const struct xstate_component *c = &xstate_cfg.comp[i];
		if (!(mask & XFEATURE_MASK(i)))
			continue;
		if (c->align64)
			off = (off + 63) & ~63u;
		if (i == stop)
			return off;
		off += c->size;
	}
	return off;
}

uint32_t xstate_size_compacted(uint64_t mask)
{
	return compacted_layout(mask, 64);
}

uint32_t xstate_offset(unsigned int feature, bool compacted, uint64_t xcomp_bv)
{
	if (feature == XFEATURE_X87)
		return 0;
	if (feature == XFEATURE_SSE)
		return 160; /* XMM0 in the legacy region; MXCSR is at 24 */
	if (feature >= 63 || !xstate_cfg.comp[feature].size)
		return 0;
	if (!compacted)
		return xstate_cfg.comp[feature].std_offset;
	if (!(xcomp_bv & XFEATURE_MASK(feature)))
		return 0;
	return compacted_layout(xcomp_bv & ~XCOMP_BV_COMPACTED, feature);
}

uint32_t xstate_read_mxcsr_mask(void)
{
	static struct fxregs_state fx;
	__builtin_memset(&fx, 0, sizeof(fx));
	__asm__ volatile("fxsave64 %0" : "=m"(fx));
	return fx.mxcsr_mask ? fx.mxcsr_mask : MXCSR_MASK_DEFAULT;
}

/* Step 1: what the CPU has: vendor, feature flags, and every component of leaf 0xD. */
static int probe_cpu(struct xstate_config *cfg, struct cpuid_feats *f)
{
	struct xstate_cpu_caps *caps = &cfg->caps;
	uint32_t a, b, c, d, max_leaf, max_ext;

	cpuid(0, 0, &max_leaf, &b, &c, &d);
	caps->amd = b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163; /* AuthenticAMD */
	if (max_leaf >= 1)
		cpuid(1, 0, &a, &b, &f->l1_ecx, &f->l1_edx);
	if (max_leaf >= 7)
		cpuid(7, 0, &a, &f->l7_ebx, &f->l7_ecx, &f->l7_edx);
	cpuid(0x80000000, 0, &max_ext, &b, &c, &d);
	if (max_ext >= 0x80000008) {
		cpuid(0x80000008, 0, &a, &b, &c, &d);
		caps->xsaveerptr = b & (1u << 2);
	}
	caps->fxsr = f->l1_edx & (1u << 24);
	caps->xsave = (f->l1_ecx & (1u << 26)) && max_leaf >= 0xd;
	caps->avx = f->l1_ecx & (1u << 28);
	caps->avx512f = f->l7_ebx & (1u << 16);
	caps->pku = f->l7_ecx & (1u << 3);
	if (!caps->fxsr)
		return XSTATE_E_NOXSAVE;

	/* Legacy-region components: fixed layout (SDM Vol. 1 §13.4.1). */
	cfg->comp[XFEATURE_X87] = (struct xstate_component){ .size = 160, .std_offset = 0 };
	cfg->comp[XFEATURE_SSE] = (struct xstate_component){ .size = 256, .std_offset = 160 };
	if (!caps->xsave)
		return XSTATE_OK;

	cpuid(0xd, 0, &a, &b, &c, &d);
	caps->xcr0_supported = ((uint64_t)d << 32) | a;
	cpuid(0xd, 1, &a, &b, &c, &d);
	caps->xsaveopt = a & (1u << 0);
	caps->xsavec = a & (1u << 1);
	caps->xgetbv1 = a & (1u << 2);
	caps->xsaves = a & (1u << 3);
	caps->xss_supported = ((uint64_t)d << 32) | c;
	for (unsigned int i = 2; i < 63; i++) {
		if (!((caps->xcr0_supported | caps->xss_supported) & XFEATURE_MASK(i)))
			continue;
		cpuid(0xd, i, &a, &b, &c, &d);
		cfg->comp[i].size = a;
		cfg->comp[i].std_offset = (c & 1) ? 0 : b;
		cfg->comp[i].supervisor = c & 1;
		cfg->comp[i].align64 = c & 2;
	}
	return XSTATE_OK;
}

/* Step 2: the caller's upper bounds, refused when they cannot make sense. */
static int check_requested(const struct xstate_config *cfg, const struct xstate_init_opts *opts,
			   uint64_t *max_xcr0, uint64_t *max_xss)
{
	*max_xcr0 = opts->max_xcr0 ? opts->max_xcr0
				   : XFEATURE_MASK_FPSSE | XFEATURE_MASK(XFEATURE_YMM) |
					     XFEATURE_MASK_AVX512;
	*max_xss = opts->max_xss;
	/* PKRU only when asked for: WRPKRU/RDPKRU need CR4.PKE, which is the kernel's to set. */
	if (opts->pkru)
		*max_xcr0 |= XFEATURE_MASK(XFEATURE_PKRU);
	else
		*max_xcr0 &= ~XFEATURE_MASK(XFEATURE_PKRU);
	if ((*max_xcr0 & XFEATURE_MASK_FPSSE) != XFEATURE_MASK_FPSSE ||
	    (*max_xcr0 & XCOMP_BV_COMPACTED) ||
	    (*max_xss & (XCOMP_BV_COMPACTED | XFEATURE_MASK_FPSSE)))
		return XSTATE_E_MASK;
	if (opts->mode == XSTATE_MODE_USER && *max_xss)
		return XSTATE_E_MASK;
	for (unsigned int i = 2; i < 63; i++) {
		/* A user component asked in max_xss, or a supervisor one in max_xcr0. */
		if ((*max_xcr0 & XFEATURE_MASK(i)) && cfg->comp[i].supervisor)
			return XSTATE_E_MASK;
		if ((*max_xss & XFEATURE_MASK(i)) && cfg->comp[i].size && !cfg->comp[i].supervisor)
			return XSTATE_E_MASK;
	}
	return XSTATE_OK;
}

/*
 * Step 3: the masks: what CPUID offers, whose instructions exist, within the
 * bounds, within the OS's XCR0 in user mode, kept valid (xcr0_fixup).
 * *os_xsave: XSAVE* may be used (kernel: the CPU has it; user: CR4.OSXSAVE).
 */
static int choose_masks(struct xstate_config *cfg, const struct cpuid_feats *f,
			enum xstate_mode mode, uint64_t max_xcr0, uint64_t max_xss, bool *os_xsave)
{
	struct xstate_cpu_caps *caps = &cfg->caps;
	uint64_t xcr0 = XFEATURE_MASK_FPSSE, xss = 0;

	for (unsigned int i = 2; i < 63; i++) {
		if (!component_usable(i, f))
			continue;
		if ((caps->xcr0_supported & max_xcr0 & XFEATURE_MASK(i)))
			xcr0 |= XFEATURE_MASK(i);
		if ((caps->xss_supported & max_xss & XFEATURE_MASK(i)))
			xss |= XFEATURE_MASK(i);
	}
	if ((xss & CET_MASK) && (xss & CET_MASK) != CET_MASK)
		xss &= ~CET_MASK; /* CET_U and CET_S go together, as Linux enables them */

	if (mode == XSTATE_MODE_USER) {
		*os_xsave = caps->xsave && (f->l1_ecx & (1u << 27)); /* OSXSAVE */
		if (*os_xsave) {
			uint64_t os = xstate_xgetbv(0);
			if (os & ~caps->xcr0_supported)
				return XSTATE_E_MASK;
			xcr0 &= os;
		} else {
			xcr0 = XFEATURE_MASK_FPSSE;
		}
		caps->xgetbv1 = caps->xgetbv1 && *os_xsave;
	} else {
		*os_xsave = caps->xsave;
	}
	cfg->xcr0 = xcr0_fixup(xcr0);
	cfg->xss = xss;
	return XSTATE_OK;
}

/* Step 4: the save instruction, best first or the one forced; it may narrow the masks. */
static int choose_insn(struct xstate_config *cfg, const struct xstate_init_opts *opts,
		       bool os_xsave)
{
	static const enum fpu_save_insn order[] = { FPU_INSN_XSAVES, FPU_INSN_XSAVEC,
						    FPU_INSN_XSAVEOPT, FPU_INSN_XSAVE,
						    FPU_INSN_FXSAVE };

	if (opts->insn == FPU_INSN_AUTO) {
		cfg->save_insn = FPU_INSN_FXSAVE;
		for (unsigned int k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
			if (insn_supported(order[k], &cfg->caps, os_xsave, opts->mode)) {
				cfg->save_insn = order[k];
				break;
			}
		}
	} else {
		if (opts->insn < 0 || opts->insn >= FPU_INSN_NR ||
		    !insn_supported(opts->insn, &cfg->caps, os_xsave, opts->mode))
			return XSTATE_E_NOXSAVE;
		cfg->save_insn = opts->insn;
	}

	/* Only XSAVES saves supervisor state; FXSAVE saves only x87 and SSE. */
	if (cfg->save_insn != FPU_INSN_XSAVES) {
		if (cfg->xss && opts->insn != FPU_INSN_AUTO)
			return XSTATE_E_MASK;
		cfg->xss = 0;
	}
	if (cfg->save_insn == FPU_INSN_FXSAVE)
		cfg->xcr0 = XFEATURE_MASK_FPSSE;
	cfg->kernel_mask = cfg->xcr0 | cfg->xss;
	cfg->compacted = cfg->save_insn == FPU_INSN_XSAVEC || cfg->save_insn == FPU_INSN_XSAVES;
	return XSTATE_OK;
}

/* Step 5: the sizes of the kernel buffer (the instruction's format) and of the user image. */
static int set_sizes(struct xstate_config *cfg)
{
	if (cfg->save_insn == FPU_INSN_FXSAVE)
		cfg->kernel_size = FXSAVE_SIZE;
	else if (cfg->compacted)
		cfg->kernel_size = xstate_size_compacted(cfg->kernel_mask);
	else
		cfg->kernel_size = xstate_size_standard(cfg->kernel_mask);
	cfg->user_size = xstate_size_standard(cfg->xcr0);
	if (cfg->kernel_size > XSTATE_MAX_SIZE || cfg->user_size > XSTATE_MAX_SIZE)
		return XSTATE_E_MASK;
	return XSTATE_OK;
}

/* The steps of Linux's fpu__init_system_xstate(), in its order. */
int xstate_init(const struct xstate_init_opts *opts)
{
	static const struct xstate_init_opts kdefault = { .mode = XSTATE_MODE_KERNEL,
							  .insn = FPU_INSN_AUTO };
	static struct xstate_config
		before; /* kept if this call fails (static: a kernel stack is small) */
	struct xstate_config *cfg = &xstate_cfg;
	struct cpuid_feats f = { 0 };
	uint64_t max_xcr0, max_xss;
	bool os_xsave;
	int err;

	if (!opts)
		opts = &kdefault;
	before = *cfg;
	__builtin_memset(cfg, 0, sizeof(*cfg)); /* the steps read comp[] from xstate_cfg itself */

	err = probe_cpu(cfg, &f);
	if (!err)
		err = check_requested(cfg, opts, &max_xcr0, &max_xss);
	if (!err)
		err = choose_masks(cfg, &f, opts->mode, max_xcr0, max_xss, &os_xsave);
	if (!err)
		err = choose_insn(cfg, opts, os_xsave);
	if (!err)
		err = set_sizes(cfg);
	if (err) {
		*cfg = before;
		return err;
	}

	/* PKRU is switched per task where asked for and usable (user mode: CR4.PKE, seen as OSPKE). */
	cfg->pkru = opts->pkru && cfg->caps.pku &&
		    (opts->mode == XSTATE_MODE_KERNEL || (f.l7_ecx & (1u << 4)));
	cfg->pkru_offset = (cfg->kernel_mask & XFEATURE_MASK_PKRU)
				   ? xstate_offset(XFEATURE_PKRU, cfg->compacted,
						   cfg->kernel_mask | XCOMP_BV_COMPACTED)
				   : 0;
	cfg->force_fxsave_scrub = opts->force_fxsave_scrub;
	/* FXSAVE needs CR0.EM/TS clear: in kernel mode xstate_cpu_enable() reads it. */
	cfg->caps.mxcsr_mask = opts->mode == XSTATE_MODE_USER ? xstate_read_mxcsr_mask()
							      : MXCSR_MASK_DEFAULT;
	cfg->mode = opts->mode;
	xstate_init_buffer((struct xregs_state *)init_area);
	return XSTATE_OK;
}

void xstate_init_buffer(struct xregs_state *buf)
{
	const struct xstate_config *cfg = &xstate_cfg;

	__builtin_memset(buf, 0, cfg->kernel_size);
	buf->legacy.fcw = FCW_DEFAULT;
	buf->legacy.mxcsr = MXCSR_DEFAULT; /* standard XRSTOR loads MXCSR whatever XSTATE_BV says */
	buf->legacy.mxcsr_mask = cfg->caps.mxcsr_mask;
	if (cfg->save_insn == FPU_INSN_FXSAVE)
		return;
	buf->header.xstate_bv = 0;
	buf->header.xcomp_bv = cfg->compacted ? (cfg->kernel_mask | XCOMP_BV_COMPACTED) : 0;
}

const void *xstate_init_image(void)
{
	return init_area;
}
