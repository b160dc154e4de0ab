/* SPDX-License-Identifier: MIT */
/*
 * Pass 2 of the Linux importer: Linux's FPU state machine over the
 * recording's events (docs/linux-traces.md gives each rule and the Linux
 * function it follows), fpulab's events out through perf_emit.c. Beside
 * Linux's view of each CPU (which task runs), it keeps a shadow of what
 * libfpu's deferred policy would hold (owner per CPU, last_cpu and
 * NEED_LOAD per task), to tell an activation deferred would have made from
 * one it would have skipped (the latter is an unseen kernel-FPU section).
 */
#include "perf_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ID_DEAD 0x10000u /* inc_id: the incarnation exited; its id went back */
/*
 * An activation this close before x86_fpu_copy_dst (same task and CPU, nothing
 * between) is fpu_clone()'s restore, not a return's: in this host's recordings the
 * gap is 1.2-2.5 us for those, and 30 us or more after a return to ring 3.
 */
#define FORK_RESTORE_NS 10000
/* Records read ahead for a held switch's save that another CPU's event comes before. */
#define SAVE_AHEAD_MAX 256

struct ltask {
	uint32_t inc;
	int16_t running;   /* trace CPU it runs on, as the events written say; -1 */
	int16_t last_cpu;  /* deferred's last_cpu; -1 */
	bool need_load;    /* deferred's FPU_F_NEED_LOAD */
	bool returned;     /* a return to ring 3 since its slice began or its state was replaced */
	bool delivering;   /* a signal to a handler: the handler's init load is to come */
	bool sigreturn;    /* sys_enter_rt_sigreturn: its next activation loads the frame */
	bool exiting;      /* sched_process_exit: EXIT at its final switch */
	bool mask_known;   /* mask is what the recording said, not a guess at the window start */
	uint16_t frames;   /* signal frames it is inside */
	uint32_t mask;     /* XSTATE_BV of its state, as far as the recording says */
	uint32_t sig_mask; /* ... when the last signal frame was written */
};

struct lcpu {
	uint32_t cur_inc; /* the task Linux runs here; INC_NONE unknown */
	uint16_t cur;     /* its trace id, 0 for idle and kernel threads */
	uint16_t owner;   /* deferred's register owner here, 0 none */
	bool seen;        /* an event here yet */
	bool any_act;     /* an activation here since the recording began */
	bool deact_open;  /* the last event here was a deactivation without a switch */
	bool busy;
	uint16_t held_prev; /* the held switch's prev (0 dead or kernel) */
	bool held_dead;
	uint32_t held_inc;
	uint16_t last_restore; /* the task whose restore was the last event here */
	uint64_t restore_ts;   /* and its time */
	uint64_t since;
	uint32_t save_taken; /* the line of a held switch's save read ahead (0 none) */
};

struct state {
	const struct perf_scan *s;
	struct emitter *m;
	const struct perf_import_opts *o;
	struct fpulab_trace_linux *lx;
	uint32_t *inc_id;
	struct ltask *t;
	uint16_t *free_ids;
	uint32_t nfree, next_id, live;
	uint64_t xcr0;
	struct lcpu cpu[FPULAB_TRACE_MAX_CPUS];
	const struct prec *r;
	char *err;
	size_t errlen;
};

static int fail(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct state *st, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(st->err, st->errlen, "line %" PRIu32 ": ", st->r ? st->r->line : 0);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < st->errlen)
		vsnprintf(st->err + n, st->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int emit_err(struct state *st)
{
	snprintf(st->err, st->errlen, "%s", st->m->err[0] ? st->m->err : "out of memory");
	return -1;
}

static int take_saves_ahead(struct state *st, const struct fpulab_trace_event *e);

static int push(struct state *st, unsigned int type, unsigned int c, unsigned int task,
		unsigned int arg, unsigned int flags, uint32_t mask)
{
	struct fpulab_trace_event e = { .type = (uint8_t)type,
					.cpu = (uint8_t)c,
					.task = (uint16_t)task,
					.arg = (uint16_t)arg,
					.flags = (uint16_t)flags,
					.mask = mask };
	if (take_saves_ahead(st, &e))
		return -1;
	return em_push(st->m, &e, st->r ? st->r->line : 0) ? emit_err(st) : 0;
}

/* The trace id of incarnation @inc, given one at its first need if it is a user task. */
static int task_id(struct state *st, uint32_t inc, uint32_t *id)
{
	*id = 0;
	if (inc == INC_NONE || inc == INC_IDLE || !(st->s->inc_flags[inc] & INCF_USER) ||
	    st->inc_id[inc] == ID_DEAD)
		return 0;
	if (st->inc_id[inc]) {
		*id = st->inc_id[inc];
		return 0;
	}
	if (st->nfree)
		*id = st->free_ids[--st->nfree];
	else if (st->next_id <= FPULAB_TRACE_MAX_TASKS)
		*id = st->next_id++;
	else
		return fail(st,
			    "more than %d user tasks live at once (pid %d is one more): the "
			    "format's limit",
			    FPULAB_TRACE_MAX_TASKS, st->s->inc_pid[inc]);
	st->inc_id[inc] = *id;
	st->t[*id] = (struct ltask){ .inc = inc, .running = -1, .last_cpu = -1, .need_load = true };
	st->live++;
	st->lx->user_tasks++;
	return 0;
}

/* The trace id incarnation @inc has, without giving it one: 0 if none yet or exited. */
static uint32_t id_of(const struct state *st, uint32_t inc)
{
	if (inc == INC_NONE || inc == INC_IDLE || st->inc_id[inc] == ID_DEAD)
		return 0;
	return st->inc_id[inc];
}

/* deferred's fpregs_hold(): CPU @c's registers hold task @t's state. */
static bool holds(const struct state *st, unsigned int c, uint32_t t)
{
	return st->cpu[c].owner == t && st->t[t].last_cpu == (int)c;
}

/* The task's state was replaced in memory on CPU @c (libfpu's state_replaced()): no
 * registers hold it; it loads before ring 3. */
static void replaced(struct state *st, unsigned int c, uint32_t t)
{
	st->t[t].last_cpu = -1;
	if (st->cpu[c].owner == t)
		st->cpu[c].owner = 0;
	st->t[t].need_load = true;
	st->t[t].returned = false;
}

/* A return to ring 3 of task @t on CPU @c: deferred's fpu_return_to_user(), and the USE the
 * every-return model gives it (decided at the slice's end, perf_emit.c). */
static int do_return(struct state *st, unsigned int c, uint32_t t)
{
	struct ltask *k = &st->t[t];
	struct pend *p = &st->m->cpu[c];
	bool loads = k->need_load && !holds(st, c, t);

	if (k->need_load) {
		st->lx->deferred_loads += loads;
		st->cpu[c].owner = (uint16_t)t;
		k->last_cpu = (int16_t)c;
		k->need_load = false;
	}
	k->returned = true;
	if (push(st, FPULAB_EV_USE, c, t, 0, FPULAB_EVF_RETURNED, k->mask))
		return -1;
	p->ev[p->n - 1].slice_use = true;
	p->ev[p->n - 1].loaded |= loads;
	p->ev[p->n - 1].ret_mask = k->mask_known ? k->mask : MASK_UNKNOWN;
	return 0;
}

/*
 * The held switch on CPU @c resolved: @save, the next line there was its
 * x86_fpu_regs_deactivated (switch_fpu() saved prev's live registers, so
 * prev returned to ring 3 in the slice: if no activation said so, its
 * restore was skipped), with XSTATE_BV @mask. Its slice is then complete:
 * its USEs are decided and it is written out.
 */
static int resolve_held(struct state *st, unsigned int c, bool save, uint32_t mask)
{
	struct pend *p = &st->m->cpu[c];
	struct lcpu *u = &st->cpu[c];
	uint32_t t = u->held_prev;

	if (p->held < 0)
		return 0;
	save = save && t && !u->held_dead;
	if (save && !st->t[t].returned) {
		struct ltask *k = &st->t[t];
		struct fpulab_trace_event e = { .type = FPULAB_EV_USE,
						.cpu = (uint8_t)c,
						.task = (uint16_t)t,
						.flags = FPULAB_EVF_RETURNED,
						.mask = mask };
		bool loads = k->need_load && !holds(st, c, t);
		if (loads) {
			st->lx->deferred_loads++;
			if (!u->any_act)
				st->lx->window_loads++;
			else
				st->lx->other_loads++;
		}
		u->owner = (uint16_t)t;
		k->last_cpu = (int16_t)c;
		k->need_load = false;
		k->returned = true;
		unsigned int h = (unsigned int)p->held;
		if (em_insert(st->m, c, h, &e, st->r->line))
			return emit_err(st);
		p->ev[h].slice_use = true;
		p->ev[h].loaded = loads;
		p->ev[h].ret_mask = k->mask_known ? k->mask : MASK_UNKNOWN;
	}
	if (save) {
		st->t[t].mask = mask;
		st->t[t].mask_known = true;
	}
	em_decide_uses(st->m, c, (unsigned int)p->held, save, mask);
	return em_flush(st->m, c, (unsigned int)p->held + 1) ? emit_err(st) : 0;
}

/* @r, the next record on CPU @c, is the save of its held switch: prev's deactivation. */
static bool is_save(const struct state *st, unsigned int c, const struct prec *r)
{
	uint32_t held = st->cpu[c].held_inc;

	return st->m->cpu[c].held >= 0 && r->type == PE_DEACT &&
	       (r->subj == held || r->subj == INC_NONE);
}

static void count_save(struct state *st, unsigned int c)
{
	st->lx->deactivations++;
	st->lx->switch_saves++;
	st->lx->exit_saves += st->cpu[c].held_dead;
}

/* CPU @c's next record after the current one (PERF_RECORD_LOST passed over), if it is
 * within SAVE_AHEAD_MAX records; the spool is left where it was. */
static bool next_on_cpu(const struct state *st, unsigned int c, struct prec *r)
{
	FILE *f = st->s->spool;
	off_t at = ftello(f);
	bool found = false;

	for (int i = 0; at >= 0 && !found && i < SAVE_AHEAD_MAX; i++) {
		if (fread(r, sizeof(*r), 1, f) != 1)
			break;
		found = r->type != PE_LOST && st->s->slot_to_cpu[r->cpu] == c;
	}
	if (at >= 0 && fseeko(f, at, SEEK_SET))
		found = false;
	return found;
}

/*
 * Event @e names a task pending on CPU @d, so the emitter writes @d's pending events out
 * before it, @d's held switch with them. perf orders lines by timestamp and CPUs' clocks
 * differ: that switch's save, @d's next line, may come after another CPU's event that
 * runs its task, though Linux saved first. It is read ahead and taken as the save now
 * (and passed over when its turn comes), not left to be misread as a lost switch.
 */
static int take_saves_ahead(struct state *st, const struct fpulab_trace_event *e)
{
	uint16_t t[2] = { e->task, e->type == FPULAB_EV_SWITCH ? e->arg : 0 };
	struct prec next;

	for (int i = 0; i < 2; i++) {
		uint16_t d = t[i] ? st->m->pend_cpu[t[i]] : NO_CPU;
		if (d == NO_CPU || d == e->cpu || st->m->cpu[d].held < 0 ||
		    !next_on_cpu(st, d, &next) || !is_save(st, d, &next))
			continue;
		const struct prec *cur = st->r;
		count_save(st, d);
		st->cpu[d].save_taken = next.line;
		st->r = &next;
		int rc = resolve_held(st, d, true, next.x & (uint32_t)st->xcr0);
		st->r = cur;
		if (rc)
			return -1;
	}
	return 0;
}

/* Time on CPU @c up to @ts counted busy if something other than the idle task ran. */
static void account(struct state *st, unsigned int c, uint64_t ts, uint32_t next_inc)
{
	struct lcpu *u = &st->cpu[c];

	if (u->busy && ts > u->since)
		st->lx->busy_ns[c] += ts - u->since;
	u->busy = next_inc != INC_IDLE;
	u->since = ts;
}

static int switch_to(struct state *st, unsigned int c, uint32_t next_inc, unsigned int flags,
		     bool dead);

/*
 * CPU @d's recording has ended before this event: perf stops recording one CPU at a time
 * (all of a CPU's events at once, from that CPU), so past a CPU's last event what ran there
 * is unknown, as it is before its first.
 */
static bool cpu_ended(const struct state *st, unsigned int d)
{
	return st->r->ts > st->s->cpu_last_ts[d];
}

/* Task @t was running on CPU @d as far as the events say, but runs elsewhere now: a
 * switch away on @d that the recording lacks, or one after @d's recording ended (the
 * window's end: flag window, counted apart, no loss). */
static int force_off(struct state *st, unsigned int d)
{
	unsigned int flags = FPULAB_EVF_RESYNC;

	if (cpu_ended(st, d)) {
		st->lx->window_ends++;
		flags = FPULAB_EVF_WINDOW;
	} else {
		st->lx->resyncs++;
		if (st->o->strict)
			return fail(
				st,
				"pid %d runs on two CPUs at once (a switch the recording lacks: "
				"CPU %u records on until line %" PRIu32 "); --strict refuses it",
				st->s->inc_pid[st->t[st->cpu[d].cur].inc], st->s->linux_cpu[d],
				st->s->cpu_last_line[d]);
	}
	if (resolve_held(st, d, false, 0) || switch_to(st, d, INC_NONE, flags, false))
		return -1;
	return 0;
}

/*
 * Switch CPU @c from the task it runs to incarnation @next_inc (INC_NONE:
 * to nothing known). @dead: prev is dead, this is its final switch: its
 * EXIT first. A switch from a user task waits (held) for the line after
 * it unless @flags say it is inferred.
 */
static int switch_to(struct state *st, unsigned int c, uint32_t next_inc, unsigned int flags,
		     bool dead)
{
	struct lcpu *u = &st->cpu[c];
	struct pend *p = &st->m->cpu[c];
	uint32_t prev = u->cur, next;

	account(st, c, st->r->ts, next_inc);
	if (task_id(st, next_inc, &next))
		return -1;
	if (next && st->t[next].running >= 0 && st->t[next].running != (int)c &&
	    force_off(st, (unsigned int)st->t[next].running))
		return -1;
	if (prev && (dead || flags)) /* no save to wait for: the slice ends here */
		em_decide_uses(st->m, c, p->n, false, 0);
	if (prev && dead) {
		if (push(st, FPULAB_EV_EXIT, c, prev, 0, 0, 0))
			return -1;
		st->inc_id[st->t[prev].inc] = ID_DEAD;
		st->free_ids[st->nfree++] = (uint16_t)prev;
		st->live--;
	} else if (prev) {
		st->t[prev].running = -1;
	}
	if ((prev && !dead) || next)
		if (push(st, FPULAB_EV_SWITCH, c, dead ? 0 : prev, next, flags, 0))
			return -1;
	if (prev && !flags) {
		p->held = (int)p->n - 1;
		u->held_prev = (uint16_t)(dead ? 0 : prev);
		u->held_dead = dead;
		u->held_inc = u->cur_inc;
	}
	if (next) {
		struct ltask *k = &st->t[next];
		k->running = (int16_t)c;
		k->need_load = true; /* deferred_switch() */
		k->returned = false;
	}
	u->cur = (uint16_t)next;
	u->cur_inc = next_inc;
	return 0;
}

/*
 * CPU @c runs incarnation @inc as this event says. Its first event: the
 * window start (a task already running gets a switch from 0, flag window).
 * Otherwise a mismatch is a switch the recording lacks: resynchronised
 * (flag resync, counted) or, with --strict, refused.
 */
static int sync_cpu(struct state *st, unsigned int c, uint32_t inc)
{
	struct lcpu *u = &st->cpu[c];

	if (inc == INC_NONE || (u->seen && u->cur_inc == inc))
		return 0;
	if (!u->seen || u->cur_inc == INC_NONE) {
		bool window = !u->seen;
		u->seen = true;
		u->cur_inc = INC_IDLE;
		if (window)
			u->since = st->r->ts;
		if (switch_to(st, c, inc, window ? FPULAB_EVF_WINDOW : FPULAB_EVF_RESYNC, false))
			return -1;
		st->lx->window_switches += window && u->cur;
		return 0;
	}
	st->lx->resyncs++;
	if (st->o->strict)
		return fail(st,
			    "CPU %u runs pid %d, but the recording said pid %d (a switch it "
			    "lacks); --strict refuses it",
			    st->s->linux_cpu[c], st->s->inc_pid[inc], st->s->inc_pid[u->cur_inc]);
	return switch_to(st, c, inc, FPULAB_EVF_RESYNC, false);
}

/* Which load an x86_fpu_regs_activated is (docs/linux-traces.md), and what follows it. */
static int on_activated(struct state *st, unsigned int c)
{
	struct fpulab_trace_linux *lx = st->lx;
	uint32_t t = st->cpu[c].cur;
	bool load = st->r->flags & PRF_LOAD;
	struct ltask *k = &st->t[t];

	lx->activations++;
	st->cpu[c].any_act = true;
	if (!t) { /* not a user task, by pass 1's account: cannot be */
		lx->act_other++;
		return 0;
	}
	if (k->delivering) { /* copy_fpstate_to_sigframe()'s restore, then the handler's init */
		if (load) {  /* the buffer it loads is the state the frame gets */
			lx->act_sigframe++;
			k->sig_mask = st->r->x & (uint32_t)st->xcr0;
			return 0;
		}
		lx->act_signal++;
		k->delivering = false;
		return do_return(st, c, t);
	}
	if (k->sigreturn || (!st->s->sigreturn && !load && k->frames)) {
		lx->act_sigreturn++;
		lx->sigreturns_inferred += !k->sigreturn;
		k->sigreturn = false;
		k->frames -= k->frames > 0;
		if (push(st, FPULAB_EV_IMPORT, c, t, 0, FPULAB_EVF_SIGFRAME, k->sig_mask))
			return -1;
		replaced(st, c, t);
		k->mask = k->sig_mask;
		return do_return(st, c, t);
	}
	if (load) {
		lx->act_restore++;
		st->cpu[c].last_restore = (uint16_t)t;
		st->cpu[c].restore_ts = st->r->ts;
	} else {
		lx->act_other++;
	}
	k->mask = st->r->x & (uint32_t)st->xcr0;
	k->mask_known = true;
	if (!k->need_load || holds(st, c, t)) { /* deferred would not load: kernel FPU did */
		if (push(st, FPULAB_EV_KFPU_BEGIN, c, t, 0, FPULAB_EVF_INFERRED, 0) ||
		    push(st, FPULAB_EV_KFPU_END, c, t, 0, FPULAB_EVF_INFERRED, 0))
			return -1;
		lx->kfpu_inferred++;
		st->cpu[c].owner = 0; /* kernel_fpu_begin(): fpu_invalidate(NULL) */
		k->need_load = true;  /* kernel_fpu_end(): deferred_reload() */
		k->returned = false;
	}
	return do_return(st, c, t);
}

/* A signal delivered to a handler: the state to the frame, the handler in init. */
static int on_signal(struct state *st, unsigned int c, uint32_t t)
{
	struct ltask *k = &st->t[t];

	if (push(st, FPULAB_EV_EXPORT, c, t, 0, 0, 0) || push(st, FPULAB_EV_RESET, c, t, 0, 0, 0))
		return -1;
	replaced(st, c, t);
	k->sig_mask = k->mask;
	k->mask = 0;
	k->mask_known = true;
	k->delivering = true;
	k->frames += k->frames < UINT16_MAX;
	return 0;
}

/* exec: fpu_flush_thread(): init in memory, loaded on the way out. */
static int on_exec(struct state *st, unsigned int c, uint32_t t)
{
	struct ltask *k = &st->t[t];

	if (push(st, FPULAB_EV_RESET, c, t, 0, 0, 0))
		return -1;
	replaced(st, c, t);
	k->mask = 0;
	k->mask_known = true;
	k->frames = 0;
	k->delivering = k->sigreturn = false;
	return 0;
}

static int on_migrate(struct state *st)
{
	const struct prec *r = st->r;
	uint32_t t;
	unsigned int from = st->s->slot_to_cpu[r->x], to = st->s->slot_to_cpu[r->b];

	/* a task that has not run yet (a fork's child placed before its first run) has
	 * no id yet: nothing to move */
	if (!(t = id_of(st, r->a)) || from == to)
		return 0;
	return push(st, FPULAB_EV_MIGRATE, from, t, to, 0, 0);
}

/* An event other than a switch on CPU @c, which runs st->cpu[c].cur. */
static int on_event(struct state *st, unsigned int c)
{
	const struct prec *r = st->r;
	struct fpulab_trace_linux *lx = st->lx;
	uint32_t t = st->cpu[c].cur, x;

	switch (r->type) {
	case PE_ACT:
		return on_activated(st, c);
	case PE_DEACT:
		lx->deactivations++;
		lx->deact_other++;
		st->cpu[c].deact_open = true;
		return 0;
	case PE_DROP:
		lx->deact_other -= st->cpu[c].deact_open;
		lx->drops += st->cpu[c].deact_open;
		return 0;
	case PE_COPY_DST:
		if (t && st->cpu[c].last_restore == t &&
		    r->ts - st->cpu[c].restore_ts < FORK_RESTORE_NS) { /* fpu_clone()'s */
			lx->act_restore--;
			lx->act_fork++;
		}
		return 0;
	case PE_AFTER_SAVE:
		return t ? push(st, FPULAB_EV_EXPORT, c, t, 0, 0, 0) : 0;
	case PE_SIGNAL:
		return t && (r->flags & PRF_HANDLER) ? on_signal(st, c, t) : 0;
	case PE_SIGRETURN:
		st->t[t].sigreturn = t != 0;
		return 0;
	case PE_FORK:
		lx->forks += r->b != INC_NONE && (st->s->inc_flags[r->b] & INCF_USER);
		return 0;
	case PE_EXEC:
		lx->execs += t != 0;
		return t ? on_exec(st, c, t) : 0;
	case PE_EXIT:
		x = id_of(st, r->a);
		st->t[x].exiting = x != 0;
		return 0;
	case PE_MIGRATE:
		return on_migrate(st);
	default:
		return 0;
	}
}

/* One record: the held switch on its CPU resolved, the CPU in step, the event. */
static int on_record(struct state *st)
{
	const struct prec *r = st->r;
	unsigned int c = st->s->slot_to_cpu[r->cpu];
	struct lcpu *u = &st->cpu[c];
	bool was_deact_open = u->deact_open;
	uint16_t was_restore = u->last_restore;

	if (r->type == PE_LOST)
		return 0;
	if (u->save_taken && r->line == u->save_taken) { /* read ahead: resolved */
		u->save_taken = 0;
		return 0;
	}
	if (st->m->cpu[c].held >= 0) {
		bool save = is_save(st, c, r);
		if (save)
			count_save(st, c);
		if (resolve_held(st, c, save, r->x & (uint32_t)st->xcr0))
			return -1;
		if (save)
			return 0;
	}
	u->deact_open = false;
	u->last_restore = 0;
	if (!u->seen && r->type == PE_DEACT) { /* after a switch before the recording began */
		st->lx->deactivations++;
		st->lx->deact_other++;
		u->deact_open = true; /* a drop may follow */
		return 0;
	}
	if (sync_cpu(st, c, r->type == PE_SWITCH ? r->a : r->subj))
		return -1;
	if (r->type == PE_SWITCH)
		return switch_to(st, c, r->b, 0, r->flags & PRF_DEAD);
	if (r->type == PE_DROP)
		u->deact_open = was_deact_open;
	if (r->type == PE_COPY_DST)
		u->last_restore = was_restore;
	return on_event(st, c);
}

/* The end of the recording: every held switch resolved, every slice decided and written. */
static int finish(struct state *st)
{
	for (unsigned int c = 0; c < st->s->ncpus; c++) {
		if (resolve_held(st, c, false, 0))
			return -1;
		em_decide_uses(st->m, c, st->m->cpu[c].n, false, 0);
		if (em_flush(st->m, c, UINT32_MAX))
			return emit_err(st);
		if (st->m->cpu[c].ret_carry && st->m->cpu[c].carry_loaded) {
			/* a return after the CPU's last event: no event carries it */
			st->lx->deferred_loads--;
			st->lx->end_loads++;
		}
		account(st, c, st->s->last_ts, INC_IDLE);
	}
	return 0;
}

int perf_state_run(const struct perf_scan *s, struct emitter *m, const struct perf_import_opts *o,
		   struct fpulab_trace_linux *lx, uint32_t *ntasks, char *err, size_t errlen)
{
	struct state *st = calloc(1, sizeof(*st));
	struct prec rec;
	int rc = 0;

	if (st) {
		st->inc_id = calloc(s->ninc ? s->ninc : 1, sizeof(*st->inc_id));
		st->t = calloc(FPULAB_TRACE_MAX_TASKS + 1, sizeof(*st->t));
		st->free_ids = malloc((FPULAB_TRACE_MAX_TASKS + 1) * sizeof(*st->free_ids));
	}
	if (!st || !st->inc_id || !st->t || !st->free_ids) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
		goto out;
	}
	*st = (struct state){ .s = s,
			      .m = m,
			      .o = o,
			      .lx = lx,
			      .inc_id = st->inc_id,
			      .t = st->t,
			      .free_ids = st->free_ids,
			      .next_id = 1,
			      .xcr0 = m->hdr.xcr0,
			      .err = err,
			      .errlen = errlen };
	for (unsigned int c = 0; c < FPULAB_TRACE_MAX_CPUS; c++)
		st->cpu[c].cur_inc = INC_NONE;
	rewind(s->spool);
	while (!rc && fread(&rec, sizeof(rec), 1, s->spool) == 1) {
		st->r = &rec;
		rc = on_record(st);
	}
	if (!rc && ferror(s->spool))
		rc = -1, snprintf(err, errlen, "reading the importer's temporary file");
	if (!rc)
		rc = finish(st);
	*ntasks = st->next_id - 1;
out:
	if (st) {
		free(st->inc_id);
		free(st->t);
		free(st->free_ids);
	}
	free(st);
	return rc;
}
