/* SPDX-License-Identifier: MIT */
/*
 * An IPI round trip to another CPU, as user mode can cause one:
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) interrupts every other CPU
 * running a thread of this process and waits for each to run its handler
 * (kernel/sched/membarrier.c). A spinner thread of ours on CPU B makes it
 * interrupt B; parked on a futex, there is none to interrupt. The round
 * trip is the call with one to interrupt less the call with none, run by
 * run (docs/host.md "costs").
 *
 * Each call is timed alone and kept only when it is confirmed: the CAL
 * (function call interrupts) count of CPU B in /proc/interrupts rose
 * during a call that had one to interrupt, and stayed still during one that
 * had none (the spinner is not always running: the host is shared), and,
 * where the tracepoints can be read (costs_tp.h), an IPI was sent from
 * this thread during the call, or none. The tracepoints also give the
 * one-way latency: from the send to the handler's entry on CPU B.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "costs_tp.h"
#include "fpulab/abi.h"
#include "host_costs.h"

#define IPI_CALLS 100   /* membarrier calls per phase and run */
#define IPI_MIN_CALLS 5 /* confirmed calls a run's figure needs */
#define TP_MAX 4096     /* tracepoint samples read per phase */

enum { SPIN_PARK, SPIN_RUN, SPIN_EXIT };

struct spinner {
	uint32_t state;  /* SPIN_*: a futex word */
	uint32_t acting; /* the state the spinner is in */
	int cpu;
	pid_t tid;
	bool pinned;
};

static void *spinner_main(void *p)
{
	struct spinner *s = p;

	s->pinned = host_pin(0, s->cpu) == 0;
	__atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;) {
		uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		__atomic_store_n(&s->acting, st, __ATOMIC_RELEASE);
		if (st == SPIN_EXIT)
			return NULL;
		if (st == SPIN_RUN)
			__builtin_ia32_pause();
		else
			syscall(SYS_futex, &s->state, FUTEX_WAIT_PRIVATE, SPIN_PARK, NULL, NULL, 0);
	}
}

/* Tell the spinner @st and wait until it acts on it (parked: blocked a while). */
static void spinner_set(struct spinner *s, uint32_t st)
{
	__atomic_store_n(&s->state, st, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	while (__atomic_load_n(&s->acting, __ATOMIC_ACQUIRE) != st)
		sched_yield();
	if (st == SPIN_PARK)
		usleep(2000);
}

/* CPU @cpu's column of the CAL line of /proc/interrupts, or -1. */
static long cal_count(int fd, int cpu)
{
	static char buf[65536];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *line, *p;
	int col = -1, i = 0;

	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (p = strtok(buf, " \n"); p && !strncmp(p, "CPU", 3); p = strtok(NULL, " \n"), i++)
		if (atoi(p + 3) == cpu)
			col = i;
	line = p ? strstr(p + strlen(p) + 1, "CAL:") : NULL;
	if (col < 0 || !line)
		return -1;
	p = line + 4;
	for (i = 0; i < col; i++)
		strtol(p, &p, 10);
	return strtol(p, NULL, 10);
}

struct call {
	uint64_t t0, t1; /* CLOCK_MONOTONIC around the call */
	long cal;        /* CPU B's CAL count rise during it (-1: unknown) */
};

struct ipi_ctx {
	struct spinner sp;
	struct ipi_tp tp;
	bool have_tp;
	int cal_fd;
	double clock_ns; /* an empty pair of readings, subtracted from every call */
	struct call calls[IPI_CALLS];
	uint64_t sends[TP_MAX], entries[TP_MAX];
	unsigned int nsends, nentries;
	unsigned long confirmed, tried; /* calls with one to interrupt */
};

static void time_calls(struct ipi_ctx *x)
{
	if (x->have_tp)
		ipi_tp_enable(&x->tp, true);
	for (unsigned int i = 0; i < IPI_CALLS; i++) {
		struct call *c = &x->calls[i];
		long c0 = x->cal_fd >= 0 ? cal_count(x->cal_fd, x->sp.cpu) : -1, c1;
		c->t0 = host_now_ns();
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		c->t1 = host_now_ns();
		c1 = c0 >= 0 ? cal_count(x->cal_fd, x->sp.cpu) : -1;
		c->cal = c0 >= 0 && c1 >= 0 ? c1 - c0 : -1;
	}
	if (x->have_tp) {
		ipi_tp_enable(&x->tp, false);
		x->nsends = ipi_tp_take(x->tp.send, x->sends, TP_MAX);
		x->nentries = ipi_tp_take(x->tp.entry, x->entries, TP_MAX);
	}
}

/* The first of the sorted @v[@n] at or after @t, or UINT64_MAX. */
static uint64_t first_from(const uint64_t *v, unsigned int n, uint64_t t)
{
	unsigned int lo = 0, hi = n;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		if (v[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? v[lo] : UINT64_MAX;
}

/*
 * The median ns of the calls of the last phase that are confirmed as
 * @interrupting one CPU or none, with the median one-way latency of those
 * that interrupted in *@oneway (-1: none matched). Returns -1 with fewer
 * than IPI_MIN_CALLS.
 */
static double confirmed_median(struct ipi_ctx *x, bool interrupting, double *oneway)
{
	double v[IPI_CALLS], w[IPI_CALLS];
	unsigned int n = 0, nw = 0;

	for (unsigned int i = 0; i < IPI_CALLS; i++) {
		const struct call *c = &x->calls[i];
		uint64_t s = x->have_tp ? first_from(x->sends, x->nsends, c->t0) : 0;
		bool sent = x->have_tp ? s <= c->t1 : c->cal > 0;
		if (c->cal < 0 && !x->have_tp)
			continue;
		if (interrupting ? !(sent && c->cal != 0) : (sent || c->cal > 0))
			continue;
		v[n++] = (double)(c->t1 - c->t0) - x->clock_ns;
		if (interrupting && x->have_tp) {
			uint64_t e = first_from(x->entries, x->nentries, s);
			if (e <= c->t1)
				w[nw++] = (double)(e - s);
		}
	}
	if (interrupting)
		x->confirmed += n;
	*oneway = nw >= IPI_MIN_CALLS ? stats_summarise(w, nw).median : -1;
	return n >= IPI_MIN_CALLS ? stats_summarise(v, n).median : -1;
}

static double empty_clock_pair(void)
{
	double v[201];
	for (int i = 0; i < 201; i++) {
		uint64_t t0 = host_now_ns();
		v[i] = (double)(host_now_ns() - t0);
	}
	return stats_summarise(v, 201).median;
}

/* Start the spinner on @cpu, register for membarrier, open the counters. Returns 0 or -1 (@why). */
static int ipi_setup(struct ipi_ctx *x, pthread_t *th, int cpu, char *why, size_t len)
{
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		snprintf(why, len, "membarrier(REGISTER_PRIVATE_EXPEDITED): %s", strerror(errno));
		return -1;
	}
	x->sp = (struct spinner){ .state = SPIN_PARK, .acting = SPIN_RUN, .cpu = cpu };
	if (pthread_create(th, NULL, spinner_main, &x->sp)) {
		snprintf(why, len, "cannot start a thread to spin on CPU %d", cpu);
		return -1;
	}
	spinner_set(&x->sp, SPIN_PARK);
	if (!x->sp.pinned) {
		snprintf(why, len, "cannot pin a thread to CPU %d", cpu);
		return -1;
	}
	x->cal_fd = open("/proc/interrupts", O_RDONLY | O_CLOEXEC);
	if (x->cal_fd >= 0 && cal_count(x->cal_fd, cpu) < 0) {
		close(x->cal_fd);
		x->cal_fd = -1;
	}
	x->have_tp = ipi_tp_open(&x->tp, (pid_t)syscall(SYS_gettid), x->sp.tid) == 0;
	if (x->cal_fd < 0 && !x->have_tp) {
		snprintf(why, len, "no CAL line in /proc/interrupts and %s", x->tp.why);
		return -1;
	}
	x->clock_ns = empty_clock_pair();
	return 0;
}

/*
 * One run: @f[0..3] the figures HOST_COST_MB_NONE, MB_IPI, IPI and
 * IPI_1WAY (-1 where too few calls were confirmed).
 */
static void ipi_run(struct ipi_ctx *x, double f[4])
{
	double unused;

	spinner_set(&x->sp, SPIN_RUN);
	time_calls(x);
	x->tried += IPI_CALLS;
	f[1] = confirmed_median(x, true, &f[3]);
	spinner_set(&x->sp, SPIN_PARK);
	time_calls(x);
	f[0] = confirmed_median(x, false, &unused);
	f[2] = f[1] >= 0 && f[0] >= 0 ? f[1] - f[0] : -1;
}

/* @hc->repeat runs after one to warm up, into the four figures. */
static void ipi_runs(struct host_costs *hc, struct ipi_ctx *x)
{
	double v[4][FPULAB_MAX_REPEAT];
	unsigned int n[4] = { 0 };

	for (unsigned int r = 0; r <= hc->repeat; r++) {
		double f[4];
		ipi_run(x, f);
		for (int k = 0; k < 4 && r; k++)
			if (f[k] >= 0)
				v[k][n[k]++] = f[k];
	}
	for (int k = 0; k < 4; k++)
		costs_sample(&hc->c[HOST_COST_MB_NONE + k], v[k], n[k], IPI_CALLS);
}

static void ipi_notes(struct host_costs *hc, const struct ipi_ctx *x, int from, int to)
{
	char how[200];

	snprintf(how, sizeof(how), "CPU %d's CAL count in /proc/interrupts%s%s", to,
		 x->have_tp ? " and " : "",
		 x->have_tp ? "the ipi:ipi_send_cpu tracepoint on this thread" : "");
	if (x->cal_fd < 0)
		snprintf(how, sizeof(how), "the ipi:ipi_send_cpu tracepoint on this thread");
	snprintf(hc->c[HOST_COST_MB_IPI].note, sizeof(hc->c[0].note),
		 "from CPU %d to our spinning thread on CPU %d; %lu of %lu calls confirmed by %s; "
		 "the others found it not running",
		 from, to, x->confirmed, x->tried, how);
	snprintf(hc->c[HOST_COST_MB_NONE].note, sizeof(hc->c[0].note),
		 "the thread on CPU %d parked; calls kept where %s shows no IPI", to, how);
	snprintf(hc->c[HOST_COST_IPI].note, sizeof(hc->c[0].note),
		 "membarrier-ipi - membarrier-none, run by run; %lu IPIs confirmed by %s",
		 x->confirmed, how);
	if (!hc->c[HOST_COST_IPI].have)
		snprintf(hc->c[HOST_COST_IPI].note, sizeof(hc->c[0].note),
			 "no IPI confirmed often enough (%d calls a run): %lu of %lu calls by %s",
			 IPI_MIN_CALLS, x->confirmed, x->tried, how);
	if (x->have_tp)
		snprintf(hc->c[HOST_COST_IPI_1WAY].note, sizeof(hc->c[0].note),
			 "ipi:ipi_send_cpu on CPU %d to irq_vectors:call_function_single_entry on "
			 "CPU %d (perf, CLOCK_MONOTONIC); %lu samples lost",
			 from, to, ipi_tp_lost(&x->tp));
	else
		snprintf(hc->c[HOST_COST_IPI_1WAY].note, sizeof(hc->c[0].note),
			 "tracepoints not read: %s", x->tp.why);
}

void costs_ipi_measure(struct host_costs *hc, int cpu_from, int cpu_to)
{
	static struct ipi_ctx x;
	pthread_t th;
	char why[240] = "";

	memset(&x, 0, sizeof(x));
	x.cal_fd = -1;
	if (ipi_setup(&x, &th, cpu_to, why, sizeof(why)) == 0) {
		ipi_runs(hc, &x);
		ipi_notes(hc, &x, cpu_from, cpu_to);
	} else {
		for (int k = HOST_COST_MB_NONE; k <= HOST_COST_IPI_1WAY; k++)
			snprintf(hc->c[k].note, sizeof(hc->c[k].note), "%s", why);
	}
	if (x.sp.tid) {
		spinner_set(&x.sp, SPIN_EXIT);
		pthread_join(th, NULL);
	}
	if (x.have_tp)
		ipi_tp_close(&x.tp);
	if (x.cal_fd >= 0)
		close(x.cal_fd);
}
