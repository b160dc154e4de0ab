/* SPDX-License-Identifier: MIT */
/* Helpers every subcommand shares: usage errors, numbers, comma lists. */
#ifndef FPULAB_CLI_COMMON_UTIL_H
#define FPULAB_CLI_COMMON_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * usage_error - one line "fpulab CMD: MESSAGE", then "try 'fpulab help CMD'",
 * on stderr. Returns 2, the exit status of a usage error, so that callers can
 * write `return usage_error(...)`.
 */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* vusage_error - usage_error with a va_list, for a command's own wrapper. Returns 2. */
int vusage_error(const char *cmd, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * refuse_output_over_input - 2 (a usage error, said on stderr as "fpulab
 * CMD: ...") when @out names the same existing file (st_dev and st_ino: a
 * link or another spelling of the path counts) as one of the command's
 * arguments @argv[1..argc), a file an option names included ("--costs F",
 * "--costs=F"); 0 otherwise, and when @out is NULL or does not exist yet.
 * @out's own argument (the --output or -o value, by pointer) is passed over.
 * The outputs are written to a temporary file renamed at the end, so without
 * this the input would be read whole and then replaced.
 */
int refuse_output_over_input(const char *cmd, const char *out, int argc, char **argv);

/*
 * refuse_output_over_file - the same for one input the arguments do not
 * name, @in (a file an environment variable names; "-": standard input),
 * described as @what in the message: 2 if @out is that file, else 0.
 */
int refuse_output_over_file(const char *cmd, const char *out, const char *in, const char *what);

/*
 * output_path_check - whether an output can be written at @path: not a
 * directory, and its folder takes a new file (the temporary one outputs are
 * written to, then renamed). Call it before work that would be lost.
 * Returns 0, or -1 with the reason in @err (@errlen bytes), naming @path
 * and its folder, never a temporary file.
 */
int output_path_check(const char *path, char *err, size_t errlen);

/*
 * output_target - the file an output named @path replaces: the file a
 * symlink names (so the link survives the rename), else @path itself;
 * malloc'ed (never NULL). *@mode: the existing file's permission bits, to
 * keep, or -1 when there is no regular file there.
 */
char *output_target(const char *path, int *mode);

/*
 * output_tmp_create - the temporary file an output named @path (replacing
 * @target, output_target's) is written to, in @target's folder so that the
 * rename is atomic: "TARGET.tmp-XXXXXX", or "FOLDER/.fpulab-XXXXXX" where
 * that name would be too long (NAME_MAX); permissions @mode (output_target's),
 * or 0666 less the umask where -1. Returns its descriptor and *@tmp_path
 * (malloc'ed), or -1 with "PATH: cannot create a file in FOLDER: why" in
 * @err (@errlen bytes): the user's path, never the temporary one.
 */
int output_tmp_create(const char *path, const char *target, int mode, char **tmp_path, char *err,
		      size_t errlen);

/*
 * fail_why - the reason, formatted as printf does, into @buf (@len bytes);
 * returns -1, so that a check that says why it failed can write
 * `return fail_why(why, len, "not an ELF file")`.
 */
int fail_why(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* append_why - fail_why's format appended to the message already in @buf. */
void append_why(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * long_opt_value - for a hand-written option loop, "--opt=value" as getopt_long
 * takes it: true, "--opt" into @name (@len bytes) and *@value the text after
 * '='; false (nothing written) for any other @arg.
 */
bool long_opt_value(const char *arg, char *name, size_t len, const char **value);

/* The width every help text keeps to, in columns. */
#define HELP_COLUMNS 80

/*
 * help_item - one entry of a help list: two spaces, @term padded to
 * @term_width, a space, then @text word-wrapped so that no line passes
 * HELP_COLUMNS; continuation lines start under the text's first column.
 */
void help_item(FILE *f, int term_width, const char *term, const char *text);

/*
 * parse_u64_arg - @text as a decimal integer in [@min, @max] for option
 * --@opt of @cmd. Returns 0 with *@out set, or 2 after a usage error that
 * names the value and the range ("not a non-negative integer" or "out of
 * range").
 */
int parse_u64_arg(const char *cmd, const char *opt, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out);

/*
 * parse_choice - @text must be one of the NULL-terminated @choices. Returns
 * its index, or -1 after a usage error that lists the choices (exit 2).
 */
int parse_choice(const char *cmd, const char *opt, const char *text, const char *const *choices);

/*
 * getopt_failed - the usage error (exit 2) for what getopt_long() returned
 * when it is neither an option nor -1: ':' (a value missing; the optstring
 * must start with ':' and opterr be 0) or '?' (an unknown option), naming
 * the option as given on @argv. Returns 2.
 */
int getopt_failed(const char *cmd, int c, char **argv);

/* list_has - whether comma-separated @list has the word @word (@len bytes). */
bool list_has(const char *list, const char *word, size_t len);

/* list_count - number of words of a comma-separated list ("" has none). */
unsigned list_count(const char *list);

/*
 * list_join - the NULL-terminated @words joined with @sep, malloc'ed (never
 * NULL: aborts when out of memory).
 */
char *list_join(const char *const *words, const char *sep);

/* plural - "s" unless @n is 1, for "%zu run%s" (n, plural(n)). */
const char *plural(unsigned long long n);

/* program_runnable - whether exec would find @name: a path that is executable, or a
 * name in one of PATH's directories (an empty entry is the current directory). */
bool program_runnable(const char *name);

/* xstrdup, xasprintf - as strdup and asprintf, aborting when out of memory. */
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * unsigned_zero - @x, or 0 where it is under @half in magnitude: what
 * printf("%.Nf") rounds to zero, with @half = 0.5e-N, prints as "0", never
 * as "-0".
 */
double unsigned_zero(double x, double half);

/*
 * share_of - "@part as N% of the @name" into @buf (@len bytes), or "@name
 * under @min ns: no ratio" where @whole (ns) is under @min (a whole at or
 * near zero, or negative, gives no meaningful share). Returns @buf.
 */
char *share_of(char *buf, size_t len, double part, double whole, double min, const char *name);

#endif
