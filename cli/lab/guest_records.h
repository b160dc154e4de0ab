/* SPDX-License-Identifier: MIT */
/* Parsing the guest's "@fpulab <kind> key=value ..." records (include/fpulab/abi.h).
 * The structs are generated from abi.h's X-macros; nothing here lists fields. */
#ifndef FPULAB_CLI_LAB_GUEST_RECORDS_H
#define FPULAB_CLI_LAB_GUEST_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpulab/abi.h"

#define RECORD_WORD_MAX 64 /* longest string value kept, including the NUL */

enum record_kind {
	RECORD_NONE,
	RECORD_HELLO,
	RECORD_RESULT,
	RECORD_SKIP,
	RECORD_DONE,
	RECORD_PROGRESS,
	RECORD_INTEGRITY,
	RECORD_TRACE, /* trace=1: a run's trace is ready in guest memory (cli/lab/trace_rec.c) */
	RECORD_HUNG,  /* watchdog=S (the bootable image): a run hung, the kernel went on */
	RECORD_UNKNOWN
};

/* Field indices: RESULT_experiment, RESULT_policy, ..., RESULT_FIELD_COUNT. */
enum result_field {
#define RECORD_FIELD_ENUM(n) RESULT_##n,
	FPULAB_RESULT_FIELDS(RECORD_FIELD_ENUM, RECORD_FIELD_ENUM) RESULT_FIELD_COUNT
};
#undef RECORD_FIELD_ENUM
enum hello_field {
#define HELLO_FIELD_ENUM(n) HELLO_##n,
	FPULAB_HELLO_FIELDS(HELLO_FIELD_ENUM, HELLO_FIELD_ENUM) HELLO_FIELD_COUNT
#undef HELLO_FIELD_ENUM
};

#define RECORD_STRING_FIELD(n) char n[RECORD_WORD_MAX];
#define RECORD_COUNT_FIELD(n) uint64_t n;
struct guest_result {
	FPULAB_RESULT_FIELDS(RECORD_STRING_FIELD, RECORD_COUNT_FIELD)
	uint64_t present; /* bit (1 << RESULT_x): the guest sent field x */
};
struct guest_hello {
	FPULAB_HELLO_FIELDS(RECORD_STRING_FIELD, RECORD_COUNT_FIELD)
	uint64_t present;
};
struct guest_done {
	FPULAB_DONE_FIELDS(RECORD_STRING_FIELD, RECORD_COUNT_FIELD)
	uint64_t present;
	bool has_runs; /* runs= was sent */
};
struct guest_skip {
	FPULAB_SKIP_FIELDS(RECORD_STRING_FIELD, RECORD_COUNT_FIELD)
	uint64_t present;
};
struct guest_progress {
	FPULAB_PROGRESS_FIELDS(RECORD_STRING_FIELD, RECORD_COUNT_FIELD)
	uint64_t present;
};
struct guest_integrity {
	FPULAB_INTEGRITY_FIELDS(RECORD_STRING_FIELD, RECORD_COUNT_FIELD)
	uint64_t present;
};
struct guest_hung {
	FPULAB_HUNG_FIELDS(RECORD_STRING_FIELD, RECORD_COUNT_FIELD)
	uint64_t present;
};
#undef RECORD_STRING_FIELD
#undef RECORD_COUNT_FIELD

enum done_field {
#define DONE_FIELD_ENUM(n) DONE_##n,
	FPULAB_DONE_FIELDS(DONE_FIELD_ENUM, DONE_FIELD_ENUM) DONE_FIELD_COUNT
#undef DONE_FIELD_ENUM
};
enum skip_field {
#define SKIP_FIELD_ENUM(n) SKIP_##n,
	FPULAB_SKIP_FIELDS(SKIP_FIELD_ENUM, SKIP_FIELD_ENUM) SKIP_FIELD_COUNT
#undef SKIP_FIELD_ENUM
};
enum integrity_field {
#define INTEGRITY_FIELD_ENUM(n) INTEGRITY_##n,
	FPULAB_INTEGRITY_FIELDS(INTEGRITY_FIELD_ENUM, INTEGRITY_FIELD_ENUM) INTEGRITY_FIELD_COUNT
#undef INTEGRITY_FIELD_ENUM
};
enum hung_field {
#define HUNG_FIELD_ENUM(n) HUNG_##n,
	FPULAB_HUNG_FIELDS(HUNG_FIELD_ENUM, HUNG_FIELD_ENUM) HUNG_FIELD_COUNT
#undef HUNG_FIELD_ENUM
};
enum progress_field {
#define PROGRESS_FIELD_ENUM(n) PROGRESS_##n,
	FPULAB_PROGRESS_FIELDS(PROGRESS_FIELD_ENUM, PROGRESS_FIELD_ENUM) PROGRESS_FIELD_COUNT
#undef PROGRESS_FIELD_ENUM
};

/* One field of a record, for generic code (reports walk this table). */
enum field_type { FIELD_STRING, FIELD_COUNT };
struct record_field {
	const char *name;
	enum field_type type;
	size_t offset;
};
extern const struct record_field result_fields[RESULT_FIELD_COUNT];
extern const struct record_field hello_fields[HELLO_FIELD_COUNT];

const char *result_string(const struct guest_result *r, enum result_field f);
uint64_t result_count(const struct guest_result *r, enum result_field f);
bool result_has(const struct guest_result *r, enum result_field f);

/* Which record a console line is: RECORD_NONE for plain console output. */
enum record_kind record_kind_of(const char *line);

/* Parse a record line. Return 0, or -1 with a reason in err (unknown keys are
 * not errors: *unknown_keys counts them, so newer guests still work). */
int parse_result_record(const char *line, struct guest_result *out, int *unknown_keys, char *err,
			size_t errlen);
int parse_hello_record(const char *line, struct guest_hello *out, int *unknown_keys, char *err,
		       size_t errlen);
int parse_done_record(const char *line, struct guest_done *out, char *err, size_t errlen);
/* A skip record: every field is required. */
int parse_skip_record(const char *line, struct guest_skip *out, char *err, size_t errlen);
/* A progress record: every field is required; unknown keys are ignored. */
int parse_progress_record(const char *line, struct guest_progress *out, char *err, size_t errlen);
/* An integrity record: every field is required; unknown keys are ignored. */
int parse_integrity_record(const char *line, struct guest_integrity *out, char *err, size_t errlen);
/* A hung record (the kernel's watchdog): every field is required. */
int parse_hung_record(const char *line, struct guest_hung *out, char *err, size_t errlen);

#endif
