/* SPDX-License-Identifier: MIT */
/*
 * stress, ring 3. Each task keeps a pattern unique to (task, sequence
 * number) in every enabled FPU component and checks it after every step,
 * since any step may have switched it out, then writes the next one. A step
 * is a random choice: yield, wake another task, block on its own semaphore,
 * migrate to a random CPU, have the kernel checksum a buffer with SIMD
 * (result checked), spin, or (rarely) exit. Spins check the patterns every
 * spin_check TSC ticks too, because a timer preemption is invisible to the
 * task. The kernel replaces an exited task with a new generation, which
 * first checks that it starts in the init state: nothing of its
 * predecessor's (or anyone's) state may show through.
 *
 * The choices come from a per-task PRNG seeded from (seed, task, gen): the
 * same seed makes the same sequence of choices.
 *
 * No deadlock: a task blocks only while fewer than ntasks - 1 others are in
 * a block (shared->blocked), so some task is always runnable, and it wakes a
 * random other one now and then. At stop, the kernel ups every task's
 * semaphore once; a task reads stop after joining shared->blocked and before
 * blocking, so that up ends the last block it can enter.
 *
 * All state is local: the tasks share this code and its globals.
 */
#include "../csum.h"
#include "../exp.h"
#include "ulib.h"

#define CSUM_WORDS 66   /* checksum buffers: up to 8 * 65 bytes at offsets 0..7 */
#define EXIT_CHANCE 256 /* a task exits after one step in this many */
#define IMG_MAX 4096    /* ptrace buffer: xstate_cfg.user_size of any CPU QEMU models */

/*
 * st: what the task's registers hold between two verify() calls, for its
 * signal handler and for a tracer that stopped it. ST_STABLE: the pattern
 * of sequence number (st & ST_SEQ), plus the edits in @edit if ST_SIGEDIT.
 * Zero while verify() checks and rewrites them. ST_POKED: a tracer wrote
 * the pattern of that sequence number. The task takes it with one atomic
 * exchange, and the others change it only while the task is stopped or in
 * its handler, so it always describes the registers they see.
 */
#define ST_STABLE (1ull << 63)
#define ST_POKED (1ull << 62)
#define ST_SIGEDIT (1ull << 61)
#define ST_SEQ 0xffffffffull

struct stress_task {
	const struct stress_args *a;
	struct stress_shared *sh;
	uint64_t rng, seq;
	unsigned int id;
	volatile uint64_t st;
	struct regs_edit edit;  /* valid with ST_SIGEDIT */
	uint64_t hrng;          /* the signal handler's PRNG */
	uint64_t stack_base;    /* lowest address of its user stack */
	volatile bool want_bad; /* its next handler spoils the frame: sigreturn must kill it */
	uint32_t pkru;          /* its own PKRU (with a.pkru): key 0 always allowed */
};

static uint64_t rnd(struct stress_task *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (x ^ (x >> 31)) | 1;
}

static uint64_t hrnd(struct stress_task *t)
{
	t->hrng ^= t->hrng << 13;
	t->hrng ^= t->hrng >> 7;
	t->hrng ^= t->hrng << 17;
	return t->hrng;
}

static void report_to(unsigned int regset, unsigned int task, unsigned int reg, uint64_t want,
		      uint64_t got)
{
	struct integrity_report r = {
		.count = 1,
		.task = task,
		.regset = regset,
		.reg = reg,
		.expected = want,
		.got = got,
	};
	sys_integrity(&r);
}

/* The PKRU a task's registers hold: its own, or 0 after a legacy-only sigreturn. */
static uint32_t pkru_want(const struct stress_task *t, bool edited)
{
	return edited && t->edit.legacy ? 0 : t->pkru;
}

/* PKRU in a standard-format image: XSTATE_BV[9] set (libfpu exports it always) and @want. */
static void check_pkru_image(const struct stress_task *t, const uint8_t *img, unsigned int reg,
			     unsigned int task, uint32_t want)
{
	uint64_t bv;
	uint32_t v;

	if (!t->a->pkru)
		return;
	__builtin_memcpy(&bv, img + 512, 8);
	__builtin_memcpy(&v, img + t->a->pkru_offset, 4);
	if (!(bv & (1ull << 9)) || v != want)
		report_to(REPORT_PKRU, task, reg, want, (bv & (1ull << 9)) ? v : ~0ull);
}

/* After anything that may have switched: check, then the next pattern. */
static void verify(struct stress_task *t)
{
	uint64_t x = __atomic_exchange_n(&t->st, 0, __ATOMIC_SEQ_CST);

	if (x & ST_POKED)
		t->seq = x & ST_SEQ;
	t->edit.on = (x & ST_SIGEDIT) != 0;
	regs_check_all_edit(t->id, t->seq, t->a->ymm, &t->edit);
	if (t->a->pkru) {
		uint32_t want = pkru_want(t, t->edit.on), got = rdpkru();
		if (got != want)
			report_to(REPORT_PKRU, t->id, 0, want, got);
		if (got != t->pkru)
			wrpkru(t->pkru);
	}
	t->edit.on = false;
	regs_write_all(t->id, ++t->seq, t->a->ymm);
	__atomic_store_n(&t->st, (t->seq & ST_SEQ) | ST_STABLE, __ATOMIC_SEQ_CST);
}

static void report(struct stress_task *t, unsigned int reg, uint64_t want, uint64_t got)
{
	struct integrity_report r = {
		.count = 1,
		.task = t->id,
		.regset = REPORT_SIGNAL,
		.reg = reg,
		.expected = want,
		.got = got,
	};
	sys_integrity(&r);
}

/* The frame's own bookkeeping: ours, and the software-reserved bytes of <fpu/signal.h>. */
static void check_frame(struct stress_task *t, const struct sigframe *sf, const uint8_t *fp)
{
	uint32_t magic1, xsize, magic2;

	__builtin_memcpy(&magic1, fp + 464, 4);
	__builtin_memcpy(&xsize, fp + 464 + 16, 4);
	if (sf->magic != SIGFRAME_MAGIC || sf->fpstate != fp)
		report(t, 0, SIGFRAME_MAGIC, sf->magic);
	if (magic1 != 0x46505853u || xsize + 4 != sf->fpsize) {
		report(t, 1, 0x46505853u, magic1);
		return;
	}
	__builtin_memcpy(&magic2, fp + xsize, 4);
	if (magic2 != 0x46505845u)
		report(t, 2, 0x46505845u, magic2);
}

/* Make sigreturn refuse the frame, one XRSTOR #GP condition at a time. */
static void spoil_frame(struct stress_task *t, uint8_t *fp)
{
	uint64_t v = 1ull << 63;
	uint32_t mxcsr;

	switch (hrnd(t) % 4) {
	case 0: /* XSTATE_BV outside XCR0 */
		fp[512 + 7] |= 0x80;
		break;
	case 1: /* XCOMP_BV in a standard-format image */
		__builtin_memcpy(fp + 520, &v, 8);
		break;
	case 2: /* reserved header bytes */
		fp[528 + 5] = 1;
		break;
	default: /* MXCSR bit 31: reserved on every CPU */
		__builtin_memcpy(&mxcsr, fp + 24, 4);
		mxcsr |= 1u << 31;
		__builtin_memcpy(fp + 24, &mxcsr, 4);
		break;
	}
}

/*
 * The handler: it starts in the init state; the frame holds what the task
 * last wrote (when st says what that was); it changes FCW, MXCSR, an XMM
 * and a YMM upper half in the frame, or makes it legacy-only (no magic1:
 * every YMM upper half comes back zero), which sigreturn must load; and it
 * uses the FPU itself.
 */
static void on_signal(void *arg, struct sigframe *sf, void *fpstate)
{
	struct stress_task *t = arg;
	uint8_t *fp = fpstate;
	bool ymm = t->a->ymm;
	uint64_t x = t->st, own;

	regs_check_x87_ptrs(t->id, &t->a->scrub, true);
	regs_check_init(t->id, ymm);
	if (t->a->pkru && rdpkru() != 0)
		report_to(REPORT_PKRU, t->id, 0, 0, rdpkru()); /* a handler starts with init PKRU */
	check_frame(t, sf, fp);
	if (t->want_bad) {
		spoil_frame(t, fp);
		return;
	}
	if (x & ST_STABLE) {
		struct regs_edit e = { 0 };
		if (x & ST_SIGEDIT)
			e = t->edit;
		regs_check_image(fp, t->id, x & ST_SEQ, ymm, e.on ? &e : NULL);
		check_pkru_image(t, fp, 1, t->id, pkru_want(t, e.on));
		e.on = true;
		e.fcw = (uint16_t)(0x037f | (hrnd(t) & 3) << 10);
		e.mxcsr = (uint32_t)(0x1f80 | (hrnd(t) & 3) << 13);
		e.xmm[0] = hrnd(t);
		e.xmm[1] = hrnd(t);
		if (hrnd(t) % 4 == 0) {
			__builtin_memset(fp + 464, 0, 4); /* magic1 */
			e.legacy = true;
			e.ymm_set = false;
		} else if (ymm) {
			e.ymm_set = true;
			e.ymm_hi[0] = hrnd(t);
			e.ymm_hi[1] = hrnd(t);
		}
		regs_edit_image(fp, &e);
		t->edit = e;
		t->st = x | ST_SIGEDIT;
	}
	own = hrnd(t);
	regs_write_all(t->id ^ 0x800, own, ymm);
	if (t->a->pkru)
		wrpkru((uint32_t)own & ~3u); /* sigreturn must bring back the frame's */
	regs_check_all(t->id ^ 0x800, own, ymm);
}

/*
 * ptrace: stop another task, check its exported state against what it last
 * wrote, and import either a new pattern (the task must then find it),
 * the same image, or nothing, and resume it.
 */
static void trace_other(struct stress_task *t)
{
	uint8_t img[IMG_MAX] __attribute__((aligned(64)));
	struct ptrace_info info;
	unsigned int n = t->a->ntasks, o;
	bool ymm = t->a->ymm;
	long err = 0;

	if (n < 2)
		return;
	o = (unsigned int)(rnd(t) % (n - 1));
	o = o >= t->a->task ? o + 1 : o;
	if (sys_ptrace_get(o, img, sizeof(img), &info) < 0)
		return;
	struct stress_task *ot = (struct stress_task *)info.arg;
	uint64_t x = ot ? ot->st : 0; /* no argument: it is on its way out */
	if (!info.in_handler && (x & ST_STABLE)) {
		regs_check_image(img, ot->id, x & ST_SEQ, ymm, (x & ST_SIGEDIT) ? &ot->edit : NULL);
		check_pkru_image(t, img, 2, ot->id, pkru_want(ot, x & ST_SIGEDIT));
		if (rnd(t) % 2) {
			uint64_t seq = ((x & ST_SEQ) + 1 + rnd(t) % 1000) & ST_SEQ;
			regs_write_image(img, ot->id, seq, ymm);
			if (t->a->pkru) { /* its own PKRU back, XSTATE_BV[9] set */
				uint64_t bv;
				__builtin_memcpy(&bv, img + 512, 8);
				bv |= 1ull << 9;
				__builtin_memcpy(img + 512, &bv, 8);
				__builtin_memcpy(img + t->a->pkru_offset, &ot->pkru, 4);
			}
			ot->st = seq | ST_STABLE | ST_POKED;
			err = sys_ptrace_set(o, img, sizeof(img));
			if (err)
				report(t, 3, 0, (uint64_t)err);
			return;
		}
	}
	err = sys_ptrace_set(o, rnd(t) % 2 ? img : NULL, sizeof(img));
	if (err)
		report(t, 3, 0, (uint64_t)err);
}

/* The frame cannot fit below this RSP: the kernel must kill the task. */
static __attribute__((noreturn)) void signal_without_room(struct stress_task *t)
{
	__asm__ volatile("movq %0, %%rsp\n\tsyscall\n\tud2"
			 :
			 : "r"(t->stack_base + 64), "a"((long)SYS_KILL), "D"(-1L)
			 : "rcx", "r11", "memory");
	__builtin_unreachable();
}

/* Exit one of three ways: return, a spoiled frame at sigreturn, no room for a frame. */
static void exit_somehow(struct stress_task *t)
{
	uint64_t how = rnd(t) % 3;

	if (how)
		__atomic_add_fetch(&t->sh->bad_frames, 1, __ATOMIC_SEQ_CST);
	if (!how)
		sys_sigaction(NULL, NULL, 0); /* @t dies with this frame */
	t->sh->exiting[t->a->task] = 1;
	if (how == 1) {
		t->want_bad = true;
		sys_kill(-1);
		report(t, 4, 0, 1); /* sigreturn took a spoiled frame */
	} else if (how == 2) {
		signal_without_room(t);
	}
}

static void report_csum(struct stress_task *t, unsigned int what, uint64_t want, uint64_t got)
{
	struct integrity_report r = {
		.count = 1,
		.task = t->id,
		.regset = REPORT_CSUM,
		.reg = what,
		.expected = want,
		.got = got,
	};
	sys_integrity(&r);
}

static void kernel_csum(struct stress_task *t)
{
	uint64_t buf[CSUM_WORDS];
	for (unsigned int i = 0; i < CSUM_WORDS; i++)
		buf[i] = rnd(t);
	const char *p = (const char *)buf + rnd(t) % 8;
	uint64_t bytes = rnd(t) % (8 * (CSUM_WORDS - 1) + 1);
	uint64_t want = csum64_ref(p, bytes), got = sys_kernel_csum(p, bytes);
	if (got != want)
		report_csum(t, 0, want, got);
}

/* The kernel must refuse ranges outside its image and RAM (reg 1 of a csum report). */
static void kernel_csum_refusals(struct stress_task *t)
{
	uint64_t buf[4] = { 0 };
	if (sys_kernel_csum((const void *)8, 8) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, 8);
	if (sys_kernel_csum((const void *)(1ull << 40), 64) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, 1ull << 40);
	if (sys_kernel_csum(buf, CSUM_MAX_BYTES + 1ull) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, CSUM_MAX_BYTES + 1ull);
	if (sys_kernel_csum(buf, -8ull) != (uint64_t)-1)
		report_csum(t, 1, (uint64_t)-1, -8ull);
}

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Spin in TSC ticks, so that long spins meet the timer however fast the CPU is. */
static void spin(struct stress_task *t)
{
	const struct stress_args *a = t->a;
	uint64_t len = rnd(t) % 4 ? rnd(t) % a->spin_short : rnd(t) % a->spin_long;
	uint64_t start = rdtsc(), last = start, now;

	while ((now = rdtsc()) - start < len) {
		if (now - last >= a->spin_check) {
			verify(t);
			last = rdtsc();
		}
	}
}

static void block(struct stress_task *t)
{
	if (__atomic_add_fetch(&t->sh->blocked, 1, __ATOMIC_SEQ_CST) < (int)t->a->ntasks &&
	    !t->sh->stop)
		sys_sem_down(t->a->task);
	__atomic_sub_fetch(&t->sh->blocked, 1, __ATOMIC_SEQ_CST);
}

static void wake_other(struct stress_task *t)
{
	unsigned int n = t->a->ntasks;
	if (n < 2)
		return;
	unsigned int o = (unsigned int)(rnd(t) % (n - 1));
	sys_sem_up(o >= t->a->task ? o + 1 : o);
}

void stress_main(void *p)
{
	struct stress_task t = { .a = p, .sh = ((const struct stress_args *)p)->shared };
	/* Unique among live tasks (task < 64) and between generations in a row. */
	t.id = 1 + t.a->task + 64 * (t.a->gen % 63);
	t.rng = splitmix(splitmix(t.a->seed) ^ ((uint64_t)t.a->gen << 8 | t.a->task));

	t.hrng = splitmix(t.rng);
	if (t.a->task == 0 && t.a->gen == 0)
		kernel_csum_refusals(&t);
	regs_check_x87_ptrs(t.id, &t.a->scrub, true);
	regs_check_init(t.id, t.a->ymm);
	if (t.a->task == 0 && t.a->gen == 0 && !regs_x87_ptrs_check_can_fail(&t.a->scrub))
		report(&t, 6, 1, 0); /* the FIP/FDP/FOP check is blind here */
	t.stack_base = (uint64_t)sys_sigaction(on_signal, &t, t.a->task);
	regs_write_all(t.id, t.seq, t.a->ymm);
	if (t.a->pkru) {
		if (rdpkru() != 0)
			report_to(REPORT_PKRU, t.id, 0, 0, rdpkru()); /* a new task starts with 0 */
		t.pkru = (uint32_t)rnd(&t) & ~3u;                     /* key 0: access and write */
		wrpkru(t.pkru);
	}
	t.st = ST_STABLE | t.seq;
	if (t.a->gen == 0) {
		sys_sem_up(t.a->sem_ready);
		sys_sem_down(t.a->sem_go);
	}
	verify(&t);

	while (!t.sh->stop) {
		if (rnd(&t) % EXIT_CHANCE == 0) {
			exit_somehow(&t);
			return;
		}
		unsigned int r = (unsigned int)(rnd(&t) % 100);
		if (r < 15) {
			sys_yield();
		} else if (r < 30) {
			wake_other(&t);
		} else if (r < 43) {
			block(&t);
		} else if (r < 53) {
			sys_migrate((unsigned int)(rnd(&t) % t.a->ncpus));
			/* right after the move, while smp-lazy may still hold the state on the old CPU */
			if (rnd(&t) % 2)
				sys_kill(-1);
		} else if (r < 65) {
			kernel_csum(&t);
		} else if (r < 83) {
			spin(&t);
		} else if (r < 89) {
			sys_kill((long)(rnd(&t) % t.a->ntasks));
		} else if (r < 93) {
			sys_kill(-1);
		} else {
			trace_other(&t);
		}
		verify(&t);
	}
	sys_sigaction(NULL, NULL, 0); /* @t dies with this frame */
}
