/* SPDX-License-Identifier: MIT */
/* Reading a running guest line by line, with a watchdog. */
#ifndef FPULAB_CLI_LAB_GUEST_SESSION_H
#define FPULAB_CLI_LAB_GUEST_SESSION_H

#include <stdbool.h>

#include "qemu.h"

enum line_source { FROM_CONSOLE, FROM_QEMU_STDERR };

/* What a line was, as far as the watchdog is concerned. */
enum line_verdict {
	LINE_CONSOLE, /* plain output: does not feed the watchdog */
	LINE_RECORD,  /* a record: the guest is making progress */
	LINE_STOP,    /* stop now: kill QEMU */
};
typedef enum line_verdict (*line_fn)(void *ctx, enum line_source from, const char *line);

struct session_end {
	bool exited; /* QEMU exited with status */
	int status;
	int signal;                 /* or was killed by this signal */
	bool hung;                  /* the watchdog killed it */
	long long console_quiet_ms; /* hung: ms since the console last printed (-1: never) */
	bool stopped;               /* a line handler asked to stop */
	bool interrupted;           /* SIGINT/SIGTERM/SIGHUP reached fpulab */
};

/* Catch SIGINT/SIGTERM/SIGHUP from now on (session_run does it too), so a
 * signal before session_run is not lost; and whether one has arrived. */
void session_catch_signals(void);
bool session_signal_pending(void);
/* The signal that arrived (SIGINT, SIGTERM, SIGHUP), or 0. */
int session_signal(void);

/* Feed every line from QEMU to on_line until QEMU exits. The watchdog kills
 * QEMU (its whole process group) after timeout_s seconds without a record. */
void session_run(struct qemu_process *p, unsigned timeout_s, line_fn on_line, void *ctx,
		 struct session_end *end);

#endif
