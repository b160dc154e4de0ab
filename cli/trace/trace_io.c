/* SPDX-License-Identifier: MIT */
/* Reading, checking and writing fpulab traces (docs/trace.md). */
#include "trace_io.h"

#include <errno.h>
#include <fcntl.h>
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

static int check_event(struct checker *k, const struct fpulab_trace_header *h,
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
	switch (e->type) {
	case FPULAB_EV_SWITCH:
		if (e->arg > h->ntasks)
			return fail_why(err, errlen, "switch to task %u, the trace has %u", e->arg,
					h->ntasks);
		if (task != k->cur[cpu])
			return fail_why(err, errlen, "switch from task %u, but cpu %u runs task %u",
					task, cpu, k->cur[cpu]);
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

/* The events of @t in order through @k; 0, or -1 with the first one wrong in @err. */
static int check_events(struct checker *k, const struct trace *t, struct trace_iter *it, char *err,
			size_t errlen)
{
	const struct fpulab_trace_event *ev;
	uint64_t i = 0;
	uint32_t prev_seq = 0;
	size_t n;

	while ((n = trace_iter_next(it, &ev)) > 0)
		for (size_t j = 0; j < n; j++, i++) {
			const struct fpulab_trace_event *e = &ev[j];
			char msg[160];
			if (i && e->seq <= prev_seq)
				return fail_why(err, errlen,
						"event %" PRIu64 ": seq %u not above %u", i, e->seq,
						prev_seq);
			if (check_event(k, &t->hdr, e, msg, sizeof(msg)))
				return fail_why(err, errlen, "event %" PRIu64 " (seq %u, %s): %s",
						i, e->seq, trace_type_name(e->type), msg);
			prev_seq = e->seq;
		}
	if (it->err) {
		trace_iter_strerror(it, err, errlen);
		return -1;
	}
	return 0;
}

int trace_check(const struct trace *t, char *err, size_t errlen)
{
	const struct fpulab_trace_header *h = &t->hdr;
	struct checker k = { 0 };
	struct fpulab_trace_event *buf = NULL;
	struct trace_iter it;
	int rc = -1;

	if (check_header(h, err, errlen))
		return -1;
	k.running_on = malloc((h->ntasks + 1) * sizeof(*k.running_on));
	k.exited = calloc(h->ntasks + 1, 1);
	if (t->file)
		buf = malloc(TRACE_CHUNK * sizeof(*buf));
	if (!k.running_on || !k.exited || (t->file && !buf)) {
		fail_why(err, errlen, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i <= h->ntasks; i++)
		k.running_on[i] = -1;
	if (trace_iter_begin(&it, t, buf))
		trace_iter_strerror(&it, err, errlen);
	else
		rc = check_events(&k, t, &it, err, errlen);
out:
	free(buf);
	free(k.running_on);
	free(k.exited);
	return rc;
}

void trace_iter_strerror(const struct trace_iter *it, char *err, size_t errlen)
{
	if (it->err == TRACE_ITER_CHANGED)
		fail_why(err, errlen,
			 "changed since it was checked (its events are read again on every pass)");
	else
		fail_why(err, errlen, "%s", strerror(it->err));
}

void trace_free(struct trace *t)
{
	free(t->ev);
	t->ev = NULL;
	if (t->file) {
		close(t->file->fd);
		free(t->file->path);
		free(t->file);
		t->file = NULL;
	}
	t->hdr.nevents = 0;
}

/* @len bytes at @off of @fd into @buf: 0, an errno, or -1 at the end of the file. */
static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;

	while (len) {
		ssize_t got = pread(fd, p, len, off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got ? errno : -1;
		p += got;
		off += got;
		len -= (size_t)got;
	}
	return 0;
}

/* A file's size against its header's event count; 0, or -1 with the message. */
static int check_size(const char *path, uint64_t size, uint64_t n, char *err, size_t errlen)
{
	const size_t hs = sizeof(struct fpulab_trace_header),
		     es = sizeof(struct fpulab_trace_event);

	if (n <= ((uint64_t)1 << 32) && size == hs + n * es)
		return 0;
	if (n > (UINT64_MAX - hs) / es) /* no exact size */
		return fail_why(err, errlen,
				"%s: %" PRIu64 " bytes, but the header says %" PRIu64
				" events, which would need %.3g bytes (a trace holds at most 2^32 "
				"events)",
				path, size, n, (double)hs + (double)n * (double)es);
	return fail_why(err, errlen,
			"%s: %" PRIu64 " bytes, but the header says %" PRIu64
			" events, which need %" PRIu64 " bytes (%zu of header, %zu per event%s)",
			path, size, n, hs + n * es, hs, es,
			n > ((uint64_t)1 << 32) ? "; a trace holds at most 2^32 events" : "");
}

/*
 * Open @path, read its header into @t and check it and the file's size
 * (@st). Return: the descriptor, or -1 with the message in @err.
 */
static int open_trace(const char *path, struct trace *t, struct stat *st, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char msg[200];
	int rc;

	memset(t, 0, sizeof(*t));
	if (fd < 0)
		return fail_why(err, errlen, "%s: %s", path, strerror(errno));
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		return fail_why(err, errlen, "%s: not a regular file", path);
	}
	rc = pread_all(fd, &t->hdr, sizeof(t->hdr), 0);
	if (rc) {
		close(fd);
		memset(t, 0, sizeof(*t));
		if (rc > 0)
			return fail_why(err, errlen, "%s: %s", path, strerror(rc));
		return fail_why(err, errlen, "%s: shorter than a trace header (%zu bytes)", path,
				sizeof(t->hdr));
	}
	if (check_header(&t->hdr, msg, sizeof(msg))) {
		close(fd);
		memset(t, 0, sizeof(*t));
		return fail_why(err, errlen, "%s: %s", path, msg);
	}
	if (check_size(path, (uint64_t)st->st_size, t->hdr.nevents, err, errlen)) {
		close(fd);
		memset(t, 0, sizeof(*t));
		return -1;
	}
	return fd;
}

int trace_read(const char *path, struct trace *t, char *err, size_t errlen)
{
	struct stat st;
	char msg[200];
	int fd = open_trace(path, t, &st, err, errlen), rc;

	if (fd < 0)
		return -1;
	t->ev = malloc(t->hdr.nevents ? t->hdr.nevents * sizeof(*t->ev) : 1);
	if (!t->ev) {
		close(fd);
		trace_free(t);
		return fail_why(err, errlen, "%s: out of memory", path);
	}
	rc = pread_all(fd, t->ev, t->hdr.nevents * sizeof(*t->ev), sizeof(t->hdr));
	close(fd);
	if (rc) {
		trace_free(t);
		return fail_why(err, errlen, "%s: %s", path, rc > 0 ? strerror(rc) : "short read");
	}
	if (trace_check(t, msg, sizeof(msg))) {
		trace_free(t);
		return fail_why(err, errlen, "%s: %s", path, msg);
	}
	return 0;
}

int trace_open(const char *path, struct trace *t, char *err, size_t errlen)
{
	struct stat st;
	char msg[200];
	int fd = open_trace(path, t, &st, err, errlen);

	if (fd < 0)
		return -1;
	t->file = calloc(1, sizeof(*t->file));
	if (!t->file || !(t->file->path = strdup(path))) {
		free(t->file);
		t->file = NULL;
		close(fd);
		memset(t, 0, sizeof(*t));
		return fail_why(err, errlen, "%s: out of memory", path);
	}
	*t->file = (struct trace_file){
		.fd = fd,
		.path = t->file->path,
		.dev = (uint64_t)st.st_dev,
		.ino = (uint64_t)st.st_ino,
		.size = (uint64_t)st.st_size,
		.mtime_ns = st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec,
		.ctime_ns = st.st_ctim.tv_sec * 1000000000ll + st.st_ctim.tv_nsec,
	};
	if (trace_check(t, msg, sizeof(msg))) {
		trace_free(t);
		return fail_why(err, errlen, "%s: %s", path, msg);
	}
	t->file->checked = 1;
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
