/* SPDX-License-Identifier: MIT */
/* The signals that ask a command to stop, caught as a kernel tool's user expects. */
#ifndef FPULAB_CLI_COMMON_STOP_SIGNALS_H
#define FPULAB_CLI_COMMON_STOP_SIGNALS_H

#include <signal.h>

/* SIGINT (^C), SIGTERM (kill), SIGHUP (the terminal closed): STOP_SIGNALS_N of them. */
#define STOP_SIGNALS_N 3
extern const int stop_signals[STOP_SIGNALS_N];

/*
 * catch_stop_signals - @handler for each stop signal, with no SA_RESTART
 * (a blocking poll or wait returns EINTR), except one that is ignored now:
 * started ignored (nohup's SIGHUP, SIGINT in a script's background job), it
 * stays ignored, as it would for a command that catches nothing. @old, when
 * not NULL, receives the STOP_SIGNALS_N dispositions replaced, for
 * restore_stop_signals().
 */
void catch_stop_signals(void (*handler)(int), struct sigaction old[STOP_SIGNALS_N]);

/* restore_stop_signals - the dispositions catch_stop_signals() saved in @old. */
void restore_stop_signals(const struct sigaction old[STOP_SIGNALS_N]);

#endif
