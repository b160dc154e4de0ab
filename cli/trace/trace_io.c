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

void trace_free(struct trace *t)
{
	free(t->ev);
	free(t->lx);
	t->ev = NULL;
	t->lx = NULL;
	if (t->file) {
		close(t->file->fd);
		free(t->file->path);
		free(t->file);
		t->file = NULL;
	}
	t->hdr.nevents = 0;
}

void trace_iter_strerror(const struct trace_iter *it, char *err, size_t errlen)
{
	if (it->err == TRACE_ITER_CHANGED)
		fail_why(err, errlen,
			 "changed since it was checked (its events are read again on every pass)");
	else
		fail_why(err, errlen, "%s", strerror(it->err));
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

/* A file of @size bytes against its header's @n events after @hsize bytes; 0, or -1 with why. */
static int check_size(const char *path, uint64_t size, uint64_t n, uint64_t hsize, char *err,
		      size_t errlen)
{
	const size_t es = sizeof(struct fpulab_trace_event);

	if (n <= ((uint64_t)1 << 32) && size == hsize + n * es)
		return 0;
	if (n > (UINT64_MAX - hsize) / es) /* no exact size */
		return fail_why(err, errlen,
				"%s: %" PRIu64 " bytes, but the header says %" PRIu64
				" events, which would need %.3g bytes (a trace holds at most 2^32 "
				"events)",
				path, size, n, (double)hsize + (double)n * (double)es);
	return fail_why(err, errlen,
			"%s: %" PRIu64 " bytes, but the header says %" PRIu64
			" events, which need %" PRIu64 " bytes (%" PRIu64
			" of header, %zu per event%s)",
			path, size, n, hsize + n * es, hsize, es,
			n > ((uint64_t)1 << 32) ? "; a trace holds at most 2^32 events" : "");
}

/* Version 3's Linux block, just after the header. */
static int read_linux(int fd, struct trace *t, const char *path, char *err, size_t errlen)
{
	int rc;

	if (t->hdr.version < FPULAB_TRACE_VERSION_LINUX)
		return 0;
	t->lx = malloc(sizeof(*t->lx));
	if (!t->lx)
		return fail_why(err, errlen, "%s: out of memory", path);
	rc = pread_all(fd, t->lx, sizeof(*t->lx), sizeof(t->hdr));
	if (rc > 0)
		return fail_why(err, errlen, "%s: %s", path, strerror(rc));
	if (rc)
		return fail_why(err, errlen, "%s: shorter than a version-3 header (%zu bytes)",
				path, trace_header_size(t->hdr.version));
	return 0;
}

/*
 * Open @path and read its header (and Linux block) into @t, checked, and
 * check the file's size (@st) against them. Return: the descriptor, or -1
 * with the message in @err (*@t empty).
 */
static int open_trace(const char *path, struct trace *t, struct stat *st, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO would block the open until a writer came; it is refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc;
	char msg[200];

	memset(t, 0, sizeof(*t));
	if (fd < 0)
		return fail_why(err, errlen, "%s: %s", path, strerror(errno));
	if (fstat(fd, st) || !S_ISREG(st->st_mode))
		rc = fail_why(err, errlen, "%s: not a regular file", path);
	else if ((rc = pread_all(fd, &t->hdr, sizeof(t->hdr), 0)))
		rc = rc > 0 ? fail_why(err, errlen, "%s: %s", path, strerror(rc))
			    : fail_why(err, errlen, "%s: shorter than a trace header (%zu bytes)",
				       path, sizeof(t->hdr));
	else if (trace_check_header(&t->hdr, msg, sizeof(msg)))
		rc = fail_why(err, errlen, "%s: %s", path, msg);
	else if (!(rc = read_linux(fd, t, path, err, errlen)))
		rc = check_size(path, (uint64_t)st->st_size, t->hdr.nevents,
				trace_header_size(t->hdr.version), err, errlen);
	if (rc) {
		close(fd);
		trace_free(t);
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
	rc = pread_all(fd, t->ev, t->hdr.nevents * sizeof(*t->ev),
		       (off_t)trace_header_size(t->hdr.version));
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
		trace_free(t);
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

int trace_out_check(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (output_path_check(path, err, errlen))
		return -1;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return fail_why(err, errlen,
				"%s: not a regular file (a trace is written to a temporary file "
				"renamed over it: a device or FIFO would be replaced)",
				path);
	return 0;
}

FILE *trace_out_create(const char *path, struct trace_out *out, char *err, size_t errlen)
{
	int mode;
	FILE *f;

	if (trace_out_check(path, err, errlen))
		return NULL;
	out->target = output_target(path, &mode);
	int fd = output_tmp_create(path, out->target, mode, &out->tmp, err, errlen);
	if (fd < 0) {
		trace_out_discard(out);
		return NULL;
	}
	f = fdopen(fd, "w+b");
	if (!f)
		abort(); /* (out of memory) */
	return f;
}

int trace_out_commit(struct trace_out *out, const char *path, char *err, size_t errlen)
{
	int rc = rename(out->tmp, out->target)
			 ? fail_why(err, errlen, "%s: %s", path, strerror(errno))
			 : 0;
	if (rc)
		unlink(out->tmp);
	free(out->tmp);
	free(out->target);
	out->tmp = out->target = NULL;
	return rc;
}

void trace_out_discard(struct trace_out *out)
{
	if (out->tmp)
		unlink(out->tmp);
	free(out->tmp);
	free(out->target);
	out->tmp = out->target = NULL;
}

int trace_write(const char *path, const struct trace *t, char *err, size_t errlen)
{
	struct trace_out out;
	FILE *f = trace_out_create(path, &out, err, errlen);

	if (!f)
		return -1;
	bool ok = trace_write_header(f, &t->hdr, t->lx) == 0 &&
		  fwrite(t->ev, sizeof(*t->ev), t->hdr.nevents, f) == t->hdr.nevents;
	ok = (fclose(f) == 0) && ok;
	if (!ok) {
		fail_why(err, errlen, "%s: %s", path, strerror(errno));
		trace_out_discard(&out);
		return -1;
	}
	return trace_out_commit(&out, path, err, errlen);
}
