/* SPDX-License-Identifier: MIT */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpu_model.h"
#include "plot.h"
#include "stop_signals.h"
#include "util.h"
#include "version.h"

const char *const output_format_names[] = { "table", "json", "csv", NULL };

int output_opt(struct output_opts *o, const char *cmd, const char *opt, const char *arg)
{
	if (!strcmp(opt, "format")) {
		int i = parse_choice(cmd, "format", arg,
				     o->formats ? o->formats : output_format_names);
		if (i < 0)
			return 2;
		o->format = i;
		return 0;
	}
	if (strcmp(opt, "output"))
		return -1;
	if (!*arg)
		return usage_error(cmd, "--output: empty file name");
	o->path = arg;
	return 0;
}

#define JSON_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

/* A device or a pipe (/dev/stdout, a FIFO) is written as it is: no rename. */
static int open_in_place(struct output *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		snprintf(o->error, sizeof(o->error), "--output %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return 0;
}

/*
 * The temporary files of the outputs open now, removed if a signal ends the
 * command before output_close(): the path keeps what it had (as after a
 * run that wrote no row). Only where the signal would end the command (its
 * disposition the default): a command that catches it (run, host unlink)
 * closes its outputs itself.
 */
#define OUTPUT_MAX_OPEN 4
static char *open_tmp[OUTPUT_MAX_OPEN];

static void remove_tmp_and_die(int sig)
{
	for (int i = 0; i < OUTPUT_MAX_OPEN; i++)
		if (open_tmp[i])
			unlink(open_tmp[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void watch_tmp(char *tmp, bool on)
{
	for (int i = 0; i < OUTPUT_MAX_OPEN; i++)
		if (on ? !open_tmp[i] : open_tmp[i] == tmp) {
			open_tmp[i] = on ? tmp : NULL;
			break;
		}
	for (int i = 0; on && i < STOP_SIGNALS_N; i++) {
		struct sigaction old;
		if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			signal(stop_signals[i], remove_tmp_and_die);
	}
}

int output_open(struct output *o, enum output_format format, const char *path, const char *cmd)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->format = format;
	o->cmd = cmd;
	o->path = path;
	o->provenance = json_object();
	o->csv_keys = json_array();
	if (!o->provenance || !o->csv_keys)
		abort();
	if (!path) {
		o->f = stdout;
		return 0;
	}
	bool exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return open_in_place(o, path);
	char why[sizeof(o->error) - 16];
	if (output_path_check(path, why, sizeof(why))) { /* a directory, a missing folder */
		snprintf(o->error, sizeof(o->error), "--output %s", why);
		return -1;
	}
	if (exists && access(path, W_OK) < 0) {
		snprintf(o->error, sizeof(o->error), "--output %s: %s", path, strerror(errno));
		return -1;
	}
	int mode;
	o->target = output_target(path, &mode); /* a symlink's file: the link stays */
	int fd = output_tmp_create(path, o->target, mode, &o->tmp_path, why, sizeof(why));
	if (fd < 0) {
		snprintf(o->error, sizeof(o->error), "--output %s", why);
		free(o->target);
		o->target = NULL;
		return -1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f)
		abort();
	watch_tmp(o->tmp_path, true);
	return 0;
}

void output_provenance(struct output *o, const char *key, json_t *value)
{
	json_object_set_new(o->provenance, key, value ? value : json_null());
}

/* The host CPU's model (cpu_model.h: the CPUID brand string), or null. */
static json_t *host_cpu_model(void)
{
	char model[64];

	return cpu_model(model, sizeof(model)) ? json_string(model) : json_null();
}

/* The command line as a shell would take it back: words quoted where needed. */
static json_t *command_line(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	char *s = calloc(1, len), *p = s;
	if (!s)
		abort();
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool plain = *a && !a[strcspn(a, " \t\n'\"\\$`*?[]{}()<>|&;!#~")];
		if (i)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, a);
			continue;
		}
		*p++ = '\'';
		for (; *a; a++)
			p = *a == '\'' ? stpcpy(p, "'\\''") : (*p = *a, p + 1);
		*p++ = '\'';
	}
	*p = '\0';
	json_t *j = json_string(s);
	free(s);
	return j ? j : json_null();
}

void output_provenance_host(struct output *o, int argc, char **argv)
{
	struct utsname u;
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	output_provenance(o, "fpulab_version", json_string(fpulab_version()));
	output_provenance(o, "fpulab_git", json_string(fpulab_git_describe()));
	output_provenance(o, "host_cpu", host_cpu_model());
	output_provenance(o, "host_kernel", uname(&u) == 0 ? json_string(u.release) : NULL);
	output_provenance(o, "date", json_string(date));
	output_provenance(o, "command", command_line(argc, argv));
}

void output_columns(struct output *o, const struct output_column *cols, size_t n)
{
	o->columns = cols;
	o->ncolumns = n;
}

static void keep(struct output *o, const char *text, size_t len)
{
	if (o->kept_len + len + 1 > o->kept_cap) {
		o->kept_cap = 2 * (o->kept_len + len + 1);
		o->kept = realloc(o->kept, o->kept_cap);
		if (!o->kept)
			abort();
	}
	memcpy(o->kept + o->kept_len, text, len);
	o->kept_len += len;
	o->kept[o->kept_len] = '\0';
}

/* Write whole lines, flushed; remember everything for the fallback. */
static int emit(struct output *o, const char *text, size_t len)
{
	keep(o, text, len);
	if (o->write_failed)
		return -1;
	if (fwrite(text, 1, len, o->f) != len || fflush(o->f) != 0) {
		o->write_failed = true;
		snprintf(o->error, sizeof(o->error), "cannot write %s: %s",
			 o->path ? o->path : "stdout", strerror(errno));
		return -1;
	}
	return 0;
}

void output_comment(struct output *o, const char *fmt, ...)
{
	va_list ap;
	char *body, *line;

	if (o->format != OUTPUT_TABLE)
		return;
	va_start(ap, fmt);
	if (vasprintf(&body, fmt, ap) < 0)
		abort();
	va_end(ap);
	line = xasprintf("# %s\n", body);
	emit(o, line, strlen(line));
	free(body);
	free(line);
}

const char *output_cell(const json_t *v, int decimals, char *buf, size_t len)
{
	if (!v) /* a key the row does not have (json_typeof() would read through NULL) */
		return NULL;
	switch (json_typeof(v)) {
	case JSON_STRING:
		return json_string_value(v);
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	case JSON_REAL:
		if (decimals >= 0)
			snprintf(buf, len, "%.*f", decimals, json_real_value(v));
		else if (snprintf(buf, len, "%.10g", json_real_value(v)) > 0 &&
			 !buf[strcspn(buf, ".eni")] && strlen(buf) + 2 < len)
			strcat(buf, ".0"); /* as jansson writes it: still a real */
		return buf;
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	default:
		return NULL;
	}
}

static void csv_cell(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * The header is the first row's keys; a later row's key missing from it
 * would be lost without a word, so the first such key is said on stderr.
 */
static void csv_check_keys(struct output *o, json_t *row)
{
	const char *key;
	json_t *v;

	json_object_foreach(row, key, v)
	{
		bool found = false;
		for (size_t i = 0; i < json_array_size(o->csv_keys) && !found; i++)
			found = !strcmp(json_string_value(json_array_get(o->csv_keys, i)), key);
		if (!found && !o->csv_key_lost) {
			fprintf(stderr,
				"fpulab: CSV: a row's key '%s' is not in the header: left out\n",
				key);
			o->csv_key_lost = true;
		}
	}
}

static void write_csv(struct output *o, FILE *f, json_t *row)
{
	char buf[64];

	if (!json_array_size(o->csv_keys)) {
		for (void *it = json_object_iter(row); it; it = json_object_iter_next(row, it))
			json_array_append_new(o->csv_keys, json_string(json_object_iter_key(it)));
		for (size_t i = 0; i < json_array_size(o->csv_keys); i++) {
			fputs(i ? "," : "", f);
			csv_cell(f, json_string_value(json_array_get(o->csv_keys, i)));
		}
		fputc('\n', f);
	}
	csv_check_keys(o, row);
	for (size_t i = 0; i < json_array_size(o->csv_keys); i++) {
		const char *key = json_string_value(json_array_get(o->csv_keys, i));
		const char *cell = output_cell(json_object_get(row, key), -1, buf, sizeof(buf));
		fputs(i ? "," : "", f);
		csv_cell(f, cell ? cell : "");
	}
	fputc('\n', f);
}

static void write_table(struct output *o, FILE *f, json_t *row)
{
	char buf[64];

	if (!o->table_heading_done) {
		for (size_t i = 0; i < o->ncolumns; i++) {
			const struct output_column *c = &o->columns[i];
			fprintf(f, "%s%*s", i ? " " : "", c->width, c->title ? c->title : c->key);
		}
		fputc('\n', f);
		o->table_heading_done = true;
	}
	for (size_t i = 0; i < o->ncolumns; i++) {
		const struct output_column *c = &o->columns[i];
		const char *cell = output_cell(json_object_get(row, c->key), c->decimals, buf,
					       sizeof(buf));
		fprintf(f, "%s%*s", i ? " " : "", c->width, cell ? cell : "-");
	}
	fputc('\n', f);
}

int output_text(struct output *o, const char *text)
{
	o->rows++;
	return emit(o, text, strlen(text));
}

void output_csv_note(struct output *o, const char *text)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	if (o->format != OUTPUT_CSV)
		return;
	f = open_memstream(&line, &len);
	if (!f)
		abort();
	csv_cell(f, text);
	for (size_t i = 1; i < json_array_size(o->csv_keys); i++)
		fputc(',', f);
	fputc('\n', f);
	fclose(f);
	emit(o, line, len);
	free(line);
}

int output_row(struct output *o, json_t *row)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	if (o->format != OUTPUT_TABLE || (o->plot_rows && !o->plot_own_rows))
		json_object_update_missing(row, o->provenance);
	if (o->format == OUTPUT_JSON) {
		json_dumpf(row, f, JSON_FLAGS);
		fputc('\n', f);
	} else if (o->format == OUTPUT_CSV) {
		write_csv(o, f, row);
	} else {
		write_table(o, f, row);
	}
	fclose(f);
	if (o->plot_rows && !o->plot_own_rows)
		json_array_append(o->plot_rows, row);
	json_decref(row);
	int rc = emit(o, text, len);
	free(text);
	o->rows++;
	return rc;
}

int output_plot(struct output *o, const char *dir)
{
	if (plot_dir_prepare(dir, o->error, sizeof(o->error)))
		return -1;
	o->plot_dir = dir;
	o->plot_rows = json_array();
	if (!o->plot_rows)
		abort();
	return 0;
}

void output_plot_row(struct output *o, json_t *row)
{
	if (!o->plot_rows) {
		json_decref(row);
		return;
	}
	o->plot_own_rows = true;
	json_object_update_missing(row, o->provenance);
	json_array_append_new(o->plot_rows, row);
}

/* The plots output_plot() asked for: 0, or -1 when one could not be drawn. */
static int close_plots(struct output *o)
{
	int plots = 0;

	if (!o->plot_dir)
		return 0;
	if (json_array_size(o->plot_rows))
		plots = plot_rows(o->plot_rows, o->plot_dir, o->cmd);
	if (plots >= 0)
		plots += o->plots_beside;
	if (plots == 0)
		fprintf(stderr, "fpulab %s: --plot %s: no row has a figure to plot\n", o->cmd,
			o->plot_dir);
	else if (plots > 0)
		fprintf(stderr, "fpulab %s: plots: %s/ (%d SVG)\n", o->cmd, o->plot_dir, plots);
	json_decref(o->plot_rows);
	o->plot_rows = NULL;
	o->plot_dir = NULL;
	return plots < 0 ? -1 : 0;
}

int output_close(struct output *o)
{
	int rc = 0;

	if (o->path && o->f) {
		bool in_place = !o->tmp_path;

		if (fclose(o->f) != 0 && !o->write_failed) {
			o->write_failed = true;
			snprintf(o->error, sizeof(o->error), "cannot write %s: %s", o->path,
				 strerror(errno));
		}
		if (in_place) {
			/* nothing to rename or remove */
		} else if (!o->rows) {
			unlink(o->tmp_path);
		} else if (!o->write_failed && rename(o->tmp_path, o->target) != 0) {
			o->write_failed = true;
			snprintf(o->error, sizeof(o->error), "cannot write %s: %s", o->path,
				 strerror(errno));
		}
		if (o->write_failed && !in_place)
			unlink(o->tmp_path);
	} else if (o->f && fflush(o->f) != 0 && !o->write_failed) {
		o->write_failed = true;
		snprintf(o->error, sizeof(o->error), "cannot write stdout: %s", strerror(errno));
	}
	if (o->write_failed) {
		fprintf(stderr, "fpulab %s: %s\n", o->cmd, o->error);
		if (o->path && o->kept_len) {
			fprintf(stderr, "fpulab %s: the results follow on stdout instead\n",
				o->cmd);
			fwrite(o->kept, 1, o->kept_len, stdout);
			fflush(stdout);
		}
		rc = -1;
	}
	o->f = NULL;
	if (o->tmp_path)
		watch_tmp(o->tmp_path, false);
	free(o->tmp_path);
	free(o->target);
	o->target = NULL;
	free(o->kept);
	json_decref(o->provenance);
	json_decref(o->csv_keys);
	o->tmp_path = o->kept = NULL;
	o->provenance = o->csv_keys = NULL;
	if (close_plots(o) < 0)
		rc = -1;
	return rc;
}
