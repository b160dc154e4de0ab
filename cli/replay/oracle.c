/* SPDX-License-Identifier: MIT */
/*
 * The oracle (docs/model.md). A first pass finds, for each event of a
 * task, whether the task's state is needed later (a later USE or EXPORT of
 * the same task before it exits); a second pass moves each task's latest
 * state between the CPUs' slots and memory:
 * - USE of t on c: if c's slot does not hold t's latest state, restore it
 *   (first evicting the slot's holder, saved if dirty and needed later);
 *   the slot becomes t's and dirty.
 * - kfpu-begin on c: the slot is clobbered: its holder is evicted.
 * - EXPORT of t: a dirty copy of t in some slot is saved, the slot stays
 *   valid and becomes clean.
 * - EXIT of t: its slot (if any) is freed without a save.
 * - IMPORT or RESET of t: t's latest state is now in memory; a copy of t in
 *   a slot is stale and freed without a save (what it held is replaced).
 * A use on another CPU evicts t's dirty copy from its old slot first (the
 * state must reach memory to move). No traps, CR0 writes or IPIs.
 *
 * Both passes read the trace forwards (the first marks, per event, whether
 * its task's next state event needs the state: one bit per event, set
 * when that next event comes), so a trace read from its file (trace_open)
 * is never held whole.
 */
#include "oracle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	uint32_t task; /* 0: holds nobody's state */
	bool dirty;    /* newer than the task's memory copy */
};

/* The events that read or replace a task's state. */
static bool touches_state(unsigned int type)
{
	return type == FPULAB_EV_USE || type == FPULAB_EV_EXPORT || type == FPULAB_EV_EXIT ||
	       type == FPULAB_EV_IMPORT || type == FPULAB_EV_RESET;
}

/* Of those, the ones that need the state as it was. */
static bool needs_state(unsigned int type)
{
	return type == FPULAB_EV_USE || type == FPULAB_EV_EXPORT;
}

/* The forward pass: the slots, where each task's state is, and whether a later event needs it. */
struct oracle {
	struct slot slot[FPULAB_TRACE_MAX_CPUS];
	int *where;       /* per task: the slot holding its latest state, or -1 */
	uint8_t *need;    /* per task: its next state event after this point needs its state */
	const uint8_t *n; /* per event, a bit: its task's next state event needs its state */
	struct oracle_counts *out;
};

/* Evict the slot's holder: a save if its state is dirty and a later USE or EXPORT needs it. */
static void evict(struct oracle *o, struct slot *s)
{
	if (s->task && s->dirty && o->need[s->task])
		o->out->saves++;
	s->task = 0;
	s->dirty = false;
}

/* A use of @task on @c: restored there unless the slot holds it; the slot becomes dirty. */
static void use(struct oracle *o, unsigned int c, unsigned int task)
{
	struct slot *slot = o->slot;

	o->out->uses++;
	if (o->where[task] != (int)c) {
		if (o->where[task] >= 0) { /* moving: its old slot gives it up */
			struct slot *old = &slot[o->where[task]];
			if (old->dirty)
				o->out->saves++; /* needed: it is used now */
			old->task = 0;
			old->dirty = false;
		}
		if (slot[c].task)
			o->where[slot[c].task] = -1;
		evict(o, &slot[c]);
		o->out->restores++;
		slot[c].task = task;
		o->where[task] = (int)c;
	}
	slot[c].dirty = true;
}

/* Event @i, @e, in global order. */
static void step(struct oracle *o, uint64_t i, const struct fpulab_trace_event *e)
{
	unsigned int c = e->cpu, task = e->task;
	struct slot *slot = o->slot;

	if (task && touches_state(e->type))
		o->need[task] = (o->n[i / 8] >> (i % 8)) & 1; /* what follows this event */
	switch (e->type) {
	case FPULAB_EV_SWITCH:
		o->out->switches++;
		break;
	case FPULAB_EV_USE:
		use(o, c, task);
		break;
	case FPULAB_EV_KFPU_BEGIN:
		if (slot[c].task)
			o->where[slot[c].task] = -1;
		evict(o, &slot[c]);
		break;
	case FPULAB_EV_EXPORT:
		if (o->where[task] >= 0 && slot[o->where[task]].dirty) {
			o->out->saves++;
			slot[o->where[task]].dirty = false;
		}
		break;
	case FPULAB_EV_EXIT:
	case FPULAB_EV_IMPORT:
	case FPULAB_EV_RESET:
		if (o->where[task] >= 0) {
			slot[o->where[task]].task = 0;
			slot[o->where[task]].dirty = false;
			o->where[task] = -1;
		}
		break;
	default:
		break;
	}
}

/*
 * The first pass: for each event that touches a task's state, bit i of
 * @need says whether the task's next such event needs the state (a USE or
 * EXPORT, not an EXIT, IMPORT or RESET, nor the trace's end). @last: room
 * for a task's latest such event. Return: 0, or -1 (@it->err) where the
 * file could not be read.
 */
static int mark_needs(const struct trace *t, struct fpulab_trace_event *buf, uint64_t *last,
		      uint8_t *need)
{
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	uint64_t i = 0;
	size_t n;

	for (uint32_t k = 0; k <= t->hdr.ntasks; k++)
		last[k] = UINT64_MAX;
	if (trace_iter_begin(&it, t, buf))
		return -1;
	while ((n = trace_iter_next(&it, &ev)) > 0)
		for (size_t j = 0; j < n; j++, i++) {
			const struct fpulab_trace_event *e = &ev[j];
			if (!e->task || !touches_state(e->type))
				continue;
			uint64_t p = last[e->task];
			if (p != UINT64_MAX && needs_state(e->type))
				need[p / 8] |= (uint8_t)(1u << (p % 8));
			last[e->task] = i;
		}
	return it.err ? -1 : 0;
}

/* The second pass, forwards, through @o. Return: 0, or -1 where the file could not be read. */
static int forward(const struct trace *t, struct fpulab_trace_event *buf, struct oracle *o)
{
	const struct fpulab_trace_event *ev;
	struct trace_iter it;
	uint64_t i = 0;
	size_t n;

	for (uint32_t k = 0; k <= t->hdr.ntasks; k++)
		o->where[k] = -1;
	if (trace_iter_begin(&it, t, buf))
		return -1;
	while ((n = trace_iter_next(&it, &ev)) > 0)
		for (size_t j = 0; j < n; j++, i++)
			step(o, i, &ev[j]);
	return it.err ? -1 : 0;
}

int oracle_run(const struct trace *t, struct oracle_counts *out)
{
	uint64_t nt = t->hdr.ntasks + 1;
	uint8_t *need = calloc(t->hdr.nevents / 8 + 1, 1);
	uint64_t *last = malloc(nt * sizeof(*last));
	struct oracle o = {
		.where = malloc(nt * sizeof(*o.where)), .need = calloc(nt, 1), .n = need, .out = out
	};
	struct fpulab_trace_event *buf = t->file ? malloc(TRACE_CHUNK * sizeof(*buf)) : NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (need && last && o.where && o.need && (buf || !t->file))
		rc = mark_needs(t, buf, last, need) || forward(t, buf, &o) ? -2 : 0;
	free(need);
	free(last);
	free(o.where);
	free(o.need);
	free(buf);
	return rc;
}
