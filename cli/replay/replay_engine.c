/* SPDX-License-Identifier: MIT */
/*
 * The replay engine (docs/model.md). Built with -mgeneral-regs-only: the
 * compiler must not touch the vector registers, which hold the simulated
 * tasks' state between events. The only vector instructions here are the
 * tasks' own "uses" (writing and checking a signature in each component
 * they dirty), the kernel's clobber inside a kernel-FPU section, and the
 * untimed swaps of per-CPU register images.
 *
 * Design: one host thread plays every traced CPU (not pinned: docs/model.md
 * says why the host's switches, moves and signals cannot change what it
 * checks). When the next event is on another CPU than the last, the real
 * registers are saved into the old CPU's image and the new CPU's image is
 * loaded (XSAVE/XRSTOR of all of XCR0, untimed). CR0.TS cannot be written
 * from user mode: libfpu's set_ts/clear_ts callbacks keep a per-CPU mirror,
 * and a use with TS set calls fpu_handle_nm() as the #NM handler would. A flush IPI is delivered
 * at once: the engine switches to the target CPU, runs fpu_flush_ipi()
 * there (timed) and comes back (untimed).
 *
 * The floor (replay_record, replay_bare): a recording run logs, per libfpu
 * call of the event loop, the saves and restores libfpu executed (area,
 * mask, instruction) and what the harness saw of it (TS mirror writes, IPI
 * deliveries). The bare run plays the same events and, in place of each
 * libfpu call, executes only that call's logged instructions inside the
 * same timed region. Every libfpu call of an event handler therefore goes
 * through TIMED() or LIB(); calls that neither save nor restore nor write
 * TS (fpu_task_init) may be made directly.
 */
#include "replay_engine.h"
#include "common/stats.h"
#include "common/tsc.h"
#include "replay_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fpu/fpu.h>
#include <fpu/signal.h>
#include <fpu/xstate.h>

struct task_sig {
	uint64_t sse, avx, zmm, kmask, hi16; /* the value last written in each component */
	uint16_t fcw;
	uint32_t written; /* union of the components written so far */
	uint64_t gen;
};

struct replay {
	const struct trace *t;
	uint32_t ntasks, ncpus;
	uint64_t xcr0;
	struct fpu *fpus;
	struct xregs_state **areas;
	struct log_areas log_areas; /* @areas by index, for the floor's logs */
	struct task_sig *sig;
	uint8_t *exited;
	struct xregs_state *img[FPULAB_TRACE_MAX_CPUS]; /* each CPU's registers while another runs */
	struct xregs_state *scratch, *init_img;
	void *export_buf;
	struct xregs_state *import_img; /* an image an IMPORT installs, as a signal frame */
	uint16_t cur[FPULAB_TRACE_MAX_CPUS];
	uint8_t ts[FPULAB_TRACE_MAX_CPUS];
	/* a trace without returns: the running task exported its state in a syscall and
	 * is back in ring 3 at its next use (fpu_return_to_user() then) */
	uint8_t in_syscall[FPULAB_TRACE_MAX_CPUS];
	unsigned int active; /* whose registers the real ones are */
	bool returns;        /* the trace places the returns to ring 3 (FPULAB_TRACE_F_RETURNS) */
	uint64_t overhead;   /* ticks of an empty timed region */
	uint64_t excluded;   /* harness ticks inside timed hooks (IPI delivery's swaps) */
	uint64_t integrity;
	struct replay_integrity first; /* the run's first integrity error */
	uint64_t ev_index;             /* the event being replayed */
	uint64_t clipped;
	/* bare run (replay_bare): the log, where its next call starts, the call being played */
	const struct replay_log *bare;
	size_t bare_pos;
	struct log_op bare_ops[LOG_CALL_MAX_OPS];
	bool bare_skip;       /* the call just played was a skipped-restore switch */
	bool bare_empty;      /* time empty regions, play each call just after its region */
	bool bare_calls;      /* ... each region holding a call of an empty function instead */
	uint64_t bare_desync; /* the events asked for a call the log does not have */
	uint64_t bare_saves, bare_restores;
	struct replay_result *res;        /* the run's result, for TIMED()'s figures by hook */
	struct trace_iter it;             /* the run's pass over the events */
	struct fpulab_trace_event *chunk; /* TRACE_CHUNK events read from the file */
	uint64_t switch_events;           /* the pass's SWITCH events */
};

static struct replay *rp_cur; /* libfpu's callbacks have no context argument */
static unsigned int sim_cpu;
static struct replay_log *rec; /* replay_record: the log being filled */

/* All of XCR0, standard format: the harness's own saves, never libfpu's. */
static inline void regs_save(struct xregs_state *img)
{
	__asm__ volatile("xsave64 %0" : "+m"(*img) : "a"(-1), "d"(-1) : "memory");
}

static inline void regs_load(const struct xregs_state *img)
{
	__asm__ volatile("xrstor64 %0" : : "m"(*img), "a"(-1), "d"(-1) : "memory");
}

/* Make the real registers those of traced CPU @cpu (untimed). */
static void on_cpu(struct replay *rp, unsigned int cpu)
{
	if (rp->active != cpu) {
		regs_save(rp->img[rp->active]);
		regs_load(rp->img[cpu]);
		rp->active = cpu;
	}
	sim_cpu = cpu;
}

/* ---- libfpu's callbacks ---- */

static unsigned int host_cpu_id(void)
{
	return sim_cpu;
}

static void host_panic(const char *msg)
{
	fprintf(stderr, "fpulab replay: libfpu: %s\n", msg);
	abort();
}

static void rec_op(uint32_t kind, const struct xregs_state *area, uint64_t mask, uint32_t cpu)
{
	log_op(rec, &rp_cur->log_areas, kind, area, mask, cpu);
}

static void host_set_ts(void)
{
	rp_cur->ts[sim_cpu] = 1;
	if (rec)
		rec_op(OP_TS_SET, NULL, 0, 0);
}

static void host_clear_ts(void)
{
	rp_cur->ts[sim_cpu] = 0;
	if (rec)
		rec_op(OP_TS_CLEAR, NULL, 0, 0);
}

/* Delivered at once on @cpu; the swaps there and back are not libfpu's time. */
static void host_send_flush_ipi(unsigned int cpu)
{
	struct replay *rp = rp_cur;
	unsigned int from = sim_cpu;
	uint64_t t0 = tsc_begin();

	on_cpu(rp, cpu);
	rp->excluded += tsc_end() - t0;
	if (rec)
		rec_op(OP_GOTO_CPU, NULL, 0, cpu);
	fpu_flush_ipi();
	if (rec)
		rec_op(OP_GOTO_CPU, NULL, 0, from);
	t0 = tsc_begin();
	on_cpu(rp, from);
	rp->excluded += tsc_end() - t0;
}

/*
 * libfpu's saves and restores of the tasks' areas, heard through
 * fpu_set_insn_trace() while a run records (replay_record): each is logged with
 * its area and mask for the bare replay. Outside a recording run no hook is
 * set and libfpu pays one load and branch per instruction.
 */
static void rec_insn(bool restore, enum fpu_save_insn insn, const struct xregs_state *area,
		     uint64_t mask)
{
	static const uint32_t save_op[FPU_INSN_NR] = {
		[FPU_INSN_FXSAVE] = OP_FXSAVE,     [FPU_INSN_XSAVE] = OP_XSAVE,
		[FPU_INSN_XSAVEOPT] = OP_XSAVEOPT, [FPU_INSN_XSAVEC] = OP_XSAVEC,
		[FPU_INSN_XSAVES] = OP_XSAVEC, /* kernel mode only: never in replay */
	};

	if (restore)
		rec_op(insn == FPU_INSN_FXSAVE ? OP_FXRSTOR : OP_XRSTOR, area, mask, 0);
	else
		rec_op(save_op[insn], area, mask, 0);
}

static void host_wait_relax(void)
{
	host_panic("replay: a wait that synchronous IPI delivery should have made unnecessary");
}

static const struct fpu_arch_ops host_ops = {
	.cpu_id = host_cpu_id,
	.panic = host_panic,
	.set_ts = host_set_ts,
	.clear_ts = host_clear_ts,
	.send_flush_ipi = host_send_flush_ipi,
	.wait_relax = host_wait_relax,
};

/* ---- what a task does with the registers ---- */

#define M_X87 0x1u
#define M_SSE 0x2u
#define M_AVX 0x4u
#define M_K 0x20u
#define M_ZMM 0x40u
#define M_HI16 0x80u

/*
 * The components whose registers do not hold the task's own state (M_*
 * bits, the XCR0 bit of each; 0 when all do). The first found wrong, in the
 * order checked (x87, SSE, AVX, ZMM, opmask, Hi16), goes into @first with
 * the value in the registers and the one the task last wrote.
 */
static inline void check1(uint32_t bit, uint64_t got, uint64_t want, uint32_t *bad,
			  struct replay_integrity *first)
{
	if (got == want)
		return;
	if (!*bad) {
		first->component = bit;
		first->got = got;
		first->want = want;
	}
	*bad |= bit;
}

static uint32_t regs_wrong(const struct task_sig *s, struct replay_integrity *first)
{
	uint64_t v;
	uint32_t bad = 0;

	if (s->written & M_X87) {
		uint16_t cw;
		__asm__ volatile("fnstcw %0" : "=m"(cw));
		check1(M_X87, (uint64_t)cw, (uint64_t)s->fcw, &bad, first);
	}
	__asm__ volatile("movq %%xmm0, %0" : "=r"(v));
	check1(M_SSE, v, s->sse, &bad, first);
	if (s->written & M_AVX) {
		__asm__ volatile("vextractf128 $1, %%ymm0, %%xmm1\n\tvmovq %%xmm1, %0" : "=r"(v));
		check1(M_AVX, v, s->avx, &bad, first);
	}
	if (s->written & M_ZMM) {
		__asm__ volatile("vextracti64x4 $1, %%zmm0, %%ymm1\n\tvmovq %%xmm1, %0" : "=r"(v));
		check1(M_ZMM, v, s->zmm, &bad, first);
	}
	if (s->written & M_K) {
		__asm__ volatile("kmovq %%k1, %0" : "=r"(v));
		check1(M_K, v, s->kmask, &bad, first);
	}
	if (s->written & M_HI16) {
		__asm__ volatile("vmovq %%xmm16, %0" : "=r"(v));
		check1(M_HI16, v, s->hi16, &bad, first);
	}
	return bad;
}

const char *replay_component_name(uint32_t bit)
{
	switch (bit) {
	case M_X87:
		return "x87 (FCW)";
	case M_SSE:
		return "SSE (XMM0 low)";
	case M_AVX:
		return "AVX (YMM0 upper)";
	case M_K:
		return "opmask (k1)";
	case M_ZMM:
		return "ZMM_Hi256 (ZMM0 upper)";
	case M_HI16:
		return "Hi16_ZMM (XMM16)";
	default:
		return "none (CR0.TS still set after the #NM)";
	}
}

/* The task dirties the components of @mask with new values. */
static void regs_write(struct task_sig *s, unsigned int task, uint32_t mask)
{
	uint64_t v = ((uint64_t)task << 40) | ++s->gen;

	if (mask & M_X87) {
		s->fcw = (s->gen & 1) ? 0x027f : 0x037f; /* precision control: double / extended */
		__asm__ volatile("fldcw %0" : : "m"(s->fcw));
	}
	if (mask & M_SSE) {
		__asm__ volatile("movq %0, %%xmm0" : : "r"(v));
		s->sse = v;
	}
	if (mask & M_AVX) {
		__asm__ volatile("movq %0, %%xmm1\n\tvinsertf128 $1, %%xmm1, %%ymm0, %%ymm0"
				 :
				 : "r"(v));
		s->avx = v;
		s->zmm = 0; /* a VEX write zeroes bits 511:256 */
	}
	if (mask & M_ZMM) {
		__asm__ volatile("vmovq %0, %%xmm1\n\tvinserti64x4 $1, %%ymm1, %%zmm0, %%zmm0"
				 :
				 : "r"(v));
		s->zmm = v;
	}
	if (mask & M_K) {
		__asm__ volatile("kmovq %0, %%k1" : : "r"(v));
		s->kmask = v;
	}
	if (mask & M_HI16) {
		__asm__ volatile("vmovq %0, %%xmm16" : : "r"(v));
		s->hi16 = v;
	}
	s->written |= mask | (mask & M_AVX ? M_ZMM & (uint32_t)rp_cur->xcr0 : 0);
}

/* Kernel-mode FPU work (a checksum): clobbers what a task's signature lives in. */
static void kernel_clobber(const struct replay *rp)
{
	uint64_t v = 0x6b65726e656c2121ull;

	__asm__ volatile("movq %0, %%xmm0" : : "r"(v));
	if (rp->xcr0 & M_AVX)
		__asm__ volatile("movq %0, %%xmm1\n\tvinsertf128 $1, %%xmm1, %%ymm0, %%ymm0"
				 :
				 : "r"(v));
}

/* ---- setup ---- */

static void reset_task(struct replay *rp, unsigned int t)
{
	/* fpu_task_init's memset may use vector registers: keep the real ones */
	regs_save(rp->scratch);
	fpu_task_init(&rp->fpus[t], rp->areas[t], t);
	regs_load(rp->scratch);
	memset(&rp->sig[t], 0, sizeof(rp->sig[t]));
	rp->sig[t].fcw = 0x037f;
	rp->exited[t] = 0;
}

uint64_t replay_timer_overhead(const struct replay *rp)
{
	return rp->overhead;
}

/*
 * The least of 8 x 501 empty regions, not their median: on a busy host the
 * median flips between two TSC steps (42 and 63 ticks here) from one trace
 * to the next, and with it every native figure by a step per region. The
 * first batches after a start can all read a step high (49 and 73 ticks
 * here: a cold or slowed vCPU), so the regions run after a warm-up and over
 * batches a few ms apart. The rest of an empty region's cost is the timing
 * residue, measured apart; one that comes out negative says this least was
 * still high (replay prints that).
 */
static uint64_t measure_overhead(void)
{
	uint64_t least = UINT64_MAX;
	for (int i = 0; i < 8 * 501; i++) {
		if (i % 501 == 0) { /* a few ms of work between batches */
			uint64_t until = tsc_begin() + 4000000;
			while (tsc_begin() < until)
				;
		}
		uint64_t t0 = tsc_begin();
		uint64_t t1 = tsc_end();
		if (t1 - t0 < least)
			least = t1 - t0;
	}
	return least;
}

void replay_free(struct replay *rp)
{
	if (!rp)
		return;
	for (uint32_t t = 0; rp->areas && t <= rp->ntasks; t++)
		free(rp->areas[t]);
	for (unsigned int c = 0; c < FPULAB_TRACE_MAX_CPUS; c++)
		free(rp->img[c]);
	log_areas_free(&rp->log_areas);
	free(rp->areas);
	free(rp->fpus);
	free(rp->sig);
	free(rp->exited);
	free(rp->scratch);
	free(rp->init_img);
	free(rp->export_buf);
	free(rp->import_img);
	free(rp->chunk);
	free(rp);
}

struct replay *replay_new(const struct trace *t, int insn)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = (enum fpu_save_insn)insn };
	struct replay *rp;
	int err = xstate_init(&o);

	if (err) {
		fprintf(stderr, "fpulab replay: %s\n", xstate_strerror(err));
		return NULL;
	}
	if (!xstate_cfg.caps.xsave) {
		fprintf(stderr, "fpulab replay: this CPU has no XSAVE\n");
		return NULL;
	}
	if (fpu_init(&host_ops)) {
		fprintf(stderr, "fpulab replay: fpu_init failed\n");
		return NULL;
	}
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		goto oom;
	rp->returns = t->hdr.flags & FPULAB_TRACE_F_RETURNS;
	rp->t = t;
	rp->ntasks = t->hdr.ntasks;
	rp->ncpus = t->hdr.ncpus;
	rp->xcr0 = xstate_cfg.xcr0;
	rp->fpus = calloc(rp->ntasks + 1, sizeof(*rp->fpus));
	rp->areas = calloc(rp->ntasks + 1, sizeof(*rp->areas));
	rp->sig = calloc(rp->ntasks + 1, sizeof(*rp->sig));
	rp->exited = calloc(rp->ntasks + 1, 1);
	rp->scratch = aligned_alloc(64, XSTATE_MAX_SIZE);
	rp->init_img = aligned_alloc(64, XSTATE_MAX_SIZE);
	rp->export_buf = malloc(XSTATE_MAX_SIZE);
	rp->import_img = aligned_alloc(64, XSTATE_MAX_SIZE + 64); /* + magic2 */
	if (!rp->fpus || !rp->areas || !rp->sig || !rp->exited || !rp->scratch || !rp->init_img ||
	    !rp->export_buf || !rp->import_img)
		goto oom;
	for (uint32_t i = 0; i <= rp->ntasks; i++)
		if (!(rp->areas[i] = aligned_alloc(64, XSTATE_MAX_SIZE)))
			goto oom;
		else
			memset(rp->areas[i], 0, XSTATE_MAX_SIZE); /* XRSTOR wants a clean header */
	for (unsigned int c = 0; c < rp->ncpus; c++)
		if (!(rp->img[c] = aligned_alloc(64, XSTATE_MAX_SIZE)))
			goto oom;
	if (log_areas_init(&rp->log_areas, rp->areas, rp->ntasks + 1))
		goto oom;
	rp->chunk = malloc(TRACE_CHUNK * sizeof(*rp->chunk)); /* after the areas: as they were */
	if (!rp->chunk)
		goto oom;
	memset(rp->scratch, 0, XSTATE_MAX_SIZE);
	memset(rp->init_img, 0, XSTATE_MAX_SIZE);
	xstate_load_init();
	regs_save(rp->init_img);
	rp->overhead = measure_overhead();
	return rp;
oom:
	fprintf(stderr, "fpulab replay: out of memory\n");
	replay_free(rp);
	return NULL;
}

/* ---- the run ---- */

#ifndef REPLAY_DITHER_SPINS
#define REPLAY_DITHER_SPINS 64 /* a power of two; 0: no dither */
#endif

/*
 * Before each timed region, untimed, a spin of 0..REPLAY_DITHER_SPINS-1
 * iterations (xorshift64): the region then starts at a random phase of the
 * TSC's 21-tick step, so its quantisation averages out over many regions
 * instead of locking to the step (a deterministic loop can read a whole
 * run high or low). A count of iterations, not of TSC ticks: waiting for
 * the TSC to move would lock the phase again.
 */
static inline void dither(void)
{
#if REPLAY_DITHER_SPINS
	static uint64_t x = 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	static const uint8_t buf[REPLAY_DITHER_SPINS] __attribute__((aligned(64)));
	uint64_t n = (x >> 32) & (REPLAY_DITHER_SPINS - 1), a;
	const uint8_t *src = buf;
	__asm__ volatile("rep lodsb" : "+c"(n), "+S"(src), "=a"(a) : "m"(buf) : "memory");
#endif
}

#define TIMED_REGION(rp, acc, call, hook)                                     \
	do {                                                                  \
		dither();                                                     \
		uint64_t x0_ = (rp)->excluded, t0_ = tsc_begin();             \
		call;                                                         \
		uint64_t t1_ = tsc_end();                                     \
		int64_t d_ = (int64_t)(t1_ - t0_) - (int64_t)(rp)->overhead - \
			     (int64_t)((rp)->excluded - x0_);                 \
		(rp)->res->regions[hook]++;                                   \
		if (d_ > REPLAY_CLIP_TICKS) {                                 \
			(rp)->clipped++;                                      \
		} else {                                                      \
			(acc) += d_;                                          \
			(rp)->res->hook_ticks[hook] += d_;                    \
			(rp)->res->hook_calls[hook]++;                        \
		}                                                             \
	} while (0)

const char *const replay_hook_names[REPLAY_HOOK_NR] = {
	[REPLAY_HOOK_SWITCH] = "switch",
	[REPLAY_HOOK_RETURN] = "return_to_user",
	[REPLAY_HOOK_NM] = "handle_nm",
	[REPLAY_HOOK_KFPU_BEGIN] = "kernel_fpu_begin",
	[REPLAY_HOOK_KFPU_END] = "kernel_fpu_end",
	[REPLAY_HOOK_EXIT] = "task_exit",
	[REPLAY_HOOK_IMPORT] = "import",
	[REPLAY_HOOK_MIGRATE] = "task_migrated",
	[REPLAY_HOOK_OTHER] = "other",
};

/* Whether @s contains @w (no libc: its string functions may use vector registers). */
static bool has_word(const char *s, const char *w)
{
	for (; *s; s++) {
		size_t i = 0;
		while (w[i] && s[i] == w[i])
			i++;
		if (!w[i])
			return true;
	}
	return false;
}

/* The entry point a TIMED() call site times, from its text (once per site). */
static int hook_of(const char *call)
{
	static const struct {
		const char *word;
		int hook;
	} map[] = {
		{ "fpu_switch(", REPLAY_HOOK_SWITCH },
		{ "fpu_return_to_user(", REPLAY_HOOK_RETURN },
		{ "fpu_handle_nm(", REPLAY_HOOK_NM },
		{ "kernel_fpu_begin(", REPLAY_HOOK_KFPU_BEGIN },
		{ "kernel_fpu_end(", REPLAY_HOOK_KFPU_END },
		{ "fpu_task_exit(", REPLAY_HOOK_EXIT },
		{ "fpu_import", REPLAY_HOOK_IMPORT },
		{ "fpu_sigframe_restore(", REPLAY_HOOK_IMPORT },
		{ "fpu_task_reset(", REPLAY_HOOK_IMPORT },
		{ "fpu_task_migrated(", REPLAY_HOOK_MIGRATE },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (has_word(call, map[i].word))
			return map[i].hook;
	return REPLAY_HOOK_OTHER;
}

/* The logged effects of one libfpu call, executed without libfpu (replay_bare). */
static inline void bare_play(struct replay *rp, const struct log_op *op, const struct log_op *end)
{
	for (; op < end; op++) {
		switch (op->kind) {
		case OP_XSAVE:
			__asm__ volatile("xsave64 %0"
					 : "+m"(*(struct xregs_state *)op->area)
					 : "a"((uint32_t)op->mask), "d"((uint32_t)(op->mask >> 32))
					 : "memory");
			break;
		case OP_XSAVEOPT:
			__asm__ volatile("xsaveopt64 %0"
					 : "+m"(*(struct xregs_state *)op->area)
					 : "a"((uint32_t)op->mask), "d"((uint32_t)(op->mask >> 32))
					 : "memory");
			break;
		case OP_XSAVEC:
			__asm__ volatile("xsavec64 %0"
					 : "+m"(*(struct xregs_state *)op->area)
					 : "a"((uint32_t)op->mask), "d"((uint32_t)(op->mask >> 32))
					 : "memory");
			break;
		case OP_FXSAVE:
			__asm__ volatile("fxsave64 %0"
					 : "=m"(((struct xregs_state *)op->area)->legacy)
					 :
					 : "memory");
			break;
		case OP_XRSTOR:
			__asm__ volatile("xrstor64 %0"
					 :
					 : "m"(*op->area), "a"((uint32_t)op->mask),
					   "d"((uint32_t)(op->mask >> 32))
					 : "memory");
			break;
		case OP_FXRSTOR:
			__asm__ volatile("fxrstor64 %0" : : "m"(op->area->legacy) : "memory");
			break;
		case OP_GOTO_CPU: {
			uint64_t t0 = tsc_begin();
			on_cpu(rp, op->cpu);
			rp->excluded += tsc_end() - t0;
			break;
		}
		case OP_TS_SET:
			rp->ts[sim_cpu] = 1;
			break;
		case OP_TS_CLEAR:
			rp->ts[sim_cpu] = 0;
			break;
		default:
			break;
		}
	}
}

/* The next logged call's bounds, or none (counted) when the events and the log disagree. */
static void bare_next(struct replay *rp, bool timed, const struct log_op **b,
		      const struct log_op **e)
{
	struct log_call c;

	*b = *e = rp->bare_ops;
	rp->bare_skip = false;
	if (!log_next(rp->bare, rp->bare_pos, &rp->log_areas, rp->bare_ops, &c) ||
	    c.timed != timed) {
		rp->bare_desync++;
		return;
	}
	*e = rp->bare_ops + c.nops;
	for (const struct log_op *op = *b; op < *e; op++) {
		rp->bare_saves += log_op_saves(op->kind);
		rp->bare_restores += log_op_restores(op->kind);
	}
	rp->bare_skip = c.skip;
	rp->bare_pos = c.next;
}

/*
 * A timed libfpu call; in a bare run, the call's logged instructions in its
 * place, timed the same way.
 */
/* A call that does nothing, out of line (the asm keeps the compiler from dropping it). */
__attribute__((noinline)) static void empty_call(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

#define TIMED(rp, acc, call)                                                                  \
	do {                                                                                  \
		static int hook_ = -1;                                                        \
		if (hook_ < 0)                                                                \
			hook_ = hook_of(#call);                                               \
		if ((rp)->bare) {                                                             \
			const struct log_op *b_, *e_;                                         \
			bare_next(rp, true, &b_, &e_);                                        \
			if ((rp)->bare_empty || b_ == e_) {                                   \
				/* nothing in the region; the call's effects just after it */ \
				if ((rp)->bare_calls)                                         \
					TIMED_REGION(rp, acc, empty_call(rp), hook_);         \
				else                                                          \
					TIMED_REGION(rp, acc, (void)0, hook_);                \
				bare_play(rp, b_, e_);                                        \
			} else {                                                              \
				TIMED_REGION(rp, acc, bare_play(rp, b_, e_), hook_);          \
			}                                                                     \
		} else {                                                                      \
			TIMED_REGION(rp, acc, call, hook_);                                   \
			if (rec)                                                              \
				log_end(rec, true);                                           \
		}                                                                             \
	} while (0)

/* An untimed libfpu call that may save, restore or write TS. */
#define LIB(rp, call)                                   \
	do {                                            \
		if ((rp)->bare) {                       \
			const struct log_op *b_, *e_;   \
			bare_next(rp, false, &b_, &e_); \
			bare_play(rp, b_, e_);          \
		} else {                                \
			call;                           \
			if (rec)                        \
				log_end(rec, false);    \
		}                                       \
	} while (0)

static void start(struct replay *rp)
{
	for (unsigned int c = 0; c < rp->ncpus; c++) {
		memcpy(rp->img[c], rp->init_img, XSTATE_MAX_SIZE);
		rp->cur[c] = 0;
		rp->ts[c] = 0;
		rp->in_syscall[c] = 0;
	}
	for (unsigned int c = 0; c < rp->ncpus; c++) {
		sim_cpu = c;
		fpu_cpu_quiesce(); /* nothing runs here yet, for libfpu too */
	}
	for (uint32_t t = 0; t <= rp->ntasks; t++)
		reset_task(rp, t);
	fpu_stats_reset();
	regs_load(rp->init_img);
	rp->active = 0;
	sim_cpu = 0;
	rp->excluded = 0;
	rp->integrity = 0;
	rp->first = (struct replay_integrity){ .component = 0 };
	rp->clipped = 0;
}

static uint64_t saves_of(const struct fpu_stats *st)
{
	uint64_t n = 0;
	for (int i = 0; i < FPU_INSN_NR; i++)
		n += st->saves[i];
	return n;
}

static void do_switch(struct replay *rp, const struct fpulab_trace_event *e,
		      struct replay_result *r)
{
	unsigned int c = e->cpu;
	struct fpu *prev = e->task ? &rp->fpus[e->task] : NULL;
	struct fpu *next = e->arg ? &rp->fpus[e->arg] : NULL;
	struct fpu_stats before = *fpu_stats_cpu(c);
	int64_t ticks = 0;
	bool skip;

	if (next && rp->exited[e->arg])
		reset_task(rp, e->arg); /* a new task in an exited one's id */
	TIMED(rp, ticks, fpu_switch(prev, next));
	rp->cur[c] = e->arg;
	rp->in_syscall[c] = 0;
	if (rp->bare) {
		skip = rp->bare_skip;
	} else {
		const struct fpu_stats *after = fpu_stats_cpu(c);
		skip = after->restores_skipped == before.restores_skipped + 1 &&
		       after->restores == before.restores && saves_of(after) == saves_of(&before);
		if (skip && rec)
			log_mark_skip(rec);
	}
	if (skip) {
		if (r->skip_hist)
			r->skip_hist[ticks > 0 ? ticks : 0]++;
		r->nskip++;
		r->skip_sum += ticks;
	}
	if (next && !(e->flags & FPULAB_EVF_NO_USER) && !rp->returns)
		TIMED(rp, ticks, fpu_return_to_user(next));
	r->ticks += ticks;
}

static void do_use(struct replay *rp, const struct fpulab_trace_event *e, struct replay_result *r)
{
	struct fpu *f = &rp->fpus[e->task];
	struct task_sig *s = &rp->sig[e->task];

	if (rp->in_syscall[e->cpu]) {
		rp->in_syscall[e->cpu] = 0;
		TIMED(rp, r->ticks, fpu_return_to_user(f));
	}
	if (rp->ts[e->cpu])
		TIMED(rp, r->ticks, fpu_handle_nm(f));
	struct replay_integrity got = { .component = 0 };
	uint32_t bad = rp->ts[e->cpu] ? 0 : regs_wrong(s, &got);
	if (rp->ts[e->cpu] || bad) {
		if (!rp->integrity++) {
			got.event = rp->ev_index;
			got.seq = e->seq;
			got.task = e->task;
			got.cpu = e->cpu;
			got.components = bad;
			rp->first = got;
		}
	}
	regs_write(s, e->task, e->mask & (uint32_t)rp->xcr0);
}

static void do_kfpu(struct replay *rp, const struct fpulab_trace_event *e, struct replay_result *r)
{
	if (e->type == FPULAB_EV_KFPU_BEGIN) {
		TIMED(rp, r->ticks, kernel_fpu_begin());
		kernel_clobber(rp);
		return;
	}
	TIMED(rp, r->ticks, kernel_fpu_end());
	if (e->task && !rp->returns) { /* the syscall returns to ring 3 */
		rp->in_syscall[e->cpu] = 0;
		TIMED(rp, r->ticks, fpu_return_to_user(&rp->fpus[e->task]));
	}
}

/*
 * Untimed; its copy may use the vector registers: the real ones are kept.
 * In a trace without returns, the running task exporting its own state is
 * in a syscall: it returns to ring 3 at its next use (do_use), or never if
 * an import, a reset or a switch comes first.
 */
static void do_export(struct replay *rp, const struct fpulab_trace_event *e)
{
	regs_save(rp->scratch);
	LIB(rp, fpu_export_std(&rp->fpus[e->task], rp->export_buf, XSTATE_MAX_SIZE));
	regs_load(rp->scratch);
	if (!rp->returns && rp->cur[e->cpu] == e->task)
		rp->in_syscall[e->cpu] = 1;
}

/* The components regs_wrong() checks once the task's whole state is known (import, reset). */
static uint32_t checkable(const struct replay *rp)
{
	return (M_X87 | M_SSE | M_AVX | M_K | M_ZMM | M_HI16) & (uint32_t)rp->xcr0;
}

/* The task's state is the init state, every checkable component of it. */
static void sig_init(struct replay *rp, struct task_sig *s)
{
	s->sse = s->avx = s->zmm = s->kmask = s->hi16 = 0;
	s->fcw = 0x037f;
	s->written = checkable(rp);
}

/*
 * The image an IMPORT of @task installs: new values in the components of
 * @mask, init in the others, in the standard format (as a signal frame when
 * @sigframe); the task's signature becomes that content. Made in the real
 * registers, which are kept (untimed).
 */
static size_t make_image(struct replay *rp, unsigned int task, uint32_t mask, bool sigframe)
{
	struct task_sig *s = &rp->sig[task];
	uint8_t *img = (uint8_t *)rp->import_img;
	size_t len = xstate_cfg.user_size;

	regs_save(rp->scratch);
	memset(img, 0, XSTATE_MAX_SIZE + 64);
	regs_load(rp->init_img);
	sig_init(rp, s);
	regs_write(s, task, mask);
	s->written = checkable(rp);
	regs_save(rp->import_img);
	/* only what was written (and the legacy region) is not init: no PKRU, no AMX */
	rp->import_img->header.xstate_bv &= (mask | M_X87 | M_SSE) & rp->xcr0;
	if (sigframe) {
		struct fpu_sw_bytes *sw = (struct fpu_sw_bytes *)(img + FPU_SIGFRAME_SW_OFFSET);
		uint32_t *magic2 = (uint32_t *)(img + len);
		sw->magic1 = FPU_SIGFRAME_MAGIC1;
		sw->extended_size = (uint32_t)(len + FPU_SIGFRAME_MAGIC2_SIZE);
		sw->xfeatures = xstate_cfg.xcr0;
		sw->xstate_size = (uint32_t)len;
		*magic2 = FPU_SIGFRAME_MAGIC2;
		len += FPU_SIGFRAME_MAGIC2_SIZE;
	}
	regs_load(rp->scratch);
	return len;
}

/*
 * IMPORT or RESET: libfpu's import of known content (sigreturn's
 * fpu_sigframe_restore(), ptrace's fpu_import_std(), fpu_task_reset()).
 * Its copies may use the vector registers: they are kept unless the import
 * itself loaded them (eager). The running task then returns to ring 3.
 */
static void do_import(struct replay *rp, const struct fpulab_trace_event *e,
		      struct replay_result *r)
{
	/* the init state in the standard format, as fpu_task_reset() installs it */
	static const uint8_t init[XSTATE_EXT_OFFSET]
		__attribute__((aligned(64))) = { [0] = 0x7f, [1] = 0x03, [24] = 0x80, [25] = 0x1f };
	struct fpu *f = &rp->fpus[e->task];
	unsigned int c = e->cpu;
	uint64_t restores = rp->bare ? rp->bare_restores : fpu_stats_cpu(c)->restores;
	size_t len = 0;
	int err = 0;

	if (e->type == FPULAB_EV_IMPORT)
		len = make_image(rp, e->task, e->mask & (uint32_t)rp->xcr0,
				 e->flags & FPULAB_EVF_SIGFRAME);
	else
		sig_init(rp, &rp->sig[e->task]);
	regs_save(rp->scratch);
	if (e->type == FPULAB_EV_RESET)
		TIMED(rp, r->ticks, fpu_task_reset(f));
	else if (e->flags & FPULAB_EVF_SIGFRAME)
		TIMED(rp, r->ticks, err = fpu_sigframe_restore(f, rp->import_img, len));
	else
		TIMED(rp, r->ticks, err = fpu_import_std(f, rp->import_img, len));
	if (err)
		host_panic("replay: libfpu refused the image of an import");
	bool loaded = (rp->bare ? rp->bare_restores : fpu_stats_cpu(c)->restores) != restores;
	if (rp->bare) {
		/* the bare run played the call's saves and restores but copied no image:
		 * the area gets it now, and registers loaded from it get it too (untimed) */
		if (e->type == FPULAB_EV_RESET)
			err = xstate_import_std(f->state, init, sizeof(init));
		else
			err = xstate_import_std(f->state, rp->import_img, xstate_cfg.user_size);
		if (err)
			host_panic("replay: the bare run could not import the image");
		if (loaded)
			xstate_restore(f->state, xstate_cfg.kernel_mask);
	}
	if (!loaded)
		regs_load(rp->scratch);
	if (rp->cur[c] == e->task && !rp->returns) {
		rp->in_syscall[c] = 0;
		TIMED(rp, r->ticks, fpu_return_to_user(f));
	}
}

static inline void play_event(struct replay *rp, const struct fpulab_trace_event *e,
			      struct replay_result *r)
{
	on_cpu(rp, e->cpu);
	if ((e->flags & FPULAB_EVF_RETURNED) && rp->returns && rp->cur[e->cpu])
		TIMED(rp, r->ticks, fpu_return_to_user(&rp->fpus[rp->cur[e->cpu]]));
	switch (e->type) {
	case FPULAB_EV_SWITCH:
		do_switch(rp, e, r);
		break;
	case FPULAB_EV_USE:
		do_use(rp, e, r);
		break;
	case FPULAB_EV_KFPU_BEGIN:
	case FPULAB_EV_KFPU_END:
		do_kfpu(rp, e, r);
		break;
	case FPULAB_EV_MIGRATE:
		TIMED(rp, r->ticks, fpu_task_migrated(&rp->fpus[e->task]));
		break;
	case FPULAB_EV_EXIT:
		TIMED(rp, r->ticks, fpu_task_exit(&rp->fpus[e->task]));
		rp->cur[e->cpu] = 0;
		rp->in_syscall[e->cpu] = 0;
		rp->exited[e->task] = 1;
		break;
	case FPULAB_EV_EXPORT:
		do_export(rp, e);
		break;
	case FPULAB_EV_IMPORT:
	case FPULAB_EV_RESET:
		do_import(rp, e, r);
		break;
	default:
		break;
	}
}

/*
 * The trace's events in order, a chunk at a time (read from its file with
 * pread() between events, untimed). Return: 0, or -1 where the file could
 * not be read again (rp->it says why).
 */
static int play_events(struct replay *rp, struct replay_result *r)
{
	const struct fpulab_trace_event *ev;
	size_t n;

	memset(r->hook_ticks, 0, sizeof(r->hook_ticks)); /* before start() loads the registers */
	memset(r->hook_calls, 0, sizeof(r->hook_calls));
	memset(r->regions, 0, sizeof(r->regions));
	if (r->skip_hist)
		memset(r->skip_hist, 0, REPLAY_SKIP_HIST * sizeof(*r->skip_hist));
	if (trace_iter_begin(&rp->it, rp->t, rp->chunk))
		return -1;
	start(rp);
	r->ticks = 0;
	r->nskip = 0;
	r->skip_sum = 0;
	rp->res = r;
	rp->switch_events = 0;
	rec = r->log;
	fpu_set_insn_trace(rec ? rec_insn : NULL);
	rp->ev_index = 0;
	while ((n = trace_iter_next(&rp->it, &ev)) > 0)
		for (size_t j = 0; j < n; j++, rp->ev_index++) {
			rp->switch_events += ev[j].type == FPULAB_EV_SWITCH;
			play_event(rp, &ev[j], r);
		}
	fpu_set_insn_trace(NULL);
	rec = NULL;
	return rp->it.err ? -1 : 0;
}

/* Why the trace could not be read again, on stderr (after finish(): libc may use the registers). */
static int read_failed(const struct replay *rp)
{
	char msg[200];

	trace_iter_strerror(&rp->it, msg, sizeof(msg));
	fprintf(stderr, "fpulab replay: %s: %s\n", rp->t->file ? rp->t->file->path : "trace", msg);
	return -3;
}

/* The harness's clean-up after a run: nothing of it is counted or timed. */
static void finish(struct replay *rp, struct replay_result *r)
{
	for (unsigned int c = 0; c < rp->ncpus; c++) {
		on_cpu(rp, c);
		fpu_cpu_quiesce();
	}
	xstate_load_init();
	r->n.integrity_errors = rp->integrity;
	r->first = rp->first;
	r->clipped = rp->clipped;
}

int replay_run(struct replay *rp, const char *policy, struct replay_result *r)
{
	rp_cur = rp;
	for (unsigned int c = 0; c < rp->ncpus; c++) { /* quiescent before the policy changes */
		sim_cpu = c;
		fpu_cpu_quiesce();
	}
	if (fpu_set_policy(policy))
		return -1;
	rp->bare = NULL;
	if (r->log)
		log_reset(r->log);
	int rc = play_events(rp, r);
	memset(&r->n, 0, sizeof(r->n));
	for (unsigned int c = 0; c < rp->ncpus; c++) {
		const struct fpu_stats *st = fpu_stats_cpu(c);
		r->n.switches += st->switches;
		r->n.nm_traps += st->nm_traps;
		for (int i = 0; i < FPU_INSN_NR; i++)
			r->n.saves += st->saves[i];
		r->n.restores += st->restores;
		r->n.restores_skipped += st->restores_skipped;
		r->n.flush_ipis += st->flush_ipis;
		r->n.ts_writes += st->ts_writes;
		r->n.kernel_fpu_sections += st->kernel_fpu_sections;
		r->n.prefetches += st->prefetches;
	}
	/* the counts are the trace's; the clean-up below is the harness's */
	finish(rp, r);
	return rc ? read_failed(rp) : 0;
}

/* Bytes of log per trace event to start with (virtual: untouched pages cost nothing);
 * the synthetic workloads take 2.7 to 4.5 under every policy. */
#define LOG_BYTES_PER_EVENT 6

struct replay_log *replay_log_new(const struct trace *t)
{
	struct replay_log *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->cap = LOG_BYTES_PER_EVENT * t->hdr.nevents + 64;
	l->buf = malloc(l->cap);
	if (!l->buf) {
		replay_log_free(l);
		return NULL;
	}
	log_reset(l);
	return l;
}

void replay_log_free(struct replay_log *l)
{
	if (!l)
		return;
	free(l->buf);
	free(l);
}

uint64_t replay_log_saves(const struct replay_log *l)
{
	return l->saves;
}

uint64_t replay_log_restores(const struct replay_log *l)
{
	return l->restores;
}

size_t replay_log_bytes(const struct replay_log *l)
{
	return l->len;
}

int replay_record(struct replay *rp, const char *policy, struct replay_log *log,
		  struct replay_result *r)
{
	for (;;) {
		r->log = log;
		int rc = replay_run(rp, policy, r);
		r->log = NULL;
		if (!rc && log->too_long) {
			fprintf(stderr,
				"fpulab replay: %s: a libfpu call made more than %d saves, restores, "
				"TS writes and IPIs: the floor's log cannot play it back\n",
				policy, LOG_CALL_MAX_OPS);
			return -2;
		}
		if (rc || !log->overflow)
			return rc;
		/* more saves, restores and TS writes than room: grow, record again */
		uint8_t *buf = realloc(log->buf, 2 * log->cap);
		if (!buf) {
			fprintf(stderr,
				"fpulab replay: out of memory for a floor log of %zu bytes\n",
				2 * log->cap);
			return -2;
		}
		log->buf = buf;
		log->cap *= 2;
	}
}

int replay_bare(struct replay *rp, const struct replay_log *log, bool empty,
		struct replay_result *r)
{
	rp_cur = rp;
	if (!log || log->overflow)
		return -1;
	rp->bare = log;
	rp->bare_empty = empty;
	rp->bare_pos = 0;
	rp->bare_desync = rp->bare_saves = rp->bare_restores = 0;
	r->log = NULL;
	int rc = play_events(rp, r);
	memset(&r->n, 0, sizeof(r->n));
	r->n.switches = rp->switch_events;
	r->n.saves = rp->bare_saves;
	r->n.restores = rp->bare_restores;
	if (rp->bare_pos != log->len) /* calls the events did not ask for */
		rp->bare_desync++;
	r->desync = rp->bare_desync;
	rp->bare = NULL;
	rp->bare_empty = false;
	finish(rp, r);
	return rc ? read_failed(rp) : 0;
}

int replay_empty_calls(struct replay *rp, const struct replay_log *log, struct replay_result *r)
{
	rp->bare_calls = true;
	int rc = replay_bare(rp, log, true, r);
	rp->bare_calls = false;
	return rc;
}

void replay_floor(struct replay *rp, uint32_t mask, unsigned int samples, uint64_t *save_ticks,
		  uint64_t *restore_ticks)
{
	struct task_sig dummy = { 0 };
	struct xregs_state *a = rp->areas[0];
	uint64_t *sv = calloc(samples, sizeof(*sv)), *rs = calloc(samples, sizeof(*rs));

	*save_ticks = *restore_ticks = 0;
	if (!sv || !rs) {
		free(sv);
		free(rs);
		return;
	}
	rp_cur = rp;
	xstate_load_init();
	regs_write(&dummy, 0xffff, mask & (uint32_t)rp->xcr0);
	xstate_save(a, xstate_cfg.kernel_mask);
	for (unsigned int i = 0; i < samples; i++) {
		uint64_t t0 = tsc_begin();
		for (int k = 0; k < 16; k++)
			xstate_save(a, xstate_cfg.kernel_mask);
		uint64_t t1 = tsc_end();
		sv[i] = (t1 - t0 - rp->overhead) / 16;
		t0 = tsc_begin();
		for (int k = 0; k < 16; k++)
			xstate_restore(a, xstate_cfg.kernel_mask);
		t1 = tsc_end();
		rs[i] = (t1 - t0 - rp->overhead) / 16;
	}
	*save_ticks = median_u64(sv, samples);
	*restore_ticks = median_u64(rs, samples);
	free(sv);
	free(rs);
	xstate_load_init();
}

const char *const *replay_policy_names(void)
{
	fpu_init(&host_ops); /* fills the names; replay_new() initialises again */
	return fpu_policy_names();
}
