/* SPDX-License-Identifier: MIT */
/* Parsing the guest's records; the field tables come from abi.h's X-macros. */
#include "guest_records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(RESULT_FIELD_COUNT <= 64, "presence bits fit in a uint64_t");
_Static_assert(HELLO_FIELD_COUNT <= 64, "presence bits fit in a uint64_t");

#define STRING_ENTRY(type, n) { #n, FIELD_STRING, offsetof(type, n) },
#define COUNT_ENTRY(type, n) { #n, FIELD_COUNT, offsetof(type, n) },

#define RESULT_STRING(n) STRING_ENTRY(struct guest_result, n)
#define RESULT_COUNT(n) COUNT_ENTRY(struct guest_result, n)
const struct record_field result_fields[RESULT_FIELD_COUNT] = { FPULAB_RESULT_FIELDS(
	RESULT_STRING, RESULT_COUNT) };

#define HELLO_STRING(n) STRING_ENTRY(struct guest_hello, n)
#define HELLO_COUNT(n) COUNT_ENTRY(struct guest_hello, n)
const struct record_field hello_fields[HELLO_FIELD_COUNT] = { FPULAB_HELLO_FIELDS(HELLO_STRING,
										  HELLO_COUNT) };

#define DONE_STRING(n) STRING_ENTRY(struct guest_done, n)
#define DONE_COUNT(n) COUNT_ENTRY(struct guest_done, n)
static const struct record_field done_fields[DONE_FIELD_COUNT] = { FPULAB_DONE_FIELDS(DONE_STRING,
										      DONE_COUNT) };

#define SKIP_STRING(n) STRING_ENTRY(struct guest_skip, n)
#define SKIP_COUNT(n) COUNT_ENTRY(struct guest_skip, n)
static const struct record_field skip_fields[SKIP_FIELD_COUNT] = { FPULAB_SKIP_FIELDS(SKIP_STRING,
										      SKIP_COUNT) };

#define PROGRESS_STRING(n) STRING_ENTRY(struct guest_progress, n)
#define PROGRESS_COUNT(n) COUNT_ENTRY(struct guest_progress, n)
static const struct record_field progress_fields[PROGRESS_FIELD_COUNT] = { FPULAB_PROGRESS_FIELDS(
	PROGRESS_STRING, PROGRESS_COUNT) };

#define INTEGRITY_STRING(n) STRING_ENTRY(struct guest_integrity, n)
#define INTEGRITY_COUNT(n) COUNT_ENTRY(struct guest_integrity, n)
static const struct record_field integrity_fields[INTEGRITY_FIELD_COUNT] = {
	FPULAB_INTEGRITY_FIELDS(INTEGRITY_STRING, INTEGRITY_COUNT)
};

#define HUNG_STRING(n) STRING_ENTRY(struct guest_hung, n)
#define HUNG_COUNT(n) COUNT_ENTRY(struct guest_hung, n)
static const struct record_field hung_fields[HUNG_FIELD_COUNT] = { FPULAB_HUNG_FIELDS(HUNG_STRING,
										      HUNG_COUNT) };

const char *result_string(const struct guest_result *r, enum result_field f)
{
	return (const char *)r + result_fields[f].offset;
}

uint64_t result_count(const struct guest_result *r, enum result_field f)
{
	uint64_t v;
	memcpy(&v, (const char *)r + result_fields[f].offset, sizeof(v));
	return v;
}

bool result_has(const struct guest_result *r, enum result_field f)
{
	return r->present & (UINT64_C(1) << f);
}

/* Points after "@fpulab <kind>" if line is a record of that kind. */
static const char *record_body(const char *line, const char *kind)
{
	size_t plen = strlen(FPULAB_RECORD_PREFIX), klen = strlen(kind);

	if (strncmp(line, FPULAB_RECORD_PREFIX, plen) != 0)
		return NULL;
	line += plen;
	if (strncmp(line, kind, klen) != 0 || (line[klen] != ' ' && line[klen] != '\0'))
		return NULL;
	return line + klen;
}

enum record_kind record_kind_of(const char *line)
{
	if (strncmp(line, FPULAB_RECORD_PREFIX, strlen(FPULAB_RECORD_PREFIX)) != 0)
		return RECORD_NONE;
	if (record_body(line, FPULAB_REC_HELLO))
		return RECORD_HELLO;
	if (record_body(line, FPULAB_REC_RESULT))
		return RECORD_RESULT;
	if (record_body(line, FPULAB_REC_SKIP))
		return RECORD_SKIP;
	if (record_body(line, FPULAB_REC_DONE))
		return RECORD_DONE;
	if (record_body(line, FPULAB_REC_PROGRESS))
		return RECORD_PROGRESS;
	if (record_body(line, FPULAB_REC_INTEGRITY))
		return RECORD_INTEGRITY;
	if (record_body(line, FPULAB_REC_TRACE))
		return RECORD_TRACE;
	if (record_body(line, FPULAB_REC_HUNG))
		return RECORD_HUNG;
	return RECORD_UNKNOWN;
}

static int parse_count(const char *text, size_t len, uint64_t *out)
{
	char buf[32], *end;
	int base = 10;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
		base = 16; /* the ABI: decimal unless prefixed 0x */
	if (!(buf[base == 16 ? 2 : 0] >= '0' && buf[base == 16 ? 2 : 0] <= '9') &&
	    !(base == 16 && strchr("abcdefABCDEF", buf[2]) && buf[2]))
		return -1; /* no sign, no spaces, at least one digit */
	errno = 0;
	*out = strtoull(buf, &end, base);
	if (errno || *end != '\0')
		return -1;
	return 0;
}

/* Parse "key=value key=value" into out using fields[]. */
static int parse_fields(const char *body, const struct record_field *fields, size_t nfields,
			void *out, uint64_t *present, int *unknown_keys, char *err, size_t errlen)
{
	const char *p = body;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *word = p, *eq;
		while (*p && *p != ' ')
			p++;
		size_t wlen = (size_t)(p - word);
		eq = memchr(word, '=', wlen);
		if (!eq || eq == word) {
			snprintf(err, errlen, "'%.*s' is not key=value", (int)wlen, word);
			return -1;
		}
		size_t klen = (size_t)(eq - word), vlen = wlen - klen - 1;
		const char *value = eq + 1;
		size_t i;
		for (i = 0; i < nfields; i++)
			if (strlen(fields[i].name) == klen && !strncmp(fields[i].name, word, klen))
				break;
		if (i == nfields) {
			if (unknown_keys)
				(*unknown_keys)++;
			continue;
		}
		char *dst = (char *)out + fields[i].offset;
		if (fields[i].type == FIELD_STRING) {
			if (vlen == 0 || vlen >= RECORD_WORD_MAX) {
				snprintf(err, errlen,
					 "%s: value empty or longer than %d characters",
					 fields[i].name, RECORD_WORD_MAX - 1);
				return -1;
			}
			memcpy(dst, value, vlen);
			dst[vlen] = '\0';
		} else {
			uint64_t v;
			if (parse_count(value, vlen, &v) < 0) {
				snprintf(err, errlen, "%s: '%.*s' is not a number", fields[i].name,
					 (int)vlen, value);
				return -1;
			}
			memcpy(dst, &v, sizeof(v));
		}
		*present |= UINT64_C(1) << i;
	}
	return 0;
}

int parse_result_record(const char *line, struct guest_result *out, int *unknown_keys, char *err,
			size_t errlen)
{
	const char *body = record_body(line, FPULAB_REC_RESULT);

	memset(out, 0, sizeof(*out));
	if (!body) {
		snprintf(err, errlen, "not a result record");
		return -1;
	}
	if (parse_fields(body, result_fields, RESULT_FIELD_COUNT, out, &out->present, unknown_keys,
			 err, errlen) < 0)
		return -1;
	/* Without these a run cannot be attributed to a configuration. */
	static const enum result_field required[] = { RESULT_experiment, RESULT_policy };
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!result_has(out, required[i])) {
			snprintf(err, errlen, "missing %s=", result_fields[required[i]].name);
			return -1;
		}
	}
	return 0;
}

int parse_hello_record(const char *line, struct guest_hello *out, int *unknown_keys, char *err,
		       size_t errlen)
{
	const char *body = record_body(line, FPULAB_REC_HELLO);

	memset(out, 0, sizeof(*out));
	if (!body) {
		snprintf(err, errlen, "not a hello record");
		return -1;
	}
	return parse_fields(body, hello_fields, HELLO_FIELD_COUNT, out, &out->present, unknown_keys,
			    err, errlen);
}

int parse_done_record(const char *line, struct guest_done *out, char *err, size_t errlen)
{
	const char *body = record_body(line, FPULAB_REC_DONE);

	memset(out, 0, sizeof(*out));
	if (!body) {
		snprintf(err, errlen, "not a done record");
		return -1;
	}
	if (parse_fields(body, done_fields, DONE_FIELD_COUNT, out, &out->present, NULL, err,
			 errlen) < 0)
		return -1;
	out->has_runs = out->present & (UINT64_C(1) << DONE_runs);
	return 0;
}

/* A record of @kind whose every field is required. */
static int parse_complete(const char *line, const char *kind, const struct record_field *fields,
			  size_t nfields, void *out, uint64_t *present, char *err, size_t errlen)
{
	const char *body = record_body(line, kind);
	int unknown = 0;

	if (!body) {
		snprintf(err, errlen, "not a %s record", kind);
		return -1;
	}
	if (parse_fields(body, fields, nfields, out, present, &unknown, err, errlen) < 0)
		return -1;
	for (size_t f = 0; f < nfields; f++) {
		if (!(*present & (UINT64_C(1) << f))) {
			snprintf(err, errlen, "missing %s=", fields[f].name);
			return -1;
		}
	}
	return 0;
}

int parse_skip_record(const char *line, struct guest_skip *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	return parse_complete(line, FPULAB_REC_SKIP, skip_fields, SKIP_FIELD_COUNT, out,
			      &out->present, err, errlen);
}

int parse_progress_record(const char *line, struct guest_progress *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	return parse_complete(line, FPULAB_REC_PROGRESS, progress_fields, PROGRESS_FIELD_COUNT, out,
			      &out->present, err, errlen);
}

int parse_integrity_record(const char *line, struct guest_integrity *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	return parse_complete(line, FPULAB_REC_INTEGRITY, integrity_fields, INTEGRITY_FIELD_COUNT,
			      out, &out->present, err, errlen);
}

int parse_hung_record(const char *line, struct guest_hung *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	return parse_complete(line, FPULAB_REC_HUNG, hung_fields, HUNG_FIELD_COUNT, out,
			      &out->present, err, errlen);
}
