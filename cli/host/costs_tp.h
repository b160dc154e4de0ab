/* SPDX-License-Identifier: MIT */
/*
 * The IPI tracepoints, read through perf_event_open(2): when an IPI was
 * sent from one thread (ipi:ipi_send_cpu, ipi:ipi_send_cpumask) and when
 * the call-function handler was entered while another thread ran
 * (irq_vectors:call_function_single_entry, irq_vectors:call_function_entry),
 * in CLOCK_MONOTONIC ns. Needs tracefs (for the events' ids) and the
 * privilege to open tracepoint events (root, or perf_event_paranoid -1).
 */
#ifndef FPULAB_CLI_HOST_COSTS_TP_H
#define FPULAB_CLI_HOST_COSTS_TP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct tp_stream {
	int fd;     /* -1: not open */
	void *base; /* the mmap'ed ring: a header page and the data pages */
	size_t map_len;
	unsigned long lost; /* samples the kernel dropped (PERF_RECORD_LOST) */
};

/* [0] and [1]: the single-CPU and the CPU-mask event of each pair. */
struct ipi_tp {
	struct tp_stream send[2], entry[2];
	char why[200]; /* why the tracepoints cannot be used ("" when they can) */
};

/*
 * ipi_tp_open - open the send events on thread @sender and the entry events
 * on thread @target, disabled. Returns 0, or -1 with the reason in @t->why
 * (tracefs not mounted, an event missing, no permission); nothing stays open.
 */
int ipi_tp_open(struct ipi_tp *t, pid_t sender, pid_t target);

/* ipi_tp_enable - start (@on) or stop counting every event. */
void ipi_tp_enable(struct ipi_tp *t, bool on);

/*
 * ipi_tp_take - the times of the samples of both events of @pair (t->send
 * or t->entry) since the last take, ascending, into @ns[@max]. Returns
 * how many (at most @max; more are dropped and counted as lost).
 */
unsigned int ipi_tp_take(struct tp_stream pair[2], uint64_t *ns, unsigned int max);

/* ipi_tp_lost - samples lost so far in every stream. */
unsigned long ipi_tp_lost(const struct ipi_tp *t);

void ipi_tp_close(struct ipi_tp *t);

#endif
