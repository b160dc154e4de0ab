/* SPDX-License-Identifier: MIT */
/*
 * One pass over a trace's events, a chunk at a time (trace_io.h). Built
 * with -mgeneral-regs-only (the Makefile): the replay engine calls
 * trace_iter_next() between the simulated tasks' uses of the vector
 * registers, so nothing here may touch them; pread() and fstat() are
 * system calls, which leave them as they were.
 */
#include "trace_io.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

int trace_iter_begin(struct trace_iter *it, const struct trace *t, struct fpulab_trace_event *buf)
{
	const struct trace_file *f = t->file;
	struct stat st;

	*it = (struct trace_iter){ .t = t, .buf = buf };
	if (!f)
		return 0;
	it->first = trace_header_size(t->hdr.version); /* here, before a replay's registers */
	if (fstat(f->fd, &st)) {
		it->err = errno;
		return -1;
	}
	if ((uint64_t)st.st_dev != f->dev || (uint64_t)st.st_ino != f->ino ||
	    (uint64_t)st.st_size != f->size ||
	    st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec != f->mtime_ns ||
	    st.st_ctim.tv_sec * 1000000000ll + st.st_ctim.tv_nsec != f->ctime_ns) {
		it->err = TRACE_ITER_CHANGED;
		return -1;
	}
	return 0;
}

/* Whether @e indexes nothing outside what @h declares (what a replay's arrays hold). */
static bool in_range(const struct fpulab_trace_header *h, const struct fpulab_trace_event *e)
{
	if (!e->type || e->type >= FPULAB_EV_NR || e->cpu >= h->ncpus || e->task > h->ntasks)
		return false;
	if (e->type == FPULAB_EV_SWITCH)
		return e->arg <= h->ntasks;
	if (e->type == FPULAB_EV_MIGRATE)
		return e->arg < h->ncpus;
	return true;
}

/* @n events from @it->pos into @it->buf; 0, or an errno / TRACE_ITER_CHANGED. */
static int read_chunk(struct trace_iter *it, size_t n)
{
	const struct trace *t = it->t;
	char *p = (char *)it->buf;
	size_t want = n * sizeof(*it->buf);
	off_t off = (off_t)(it->first + it->pos * sizeof(*it->buf));

	while (want) {
		ssize_t got = pread(t->file->fd, p, want, off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno;
		if (got == 0)
			return TRACE_ITER_CHANGED; /* cut short since it was checked */
		p += got;
		off += got;
		want -= (size_t)got;
	}
	for (size_t i = 0; i < n && t->file->checked; i++)
		if (!in_range(&t->hdr, &it->buf[i]))
			return TRACE_ITER_CHANGED;
	return 0;
}

size_t trace_iter_next(struct trace_iter *it, const struct fpulab_trace_event **ev)
{
	const struct trace *t = it->t;
	uint64_t left = t->hdr.nevents - it->pos;
	size_t n;

	if (it->err || !left)
		return 0;
	if (!t->file) {
		*ev = t->ev + it->pos;
		it->pos += left;
		return (size_t)left;
	}
	n = left < TRACE_CHUNK ? (size_t)left : TRACE_CHUNK;
	it->err = read_chunk(it, n);
	if (it->err)
		return 0;
	*ev = it->buf;
	it->pos += n;
	return n;
}
