/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p)
{
	p->start = now();
	p->tty = isatty(STDERR_FILENO);
	p->line_open = false;
	p->last_line = p->start;
	p->run[0] = '\0';
}

double progress_eta(double elapsed, size_t done, size_t total)
{
	if (!done || !total || done > total)
		return -1;
	return elapsed / (double)done * (double)(total - done);
}

void progress_step(struct progress *p, size_t done, size_t total, const char *what)
{
	double elapsed = now() - p->start;
	double eta = progress_eta(elapsed, done, total);
	char tail[64] = "";

	if (eta >= 0 && done < total)
		snprintf(tail, sizeof(tail), "; %.0f s elapsed, ~%.0f s left", elapsed, eta);
	else
		snprintf(tail, sizeof(tail), "; %.0f s elapsed", elapsed);
	fprintf(stderr, "%sfpulab: config %zu", p->tty ? "\r\033[K" : "", done);
	if (total)
		fprintf(stderr, "/%zu", total);
	fprintf(stderr, " done: %s%s%s", what, tail, p->tty ? "" : "\n");
	p->line_open = p->tty;
	p->last_line = now();
	fflush(stderr);
}

void progress_run(struct progress *p, const char *run, uint64_t done, uint64_t target,
		  const char *unit)
{
	double t = now();
	char left[64] = "";

	if (strcmp(p->run, run) != 0) {
		snprintf(p->run, sizeof(p->run), "%s", run);
		p->run_start = t;
		p->run_start_done = done;
	}
	if (!p->tty && t - p->last_line < PROGRESS_LOG_INTERVAL_S)
		return;
	if (done > p->run_start_done && target > done && t > p->run_start)
		snprintf(left, sizeof(left), ", ~%.0f s left in this run",
			 (t - p->run_start) / (double)(done - p->run_start_done) *
				 (double)(target - done));
	fprintf(stderr, "%sfpulab: %s: %" PRIu64 " of %" PRIu64 " %s (%.0f%%); %.0f s elapsed%s%s",
		p->tty ? "\r\033[K" : "", run, done, target, unit,
		target ? 100.0 * (double)done / (double)target : 0.0, t - p->start, left,
		p->tty ? "" : "\n");
	p->line_open = p->tty;
	p->last_line = t;
	fflush(stderr);
}

void progress_run_end(struct progress *p, uint64_t done, const char *unit)
{
	double t = now();

	if (!p->run[0])
		return;
	fprintf(stderr, "%sfpulab: %s done: %" PRIu64 " %s; %.0f s elapsed%s",
		p->tty ? "\r\033[K" : "", p->run, done, unit, t - p->start, p->tty ? "" : "\n");
	p->line_open = p->tty;
	p->last_line = t;
	p->run[0] = '\0';
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->line_open)
		fputc('\n', stderr);
	p->line_open = false;
}
