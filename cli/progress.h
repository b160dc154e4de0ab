/* SPDX-License-Identifier: MIT */
/*
 * Progress of a run on stderr: configurations done of the total, time spent
 * and an estimate of the time left (the mean time per configuration so far
 * times those left). On a terminal one line, rewritten in place; otherwise a
 * line per configuration, for logs.
 */
#ifndef FPULAB_CLI_PROGRESS_H
#define FPULAB_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct progress {
	double start;   /* s, CLOCK_MONOTONIC */
	bool tty;       /* stderr is a terminal: rewrite one line */
	bool line_open; /* a terminal line is waiting for its newline */
};

/* progress_start - note the start time; decide between a line in place and lines. */
void progress_start(struct progress *p);

/*
 * progress_step - @done of @total configurations (@total 0: unknown) are
 * finished; @what names the last one. Prints "fpulab: config DONE/TOTAL done:
 * WHAT; Ns elapsed, ~Ns left".
 */
void progress_step(struct progress *p, size_t done, size_t total, const char *what);

/* progress_end - end the terminal line, so other messages start on their own. */
void progress_end(struct progress *p);

/* progress_eta - seconds left after @done of @total in @elapsed seconds; -1 unknown. */
double progress_eta(double elapsed, size_t done, size_t total);

#endif
