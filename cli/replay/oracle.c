/* SPDX-License-Identifier: MIT */
/*
 * The oracle (docs/model.md). One pass backwards finds, for each event of a
 * task, whether the task's state is needed later (a later USE or EXPORT of
 * the same task before it exits); one pass forwards moves each task's latest
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
 */
#include "oracle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	uint32_t task; /* 0: holds nobody's state */
	bool dirty;    /* newer than the task's memory copy */
};

/* Whether event @i of a task, the next after a point, needs the state it had there. */
static bool needs_state(const struct trace *t, uint64_t i)
{
	return i != UINT64_MAX &&
	       (t->ev[i].type == FPULAB_EV_USE || t->ev[i].type == FPULAB_EV_EXPORT);
}

/* The events that read or replace a task's state. */
static bool touches_state(unsigned int type)
{
	return type == FPULAB_EV_USE || type == FPULAB_EV_EXPORT || type == FPULAB_EV_EXIT ||
	       type == FPULAB_EV_IMPORT || type == FPULAB_EV_RESET;
}

/* Evict the slot's holder: a save if its state is dirty and a later USE or EXPORT needs it. */
static void evict(struct slot *s, const struct trace *t, const uint64_t *next_of_task,
		  struct oracle_counts *out)
{
	if (s->task && s->dirty && needs_state(t, next_of_task[s->task]))
		out->saves++;
	s->task = 0;
	s->dirty = false;
}

int oracle_run(const struct trace *t, struct oracle_counts *out)
{
	uint64_t n = t->hdr.nevents, nt = t->hdr.ntasks + 1;
	struct slot slot[FPULAB_TRACE_MAX_CPUS] = { { 0 } };
	uint64_t *next_ev = malloc((n ? n : 1) * sizeof(*next_ev));
	uint64_t *next_of_task = malloc(nt * sizeof(*next_of_task)); /* from the current event */
	int *where = malloc(nt * sizeof(*where));                    /* slot holding t, or -1 */

	memset(out, 0, sizeof(*out));
	if (!next_ev || !next_of_task || !where) {
		free(next_ev);
		free(next_of_task);
		free(where);
		return -1;
	}
	/* next_ev[i]: the next USE/EXPORT/EXIT/IMPORT/RESET of event i's task after i */
	for (uint64_t k = 0; k < nt; k++)
		next_of_task[k] = UINT64_MAX;
	for (uint64_t i = n; i-- > 0;) {
		const struct fpulab_trace_event *e = &t->ev[i];
		next_ev[i] = e->task ? next_of_task[e->task] : UINT64_MAX;
		if (e->task && touches_state(e->type))
			next_of_task[e->task] = i;
	}
	/* next_of_task[k] now: k's first such event; advanced as events pass */
	for (uint64_t k = 0; k < nt; k++)
		where[k] = -1;
	for (uint64_t i = 0; i < n; i++) {
		const struct fpulab_trace_event *e = &t->ev[i];
		unsigned int c = e->cpu, task = e->task;
		if (task && touches_state(e->type))
			next_of_task[task] = next_ev[i]; /* what follows this event */
		switch (e->type) {
		case FPULAB_EV_SWITCH:
			out->switches++;
			break;
		case FPULAB_EV_USE:
			out->uses++;
			if (where[task] != (int)c) {
				if (where[task] >= 0) { /* moving: its old slot gives it up */
					struct slot *o = &slot[where[task]];
					if (o->dirty)
						out->saves++; /* needed: it is used now */
					o->task = 0;
					o->dirty = false;
				}
				if (slot[c].task)
					where[slot[c].task] = -1;
				evict(&slot[c], t, next_of_task, out);
				out->restores++;
				slot[c].task = task;
				where[task] = (int)c;
			}
			slot[c].dirty = true;
			break;
		case FPULAB_EV_KFPU_BEGIN:
			if (slot[c].task)
				where[slot[c].task] = -1;
			evict(&slot[c], t, next_of_task, out);
			break;
		case FPULAB_EV_EXPORT:
			if (where[task] >= 0 && slot[where[task]].dirty) {
				out->saves++;
				slot[where[task]].dirty = false;
			}
			break;
		case FPULAB_EV_EXIT:
		case FPULAB_EV_IMPORT:
		case FPULAB_EV_RESET:
			if (where[task] >= 0) {
				slot[where[task]].task = 0;
				slot[where[task]].dirty = false;
				where[task] = -1;
			}
			break;
		default:
			break;
		}
	}
	free(next_ev);
	free(next_of_task);
	free(where);
	return 0;
}
