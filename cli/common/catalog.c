/* SPDX-License-Identifier: MIT */
/* What the lab kernel offers, from abi.h. */
#include "catalog.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int experiment_find(const char *name)
{
	for (int e = 0; name && e < FPULAB_EXP_NR; e++)
		if (!strcmp(fpulab_experiments[e].name, name))
			return e;
	return -1;
}

const struct fpulab_experiment *experiment_info(const char *name)
{
	int e = experiment_find(name);
	return e < 0 ? NULL : &fpulab_experiments[e];
}

bool experiment_is_timed(const char *name)
{
	const struct fpulab_experiment *e = experiment_info(name);
	return e && !strcmp(e->figure, "ticks");
}

const enum fpulab_option_id row_options[] = {
	FPULAB_OPT_prefetch,
	FPULAB_OPT_fpu_counter,
	FPULAB_OPT_fpu_counter_rule,
	FPULAB_OPT_slice_us,
};
const unsigned int nr_row_options = sizeof(row_options) / sizeof(row_options[0]);

int row_option_find(const char *key)
{
	for (unsigned int i = 0; key && i < nr_row_options; i++)
		if (!strcmp(fpulab_options[row_options[i]].key, key))
			return (int)row_options[i];
	return -1;
}

const char *row_option_default(enum fpulab_option_id id, char *buf, size_t len)
{
	const struct fpulab_option *o = &fpulab_options[id];

	if (o->choices) /* a word: the guest's default is its first choice */
		return o->choices[o->dflt];
	snprintf(buf, len, "%llu", (unsigned long long)o->dflt);
	return buf;
}
