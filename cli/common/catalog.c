/* SPDX-License-Identifier: MIT */
/* What the lab kernel offers, from abi.h. */
#include "catalog.h"

#include <stdbool.h>
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
