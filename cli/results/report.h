/* SPDX-License-Identifier: MIT */
/*
 * fpulab report's own header (cli/results/): one claim of the seeds, what
 * it became, and the parts its files share.
 *   report.c               the command: options, the lab's claims, the table
 *   report_linux.c         the recorded Linux workload: --linux-trace, or a
 *                          compile recorded now, replayed (`fpulab replay`)
 *   report_linux_claims.c  the claims measured on that replay's rows
 */
#ifndef FPULAB_CLI_RESULTS_REPORT_H
#define FPULAB_CLI_RESULTS_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "fpulab/abi.h"

/* What one claim became. */
struct finding {
	bool measured;
	char figure[400];   /* fpulab's figure, with its unit and runs */
	double value;       /* the headline number (percent or count) */
	const char *unit;   /* of value */
	const char *source; /* exact lab count | emulated ticks | icount | native replay | ... */
	const char *
		agrees; /* "yes" | "no" | "within noise" | "undecided" (Linux: the bounds differ) */
	char note[400]; /* why, when it does not agree; or what differs in scale */
};

struct claim {
	const char *seed, *claim;
	enum fpulab_experiment_id experiment;
	const char *how;
	void (*measure)(const struct claim *c, json_t *rows, struct finding *f);
	/* parameters of measure */
	const char *fp_users, *regset, *a, *b, *param_key, *param_a, *param_b;
	double claimed;            /* percent, or a count; 0: "no degradation" */
	const char *note_emulated; /* what emulation cannot show, for that source */
	bool on_linux;             /* measured on a recorded Linux workload's replay, not the lab */
};

/* report_find - the first of @rows of @experiment under @policy (NULL: any) with each
 * key=value pair given (a NULL key: none). */
json_t *report_find(json_t *rows, const char *experiment, const char *policy, const char *k1,
		    const char *v1, const char *k2, const char *v2, const char *k3, const char *v3);

/* report_not_measured - @f says "not measured", its note @fmt with @arg. */
void report_not_measured(struct finding *f, const char *fmt, const char *arg);

/* report_linux.c */

/* Where the Linux rows come from: the options, and why there are none. */
struct report_linux {
	const char *trace; /* --linux-trace FILE: an imported trace, replayed now; NULL: none */
	long seconds;      /* --linux-seconds N: record a compile for N s (0: never); -1: unset */
	char *why;         /* why there are no Linux rows (malloc'd); NULL: there are */
};

/* The compile the report records when it records one, seconds (about 20 s, issue 21). */
#define REPORT_LINUX_SECONDS 20
/* Runs of each policy when the report replays a recording (`fpulab replay --repeat`). */
#define REPORT_LINUX_REPEAT 3

/*
 * report_linux_check - --linux-trace's FILE is a trace imported from Linux:
 * 0, or 2 after saying why not on stderr.
 */
int report_linux_check(const char *path);

/*
 * report_linux_rows - the replay rows of a recorded Linux workload into
 * @rows: @l->trace replayed now; else none if @rows already hold a Linux
 * replay (from --from); else, when @l->seconds asks for it (or is unset and
 * @from is false), a compile of a scratch clone of this source tree
 * recorded with `fpulab trace record` and replayed. Where there are none,
 * @l->why says why (perf missing, no privilege, ...). Never fails the
 * report: the other rows go on.
 */
void report_linux_rows(struct report_linux *l, bool from, json_t *rows);

/* report_linux_claims.c: the measure functions of the Linux claims (struct claim.linux) */
void measure_linux_traps(const struct claim *c, json_t *rows, struct finding *f);
void measure_linux_share(const struct claim *c, json_t *rows, struct finding *f);
void measure_linux_work(const struct claim *c, json_t *rows, struct finding *f);

#endif
