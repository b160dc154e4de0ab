/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <stdio.h>
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
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->line_open)
		fputc('\n', stderr);
	p->line_open = false;
}
