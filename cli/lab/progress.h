/* SPDX-License-Identifier: MIT */
/*
 * Progress of a run on stderr: configurations done of the total, time spent
 * and an estimate of the time left (the mean time per configuration so far
 * times those left). On a terminal one line, rewritten in place and cut to
 * the terminal's width; otherwise a line per configuration, for logs.
 */
#ifndef FPULAB_CLI_LAB_PROGRESS_H
#define FPULAB_CLI_LAB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Without a terminal, a line about a run going on at most this often (s). */
#define PROGRESS_LOG_INTERVAL_S 5

struct progress {
	double start;     /* s, CLOCK_MONOTONIC */
	bool tty;         /* stderr is a terminal: rewrite one line */
	bool line_open;   /* a terminal line is waiting for its newline */
	double last_line; /* s: when the last line (or rewrite) was printed */
	char run[160];    /* the run the guest's progress records are about; "" none */
	double run_start; /* s: its first progress record */
	uint64_t run_start_done;
};

/* progress_start - note the start time; decide between a line in place and lines. */
void progress_start(struct progress *p);

/*
 * progress_step - @done of @total configurations (@total 0: unknown) are
 * finished; @what names the last one. Prints "fpulab: config DONE/TOTAL done:
 * WHAT; Ns elapsed, ~Ns left".
 */
void progress_step(struct progress *p, size_t done, size_t total, const char *what);

/*
 * progress_run - the guest's progress record (abi.h): @run (e.g. "stress,
 * policy lazy (2 of 6)") has done @done of @target @unit. Prints "fpulab:
 * RUN: DONE of TARGET UNIT (P%); Ns elapsed, ~Ns left in this run" (the
 * rate since the run's first record times what is left): on a terminal in
 * place at once, otherwise when PROGRESS_LOG_INTERVAL_S seconds passed since
 * the last line.
 */
void progress_run(struct progress *p, const char *run, uint64_t done, uint64_t target,
		  const char *unit);

/*
 * progress_run_end - the run progress_run() followed has ended with @done
 * @unit: a line "fpulab: RUN done: DONE UNIT; Ns elapsed" (in place on a
 * terminal).
 * Nothing when no progress record came for it.
 */
void progress_run_end(struct progress *p, uint64_t done, const char *unit);

/* progress_end - end the terminal line, so other messages start on their own. */
void progress_end(struct progress *p);

/* progress_eta - seconds left after @done of @total in @elapsed seconds; -1 unknown. */
double progress_eta(double elapsed, size_t done, size_t total);

#endif
