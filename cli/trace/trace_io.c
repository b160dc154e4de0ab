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

void trace_free(struct trace *t)
{
	free(t->ev);
	free(t->lx);
	t->ev = NULL;
	t->lx = NULL;
	t->hdr.nevents = 0;
}

/* Version 3's Linux block, just after the header. */
static int read_linux(FILE *f, struct trace *t, const char *path, char *err, size_t errlen)
{
	if (t->hdr.version < FPULAB_TRACE_VERSION_LINUX)
		return 0;
	t->lx = malloc(sizeof(*t->lx));
	if (!t->lx)
		return fail_why(err, errlen, "%s: out of memory", path);
	if (fread(t->lx, sizeof(*t->lx), 1, f) != 1)
		return fail_why(err, errlen, "%s: shorter than a version-3 header (%zu bytes)",
				path, trace_header_size(t->hdr.version));
	return 0;
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
	if (trace_check_header(&t->hdr, msg, sizeof(msg))) {
		fclose(f);
		return fail_why(err, errlen, "%s: %s", path, msg);
	}
	if (read_linux(f, t, path, err, errlen)) {
		fclose(f);
		trace_free(t);
		return -1;
	}
	uint64_t n = t->hdr.nevents, hsize = trace_header_size(t->hdr.version);
	if (n > ((uint64_t)1 << 32) || (uint64_t)st.st_size != hsize + n * sizeof(*t->ev)) {
		fclose(f);
		trace_free(t);
		memset(t, 0, sizeof(*t));
		if (n > (UINT64_MAX - hsize) / sizeof(*t->ev)) /* no exact size */
			return fail_why(
				err, errlen,
				"%s: %lld bytes, but the header says %" PRIu64
				" events, which would need %.3g bytes (a trace holds at most 2^32 "
				"events)",
				path, (long long)st.st_size, n,
				(double)hsize + (double)n * (double)sizeof(*t->ev));
		return fail_why(err, errlen,
				"%s: %lld bytes, but the header says %" PRIu64
				" events, which need %" PRIu64 " bytes (%" PRIu64
				" of header, %zu per event%s)",
				path, (long long)st.st_size, n, hsize + n * sizeof(*t->ev), hsize,
				sizeof(*t->ev),
				n > ((uint64_t)1 << 32) ? "; a trace holds at most 2^32 events"
							: "");
	}
	t->ev = malloc(t->hdr.nevents ? t->hdr.nevents * sizeof(*t->ev) : 1);
	if (!t->ev || fread(t->ev, sizeof(*t->ev), t->hdr.nevents, f) != t->hdr.nevents) {
		const char *why = t->ev ? "short read" : "out of memory";
		fclose(f);
		trace_free(t);
		return fail_why(err, errlen, "%s: %s", path, why);
	}
	fclose(f);
	if (trace_check(t, msg, sizeof(msg))) {
		trace_free(t);
		return fail_why(err, errlen, "%s: %s", path, msg);
	}
	return 0;
}

int trace_write_header(FILE *f, const struct fpulab_trace_header *hdr,
		       const struct fpulab_trace_linux *lx)
{
	struct fpulab_trace_header h = *hdr;

	memcpy(h.magic, FPULAB_TRACE_MAGIC, 8);
	h.version = lx ? FPULAB_TRACE_VERSION_LINUX : FPULAB_TRACE_VERSION;
	h.header_size = (uint16_t)trace_header_size(h.version);
	h.event_size = sizeof(struct fpulab_trace_event);
	if (fwrite(&h, sizeof(h), 1, f) != 1 || (lx && fwrite(lx, sizeof(*lx), 1, f) != 1))
		return -1;
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
	bool ok = trace_write_header(f, &t->hdr, t->lx) == 0 &&
		  fwrite(t->ev, sizeof(*t->ev), t->hdr.nevents, f) == t->hdr.nevents;
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
