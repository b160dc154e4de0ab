/* SPDX-License-Identifier: MIT */
/* fpulab run --trace: destinations, the guest's trace record, reading the
 * buffers out with QMP pmemsave and merging them (trace_rec.h). */
#include "trace_rec.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qmp.h"
#include "trace/trace_io.h"
#include "common/util.h"

/* ---- destination ---- */

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int trace_dest_open(struct trace_dest *d, const char *path, unsigned runs, const char *why_runs)
{
	size_t n = strlen(path);
	char dir[PATH_MAX];
	struct stat st;

	*d = (struct trace_dest){ .path = path };
	if (!n) {
		fprintf(stderr, "fpulab run: --trace: empty path\n");
		return 2;
	}
	if (path[n - 1] == '/' && !is_dir(path) && mkdir(path, 0777) < 0) {
		fprintf(stderr, "fpulab run: --trace %s: cannot create the directory: %s\n", path,
			strerror(errno));
		return 2;
	}
	if (is_dir(path)) {
		if (access(path, W_OK | X_OK) < 0) {
			fprintf(stderr, "fpulab run: --trace %s: cannot write in it: %s\n", path,
				strerror(errno));
			return 2;
		}
		d->dir = true;
		return 0;
	}
	if (runs != 1) {
		fprintf(stderr,
			"fpulab run: --trace %s: a trace FILE holds one run, and this has %s: "
			"narrow it to one (one --policy, one configuration, --repeat 1), or give "
			"a directory (--trace DIR/) for one trace per run\n",
			path, why_runs);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || access(path, W_OK) < 0)) {
		fprintf(stderr, "fpulab run: --trace %s: not a writable regular file\n", path);
		return 2;
	}
	if (access(dirname(dir), W_OK | X_OK) < 0) {
		fprintf(stderr, "fpulab run: --trace %s: cannot create it: %s: %s\n", path, dir,
			strerror(errno));
		return 2;
	}
	return 0;
}

void trace_dest_file(const struct trace_dest *d, const struct guest_result *r, char *buf,
		     size_t len)
{
	const char *words[] = { r->placement, r->fp_users, r->regset };
	char name[6 * RECORD_WORD_MAX + 64];
	size_t n;

	if (!d->dir) {
		snprintf(buf, len, "%s", d->path);
		return;
	}
	n = (size_t)snprintf(name, sizeof(name), "%s", r->experiment);
	for (int i = 0; i < 3; i++) /* "-": a label the experiment does not use */
		if (strcmp(words[i], "-") && n < sizeof(name))
			n += (size_t)snprintf(name + n, sizeof(name) - n, "-%s", words[i]);
	if ((r->present & (UINT64_C(1) << RESULT_variant)) && n < sizeof(name))
		n += (size_t)snprintf(name + n, sizeof(name) - n, "-t%" PRIu64 "-%s", r->tasks,
				      r->variant);
	if (n < sizeof(name))
		snprintf(name + n, sizeof(name) - n, "-%s-r%" PRIu64, r->policy, r->repeat);
	snprintf(buf, len, "%s%s%s.trace", d->path, d->path[strlen(d->path) - 1] == '/' ? "" : "/",
		 name);
}

/* ---- the record ---- */

static int parse_u64(const char *v, size_t n, uint64_t *out)
{
	char buf[32], *end;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = 0;
	errno = 0;
	*out = strtoull(buf, &end, strncmp(buf, "0x", 2) ? 10 : 16);
	return *end || errno ? -1 : 0;
}

int parse_trace_record(const char *line, struct trace_record *t, char *err, size_t len)
{
	static const char *const keys[] = { "cpus", "base",   "stride", "events", "seq",
					    "lost", "ntasks", "xcr0",   NULL };
	uint64_t *vals[] = { NULL,    &t->base, &t->stride, &t->events,
			     &t->seq, &t->lost, &t->ntasks, &t->xcr0 };
	uint64_t cpus = 0;
	unsigned seen = 0, nused = 0;
	const char *p = line + strlen(FPULAB_RECORD_PREFIX FPULAB_REC_TRACE);

	memset(t, 0, sizeof(*t));
	vals[0] = &cpus;
	while (*p == ' ') {
		const char *k = ++p, *eq = strchr(k, '='), *v, *end;
		if (!eq)
			return fail_why(err, len, "a word without '=' in the trace record");
		v = eq + 1;
		end = v + strcspn(v, " ");
		if ((size_t)(eq - k) == 4 && !strncmp(k, "used", 4)) {
			for (const char *q = v; q < end && nused < 64;) {
				size_t n = strcspn(q, ", ");
				if (parse_u64(q, n, &t->used[nused++]))
					return fail_why(err, len, "bad used= in the trace record");
				q += n + (q[n] == ',');
			}
			seen |= 1u << 31;
		} else {
			for (int i = 0; keys[i]; i++)
				if (strlen(keys[i]) == (size_t)(eq - k) &&
				    !strncmp(k, keys[i], (size_t)(eq - k))) {
					if (parse_u64(v, (size_t)(end - v), vals[i]))
						return fail_why(err, len,
								"bad %s= in the trace record",
								keys[i]);
					seen |= 1u << i;
				}
		}
		p = end;
	}
	if (seen != ((1u << 31) | 0xffu))
		return fail_why(err, len, "the trace record lacks a field");
	if (!cpus || cpus > 64 || nused != cpus)
		return fail_why(err, len, "trace record: %" PRIu64 " CPUs, %u used counts", cpus,
				nused);
	t->cpus = (unsigned)cpus;
	for (unsigned c = 0; c < t->cpus; c++)
		if (t->used[c] > t->stride / sizeof(struct fpulab_trace_event))
			return fail_why(err, len,
					"trace record: CPU %u used %" PRIu64 " of %" PRIu64, c,
					t->used[c], t->stride / 16);
	return 0;
}

/* ---- reading the buffers ---- */

/* A QMP session past its capabilities negotiation, or NULL with *rc: -1 when
 * out of memory, else the QMP code. qmp_end() closes and frees it. */
static struct qmp *qmp_open(const char *qmp_path, pid_t qemu, int *rc, char *err, size_t len)
{
	struct qmp *q = malloc(sizeof(*q));
	const char *reply;

	if (!q) {
		*rc = fail_why(err, len, "out of memory");
		return NULL;
	}
	*rc = qmp_connect(q, qmp_path, qemu, err, len);
	if (*rc == QMP_OK && (*rc = qmp_execute(q, "qmp_capabilities", &reply, err, len)) == QMP_OK)
		return q;
	qmp_close(q);
	free(q);
	return NULL;
}

static void qmp_end(struct qmp *q)
{
	qmp_close(q);
	free(q);
}

int trace_resume(const char *qmp_path, pid_t qemu, char *err, size_t len)
{
	const char *reply;
	int rc;
	struct qmp *q = qmp_open(qmp_path, qemu, &rc, err, len);

	if (!q)
		return rc;
	rc = qmp_execute(q, "cont", &reply, err, len);
	qmp_end(q);
	return rc;
}

/* pmemsave each CPU's used part into @tmpdir/cpuN. */
static int save_buffers(const struct trace_record *t, const char *qmp_path, pid_t qemu,
			const char *tmpdir, char *err, size_t len)
{
	const char *reply;
	int rc;
	struct qmp *q = qmp_open(qmp_path, qemu, &rc, err, len);

	if (!q)
		return -1;
	for (unsigned c = 0; rc == QMP_OK && c < t->cpus; c++) {
		char args[400];
		if (!t->used[c])
			continue;
		/* QEMU writes the file before it replies: a second per 16 MiB, generously */
		q->reply_timeout_s = QMP_TIMEOUT_S + (unsigned)(t->used[c] >> 20);
		snprintf(args, sizeof(args),
			 "{\"val\":%" PRIu64 ",\"size\":%" PRIu64 ",\"filename\":\"%s/cpu%u\"}",
			 t->base + c * t->stride, t->used[c] * sizeof(struct fpulab_trace_event),
			 tmpdir, c);
		rc = qmp_execute_args(q, "pmemsave", args, &reply, err, len);
	}
	qmp_end(q);
	return rc == QMP_OK ? 0 : -1;
}

static int load_buffer(const char *tmpdir, unsigned c, uint64_t n, struct fpulab_trace_event **out,
		       char *err, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	*out = malloc(n ? n * sizeof(**out) : 1);
	if (!*out)
		return fail_why(err, len, "out of memory");
	if (!n)
		return 0;
	snprintf(path, sizeof(path), "%s/cpu%u", tmpdir, c);
	f = fopen(path, "rb");
	size_t got = f ? fread(*out, sizeof(**out), n, f) : 0;
	if (f)
		fclose(f);
	unlink(path);
	if (got != n)
		return fail_why(err, len, "%s: %zu of %" PRIu64 " events read back", path, got, n);
	return 0;
}

/* Merge the per-CPU buffers (each in seq order) by seq, keeping seq < @limit. */
static uint64_t merge(const struct trace_record *t, struct fpulab_trace_event *const *buf,
		      uint64_t limit, struct fpulab_trace_event *out)
{
	uint64_t at[64] = { 0 }, n = 0;

	for (;;) {
		int best = -1;
		for (unsigned c = 0; c < t->cpus; c++)
			if (at[c] < t->used[c] &&
			    (best < 0 || buf[c][at[c]].seq < buf[best][at[best]].seq))
				best = (int)c;
		if (best < 0 || buf[best][at[best]].seq >= limit)
			return n;
		out[n++] = buf[best][at[best]++];
	}
}

long long trace_collect(const struct trace_record *t, const char *qmp_path, pid_t qemu,
			const char *tmpdir, const char *workload, const char *out, bool *truncated,
			char *err, size_t len)
{
	struct fpulab_trace_event *buf[64] = { 0 };
	struct trace tr = { 0 };
	char msg[256];
	long long rc = -1;

	*truncated = t->lost < UINT32_MAX;
	if (!*truncated && t->events != t->seq) {
		fail_why(err, len,
			 "the guest numbered %" PRIu64 " events and kept %" PRIu64
			 " without saying one was lost",
			 t->seq, t->events);
		return -1;
	}
	if (save_buffers(t, qmp_path, qemu, tmpdir, err, len) < 0)
		return -1;
	for (unsigned c = 0; c < t->cpus; c++)
		if (load_buffer(tmpdir, c, t->used[c], &buf[c], err, len) < 0)
			goto out;
	tr.ev = malloc(t->events ? t->events * sizeof(*tr.ev) : 1);
	if (!tr.ev) {
		fail_why(err, len, "out of memory");
		goto out;
	}
	memcpy(tr.hdr.magic, FPULAB_TRACE_MAGIC, 8);
	tr.hdr.version = FPULAB_TRACE_VERSION;
	tr.hdr.header_size = sizeof(tr.hdr);
	tr.hdr.event_size = sizeof(*tr.ev);
	tr.hdr.ncpus = (uint16_t)t->cpus;
	tr.hdr.ntasks = (uint32_t)t->ntasks;
	tr.hdr.flags = FPULAB_TRACE_F_ALL_USES | FPULAB_TRACE_F_RECORDED | FPULAB_TRACE_F_RETURNS |
		       (*truncated ? FPULAB_TRACE_F_TRUNCATED : 0);
	tr.hdr.xcr0 = t->xcr0;
	snprintf(tr.hdr.workload, sizeof(tr.hdr.workload), "%s", workload);
	tr.hdr.nevents = merge(t, buf, *truncated ? t->lost : UINT64_MAX, tr.ev);
	if (trace_check(&tr, msg, sizeof(msg))) {
		fail_why(err, len, "the recorded trace does not check: %s", msg);
		goto out;
	}
	if (trace_write(out, &tr, msg, sizeof(msg))) {
		fail_why(err, len, "%s", msg);
		goto out;
	}
	rc = (long long)tr.hdr.nevents;
out:
	for (unsigned c = 0; c < t->cpus; c++)
		free(buf[c]);
	free(tr.ev);
	return rc;
}
