// SPDX-License-Identifier: MIT
/* cli/common/output.c: the one result writer (table, JSON lines, CSV; files kept safe). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/output.h"

static char dir[] = "/tmp/fpulab-output-XXXXXX";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[4096];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static json_t *row(const char *policy, double ticks)
{
	json_t *r = json_object();
	json_object_set_new(r, "policy", json_string(policy));
	json_object_set_new(r, "nm_traps", json_integer(1000));
	json_object_set_new(r, "ticks", json_real(ticks));
	json_object_set_new(r, "note", json_null());
	return r;
}

static void csv_quotes_as_rfc4180(void **state)
{
	struct output o;
	char path[256];

	snprintf(path, sizeof(path), "%s/a.csv", dir);
	assert_int_equal(output_open(&o, OUTPUT_CSV, path, "test"), 0);
	output_provenance(&o, "command", json_string("fpulab run --policy \"a,b\""));
	assert_int_equal(output_row(&o, row("say \"hi\", twice", 1.5)), 0);
	assert_int_equal(output_close(&o), 0);
	assert_string_equal(slurp(path), "policy,nm_traps,ticks,note,command\n"
					 "\"say \"\"hi\"\", twice\",1000,1.5,,"
					 "\"fpulab run --policy \"\"a,b\"\"\"\n");
}

static void csv_note_is_one_quoted_field_of_a_full_record(void **state)
{
	struct output o;
	char path[256];

	snprintf(path, sizeof(path), "%s/note.csv", dir);
	assert_int_equal(output_open(&o, OUTPUT_CSV, path, "test"), 0);
	output_provenance(&o, "date", json_string("2026-12-01T00:00:00Z"));
	assert_int_equal(output_row(&o, row("eager", 1.5)), 0);
	output_csv_note(&o, "# PARTIAL: interrupted (SIGINT); 1 of 2 \"configurations\"");
	assert_int_equal(output_close(&o), 0);
	assert_string_equal(
		slurp(path),
		"policy,nm_traps,ticks,note,date\n"
		"eager,1000,1.5,,2026-12-01T00:00:00Z\n"
		"\"# PARTIAL: interrupted (SIGINT); 1 of 2 \"\"configurations\"\"\",,,,\n");
}

static void json_rows_carry_provenance_after_their_keys(void **state)
{
	struct output o;
	char path[256];

	snprintf(path, sizeof(path), "%s/a.json", dir);
	assert_int_equal(output_open(&o, OUTPUT_JSON, path, "test"), 0);
	output_provenance(&o, "date", json_string("2026-12-01T00:00:00Z"));
	assert_int_equal(output_row(&o, row("eager", 23041.2)), 0);
	assert_int_equal(output_row(&o, row("lazy", 0.92)), 0);
	assert_int_equal(output_close(&o), 0);
	assert_string_equal(slurp(path),
			    "{\"policy\": \"eager\", \"nm_traps\": 1000, \"ticks\": 23041.2, "
			    "\"note\": null, \"date\": \"2026-12-01T00:00:00Z\"}\n"
			    "{\"policy\": \"lazy\", \"nm_traps\": 1000, \"ticks\": 0.92, "
			    "\"note\": null, \"date\": \"2026-12-01T00:00:00Z\"}\n");
}

static void table_shows_columns_and_dashes(void **state)
{
	static const struct output_column cols[] = {
		{ "policy", NULL, -8, 0 },
		{ "ticks", "ticks/rt", 9, 1 },
		{ "note", NULL, 5, 0 },
	};
	struct output o;
	char path[256];

	snprintf(path, sizeof(path), "%s/a.txt", dir);
	assert_int_equal(output_open(&o, OUTPUT_TABLE, path, "test"), 0);
	output_columns(&o, cols, 3);
	output_comment(&o, "ticks: %s", "emulated");
	assert_int_equal(output_row(&o, row("eager", 23041.25)), 0);
	assert_int_equal(output_close(&o), 0);
	assert_string_equal(slurp(path), "# ticks: emulated\n"
					 "policy    ticks/rt  note\n"
					 "eager      23041.2     -\n");
}

static void no_row_leaves_the_file_as_it_was(void **state)
{
	struct output o;
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/old.csv", dir);
	f = fopen(path, "w");
	fputs("old results\n", f);
	fclose(f);
	assert_int_equal(output_open(&o, OUTPUT_CSV, path, "test"), 0);
	assert_int_equal(output_close(&o), 0);
	assert_string_equal(slurp(path), "old results\n");
}

static void unwritable_paths_are_refused_at_open(void **state)
{
	struct output o;
	char path[256];

	snprintf(path, sizeof(path), "%s/no/such/dir/x.csv", dir);
	assert_int_equal(output_open(&o, OUTPUT_CSV, path, "test"), -1);
	assert_non_null(strstr(o.error, "cannot create a file in"));
	assert_int_equal(output_open(&o, OUTPUT_CSV, dir, "test"), -1);
	assert_non_null(strstr(o.error, "is a directory"));
}

static void host_provenance_names_version_cpu_and_command(void **state)
{
	struct output o;
	char *argv[] = { "fpulab", "run", "--output", "my file.csv" };

	assert_int_equal(output_open(&o, OUTPUT_JSON, NULL, "test"), 0);
	output_provenance_host(&o, 4, argv);
	assert_string_equal(json_string_value(json_object_get(o.provenance, "command")),
			    "fpulab run --output 'my file.csv'");
	assert_non_null(json_string_value(json_object_get(o.provenance, "fpulab_version")));
	assert_non_null(json_string_value(json_object_get(o.provenance, "fpulab_git")));
	assert_non_null(json_string_value(json_object_get(o.provenance, "host_kernel")));
	assert_int_equal(strlen(json_string_value(json_object_get(o.provenance, "date"))), 20);
	assert_int_equal(output_close(&o), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_quotes_as_rfc4180),
		cmocka_unit_test(csv_note_is_one_quoted_field_of_a_full_record),
		cmocka_unit_test(json_rows_carry_provenance_after_their_keys),
		cmocka_unit_test(table_shows_columns_and_dashes),
		cmocka_unit_test(no_row_leaves_the_file_as_it_was),
		cmocka_unit_test(unwritable_paths_are_refused_at_open),
		cmocka_unit_test(host_provenance_names_version_cpu_and_command),
	};
	if (!mkdtemp(dir))
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return rc;
}
