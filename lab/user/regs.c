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

unsigned int regs_check(unsigned int regset, unsigned int task, uint64_t seq)
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
		ctl_want = fcw_pattern(task);
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
		ctl_want = mxcsr_pattern(task);
	}

	if (ctl != ctl_want)
		note_wrong(&rep, REPORT_REG_CONTROL, ctl_want, ctl);
	for (unsigned int r = 0; r < nregs[regset]; r++) {
		for (unsigned int l = 0; l < nl; l++) {
			uint64_t want = pattern(task, seq, r, l);
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
	return regs_check(REGSET_X87, task, seq) +
	       regs_check(ymm ? REGSET_AVX : REGSET_SSE, task, seq);
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
