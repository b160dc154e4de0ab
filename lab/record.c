/* SPDX-License-Identifier: MIT */
/* Records to the host: "@fpulab <kind> key=value ...", one line (abi.h). */
#include "lab.h"
#include "watchdog.h"

void record_begin(struct record *r, const char *kind)
{
	r->n = (size_t)ksnprintf(r->line, sizeof(r->line), "%s%s", FPULAB_RECORD_PREFIX, kind);
}

const char record_unset[] = "";

void record_str(struct record *r, const char *key, const char *value)
{
	if (value != record_unset && r->n < sizeof(r->line))
		r->n += (size_t)ksnprintf(r->line + r->n, sizeof(r->line) - r->n, " %s=%s", key,
					  value ? value : "-");
}

void record_u64(struct record *r, const char *key, uint64_t value)
{
	if (value != FPULAB_NOT_MEASURED && r->n < sizeof(r->line))
		r->n += (size_t)ksnprintf(r->line + r->n, sizeof(r->line) - r->n, " %s=%lu", key,
					  value);
}

void record_end(struct record *r)
{
	kprintf("%s\n", r->line);
	/* A progress record is a sign of life only when it got further (exp_progress). */
	if (strncmp(r->line + strlen(FPULAB_RECORD_PREFIX), FPULAB_REC_PROGRESS " ",
		    strlen(FPULAB_REC_PROGRESS) + 1))
		watchdog_pet();
}
