/* SPDX-License-Identifier: MIT */
#include "console_tail.h"

#include <stdlib.h>
#include <string.h>

void tail_add(struct console_tail *t, const char *prefix, const char *line)
{
	char *copy;

	if (asprintf(&copy, "%s%s", prefix, line) < 0)
		abort();
	free(t->lines[t->next]);
	t->lines[t->next] = copy;
	t->next = (t->next + 1) % CONSOLE_TAIL_LINES;
	if (t->count < CONSOLE_TAIL_LINES)
		t->count++;
}

void tail_print(FILE *f, const struct console_tail *t, const char *indent)
{
	size_t first = (t->next + CONSOLE_TAIL_LINES - t->count) % CONSOLE_TAIL_LINES;

	if (t->count == 0)
		fprintf(f, "%s(the guest printed nothing)\n", indent);
	for (size_t i = 0; i < t->count; i++)
		fprintf(f, "%s%s\n", indent, t->lines[(first + i) % CONSOLE_TAIL_LINES]);
}

void tail_free(struct console_tail *t)
{
	for (size_t i = 0; i < CONSOLE_TAIL_LINES; i++)
		free(t->lines[i]);
	memset(t, 0, sizeof(*t));
}
