/* SPDX-License-Identifier: MIT */
/*
 * libfpu: xstate enumeration, layouts, save/restore instructions.
 *
 * Follows Intel SDM Vol. 1 ch. 13 ("Managing State Using the XSAVE Feature
 * Set") and AMD APM Vol. 2 §11.5 ("XSAVE/XRSTOR Instructions").
 *
 * Freestanding: includes only compiler-provided headers. The library needs
 * what GCC requires of a freestanding environment: memcpy, memmove, memset
 * and memcmp (libfpu.a itself calls memcpy and memset).
 */
#ifndef FPU_XSTATE_H
#define FPU_XSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* State-component numbers: bit positions in XCR0 / IA32_XSS (SDM Vol. 1 §13.1). */
enum xfeature {
	XFEATURE_X87 = 0,
	XFEATURE_SSE = 1,
	XFEATURE_YMM = 2,
	XFEATURE_BNDREGS = 3,
	XFEATURE_BNDCSR = 4,
	XFEATURE_OPMASK = 5,
	XFEATURE_ZMM_HI256 = 6,
	XFEATURE_HI16_ZMM = 7,
	XFEATURE_PT = 8,
	XFEATURE_PKRU = 9,
	XFEATURE_PASID = 10,
	XFEATURE_CET_U = 11,
	XFEATURE_CET_S = 12,
	XFEATURE_HDC = 13,
	XFEATURE_UINTR = 14,
	XFEATURE_LBR = 15,
	XFEATURE_HWP = 16,
	XFEATURE_XTILE_CFG = 17,
	XFEATURE_XTILE_DATA = 18,
	XFEATURE_NR = 63, /* bit 63 of XCOMP_BV is the compacted-format flag */
};

#define XFEATURE_MASK(f) (1ULL << (f))
#define XFEATURE_MASK_FPSSE (XFEATURE_MASK(XFEATURE_X87) | XFEATURE_MASK(XFEATURE_SSE))
#define XFEATURE_MASK_AVX512                                                  \
	(XFEATURE_MASK(XFEATURE_OPMASK) | XFEATURE_MASK(XFEATURE_ZMM_HI256) | \
	 XFEATURE_MASK(XFEATURE_HI16_ZMM))
#define XFEATURE_MASK_PKRU XFEATURE_MASK(XFEATURE_PKRU)
#define XCOMP_BV_COMPACTED (1ULL << 63)

/* Legacy region (512 bytes) + XSAVE header (64 bytes): SDM Vol. 1 §13.4. */
#define XSTATE_LEGACY_SIZE 512u
#define XSTATE_HEADER_SIZE 64u
#define XSTATE_HEADER_OFFSET 512u
#define XSTATE_EXT_OFFSET 576u
#define XSTATE_ALIGN 64u
#define FXSAVE_SIZE 512u
#define MXCSR_DEFAULT 0x1f80u
#define FCW_DEFAULT 0x037fu
#define MXCSR_MASK_DEFAULT 0x0000ffbfu /* SDM §11.6.6: when FXSAVE stores 0 */
/* Largest kernel or user buffer libfpu builds (bytes); xstate_init() fails above it.
 * Enough for x87..AVX-512, PKRU, CET and AMX (11008 bytes standard). */
#define XSTATE_MAX_SIZE 12288u

/* The save instructions, best last. Index of saves[] in struct fpu_stats. */
enum fpu_save_insn {
	FPU_INSN_FXSAVE = 0,
	FPU_INSN_XSAVE,
	FPU_INSN_XSAVEOPT,
	FPU_INSN_XSAVEC,
	FPU_INSN_XSAVES,
	FPU_INSN_NR,
	FPU_INSN_AUTO = -1,
};

/* The 512-byte FXSAVE / XSAVE legacy region (SDM Vol. 1 Table 10-2). */
struct fxregs_state {
	uint16_t fcw;
	uint16_t fsw;
	uint8_t ftw; /* abridged tag word: 1 bit per register, 1 = valid */
	uint8_t reserved1;
	uint16_t fop;
	uint64_t fip;
	uint64_t fdp;
	uint32_t mxcsr;
	uint32_t mxcsr_mask;
	uint8_t st_space[128];  /* 8 x 16 bytes, 10 used */
	uint8_t xmm_space[256]; /* 16 x 16 bytes */
	uint8_t reserved2[48];
	uint8_t available[48]; /* software-available, ignored by the CPU */
} __attribute__((packed, aligned(16)));

/* XSAVE header (SDM Vol. 1 §13.4.2). */
struct xstate_header {
	uint64_t xstate_bv;
	uint64_t xcomp_bv;
	uint64_t reserved[6];
} __attribute__((packed));

/* An XSAVE area; the extended region follows the header. 64-byte aligned. */
struct xregs_state {
	struct fxregs_state legacy;
	struct xstate_header header;
	uint8_t extended[];
} __attribute__((packed, aligned(64)));

/* One state component as CPUID.(EAX=0DH,ECX=i) describes it (SDM §13.2). */
struct xstate_component {
	uint32_t size;       /* bytes */
	uint32_t std_offset; /* offset in the standard format; 0 for supervisor */
	bool align64;        /* ECX[1]: 64-byte aligned in the compacted format */
	bool supervisor;     /* ECX[0]: belongs in IA32_XSS, not XCR0 */
};

/* CPU capabilities that libfpu needs, read once by xstate_init(). */
struct xstate_cpu_caps {
	bool fxsr, xsave, xsaveopt, xsavec, xsaves, xgetbv1;
	bool avx, avx512f;
	bool pku;                /* CPUID.(7,0):ECX[3]: protection keys (PKRU, RDPKRU/WRPKRU) */
	bool xsaveerptr;         /* CPUID 0x80000008 EBX[2]: FXSAVE stores FIP/FDP/FOP always */
	bool amd;                /* AuthenticAMD */
	uint64_t xcr0_supported; /* CPUID.(0DH,0):EDX:EAX */
	uint64_t xss_supported;  /* CPUID.(0DH,1):EDX:ECX */
	uint32_t mxcsr_mask;     /* from FXSAVE, MXCSR_MASK_DEFAULT if it stored 0 */
};

/* Where xstate_init() runs: decides whether XCR0/IA32_XSS may be written. */
enum xstate_mode {
	XSTATE_MODE_KERNEL, /* ring 0: xstate_cpu_enable() will program CR4, XCR0, IA32_XSS */
	XSTATE_MODE_USER,   /* ring 3: take XCR0 as the OS set it (XGETBV), no supervisor state */
};

/* The configuration chosen by xstate_init(): one per system, like Linux's fpu_kernel_cfg. */
struct xstate_config {
	struct xstate_cpu_caps caps;
	struct xstate_component comp[64];
	uint64_t xcr0;                /* enabled user components */
	uint64_t xss;                 /* enabled supervisor components */
	uint64_t kernel_mask;         /* xcr0 | xss: what the kernel buffer holds */
	enum fpu_save_insn save_insn; /* what xstate_save() executes */
	bool compacted;               /* kernel buffer is in the compacted format */
	uint32_t kernel_size;         /* bytes of a kernel buffer (format of save_insn) */
	uint32_t user_size;           /* bytes of the standard format for xcr0 */
	bool force_fxsave_scrub;      /* scrub FIP/FDP/FOP even when the CPU does not leak */
	enum xstate_mode mode;        /* as passed to xstate_init() */
	bool pkru; /* libfpu switches PKRU per task (opts.pkru and PKU; user mode: OSPKE) */
	uint32_t pkru_offset; /* bytes: PKRU in a kernel buffer; 0 if PKRU is not in kernel_mask */
};

extern struct xstate_config xstate_cfg;

struct xstate_init_opts {
	enum xstate_mode mode;
	uint64_t max_xcr0;       /* enable at most these user components; 0 = x87|SSE|AVX|AVX-512 */
	uint64_t max_xss;        /* enable at most these supervisor components; 0 = none */
	enum fpu_save_insn insn; /* FPU_INSN_AUTO, or force one (must be supported) */
	bool force_fxsave_scrub;
	/*
	 * Enable PKRU (XCR0 bit 9) where CPUID offers PKU (and, in user mode,
	 * the OS's XCR0 has it). Kernel mode: the kernel sets CR4.PKE on every
	 * CPU before fpu_cpu_init(), since libfpu runs RDPKRU/WRPKRU at every
	 * switch (fpu.h). Without it PKRU is never enabled, whatever max_xcr0 says.
	 */
	bool pkru;
};

/* Error codes: negative returns of xstate_* functions. */
enum xstate_err {
	XSTATE_OK = 0,
	XSTATE_E_NOXSAVE = -1,    /* no FXSR at all, or a requested XSAVE insn is absent */
	XSTATE_E_MASK = -2,       /* requested mask not allowed (bits CPUID lacks are dropped) */
	XSTATE_E_SHORT = -3,      /* buffer shorter than required */
	XSTATE_E_XSTATE_BV = -4,  /* XSTATE_BV has bits outside the enabled mask */
	XSTATE_E_RESERVED = -5,   /* reserved header bytes non-zero */
	XSTATE_E_XCOMP_BV = -6,   /* XCOMP_BV non-zero in standard format */
	XSTATE_E_MXCSR = -7,      /* MXCSR has bits outside MXCSR_MASK */
	XSTATE_E_ALIGN = -8,      /* buffer not 64-byte aligned where required */
	XSTATE_E_INVAL = -9,      /* other invalid argument */
	XSTATE_E_COMPONENT = -10, /* component data XRSTOR would refuse (e.g. AMX TILECFG) */
};

/**
 * xstate_init - enumerate CPUID leaf 0xD and choose masks, format and instruction.
 * @opts: NULL for kernel defaults (XSTATE_MODE_KERNEL, x87|SSE|AVX(|AVX-512), auto insn).
 *
 * Fills xstate_cfg (may be called again to re-choose; nothing may hold state
 * then). On error xstate_cfg is left as it was. comp[] describes every
 * component CPUID.(0DH,i) reports, user and supervisor; comp[0]/comp[1]
 * describe the legacy region (x87: 160 bytes at 0, XMM: 256 bytes at 160).
 *
 * Masks: @max_xcr0/@max_xss are upper bounds, intersected with what CPUID
 * offers and, in user mode, with XGETBV(0). A component is enabled only when
 * the CPUID flag of its instructions is set too (AVX: CPUID.1:ECX.AVX;
 * AVX-512: CPUID.7:EBX.AVX512F; PKRU: PKU and @pkru; MPX; CET: CET_SS|IBT; AMX-TILE;
 * PT; ENQCMD; UINTR); components libfpu cannot check (HDC, HWP, LBR) never
 * are. XCR0 rules are kept (AVX needs SSE, AVX-512 needs AVX and all three
 * of its components). Supervisor state is enabled only with XSAVES.
 *
 * Instruction: kernel XSAVES > XSAVEC > XSAVEOPT > XSAVE > FXSAVE; user
 * XSAVEC > XSAVEOPT > XSAVE > FXSAVE (XSAVE* only when CPUID.1:ECX.OSXSAVE).
 * With FXSAVE, xcr0 = x87|SSE (XCR0 is programmed to 3 so AVX #UDs rather
 * than leaks between tasks). The kernel buffer is compacted for XSAVEC/XSAVES.
 *
 * Steps, as Linux's fpu__init_system_xstate(): probe the CPU, check the
 * requested masks, choose the masks, choose the instruction, set the sizes.
 *
 * caps.mxcsr_mask: in user mode read here with FXSAVE; in kernel mode
 * MXCSR_MASK_DEFAULT (0xffbf: no DAZ) until xstate_cpu_enable() reads it
 * (CR0.EM/TS may be set before that), after every call, a re-choice too:
 * until then an import refuses an MXCSR with DAZ set.
 *
 * Return: XSTATE_OK; XSTATE_E_NOXSAVE (no FXSR, or the forced insn is absent
 * or not legal in this mode); XSTATE_E_MASK (max_xcr0 lacks x87|SSE, names
 * supervisor components or bit 63; max_xss names user components; max_xss in
 * user mode or with a forced non-XSAVES insn; size above XSTATE_MAX_SIZE).
 * SDM Vol. 1 §13.2, §13.3; APM Vol. 2 §11.5.2.
 */
int xstate_init(const struct xstate_init_opts *opts);

/**
 * xstate_cpu_enable - ring 0, on every CPU, after xstate_init(): clear
 * CR0.EM|TS, set CR0.MP|NE, set CR4.OSFXSR|OSXMMEXCPT (|OSXSAVE when the CPU
 * has XSAVE), XCR0 = xstate_cfg.xcr0 (XSETBV), IA32_XSS (MSR 0xDA0) =
 * xstate_cfg.xss when the CPU has XSAVES, reads MXCSR_MASK, and leaves the
 * registers in init state (xstate_load_init()). CR0.TS is clear on return.
 * SDM Vol. 1 §13.3, Vol. 3A §2.5; APM Vol. 2 §11.5.2.
 */
void xstate_cpu_enable(void);

/** xstate_name - short name of a component ("x87", "sse", "ymm", ...; "unknown"). */
const char *xstate_name(unsigned int feature);

/** fpu_insn_name - "fxsave", "xsave", "xsaveopt", "xsavec", "xsaves" ("auto", "?"). */
const char *fpu_insn_name(enum fpu_save_insn insn);

/**
 * xstate_size_standard / xstate_size_compacted - bytes of an XSAVE area holding @mask.
 * Standard: max(offset+size) over the user components of @mask, at least 576.
 * Compacted: components 2..62 of @mask packed in bit order from byte 576, each
 * rounded up to a 64-byte boundary when its align64 flag is set (SDM Vol. 1
 * §13.4.3). Components CPUID does not report count 0 bytes.
 */
uint32_t xstate_size_standard(uint64_t mask);
uint32_t xstate_size_compacted(uint64_t mask);

/**
 * xstate_offset - byte offset of component @feature in a buffer of the given format.
 * @xcomp_bv: for the compacted format, the buffer's XCOMP_BV (bit 63 ignored);
 *            ignored for the standard format.
 * x87 is at 0 and SSE (XMM0) at 160 in both formats (MXCSR is at 24).
 * Return: offset in bytes, or 0 if @feature is not present in that buffer.
 */
uint32_t xstate_offset(unsigned int feature, bool compacted, uint64_t xcomp_bv);

/**
 * xstate_save - save the enabled state into @buf with xstate_cfg.save_insn.
 * @buf: kernel buffer, xstate_cfg.kernel_size bytes, 64-byte aligned (16 for FXSAVE).
 * @mask: components to save; RFBM = mask & XCR0 (| IA32_XSS for XSAVES).
 *        For the compacted format @mask is ignored and xstate_cfg.kernel_mask
 *        used: XSAVEC/XSAVES write XCOMP_BV = RFBM|bit63, so a partial save
 *        would move every component of the buffer.
 * XSAVEOPT/XSAVES may skip components unmodified since the last XRSTOR(S)
 * from this same address (modified optimization, SDM §13.6): whoever writes
 * the buffer in memory must not XSAVEOPT into it before restoring it.
 * CR0.TS must be clear: on hardware XSAVE* raises #NM when it is set.
 * SDM Vol. 1 §13.7 (XSAVE), §13.9 (XSAVEOPT), §13.10 (XSAVEC), §13.11 (XSAVES).
 */
void xstate_save(struct xregs_state *buf, uint64_t mask);

/**
 * xstate_save_insn - like xstate_save() but with an explicit instruction, for
 * experiments and calibration. @buf must be in that instruction's format and
 * large enough for it (xstate_size_standard/compacted of the kernel mask).
 * The insn must be supported and legal at the current CPL (XSAVES: ring 0).
 */
void xstate_save_insn(enum fpu_save_insn insn, struct xregs_state *buf, uint64_t mask);

/**
 * xstate_restore - load @mask from @buf, a buffer written by xstate_save() or
 * xstate_init_buffer()/xstate_import_std(): XRSTOR (either format),
 * XRSTORS (XSAVES), or FXRSTOR. Components of @mask absent from XSTATE_BV are
 * put in init state; components outside @mask keep their register values.
 * #GP if the buffer is malformed (SDM §13.8): only restore buffers libfpu
 * wrote or validated. CR0.TS must be clear. SDM Vol. 1 §13.8, §13.12.
 */
void xstate_restore(const struct xregs_state *buf, uint64_t mask);

/** xstate_restore_insn - restore a buffer written by @insn (XRSTORS for XSAVES). */
void xstate_restore_insn(enum fpu_save_insn insn, const struct xregs_state *buf, uint64_t mask);

/**
 * xstate_init_buffer - write the architectural init state into a kernel buffer:
 * FCW 0x37F, MXCSR 0x1F80, every data register zero, XSTATE_BV = 0 (FXSAVE
 * format: the 512-byte image alone), XCOMP_BV = kernel_mask|bit63 when compacted.
 * @buf: xstate_cfg.kernel_size bytes, 64-byte aligned.
 */
void xstate_init_buffer(struct xregs_state *buf);

/** xstate_init_image - the init-state kernel buffer xstate_load_init() uses (read-only). */
const void *xstate_init_image(void);

/**
 * xstate_load_init - put every enabled register (kernel_mask) in the
 * architectural init state by restoring xstate_init_image(). FNINIT alone is
 * not enough: it leaves XMM/YMM and MXCSR alone. CR0.TS must be clear.
 */
void xstate_load_init(void);

/**
 * xstate_scrub_fxsave_leak - AMD pre-XSaveErPtr: FXSAVE/XSAVE omit FIP/FDP/FOP
 * unless an x87 exception is pending, and FXRSTOR/XRSTOR do not load them,
 * so a task could see another's pointers (CVE-2006-1056). Call it right
 * before restoring a task whose state was not the last in the registers: it
 * runs FNCLEX; EMMS; FILD of a static zero, which sets FIP/FDP/FOP to libfpu's
 * own values and clobbers ST0/FTW (the restore overwrites them).
 * Runs only when the CPU is AMD without XSaveErPtr (CPUID 0x80000008 EBX[2])
 * or xstate_cfg.force_fxsave_scrub is set. Return: true if it ran.
 * CR0.TS must be clear. APM Vol. 2 §11.4.4; Linux X86_BUG_FXSAVE_LEAK.
 */
bool xstate_scrub_fxsave_leak(void);

/**
 * xstate_xgetbv - XGETBV(ECX=@index): 0 reads XCR0, 1 the XINUSE bitmap
 * (only where CPUID.(EAX=0DH,ECX=1):EAX[2] says so). #UD unless
 * CR4.OSXSAVE is set (CPUID.1:ECX[27] says it is); legal in user mode.
 * SDM Vol. 2C XGETBV. The one XGETBV of libfpu and the host command.
 */
uint64_t xstate_xgetbv(uint32_t index);

/**
 * xstate_xinuse - XGETBV(ECX=1): bit i clear means component i is in init
 * state (a set bit may still be init: SDM §13.6). ~0 if XGETBV1 is absent.
 * Under QEMU TCG it reads all enabled bits.
 */
uint64_t xstate_xinuse(void);

/* ---- user-visible (standard-format) state: signal frames, ptrace, core dumps ---- */

/**
 * xstate_export_std - convert a kernel buffer (any format: FXSAVE if
 * save_insn is FXSAVE, else standard or compacted by XCOMP_BV[63]) to the
 * standard XSAVE format of xstate_cfg.xcr0.
 * @dst: xstate_cfg.user_size bytes at least, any alignment; @dst_len its length in bytes.
 * XSTATE_BV = the kernel buffer's XSTATE_BV & xcr0 (x87|SSE for FXSAVE), exactly;
 * components not in it are written with their init values; supervisor state
 * is never exported; XCOMP_BV, reserved header bytes and legacy bytes
 * 464..511 are zero; MXCSR is the value XRSTOR would load; MXCSR_MASK is
 * caps.mxcsr_mask.
 * Return: bytes written (xstate_cfg.user_size), or XSTATE_E_SHORT, XSTATE_E_INVAL.
 */
int xstate_export_std(void *dst, size_t dst_len, const struct xregs_state *kbuf);

/**
 * xstate_import_std - validate an untrusted standard-format buffer and convert
 * it into the kernel buffer @kbuf. Nothing is written to @kbuf on error.
 * @kbuf: a valid kernel buffer (xstate_init_buffer() or a save): its
 *        supervisor components are kept. @src: any alignment, @src_len bytes.
 * Rejects, in this order: XSTATE_E_INVAL (NULL), XSTATE_E_SHORT (under 576
 * bytes), XSTATE_E_XSTATE_BV (bits outside xstate_cfg.xcr0, incl. supervisor
 * bits and bit 63), XSTATE_E_SHORT (under xstate_size_standard(XSTATE_BV)),
 * XSTATE_E_XCOMP_BV (non-zero), XSTATE_E_RESERVED (header bytes 16..63
 * non-zero), XSTATE_E_MXCSR (bits outside caps.mxcsr_mask), XSTATE_E_COMPONENT (AMX
 * TILECFG with a palette or reserved bytes XRSTOR refuses). Legacy bytes
 * 464..511 and the MXCSR_MASK field are ignored. An MXCSR other than 0x1F80
 * with XSTATE_BV[1] clear sets XSTATE_BV[1] in a compacted @kbuf (compacted
 * XRSTOR would otherwise load 0x1F80). SDM Vol. 1 §13.8.1.
 * Return: XSTATE_OK or a negative enum xstate_err.
 */
int xstate_import_std(struct xregs_state *kbuf, const void *src, size_t src_len);

/**
 * xstate_import_std_masked - xstate_import_std(), as an XRSTOR with RFBM =
 * @rfbm would load the image (Linux's sigreturn restores with RFBM = the
 * frame's xfeatures): the header is validated whole, but components outside
 * @rfbm are put in init state (MXCSR = 0x1F80 when @rfbm lacks SSE), and
 * MXCSR is checked only when @rfbm has SSE or AVX. @rfbm = ~0: xstate_import_std().
 */
int xstate_import_std_masked(struct xregs_state *kbuf, const void *src, size_t src_len,
			     uint64_t rfbm);

/** xstate_strerror - one-line reason for an xstate_err ("unknown error" otherwise). */
const char *xstate_strerror(int err);

#endif
