/* SPDX-License-Identifier: MIT */
/*
 * Pass 2's output (perf_internal.h). The state machine's events wait on
 * their CPU's pending list until the slice they belong to has ended: a
 * switch until the line after it says whether Linux saved (a
 * x86_fpu_regs_deactivated follows at once on that CPU), and a USE until
 * the slice's save says which components it dirtied. Then they get their
 * sequence numbers, pass the incremental checker, and go to the file. An
 * event that names a task pending on another CPU writes that CPU's list
 * out first, so the global order stays one trace_check() accepts.
 */
#include "perf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int em_open(struct emitter *m, FILE *out, unsigned int ncpus, uint64_t xcr0, unsigned int fp_use,
	    char *err, size_t errlen)
{
	static const char zero[832];

	memset(m, 0, sizeof(*m));
	m->out = out;
	m->fp_use = fp_use;
	memcpy(m->hdr.magic, FPULAB_TRACE_MAGIC, 8);
	m->hdr.version = FPULAB_TRACE_VERSION_LINUX;
	m->hdr.header_size = (uint16_t)trace_header_size(FPULAB_TRACE_VERSION_LINUX);
	m->hdr.event_size = sizeof(struct fpulab_trace_event);
	m->hdr.ncpus = (uint16_t)ncpus;
	m->hdr.ntasks = FPULAB_TRACE_MAX_TASKS;
	m->hdr.flags = FPULAB_TRACE_F_LINUX | FPULAB_TRACE_F_RETURNS | FPULAB_TRACE_F_LOSSY;
	m->hdr.xcr0 = xcr0;
	snprintf(m->hdr.workload, sizeof(m->hdr.workload), "linux");
	m->lx0.fp_use = fp_use;
	m->pend_cpu = malloc((FPULAB_TRACE_MAX_TASKS + 1) * sizeof(*m->pend_cpu));
	for (unsigned int c = 0; c < FPULAB_TRACE_MAX_CPUS; c++)
		m->cpu[c].held = -1;
	if (!m->pend_cpu) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(m->pend_cpu, 0xff, (FPULAB_TRACE_MAX_TASKS + 1) * sizeof(*m->pend_cpu));
	m->chk = trace_checker_new(&m->hdr, &m->lx0, err, errlen);
	if (!m->chk)
		return -1;
	if (fwrite(zero, m->hdr.header_size, 1, out) != 1) {
		snprintf(err, errlen, "writing the trace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void em_close(struct emitter *m)
{
	trace_checker_free(m->chk);
	for (unsigned int c = 0; c < FPULAB_TRACE_MAX_CPUS; c++)
		free(m->cpu[c].ev);
	free(m->pend_cpu);
	memset(m, 0, sizeof(*m));
}

/* The tasks an event names: its task, and a switch's next. */
static void mark_tasks(struct emitter *m, const struct fpulab_trace_event *e, uint16_t cpu)
{
	if (e->task)
		m->pend_cpu[e->task] = cpu;
	if (e->type == FPULAB_EV_SWITCH && e->arg)
		m->pend_cpu[e->arg] = cpu;
}

/* Write out whatever another CPU has pending that names a task @e names. */
static int flush_others(struct emitter *m, const struct fpulab_trace_event *e)
{
	uint16_t t[2] = { e->task, e->type == FPULAB_EV_SWITCH ? e->arg : 0 };

	for (int i = 0; i < 2; i++) {
		uint16_t d = t[i] ? m->pend_cpu[t[i]] : NO_CPU;
		if (d == NO_CPU || d == e->cpu)
			continue;
		em_decide_uses(m, d, m->cpu[d].n, false, 0);
		if (em_flush(m, d, UINT32_MAX))
			return -1;
	}
	return 0;
}

static int make_room(struct emitter *m, struct pend *p, unsigned int c)
{
	if (p->n == PEND_MAX) { /* a slice this long: decide and write all but its last */
		em_decide_uses(m, c, p->n - 1, false, 0);
		if (em_flush(m, c, p->n - 1))
			return -1;
	}
	if (p->n < p->cap)
		return 0;
	unsigned int cap = p->cap ? p->cap * 2 : 16;
	struct pev *ev = realloc(p->ev, cap * sizeof(*ev));
	if (!ev) {
		snprintf(m->err, sizeof(m->err), "out of memory");
		return -1;
	}
	p->ev = ev;
	p->cap = cap;
	return 0;
}

int em_insert(struct emitter *m, unsigned int c, unsigned int pos,
	      const struct fpulab_trace_event *e, uint32_t line)
{
	struct pend *p = &m->cpu[c];

	if (flush_others(m, e) || make_room(m, p, c))
		return -1;
	if (pos > p->n)
		pos = p->n;
	memmove(&p->ev[pos + 1], &p->ev[pos], (p->n - pos) * sizeof(*p->ev));
	p->ev[pos] = (struct pev){ .e = *e, .line = line };
	p->n++;
	if (p->held >= (int)pos)
		p->held++;
	mark_tasks(m, e, (uint16_t)c);
	return 0;
}

int em_push(struct emitter *m, const struct fpulab_trace_event *e, uint32_t line)
{
	struct pend *p = &m->cpu[e->cpu];
	struct fpulab_trace_event x = *e;
	bool loaded = p->carry_loaded;

	if (p->ret_carry) {
		x.flags |= FPULAB_EVF_RETURNED;
		p->ret_carry = p->carry_loaded = false;
	}
	if (em_insert(m, e->cpu, p->n, &x, line))
		return -1;
	p->ev[p->n - 1].loaded = loaded;
	return 0;
}

/* Drop entry @i of @p (an undecided USE the evidence model does not keep), keeping its
 * returned flag, and whether deferred loads at that return, for the entry after it. */
static void drop_use(struct pend *p, unsigned int i)
{
	uint16_t ret = p->ev[i].e.flags & FPULAB_EVF_RETURNED;
	bool loaded = p->ev[i].loaded;

	memmove(&p->ev[i], &p->ev[i + 1], (p->n - i - 1) * sizeof(*p->ev));
	p->n--;
	if (p->held > (int)i)
		p->held--;
	if (i < p->n) {
		p->ev[i].e.flags |= ret;
		p->ev[i].loaded |= loaded;
	} else if (ret) {
		p->ret_carry = true;
		p->carry_loaded |= loaded;
	}
}

void em_decide_uses(struct emitter *m, unsigned int c, unsigned int n, bool has_save,
		    uint32_t save_mask)
{
	struct pend *p = &m->cpu[c];
	int last = -1;

	if (n > p->n)
		n = p->n;
	for (unsigned int i = 0; i < n; i++)
		if (p->ev[i].slice_use)
			last = (int)i;
	for (int i = last; i >= 0; i--) {
		struct pev *v = &p->ev[i];
		if (!v->slice_use)
			continue;
		/* only the last return before the save is compared with it; an unknown
		 * mask (a task running when the recording began) is no evidence */
		bool grew = has_save && i == last && v->ret_mask != MASK_UNKNOWN &&
			    (save_mask & ~v->ret_mask);
		v->slice_use = false;
		if (i == last && has_save)
			v->e.mask = save_mask;
		if (grew)
			v->e.flags |= FPULAB_EVF_EVIDENCE;
		else if (m->fp_use == FPULAB_FP_USE_EVIDENCE)
			drop_use(p, (unsigned int)i);
	}
}

int em_flush(struct emitter *m, unsigned int c, unsigned int n)
{
	struct pend *p = &m->cpu[c];

	if (n > p->n)
		n = p->n;
	for (unsigned int i = 0; i < n; i++) {
		struct fpulab_trace_event *e = &p->ev[i].e;
		char msg[256];
		if (m->nevents >= UINT32_MAX) {
			snprintf(m->err, sizeof(m->err),
				 "more than %u events: a trace holds at most 2^32", UINT32_MAX - 1);
			return -1;
		}
		e->seq = (uint32_t)(m->nevents + 1);
		if (trace_checker_event(m->chk, e, m->nevents, msg, sizeof(msg))) {
			snprintf(m->err, sizeof(m->err), "line %" PRIu32 ": the importer made %s",
				 p->ev[i].line, msg);
			return -1;
		}
		if (fwrite(e, sizeof(*e), 1, m->out) != 1) {
			snprintf(m->err, sizeof(m->err), "writing the trace: %s", strerror(errno));
			return -1;
		}
		m->nevents++;
		if (e->task && m->pend_cpu[e->task] == c)
			m->pend_cpu[e->task] = NO_CPU;
		if (e->type == FPULAB_EV_SWITCH && e->arg && m->pend_cpu[e->arg] == c)
			m->pend_cpu[e->arg] = NO_CPU;
	}
	if (p->n > n)
		memmove(p->ev, p->ev + n, (p->n - n) * sizeof(*p->ev));
	p->n -= n;
	p->held = p->held >= (int)n ? p->held - (int)n : -1;
	for (unsigned int i = 0; i < p->n; i++)
		mark_tasks(m, &p->ev[i].e, (uint16_t)c);
	return 0;
}
