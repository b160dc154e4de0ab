/* SPDX-License-Identifier: MIT */
/* What a run's results say about themselves beyond output_provenance_host():
 * the QEMU that ran the lab, the random seed and the run options rows carry. */
#include "provenance.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu.h"
#include "common/catalog.h"
#include "common/util.h"

char *qemu_version(void)
{
	char *cmd = xasprintf("'%s' --version 2>/dev/null", qemu_binary()), line[256] = "";
	FILE *p = strchr(qemu_binary(), '\'') ? NULL : popen(cmd, "r");
	const char *v;

	free(cmd);
	if (!p)
		return NULL;
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	v = strstr(line, "version ");
	return v ? xstrdup(v + 8) : NULL;
}

/* A number as the guest reads it (lab/string.c's parse_u64): 0x... hex, else decimal. */
static json_t *guest_number(const char *v)
{
	bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	return json_integer((json_int_t)strtoull(v, NULL, hex ? 16 : 10));
}

/* The run options rows carry (catalog.h) that experiment @exp reads: as sent, or the default. */
static void row_options_provenance(struct output *o, const struct run_options *opt, int exp)
{
	for (unsigned int i = 0; exp >= 0 && i < nr_row_options; i++) {
		enum fpulab_option_id id = row_options[i];
		const struct fpulab_option *f = &fpulab_options[id];
		char buf[24];
		const char *v = opt->guest_value[id] ? opt->guest_value[id]
						     : row_option_default(id, buf, sizeof(buf));

		if (!(f->experiments & (1u << exp)))
			continue;
		output_provenance(o, f->key,
				  f->type == FPULAB_NUMBER ? guest_number(v) : json_string(v));
	}
}

void run_provenance(struct output *o, const struct run_options *opt, const char *seed)
{
	char *q = qemu_version();

	output_provenance(o, "qemu_version", q ? json_string(q) : NULL);
	output_provenance(o, "random_seed", json_string(seed));
	row_options_provenance(o, opt, experiment_find(opt->guest_value[FPULAB_OPT_experiment]));
	free(q);
}

void provenance_comment(struct output *o)
{
	json_t *p = o->provenance;
	const char *qv = json_string_value(json_object_get(p, "qemu_version"));

	output_comment(o, "fpulab %s (git %s), QEMU %s; host %s, Linux %s; %s; random seed %s",
		       json_string_value(json_object_get(p, "fpulab_version")),
		       json_string_value(json_object_get(p, "fpulab_git")), qv ? qv : "unknown",
		       json_string_value(json_object_get(p, "host_cpu")),
		       json_string_value(json_object_get(p, "host_kernel")),
		       json_string_value(json_object_get(p, "date")),
		       json_string_value(json_object_get(p, "random_seed")));
	output_comment(o, "command: %s", json_string_value(json_object_get(p, "command")));
}
