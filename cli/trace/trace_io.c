/* SPDX-License-Identifier: MIT */
/* Reading, checking and writing fpulab traces (docs/trace.md). */
#include "trace_io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

static const char *const type_names[FPULAB_EV_NR] = {
	[FPULAB_EV_SWITCH] = "switch",         [FPULAB_EV_USE] = "use",
	[FPULAB_EV_KFPU_BEGIN] = "kfpu-begin", [FPULAB_EV_KFPU_END] = "kfpu-end",
	[FPULAB_EV_MIGRATE] = "migrate",       [FPULAB_EV_EXIT] = "exit",
	[FPULAB_EV_EXPORT] = "export",         [FPULAB_EV_FLUSH_IPI] = "flush-ipi",
	[FPULAB_EV_IMPORT] = "import",         [FPULAB_EV_RESET] = "reset",
};

const char *trace_type_name(unsigned int type)
{
	return type && type < FPULAB_EV_NR ? type_names[type] : "?";
}

/* The workload name: printable ASCII, NUL-terminated within its 24 bytes. */
static int check_workload(const char *w, size_t len, char *err, size_t errlen)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)w[i];
		if (!c)
			return 0;
		if (c < 0x20 || c > 0x7e)
			return fail_why(err, errlen,
					"workload name: byte %zu is 0x%02x, not printable ASCII", i,
					c);
	}
	return fail_why(err, errlen, "workload name: no NUL in its %zu bytes", len);
}

static int check_header(const struct fpulab_trace_header *h, char *err, size_t errlen)
{
	if (memcmp(h->magic, FPULAB_TRACE_MAGIC, 8))
		return fail_why(err, errlen, "not an fpulab trace (no FPUTRACE magic)");
	if (h->version < FPULAB_TRACE_VERSION_MIN || h->version > FPULAB_TRACE_VERSION)
		return fail_why(err, errlen,
				"trace version %u, this fpulab reads versions %u to %u", h->version,
				FPULAB_TRACE_VERSION_MIN, FPULAB_TRACE_VERSION);
	if (h->header_size != sizeof(*h) || h->event_size != sizeof(struct fpulab_trace_event))
		return fail_why(err, errlen, "header size %u / event size %u, expected %zu / %zu",
				h->header_size, h->event_size, sizeof(*h),
				sizeof(struct fpulab_trace_event));
	if (h->ncpus < 1 || h->ncpus > FPULAB_TRACE_MAX_CPUS)
		return fail_why(err, errlen, "ncpus %u is not 1..%d", h->ncpus,
				FPULAB_TRACE_MAX_CPUS);
	if (h->ntasks > FPULAB_TRACE_MAX_TASKS)
		return fail_why(err, errlen, "ntasks %u is over %d", h->ntasks,
				FPULAB_TRACE_MAX_TASKS);
	if (h->version < 2 && (h->flags & FPULAB_TRACE_F_RETURNS))
		return fail_why(err, errlen,
				"flag returns in a version-%u trace: it came in version 2",
				h->version);
	if (!(h->xcr0 & 1))
		return fail_why(err, errlen, "xcr0 0x%" PRIx64 " lacks x87", h->xcr0);
	if (h->xcr0 & ~(uint64_t)TRACE_XCR0_KNOWN)
		return fail_why(err, errlen,
				"xcr0 0x%" PRIx64 " has bits 0x%" PRIx64
				" that no x86 CPU defines for XCR0 (known: 0x%llx)",
				h->xcr0, h->xcr0 & ~(uint64_t)TRACE_XCR0_KNOWN, TRACE_XCR0_KNOWN);
	return check_workload(h->workload, sizeof(h->workload), err, errlen);
}

/* Per-task and per-CPU facts while checking the event order. */
struct checker {
	uint16_t cur[FPULAB_TRACE_MAX_CPUS]; /* running task per CPU */
	int32_t *running_on;                 /* per task: CPU, or -1 */
	uint8_t *exited;
	uint8_t in_kfpu[FPULAB_TRACE_MAX_CPUS];
};

/* What every event must satisfy, whatever its type. */
static int check_event_fields(const struct checker *k, const struct fpulab_trace_header *h,
			      const struct fpulab_trace_event *e, char *err, size_t errlen)
{
	unsigned int cpu = e->cpu, task = e->task;

	if (!e->type || e->type >= FPULAB_EV_NR)
		return fail_why(err, errlen, "unknown type %u", e->type);
	if (h->version < 2 && e->type >= FPULAB_EV_NR_V1)
		return fail_why(err, errlen,
				"type %u (%s) in a version-%u trace: it came in version 2", e->type,
				trace_type_name(e->type), h->version);
	if (cpu >= h->ncpus)
		return fail_why(err, errlen, "cpu %u, the trace has %u", cpu, h->ncpus);
	if (task > h->ntasks)
		return fail_why(err, errlen, "task %u, the trace has %u", task, h->ntasks);
	if (task && k->exited[task] && e->type != FPULAB_EV_SWITCH)
		return fail_why(err, errlen, "task %u after its exit", task);
	if (e->mask & ~h->xcr0)
		return fail_why(err, errlen, "mask 0x%x outside xcr0 0x%" PRIx64, e->mask, h->xcr0);
	if ((e->flags & FPULAB_EVF_RETURNED) && !(h->flags & FPULAB_TRACE_F_RETURNS))
		return fail_why(err, errlen, "flag returned in a trace without the returns flag");
	if ((e->flags & FPULAB_EVF_RETURNED) && e->type == FPULAB_EV_FLUSH_IPI)
		return fail_why(err, errlen, "a flush-ipi with the returned flag");
	if ((e->flags & FPULAB_EVF_RETURNED) && !k->cur[cpu])
		return fail_why(err, errlen, "returned to ring 3, but cpu %u runs no user task",
				cpu);
	return 0;
}

/* A switch on @e->cpu from @e->task to @e->arg: the CPU's running task moves. */
static int check_switch(struct checker *k, const struct fpulab_trace_header *h,
			const struct fpulab_trace_event *e, char *err, size_t errlen)
{
	unsigned int cpu = e->cpu, task = e->task;

	if (e->arg > h->ntasks)
		return fail_why(err, errlen, "switch to task %u, the trace has %u", e->arg,
				h->ntasks);
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

/* One event against what the events before it left in @k, which it updates. */
static int check_event(struct checker *k, const struct fpulab_trace_header *h,
		       const struct fpulab_trace_event *e, char *err, size_t errlen)
{
	unsigned int cpu = e->cpu, task = e->task;
	int rc = check_event_fields(k, h, e, err, errlen);

	if (rc)
		return rc;
	switch (e->type) {
	case FPULAB_EV_SWITCH:
		return check_switch(k, h, e, err, errlen);
	case FPULAB_EV_USE:
		if (!task || task != k->cur[cpu])
			return fail_why(err, errlen, "use by task %u, but cpu %u runs task %u",
					task, cpu, k->cur[cpu]);
		if (k->in_kfpu[cpu])
			return fail_why(err, errlen, "use inside a kernel-FPU section");
		return 0;
	case FPULAB_EV_KFPU_BEGIN:
	case FPULAB_EV_KFPU_END:
		if (task != k->cur[cpu])
			return fail_why(err, errlen,
					"kernel FPU for task %u, but cpu %u runs task %u", task,
					cpu, k->cur[cpu]);
		if (k->in_kfpu[cpu] != (e->type == FPULAB_EV_KFPU_END))
			return fail_why(err, errlen, "%s",
					e->type == FPULAB_EV_KFPU_END
						? "kfpu-end without kfpu-begin"
						: "nested kfpu-begin");
		k->in_kfpu[cpu] = e->type == FPULAB_EV_KFPU_BEGIN;
		return 0;
	case FPULAB_EV_MIGRATE:
		if (!task || e->arg >= h->ncpus)
			return fail_why(err, errlen, "migrate of task %u to cpu %u", task, e->arg);
		return 0;
	case FPULAB_EV_EXIT:
		if (!task || task != k->cur[cpu])
			return fail_why(err, errlen, "exit of task %u, but cpu %u runs task %u",
					task, cpu, k->cur[cpu]);
		if (k->in_kfpu[cpu])
			return fail_why(err, errlen, "exit inside a kernel-FPU section");
		k->exited[task] = 1;
		k->running_on[task] = -1;
		k->cur[cpu] = 0;
		return 0;
	case FPULAB_EV_EXPORT:
		if (!task)
			return fail_why(err, errlen, "export of task 0");
		if (k->running_on[task] >= 0 && k->running_on[task] != (int)cpu)
			return fail_why(err, errlen,
					"export of task %u on cpu %u while it runs on %d", task,
					cpu, k->running_on[task]);
		return 0;
	case FPULAB_EV_IMPORT:
	case FPULAB_EV_RESET:
		if (!task)
			return fail_why(err, errlen, "%s of task 0", trace_type_name(e->type));
		if (k->running_on[task] >= 0 && k->running_on[task] != (int)cpu)
			return fail_why(err, errlen, "%s of task %u on cpu %u while it runs on %d",
					trace_type_name(e->type), task, cpu, k->running_on[task]);
		if (k->in_kfpu[cpu])
			return fail_why(err, errlen, "%s inside a kernel-FPU section",
					trace_type_name(e->type));
		if (e->type == FPULAB_EV_RESET && e->mask)
			return fail_why(err, errlen, "reset with mask 0x%x: a reset installs init",
					e->mask);
		return 0;
	default: /* FLUSH_IPI: information only */
		return 0;
	}
}

int trace_check(const struct trace *t, char *err, size_t errlen)
{
	const struct fpulab_trace_header *h = &t->hdr;
	struct checker k = { 0 };
	int rc = 0;

	if (check_header(h, err, errlen))
		return -1;
	k.running_on = malloc((h->ntasks + 1) * sizeof(*k.running_on));
	k.exited = calloc(h->ntasks + 1, 1);
	if (!k.running_on || !k.exited) {
		free(k.running_on);
		free(k.exited);
		return fail_why(err, errlen, "out of memory");
	}
	for (uint32_t i = 0; i <= h->ntasks; i++)
		k.running_on[i] = -1;
	for (uint64_t i = 0; i < h->nevents && !rc; i++) {
		const struct fpulab_trace_event *e = &t->ev[i];
		char msg[160];
		if (i && e->seq <= t->ev[i - 1].seq) {
			rc = fail_why(err, errlen, "event %" PRIu64 ": seq %u not above %u", i,
				      e->seq, t->ev[i - 1].seq);
			break;
		}
		if (check_event(&k, h, e, msg, sizeof(msg)))
			rc = fail_why(err, errlen, "event %" PRIu64 " (seq %u, %s): %s", i, e->seq,
				      trace_type_name(e->type), msg);
	}
	free(k.running_on);
	free(k.exited);
	return rc;
}

void trace_free(struct trace *t)
{
	free(t->ev);
	t->ev = NULL;
	t->hdr.nevents = 0;
}

int trace_read(const char *path, struct trace *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char msg[200];

	memset(t, 0, sizeof(*t));
	if (!f)
		return fail_why(err, errlen, "%s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fclose(f);
		return fail_why(err, errlen, "%s: not a regular file", path);
	}
	if (fread(&t->hdr, sizeof(t->hdr), 1, f) != 1) {
		fclose(f);
		return fail_why(err, errlen, "%s: shorter than a trace header (%zu bytes)", path,
				sizeof(t->hdr));
	}
	if (check_header(&t->hdr, msg, sizeof(msg))) {
		fclose(f);
		return fail_why(err, errlen, "%s: %s", path, msg);
	}
	uint64_t n = t->hdr.nevents;
	if (n > ((uint64_t)1 << 32) ||
	    (uint64_t)st.st_size != sizeof(t->hdr) + n * sizeof(*t->ev)) {
		fclose(f);
		memset(t, 0, sizeof(*t));
		if (n > (UINT64_MAX - sizeof(t->hdr)) / sizeof(*t->ev)) /* no exact size */
			return fail_why(
				err, errlen,
				"%s: %lld bytes, but the header says %" PRIu64
				" events, which would need %.3g bytes (a trace holds at most 2^32 "
				"events)",
				path, (long long)st.st_size, n,
				(double)sizeof(t->hdr) + (double)n * (double)sizeof(*t->ev));
		return fail_why(
			err, errlen,
			"%s: %lld bytes, but the header says %" PRIu64
			" events, which need %" PRIu64 " bytes (%zu of header, %zu per event%s)",
			path, (long long)st.st_size, n, sizeof(t->hdr) + n * sizeof(*t->ev),
			sizeof(t->hdr), sizeof(*t->ev),
			n > ((uint64_t)1 << 32) ? "; a trace holds at most 2^32 events" : "");
	}
	t->ev = malloc(t->hdr.nevents ? t->hdr.nevents * sizeof(*t->ev) : 1);
	if (!t->ev || fread(t->ev, sizeof(*t->ev), t->hdr.nevents, f) != t->hdr.nevents) {
		fclose(f);
		trace_free(t);
		return fail_why(err, errlen, "%s: %s", path,
				t->ev ? "short read" : "out of memory");
	}
	fclose(f);
	if (trace_check(t, msg, sizeof(msg))) {
		trace_free(t);
		return fail_why(err, errlen, "%s: %s", path, msg);
	}
	return 0;
}

int trace_write(const char *path, const struct trace *t, char *err, size_t errlen)
{
	size_t len = strlen(path) + 16;
	char *tmp = malloc(len);
	FILE *f;

	if (!tmp)
		return fail_why(err, errlen, "out of memory");
	snprintf(tmp, len, "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "wb");
	if (!f) {
		fail_why(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	struct fpulab_trace_header h = t->hdr;
	memcpy(h.magic, FPULAB_TRACE_MAGIC, 8);
	h.version = FPULAB_TRACE_VERSION;
	h.header_size = sizeof(h);
	h.event_size = sizeof(*t->ev);
	bool ok = fwrite(&h, sizeof(h), 1, f) == 1 &&
		  fwrite(t->ev, sizeof(*t->ev), h.nevents, f) == h.nevents;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path)) {
		fail_why(err, errlen, "%s: %s", ok ? path : tmp, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
