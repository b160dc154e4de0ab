/* SPDX-License-Identifier: MIT */
/* Checking fpulab traces: the header, the Linux block, every event in order (docs/trace.md). */
#include "trace_io.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

size_t trace_header_size(unsigned int version)
{
	return sizeof(struct fpulab_trace_header) +
	       (version >= FPULAB_TRACE_VERSION_LINUX ? sizeof(struct fpulab_trace_linux) : 0);
}

/* The workload name: printable ASCII, NUL-terminated within its 24 bytes. */
static int check_workload(const char *w, size_t len, char *err, size_t errlen)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)w[i];
		if (!c)
			return 0;
		if (!fpulab_trace_name_char(c))
			return fail_why(err, errlen,
					"workload name: byte %zu is 0x%02x, not printable ASCII", i,
					c);
	}
	return fail_why(err, errlen, "workload name: no NUL in its %zu bytes", len);
}

/* The flags a header of @version may carry. */
static int check_flags(const struct fpulab_trace_header *h, char *err, size_t errlen)
{
	if (h->version < 2 && (h->flags & FPULAB_TRACE_F_RETURNS))
		return fail_why(err, errlen,
				"flag returns in a version-%u trace: it came in version 2",
				h->version);
	if (h->version < FPULAB_TRACE_VERSION_LINUX &&
	    (h->flags & (FPULAB_TRACE_F_LINUX | FPULAB_TRACE_F_LOSSY)))
		return fail_why(err, errlen,
				"flag linux or lossy in a version-%u trace: they came in version 3",
				h->version);
	if (h->version >= FPULAB_TRACE_VERSION_LINUX && !(h->flags & FPULAB_TRACE_F_LINUX))
		return fail_why(err, errlen, "a version-3 trace without the linux flag");
	return 0;
}

int trace_check_header(const struct fpulab_trace_header *h, char *err, size_t errlen)
{
	if (memcmp(h->magic, FPULAB_TRACE_MAGIC, 8))
		return fail_why(err, errlen, "not an fpulab trace (no FPUTRACE magic)");
	if (h->version < FPULAB_TRACE_VERSION_MIN || h->version > FPULAB_TRACE_VERSION_MAX)
		return fail_why(err, errlen,
				"trace version %u, this fpulab reads versions %u to %u", h->version,
				FPULAB_TRACE_VERSION_MIN, FPULAB_TRACE_VERSION_MAX);
	if (h->header_size != trace_header_size(h->version) ||
	    h->event_size != sizeof(struct fpulab_trace_event))
		return fail_why(err, errlen, "header size %u / event size %u, expected %zu / %zu",
				h->header_size, h->event_size, trace_header_size(h->version),
				sizeof(struct fpulab_trace_event));
	if (h->ncpus < 1 || h->ncpus > FPULAB_TRACE_MAX_CPUS)
		return fail_why(err, errlen, "ncpus %u is not 1..%d", h->ncpus,
				FPULAB_TRACE_MAX_CPUS);
	if (h->ntasks > FPULAB_TRACE_MAX_TASKS)
		return fail_why(err, errlen, "ntasks %u is over %d", h->ntasks,
				FPULAB_TRACE_MAX_TASKS);
	if (check_flags(h, err, errlen))
		return -1;
	if (!(h->xcr0 & 1))
		return fail_why(err, errlen, "xcr0 0x%" PRIx64 " lacks x87", h->xcr0);
	if (h->xcr0 & ~(uint64_t)TRACE_XCR0_KNOWN)
		return fail_why(err, errlen,
				"xcr0 0x%" PRIx64 " has bits 0x%" PRIx64
				" that no x86 CPU defines for XCR0 (known: 0x%llx)",
				h->xcr0, h->xcr0 & ~(uint64_t)TRACE_XCR0_KNOWN, TRACE_XCR0_KNOWN);
	return check_workload(h->workload, sizeof(h->workload), err, errlen);
}

/* Version 3's Linux block: its sums add up, times and CPUs within the trace's. */
int trace_check_linux(const struct fpulab_trace_header *h, const struct fpulab_trace_linux *x,
		      char *err, size_t errlen)
{
	if (!x)
		return h->version >= FPULAB_TRACE_VERSION_LINUX
			       ? fail_why(err, errlen, "a version-3 trace without its Linux block")
			       : 0;
	if (h->version < FPULAB_TRACE_VERSION_LINUX)
		return fail_why(err, errlen, "a Linux block in a version-%u trace", h->version);
	if (x->fp_use != FPULAB_FP_USE_EVERY_RETURN && x->fp_use != FPULAB_FP_USE_EVIDENCE)
		return fail_why(err, errlen,
				"linux: fp_use %u is not 1 (every-return) or 2 (evidence)",
				x->fp_use);
	if (x->flags & ~(uint32_t)(FPULAB_LINUX_F_SIGRETURN | FPULAB_LINUX_F_NS |
				   FPULAB_LINUX_F_PROCS | FPULAB_LINUX_F_ENDS))
		return fail_why(err, errlen, "linux: unknown flags 0x%x", x->flags);
	if (!(x->flags & FPULAB_LINUX_F_PROCS) && (x->forks || x->execs))
		return fail_why(err, errlen,
				"linux: forks or execs counted without the procs flag");
	if (x->end_loads &&
	    (!(x->flags & FPULAB_LINUX_F_ENDS) || x->fp_use != FPULAB_FP_USE_EVIDENCE))
		return fail_why(err, errlen,
				"linux: loads at the recording's end counted without the ends flag "
				"or at the every-return bound, which drops no use");
	for (size_t i = 0; i < sizeof(x->reserved) / sizeof(x->reserved[0]); i++)
		if (x->reserved[i])
			return fail_why(err, errlen, "linux: reserved word %zu is not 0", i);
	for (unsigned int c = 0; c < FPULAB_TRACE_MAX_CPUS; c++)
		if (x->busy_ns[c] > x->duration_ns || (c >= h->ncpus && x->busy_ns[c]))
			return fail_why(err, errlen,
					"linux: cpu %u busy %" PRIu64
					" ns in a trace of %u CPUs and %" PRIu64 " ns",
					c, x->busy_ns[c], h->ncpus, x->duration_ns);
	if (x->act_restore + x->act_fork + x->act_signal + x->act_sigframe + x->act_sigreturn +
		    x->act_other !=
	    x->activations)
		return fail_why(err, errlen,
				"linux: the activations by kind do not add up to %" PRIu64,
				x->activations);
	if (x->switch_saves + x->drops + x->deact_other != x->deactivations ||
	    x->exit_saves > x->switch_saves)
		return fail_why(err, errlen,
				"linux: the deactivations by kind do not add up to %" PRIu64,
				x->deactivations);
	if ((x->perf_lost || x->resyncs) && !(h->flags & FPULAB_TRACE_F_LOSSY))
		return fail_why(err, errlen,
				"linux: events lost or resynchronised, but no lossy flag");
	return 0;
}

/* Per-task and per-CPU facts while checking the event order. */
struct trace_checker {
	const struct fpulab_trace_header *h;
	uint32_t last_seq;
	uint16_t cur[FPULAB_TRACE_MAX_CPUS]; /* running task per CPU */
	uint8_t in_kfpu[FPULAB_TRACE_MAX_CPUS];
	int32_t *running_on; /* per task: CPU, or -1 */
	uint8_t *exited;
};

/* The flags an event may carry: version 2's returned, version 3's per type. */
static int check_event_flags(const struct trace_checker *k, const struct fpulab_trace_event *e,
			     char *err, size_t errlen)
{
	const struct fpulab_trace_header *h = k->h;
	uint16_t v3 = 0;

	if ((e->flags & FPULAB_EVF_RETURNED) && !(h->flags & FPULAB_TRACE_F_RETURNS))
		return fail_why(err, errlen, "flag returned in a trace without the returns flag");
	if ((e->flags & FPULAB_EVF_RETURNED) && e->type == FPULAB_EV_FLUSH_IPI)
		return fail_why(err, errlen, "a flush-ipi with the returned flag");
	if ((e->flags & FPULAB_EVF_RETURNED) && !k->cur[e->cpu])
		return fail_why(err, errlen, "returned to ring 3, but cpu %u runs no user task",
				e->cpu);
	if (e->type == FPULAB_EV_USE)
		v3 = FPULAB_EVF_EVIDENCE;
	else if (e->type == FPULAB_EV_SWITCH)
		v3 = FPULAB_EVF_WINDOW | FPULAB_EVF_RESYNC;
	else if (e->type == FPULAB_EV_KFPU_BEGIN || e->type == FPULAB_EV_KFPU_END)
		v3 = FPULAB_EVF_INFERRED;
	if ((e->flags & v3) && h->version < FPULAB_TRACE_VERSION_LINUX)
		return fail_why(err, errlen,
				"flags 0x%x in a version-%u trace: they came in version 3",
				e->flags & v3, h->version);
	return 0;
}

/* What every event must satisfy, whatever its type. */
static int check_event_common(const struct trace_checker *k, const struct fpulab_trace_event *e,
			      char *err, size_t errlen)
{
	const struct fpulab_trace_header *h = k->h;

	if (!e->type || e->type >= FPULAB_EV_NR)
		return fail_why(err, errlen, "unknown type %u", e->type);
	if (h->version < 2 && e->type >= FPULAB_EV_NR_V1)
		return fail_why(err, errlen,
				"type %u (%s) in a version-%u trace: it came in version 2", e->type,
				trace_type_name(e->type), h->version);
	if (e->cpu >= h->ncpus)
		return fail_why(err, errlen, "cpu %u, the trace has %u", e->cpu, h->ncpus);
	if (e->task > h->ntasks)
		return fail_why(err, errlen, "task %u, the trace has %u", e->task, h->ntasks);
	if (e->task && k->exited[e->task] && e->type != FPULAB_EV_SWITCH)
		return fail_why(err, errlen, "task %u after its exit", e->task);
	if (e->mask & ~h->xcr0)
		return fail_why(err, errlen, "mask 0x%x outside xcr0 0x%" PRIx64, e->mask, h->xcr0);
	return check_event_flags(k, e, err, errlen);
}

static int check_switch(struct trace_checker *k, const struct fpulab_trace_event *e, char *err,
			size_t errlen)
{
	unsigned int cpu = e->cpu, task = e->task;

	if (e->arg > k->h->ntasks)
		return fail_why(err, errlen, "switch to task %u, the trace has %u", e->arg,
				k->h->ntasks);
	if (task != k->cur[cpu])
		return fail_why(err, errlen, "switch from task %u, but cpu %u runs task %u", task,
				cpu, k->cur[cpu]);
	if (k->in_kfpu[cpu])
		return fail_why(err, errlen, "switch inside a kernel-FPU section");
	if (task && k->exited[task])
		return fail_why(err, errlen, "switch from task %u after its exit", task);
	if (e->arg && k->running_on[e->arg] >= 0)
		return fail_why(err, errlen, "task %u already runs on cpu %d", e->arg,
				k->running_on[e->arg]);
	if (task)
		k->running_on[task] = -1;
	if (e->arg) {
		k->running_on[e->arg] = (int32_t)cpu;
		k->exited[e->arg] = 0; /* a new task in an exited one's id */
	}
	k->cur[cpu] = e->arg;
	return 0;
}

/* USE and EXIT: by the task running there, outside a kernel-FPU section. */
static int check_running(struct trace_checker *k, const struct fpulab_trace_event *e, char *err,
			 size_t errlen)
{
	unsigned int cpu = e->cpu, task = e->task;
	const char *what = e->type == FPULAB_EV_USE ? "use" : "exit";

	if (!task || task != k->cur[cpu])
		return fail_why(err, errlen, "%s %s task %u, but cpu %u runs task %u", what,
				e->type == FPULAB_EV_USE ? "by" : "of", task, cpu, k->cur[cpu]);
	if (k->in_kfpu[cpu])
		return fail_why(err, errlen, "%s inside a kernel-FPU section", what);
	if (e->type == FPULAB_EV_EXIT) {
		k->exited[task] = 1;
		k->running_on[task] = -1;
		k->cur[cpu] = 0;
	}
	return 0;
}

static int check_kfpu(struct trace_checker *k, const struct fpulab_trace_event *e, char *err,
		      size_t errlen)
{
	unsigned int cpu = e->cpu;
	bool end = e->type == FPULAB_EV_KFPU_END;

	if (e->task != k->cur[cpu])
		return fail_why(err, errlen, "kernel FPU for task %u, but cpu %u runs task %u",
				e->task, cpu, k->cur[cpu]);
	if (k->in_kfpu[cpu] != end)
		return fail_why(err, errlen, "%s",
				end ? "kfpu-end without kfpu-begin" : "nested kfpu-begin");
	k->in_kfpu[cpu] = !end;
	return 0;
}

/* EXPORT, IMPORT, RESET: of a user task not running elsewhere. */
static int check_state_io(struct trace_checker *k, const struct fpulab_trace_event *e, char *err,
			  size_t errlen)
{
	unsigned int cpu = e->cpu, task = e->task;
	const char *what = trace_type_name(e->type);

	if (!task)
		return fail_why(err, errlen, "%s of task 0", what);
	if (k->running_on[task] >= 0 && k->running_on[task] != (int)cpu)
		return fail_why(err, errlen, "%s of task %u on cpu %u while it runs on %d", what,
				task, cpu, k->running_on[task]);
	if (e->type == FPULAB_EV_EXPORT)
		return 0;
	if (k->in_kfpu[cpu])
		return fail_why(err, errlen, "%s inside a kernel-FPU section", what);
	if (e->type == FPULAB_EV_RESET && e->mask)
		return fail_why(err, errlen, "reset with mask 0x%x: a reset installs init",
				e->mask);
	return 0;
}

static int check_event(struct trace_checker *k, const struct fpulab_trace_event *e, char *err,
		       size_t errlen)
{
	if (check_event_common(k, e, err, errlen))
		return -1;
	switch (e->type) {
	case FPULAB_EV_SWITCH:
		return check_switch(k, e, err, errlen);
	case FPULAB_EV_USE:
	case FPULAB_EV_EXIT:
		return check_running(k, e, err, errlen);
	case FPULAB_EV_KFPU_BEGIN:
	case FPULAB_EV_KFPU_END:
		return check_kfpu(k, e, err, errlen);
	case FPULAB_EV_MIGRATE:
		if (!e->task || e->arg >= k->h->ncpus)
			return fail_why(err, errlen, "migrate of task %u to cpu %u", e->task,
					e->arg);
		return 0;
	case FPULAB_EV_EXPORT:
	case FPULAB_EV_IMPORT:
	case FPULAB_EV_RESET:
		return check_state_io(k, e, err, errlen);
	default: /* FLUSH_IPI: information only */
		return 0;
	}
}

void trace_checker_free(struct trace_checker *k)
{
	if (!k)
		return;
	free(k->running_on);
	free(k->exited);
	free(k);
}

struct trace_checker *trace_checker_new(const struct fpulab_trace_header *h,
					const struct fpulab_trace_linux *lx, char *err,
					size_t errlen)
{
	struct trace_checker *k;

	if (trace_check_header(h, err, errlen) || trace_check_linux(h, lx, err, errlen))
		return NULL;
	k = calloc(1, sizeof(*k));
	if (k) {
		k->running_on = malloc((h->ntasks + 1) * sizeof(*k->running_on));
		k->exited = calloc(h->ntasks + 1, 1);
	}
	if (!k || !k->running_on || !k->exited) {
		trace_checker_free(k);
		fail_why(err, errlen, "out of memory");
		return NULL;
	}
	k->h = h;
	for (uint32_t i = 0; i <= h->ntasks; i++)
		k->running_on[i] = -1;
	return k;
}

int trace_checker_event(struct trace_checker *k, const struct fpulab_trace_event *e, uint64_t index,
			char *err, size_t errlen)
{
	char msg[160];

	if (index && e->seq <= k->last_seq)
		return fail_why(err, errlen, "event %" PRIu64 ": seq %u not above %u", index,
				e->seq, k->last_seq);
	k->last_seq = e->seq;
	if (check_event(k, e, msg, sizeof(msg)))
		return fail_why(err, errlen, "event %" PRIu64 " (seq %u, %s): %s", index, e->seq,
				trace_type_name(e->type), msg);
	return 0;
}

/* Every event of @t through @k, a pass of @it; 0, or -1 with the first one wrong in @err. */
static int check_events(struct trace_checker *k, const struct trace *t, struct trace_iter *it,
			char *err, size_t errlen)
{
	const struct fpulab_trace_event *ev;
	uint64_t i = 0;

	if (trace_iter_begin(it, t, it->buf))
		goto bad;
	for (size_t n; (n = trace_iter_next(it, &ev)) > 0;)
		for (size_t j = 0; j < n; j++, i++)
			if (trace_checker_event(k, &ev[j], i, err, errlen))
				return -1;
	if (!it->err)
		return 0;
bad:
	trace_iter_strerror(it, err, errlen);
	return -1;
}

int trace_check(const struct trace *t, char *err, size_t errlen)
{
	struct trace_checker *k = trace_checker_new(&t->hdr, t->lx, err, errlen);
	struct trace_iter it = { .buf = t->file ? malloc(TRACE_CHUNK * sizeof(*it.buf)) : NULL };
	int rc = -1;

	if (k && t->file && !it.buf)
		fail_why(err, errlen, "out of memory");
	else if (k)
		rc = check_events(k, t, &it, err, errlen);
	free(it.buf);
	trace_checker_free(k);
	return rc;
}
