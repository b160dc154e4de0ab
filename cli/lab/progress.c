/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* One progress line: on a terminal it replaces the last one, cut to the
 * terminal's width (a line that wrapped could not be rewritten in place). */
static void __attribute__((format(printf, 2, 3))) put_line(struct progress *p, const char *fmt, ...)
{
	char line[512];
	struct winsize ws;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (p->tty && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
	    strlen(line) >= ws.ws_col && ws.ws_col <= sizeof(line))
		line[ws.ws_col - 1] = '\0';
	fprintf(stderr, "%s%s%s", p->tty ? "\r\033[K" : "", line, p->tty ? "" : "\n");
	p->line_open = p->tty;
	p->last_line = now();
	fflush(stderr);
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
	char tail[64] = "", of[32] = "";

	if (eta >= 0 && done < total)
		snprintf(tail, sizeof(tail), "; %.0f s elapsed, ~%.0f s left", elapsed, eta);
	else
		snprintf(tail, sizeof(tail), "; %.0f s elapsed", elapsed);
	if (total && done <= total) /* more than expected: the total was wrong, leave it out */
		snprintf(of, sizeof(of), "/%zu", total);
	put_line(p, "fpulab: config %zu%s done: %s%s", done, of, what, tail);
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
	put_line(p, "fpulab: %s: %" PRIu64 " of %" PRIu64 " %s (%.0f%%); %.0f s elapsed%s", run,
		 done, target, unit, target ? 100.0 * (double)done / (double)target : 0.0,
		 t - p->start, left);
}

void progress_run_end(struct progress *p, uint64_t done, const char *unit)
{
	if (!p->run[0])
		return;
	put_line(p, "fpulab: %s done: %" PRIu64 " %s; %.0f s elapsed", p->run, done, unit,
		 now() - p->start);
	p->run[0] = '\0';
}

void progress_end(struct progress *p)
{
	if (p->line_open)
		fputc('\n', stderr);
	p->line_open = false;
}
