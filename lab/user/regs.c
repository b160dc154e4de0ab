/* SPDX-License-Identifier: MIT */
/*
 * Register patterns, ring 3. Each FP task keeps a value unique to (task,
 * sequence number, register, lane) in every register of its set, and checks
 * it after every switch: a lost save, a skipped restore or another task's
 * state all show up as a mismatch. The C code here is compiled without SSE,
 * so only these asm blocks touch the FPU.
 */
#include "../exp.h"
#include "ulib.h"

static uint64_t pattern(unsigned int task, uint64_t seq, unsigned int reg, unsigned int lane)
{
	/* bit 62 keeps it non-zero and positive for FILD/FISTP */
	return (1ull << 62) | ((uint64_t)(task & 0xfff) << 48) | ((seq & 0xffffffff) << 12) |
	       (reg << 4) | lane;
}

static uint16_t fcw_pattern(unsigned int task)
{
	return (uint16_t)(0x037f | ((task & 3) << 10)); /* rounding control per task */
}

static uint32_t mxcsr_pattern(unsigned int task)
{
	return 0x1f80 | ((task & 3) << 13); /* rounding control per task */
}

#define X87_PUSH(n) "fildq " #n "*8(%0)\n\t"
#define X87_POP(n) "fistpq " #n "*8(%0)\n\t"
#define XMM_LOAD(n) "movdqu " #n "*16(%0), %%xmm" #n "\n\t"
#define XMM_STORE(n) "movdqu %%xmm" #n ", " #n "*16(%0)\n\t"
#define YMM_LOAD(n) "vmovdqu " #n "*32(%0), %%ymm" #n "\n\t"
#define YMM_STORE(n) "vmovdqu %%ymm" #n ", " #n "*32(%0)\n\t"
#define EIGHT(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7)
#define SIXTEEN(m) EIGHT(m) m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)

static const unsigned int lanes[REGSET_NR] = { 1, 2, 4 };
static const unsigned int nregs[REGSET_NR] = { 8, 16, 16 };

void regs_write(unsigned int regset, unsigned int task, uint64_t seq)
{
	uint64_t v[16 * 4];
	unsigned int nl = lanes[regset];
	for (unsigned int r = 0; r < nregs[regset]; r++)
		for (unsigned int l = 0; l < nl; l++)
			v[r * nl + l] = pattern(task, seq, r, l);

	if (regset == REGSET_X87) {
		uint16_t fcw = fcw_pattern(task);
		__asm__ volatile("fldcw %0" : : "m"(fcw));
		__asm__ volatile(EIGHT(X87_PUSH) : : "r"(v) : "memory");
	} else {
		uint32_t mxcsr = mxcsr_pattern(task);
		__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
		if (regset == REGSET_SSE)
			__asm__ volatile(SIXTEEN(XMM_LOAD) : : "r"(v) : "memory");
		else
			__asm__ volatile(SIXTEEN(YMM_LOAD) : : "r"(v) : "memory");
	}
}

/* Count a wrong register; describe the first data register found wrong. */
static void note_wrong(struct integrity_report *rep, unsigned int reg, uint64_t want, uint64_t got)
{
	if (!rep->count++ || rep->reg == REPORT_REG_CONTROL) {
		rep->reg = reg;
		rep->expected = want;
		rep->got = got;
	}
}

/* What register @r, lane @l (64-bit lanes) of @regset must hold. */
static uint64_t want_lane(unsigned int regset, unsigned int task, uint64_t seq, unsigned int r,
			  unsigned int l, const struct regs_edit *e)
{
	if (e && e->on && regset != REGSET_X87) {
		if (r == EDIT_XMM && l < 2)
			return e->xmm[l];
		if (l >= 2 && r == EDIT_YMM && e->ymm_set)
			return e->ymm_hi[l - 2];
		if (l >= 2 && e->legacy)
			return 0;
	}
	return pattern(task, seq, r, l);
}

static uint64_t want_control(unsigned int regset, unsigned int task, const struct regs_edit *e)
{
	if (regset == REGSET_X87)
		return e && e->on ? e->fcw : fcw_pattern(task);
	return e && e->on ? e->mxcsr : mxcsr_pattern(task);
}

static unsigned int regs_check_edit(unsigned int regset, unsigned int task, uint64_t seq,
				    const struct regs_edit *e)
{
	uint64_t got[16 * 4];
	unsigned int nl = lanes[regset];
	struct integrity_report rep = { .task = task, .regset = regset };
	uint64_t ctl, ctl_want;

	if (regset == REGSET_X87) {
		uint16_t fcw;
		__asm__ volatile("fnstcw %0" : "=m"(fcw));
		__asm__ volatile(EIGHT(X87_POP) : : "r"(got) : "memory");
		ctl = fcw;
		/* FISTP pops ST(0) first: got[k] is the register loaded (7 - k)th. */
		for (unsigned int k = 0; k < 4; k++) {
			uint64_t t = got[k];
			got[k] = got[7 - k];
			got[7 - k] = t;
		}
	} else {
		uint32_t mxcsr;
		__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
		if (regset == REGSET_SSE)
			__asm__ volatile(SIXTEEN(XMM_STORE) : : "r"(got) : "memory");
		else
			__asm__ volatile(SIXTEEN(YMM_STORE) : : "r"(got) : "memory");
		ctl = mxcsr;
	}
	ctl_want = want_control(regset, task, e);

	if (ctl != ctl_want)
		note_wrong(&rep, REPORT_REG_CONTROL, ctl_want, ctl);
	for (unsigned int r = 0; r < nregs[regset]; r++) {
		for (unsigned int l = 0; l < nl; l++) {
			uint64_t want = want_lane(regset, task, seq, r, l, e);
			if (got[r * nl + l] != want) {
				note_wrong(&rep, r, want, got[r * nl + l]);
				break; /* count registers, not lanes */
			}
		}
	}
	if (rep.count)
		sys_integrity(&rep);
	return rep.count;
}

unsigned int regs_check(unsigned int regset, unsigned int task, uint64_t seq)
{
	return regs_check_edit(regset, task, seq, NULL);
}

/*
 * Every component at once. The x87 stack and the vector registers are
 * disjoint, so the two writes (and checks) do not disturb each other; the
 * x87 check pops the stack, so a check is always followed by a write.
 */
void regs_write_all(unsigned int task, uint64_t seq, bool ymm)
{
	regs_write(REGSET_X87, task, seq);
	regs_write(ymm ? REGSET_AVX : REGSET_SSE, task, seq);
}

unsigned int regs_check_all(unsigned int task, uint64_t seq, bool ymm)
{
	return regs_check_all_edit(task, seq, ymm, NULL);
}

unsigned int regs_check_all_edit(unsigned int task, uint64_t seq, bool ymm,
				 const struct regs_edit *e)
{
	return regs_check_edit(REGSET_X87, task, seq, e) +
	       regs_check_edit(ymm ? REGSET_AVX : REGSET_SSE, task, seq, e);
}

/*
 * Standard-format images (SDM Vol. 1 §13.4.1): FCW at 0, FSW at 2, the
 * abridged FTW at 4, MXCSR at 24, ST(i) at 32 + 16 i (80-bit extended),
 * XMM at 160 + 16 i, XSTATE_BV at 512, YMM upper halves at 576 + 16 i.
 * The patterns are integers with bit 62 the highest set, so as 80-bit
 * extended values their significand is the pattern shifted left once and
 * their biased exponent 16383 + 62.
 */
#define IMG_FCW 0
#define IMG_FSW 2
#define IMG_FTW 4
#define IMG_MXCSR 24
#define IMG_ST 32
#define IMG_XMM 160
#define IMG_XSTATE_BV 512
#define IMG_YMM 576
#define X87_EXP (16383 + 62)

static void put(void *img, unsigned int off, const void *v, unsigned int n)
{
	__builtin_memcpy((uint8_t *)img + off, v, n);
}

static uint64_t get64(const void *img, unsigned int off)
{
	uint64_t v;
	__builtin_memcpy(&v, (const uint8_t *)img + off, sizeof(v));
	return v;
}

static uint32_t get32(const void *img, unsigned int off)
{
	uint32_t v;
	__builtin_memcpy(&v, (const uint8_t *)img + off, sizeof(v));
	return v;
}

static uint16_t get16(const void *img, unsigned int off)
{
	uint16_t v;
	__builtin_memcpy(&v, (const uint8_t *)img + off, sizeof(v));
	return v;
}

/* ST(i) after regs_write(REGSET_X87): the register loaded (7 - i)th. */
static void img_st(unsigned int i, unsigned int task, uint64_t seq, uint64_t *mant, uint16_t *exp)
{
	*mant = pattern(task, seq, 7 - i, 0) << 1;
	*exp = X87_EXP;
}

unsigned int regs_check_image(const void *img, unsigned int task, uint64_t seq, bool ymm,
			      const struct regs_edit *e)
{
	struct integrity_report x87 = { .task = task, .regset = REGSET_X87 };
	unsigned int vset = ymm ? REGSET_AVX : REGSET_SSE;
	struct integrity_report vec = { .task = task, .regset = vset };
	uint64_t bv = get64(img, IMG_XSTATE_BV);

	if (get16(img, IMG_FCW) != want_control(REGSET_X87, task, e))
		note_wrong(&x87, REPORT_REG_CONTROL, want_control(REGSET_X87, task, e),
			   get16(img, IMG_FCW));
	if ((get16(img, IMG_FSW) & 0x3800) || ((const uint8_t *)img)[IMG_FTW] != 0xff)
		note_wrong(&x87, REPORT_REG_CONTROL, 0xff, /* TOP 0, every register valid */
			   (uint64_t)get16(img, IMG_FSW) << 16 | ((const uint8_t *)img)[IMG_FTW]);
	for (unsigned int i = 0; i < 8; i++) {
		uint64_t mant;
		uint16_t exp;
		img_st(i, task, seq, &mant, &exp);
		if (get64(img, IMG_ST + 16 * i) != mant || get16(img, IMG_ST + 16 * i + 8) != exp)
			note_wrong(&x87, 7 - i, mant >> 1, get64(img, IMG_ST + 16 * i) >> 1);
	}
	if (get32(img, IMG_MXCSR) != want_control(vset, task, e))
		note_wrong(&vec, REPORT_REG_CONTROL, want_control(vset, task, e),
			   get32(img, IMG_MXCSR));
	for (unsigned int r = 0; r < 16; r++) {
		for (unsigned int l = 0; l < lanes[vset]; l++) {
			uint64_t want = want_lane(vset, task, seq, r, l, e), got;
			if (l < 2)
				got = get64(img, IMG_XMM + 16 * r + 8 * l);
			else if (bv & 4)
				got = get64(img, IMG_YMM + 16 * r + 8 * (l - 2));
			else
				got = 0; /* XSTATE_BV[2] clear: the upper halves are in their init state */
			if (got != want) {
				note_wrong(&vec, r, want, got);
				break;
			}
		}
	}
	if (x87.count)
		sys_integrity(&x87);
	if (vec.count)
		sys_integrity(&vec);
	return x87.count + vec.count;
}

void regs_write_image(void *img, unsigned int task, uint64_t seq, bool ymm)
{
	uint16_t fcw = fcw_pattern(task), fsw = 0;
	uint32_t mxcsr = mxcsr_pattern(task);
	uint8_t ftw = 0xff;
	uint64_t bv = get64(img, IMG_XSTATE_BV) | 3 | (ymm ? 4 : 0);

	put(img, IMG_FCW, &fcw, 2);
	put(img, IMG_FSW, &fsw, 2);
	put(img, IMG_FTW, &ftw, 1);
	put(img, IMG_MXCSR, &mxcsr, 4);
	for (unsigned int i = 0; i < 8; i++) {
		uint64_t mant;
		uint16_t exp;
		img_st(i, task, seq, &mant, &exp);
		put(img, IMG_ST + 16 * i, &mant, 8);
		put(img, IMG_ST + 16 * i + 8, &exp, 2);
	}
	for (unsigned int r = 0; r < 16; r++) {
		for (unsigned int l = 0; l < (ymm ? 4u : 2u); l++) {
			uint64_t v = pattern(task, seq, r, l);
			put(img, l < 2 ? IMG_XMM + 16 * r + 8 * l : IMG_YMM + 16 * r + 8 * (l - 2),
			    &v, 8);
		}
	}
	put(img, IMG_XSTATE_BV, &bv, 8);
}

void regs_edit_image(void *img, const struct regs_edit *e)
{
	put(img, IMG_FCW, &e->fcw, 2);
	put(img, IMG_MXCSR, &e->mxcsr, 4);
	put(img, IMG_XMM + 16 * EDIT_XMM, e->xmm, 16);
	if (e->ymm_set) {
		uint64_t bv = get64(img, IMG_XSTATE_BV) | 4;
		put(img, IMG_YMM + 16 * EDIT_YMM, e->ymm_hi, 16);
		put(img, IMG_XSTATE_BV, &bv, 8);
	}
}

static void report_init(struct integrity_report *r, uint64_t want, uint64_t got)
{
	if (!r->count++) {
		r->expected = want;
		r->got = got;
	}
}

/*
 * A new task must start in the architectural init state: empty x87 stack
 * with FCW 0x37f, MXCSR 0x1f80, vector registers zero. Anything else is
 * state leaked from another task (REPORT_REG_INIT in the report).
 */
unsigned int regs_check_init(unsigned int task, bool ymm)
{
	struct {
		uint16_t fcw, r0, fsw, r1, ftw, r2;
		uint32_t ip_sel_op[4];
	} env; /* FNSTENV, 32-bit format */
	uint64_t v[16 * 4];
	uint32_t mxcsr;
	struct integrity_report x87 = { .task = task,
					.regset = REGSET_X87,
					.reg = REPORT_REG_INIT };
	struct integrity_report vec = { .task = task,
					.regset = ymm ? REGSET_AVX : REGSET_SSE,
					.reg = REPORT_REG_INIT };

	__asm__ volatile("fnstenv %0" : "=m"(env));
	__asm__ volatile("fldcw %0" : : "m"(env.fcw)); /* FNSTENV masked every exception */
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	if (ymm)
		__asm__ volatile(SIXTEEN(YMM_STORE) : : "r"(v) : "memory");
	else
		__asm__ volatile(SIXTEEN(XMM_STORE) : : "r"(v) : "memory");

	if (env.fcw != 0x37f)
		report_init(&x87, 0x37f, env.fcw);
	if (env.ftw != 0xffff)
		report_init(&x87, 0xffff, env.ftw); /* tag word: every register empty */
	if (env.fsw & 0x3800)
		report_init(&x87, 0, env.fsw); /* TOP */
	if (mxcsr != 0x1f80)
		report_init(&vec, 0x1f80, mxcsr);
	unsigned int nl = lanes[ymm ? REGSET_AVX : REGSET_SSE];
	for (unsigned int r = 0; r < 16; r++)
		for (unsigned int l = 0; l < nl; l++)
			if (v[r * nl + l]) {
				report_init(&vec, 0, v[r * nl + l]);
				break; /* count registers, not lanes */
			}
	if (x87.count)
		sys_integrity(&x87);
	if (vec.count)
		sys_integrity(&vec);
	return x87.count + vec.count;
}

struct x87_env {
	uint16_t fcw, r0, fsw, r1, ftw, r2;
	uint32_t fip, fcs_fop, fdp, fds;
}; /* FNSTENV, 32-bit format (SDM Vol. 1 §8.1.10) */

unsigned int regs_check_x87_ptrs(unsigned int task, const struct x87_ptrs *scrub, bool report)
{
	struct x87_env env;
	uint16_t fop;
	struct integrity_report r = {
		.count = 1, .task = task, .regset = REGSET_X87, .reg = REPORT_REG_X87_PTRS
	};

	__asm__ volatile("fnstenv %0" : "=m"(env));
	__asm__ volatile("fldcw %0" : : "m"(env.fcw)); /* FNSTENV masked every exception */
	fop = (uint16_t)((env.fcs_fop >> 16) & 0x7ff);
	if (!env.fip && !env.fdp && !fop)
		return 0;
	if (scrub && scrub->valid && env.fip == scrub->fip && env.fdp == scrub->fdp &&
	    fop == scrub->fop)
		return 0;
	if (report) {
		r.expected = scrub && scrub->valid ? (uint64_t)scrub->fip << 32 | scrub->fdp : 0;
		r.got = (uint64_t)env.fip << 32 | env.fdp;
		sys_integrity(&r);
	}
	return 1;
}

/*
 * A preemption between the load and the check gives the task a restore
 * before FNSTENV, and every restore that is not skipped scrubs first; QEMU
 * TCG's XRSTOR does not load FIP/FDP/FOP, so the check then sees the
 * scrub's pointers and passes. One passing try proves nothing: the check
 * is blind only if every try passes. The test kernel yields inside the
 * first try, so that a single try would fail (tests/lab/stress.sh).
 */
/* Under stress's jittered timer, CI saw the three tries after the yield all preempted. */
#define CAN_FAIL_TRIES 16

bool regs_x87_ptrs_check_can_fail(const struct x87_ptrs *scrub)
{
	static const uint32_t one = 1;

	for (int i = 0; i < CAN_FAIL_TRIES; i++) {
		bool fails;

		__asm__ volatile("fildl %0" : : "m"(one));
#ifdef FPU_TESTING
		if (i == 0)
			sys_yield();
#endif
		fails = regs_check_x87_ptrs(0, scrub, false) == 1;
		__asm__ volatile("fstp %st(0)");
		if (fails)
			return true;
	}
	return false;
}
