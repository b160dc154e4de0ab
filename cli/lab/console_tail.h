/* SPDX-License-Identifier: MIT */
/* The guest's last console lines, kept for error reports. */
#ifndef FPULAB_CLI_LAB_CONSOLE_TAIL_H
#define FPULAB_CLI_LAB_CONSOLE_TAIL_H

#include <stddef.h>
#include <stdio.h>

#define CONSOLE_TAIL_LINES 20

struct console_tail {
	char *lines[CONSOLE_TAIL_LINES];
	size_t next, count;
};

void tail_add(struct console_tail *t, const char *prefix, const char *line);
/* Print the kept lines, oldest first, each after indent. */
void tail_print(FILE *f, const struct console_tail *t, const char *indent);
void tail_free(struct console_tail *t);

#endif
