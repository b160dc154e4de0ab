/* SPDX-License-Identifier: MIT */
/*
 * The IPI tracepoints through perf_event_open(2), one sample per event with
 * its CLOCK_MONOTONIC time (use_clockid), read from each event's ring
 * buffer (perf_event_open(2), "MMAP layout").
 */
#include "costs_tp.h"
#include "common/stats.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TP_DATA_PAGES 64 /* 256 KiB of 16-byte samples per event */

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* The id of tracepoint @name ("ipi/ipi_send_cpu"), or -1 with @why set. */
static long tp_id(const char *name, char *why, size_t len)
{
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		char path[160];
		long id = -1;
		FILE *f;

		snprintf(path, sizeof(path), "%s/events/%s/id", tracefs_dirs[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	snprintf(why, len,
		 "no tracepoint %s under %s/events (tracefs not mounted, or no such event)", name,
		 tracefs_dirs[0]);
	return -1;
}

static int tp_stream_open(struct tp_stream *s, const char *name, pid_t tid, char *why, size_t len)
{
	struct perf_event_attr a;
	long id = tp_id(name, why, len), page = sysconf(_SC_PAGESIZE);

	s->fd = -1;
	s->lost = 0;
	if (id < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (uint64_t)id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	a.disabled = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	s->fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->fd < 0) {
		snprintf(why, len, "perf_event_open(%s): %s%s", name, strerror(errno),
			 errno == EACCES || errno == EPERM
				 ? " (needs root or perf_event_paranoid -1)"
				 : "");
		return -1;
	}
	s->map_len = (size_t)page * (1 + TP_DATA_PAGES);
	s->base = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->base == MAP_FAILED) {
		snprintf(why, len, "mmap of the %s ring: %s", name, strerror(errno));
		close(s->fd);
		s->fd = -1;
		return -1;
	}
	return 0;
}

static void tp_stream_close(struct tp_stream *s)
{
	if (s->fd < 0)
		return;
	munmap(s->base, s->map_len);
	close(s->fd);
	s->fd = -1;
}

int ipi_tp_open(struct ipi_tp *t, pid_t sender, pid_t target)
{
	static const char *const names[4] = { "ipi/ipi_send_cpu", "ipi/ipi_send_cpumask",
					      "irq_vectors/call_function_single_entry",
					      "irq_vectors/call_function_entry" };
	struct tp_stream *s[4] = { &t->send[0], &t->send[1], &t->entry[0], &t->entry[1] };

	t->why[0] = 0;
	for (int i = 0; i < 4; i++)
		s[i]->fd = -1;
	for (int i = 0; i < 4; i++)
		if (tp_stream_open(s[i], names[i], i < 2 ? sender : target, t->why,
				   sizeof(t->why))) {
			ipi_tp_close(t);
			return -1;
		}
	return 0;
}

void ipi_tp_enable(struct ipi_tp *t, bool on)
{
	struct tp_stream *s[4] = { &t->send[0], &t->send[1], &t->entry[0], &t->entry[1] };

	for (int i = 0; i < 4; i++)
		if (s[i]->fd >= 0)
			ioctl(s[i]->fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* Copy @len bytes at ring offset @off (wrapping) into @dst. */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t off, void *dst, size_t len)
{
	for (size_t i = 0; i < len; i++)
		((uint8_t *)dst)[i] = data[(off + i) % size];
}

/* Append the sample times of @s to @ns[*n..@max). */
static void tp_stream_take(struct tp_stream *s, uint64_t *ns, unsigned int *n, unsigned int max)
{
	struct perf_event_mmap_page *pg = s->base;
	const uint8_t *data = (const uint8_t *)s->base + pg->data_offset;
	uint64_t size = pg->data_size, head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t v[2];
		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 8) {
			ring_copy(data, size, tail + sizeof(h), v, 8);
			if (*n < max)
				ns[(*n)++] = v[0];
			else
				s->lost++;
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			ring_copy(data, size, tail + sizeof(h), v, 16);
			s->lost += v[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

unsigned int ipi_tp_take(struct tp_stream pair[2], uint64_t *ns, unsigned int max)
{
	unsigned int n = 0;

	for (int i = 0; i < 2; i++)
		if (pair[i].fd >= 0)
			tp_stream_take(&pair[i], ns, &n, max);
	qsort(ns, n, sizeof(*ns), cmp_u64);
	return n;
}

unsigned long ipi_tp_lost(const struct ipi_tp *t)
{
	return t->send[0].lost + t->send[1].lost + t->entry[0].lost + t->entry[1].lost;
}

void ipi_tp_close(struct ipi_tp *t)
{
	tp_stream_close(&t->send[0]);
	tp_stream_close(&t->send[1]);
	tp_stream_close(&t->entry[0]);
	tp_stream_close(&t->entry[1]);
}
