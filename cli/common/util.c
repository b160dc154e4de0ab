/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int vusage_error(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "fpulab %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\ntry 'fpulab help %s'\n", cmd);
	return 2;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_error(cmd, fmt, ap);
	va_end(ap);
	return 2;
}

/* Whether @st and the file at @path ("-": standard input) are one file. */
static bool same_file(const struct stat *st, const char *path)
{
	struct stat other;
	int r = strcmp(path, "-") ? stat(path, &other) : fstat(0, &other);
	return r == 0 && other.st_dev == st->st_dev && other.st_ino == st->st_ino;
}

int refuse_output_over_input(const char *cmd, const char *out, int argc, char **argv)
{
	struct stat st;

	if (!out || stat(out, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* a new file, or one written in place (/dev/null, a FIFO) */
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		if (out >= arg && out <= arg + strlen(arg))
			continue; /* the output's own argument */
		if (same_file(&st, arg) || (arg[0] == '-' && eq && same_file(&st, eq + 1)))
			return usage_error(
				cmd, "the output %s is the input %s: refusing to overwrite it", out,
				!strcmp(arg, "-")     ? "- (standard input)"
				: arg[0] == '-' && eq ? eq + 1
						      : arg);
	}
	return 0;
}

int refuse_output_over_file(const char *cmd, const char *out, const char *in, const char *what)
{
	struct stat st;

	if (!out || !in || stat(out, &st) != 0 || !S_ISREG(st.st_mode) || !same_file(&st, in))
		return 0;
	return usage_error(cmd, "the output %s is %s (%s): refusing to overwrite it", out, what,
			   in);
}

bool long_opt_value(const char *arg, char *name, size_t len, const char **value)
{
	const char *eq = strchr(arg, '=');

	if (strncmp(arg, "--", 2) || !eq || (size_t)(eq - arg) >= len)
		return false;
	snprintf(name, len, "%.*s", (int)(eq - arg), arg);
	*value = eq + 1;
	return true;
}

void append_why(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strnlen(buf, len);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

int fail_why(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

int parse_u64_arg(const char *cmd, const char *opt, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	char *end;

	if (!(*text >= '0' && *text <= '9'))
		goto not_a_number;
	errno = 0;
	*out = strtoull(text, &end, 10);
	if (*end)
		goto not_a_number;
	if (errno == ERANGE || *out < min || *out > max)
		return usage_error(cmd, "--%s: %s is out of range (%" PRIu64 "..%" PRIu64 ")", opt,
				   text, min, max);
	return 0;
not_a_number:
	return usage_error(cmd,
			   "--%s: '%s' is not a non-negative integer (%" PRIu64 "..%" PRIu64 ")",
			   opt, text, min, max);
}

int parse_choice(const char *cmd, const char *opt, const char *text, const char *const *choices)
{
	for (int i = 0; choices[i]; i++)
		if (!strcmp(choices[i], text))
			return i;
	char *all = list_join(choices, ", ");
	usage_error(cmd, "--%s: unknown value '%s' (one of: %s)", opt, text, all);
	free(all);
	return -1;
}

bool list_has(const char *list, const char *word, size_t len)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && !strncmp(p, word, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

unsigned list_count(const char *list)
{
	unsigned n = *list != '\0';

	for (; *list; list++)
		n += *list == ',';
	return n;
}

char *list_join(const char *const *words, const char *sep)
{
	size_t len = 1;

	for (const char *const *w = words; *w; w++)
		len += strlen(*w) + strlen(sep);
	char *s = malloc(len);
	if (!s)
		abort();
	s[0] = '\0';
	for (const char *const *w = words; *w; w++) {
		if (w != words)
			strcat(s, sep);
		strcat(s, *w);
	}
	return s;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		abort();
	return d;
}

bool program_runnable(const char *name)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (const char *p = path ? path : "/usr/bin:/bin";; p++) {
		size_t n = strcspn(p, ":");
		char *f = n ? xasprintf("%.*s/%s", (int)n, p, name) : xstrdup(name);
		bool ok = access(f, X_OK) == 0;
		free(f);
		if (ok)
			return true;
		p += n;
		if (!*p)
			return false;
	}
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

const char *plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

double unsigned_zero(double x, double half)
{
	return fabs(x) < half ? 0.0 : x;
}

char *share_of(char *buf, size_t len, double part, double whole, double min, const char *name)
{
	if (whole >= min)
		snprintf(buf, len, "%.0f%% of the %s", unsigned_zero(100 * part / whole, 0.5),
			 name);
	else
		snprintf(buf, len, "%s under %g ns: no ratio", name, min);
	return buf;
}

void help_item(FILE *f, int term_width, const char *term, const char *text)
{
	int indent = 2 + term_width + 1, col = fprintf(f, "  %-*s ", term_width, term);
	bool line_start = true; /* nothing of @text on this line yet */

	for (const char *p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
		int word = (int)strcspn(p, " ");
		if (col > indent && col + !line_start + word > HELP_COLUMNS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			line_start = true;
		}
		col += fprintf(f, "%s%.*s", line_start ? "" : " ", word, p);
		line_start = false;
		p += word;
	}
	fputc('\n', f);
}

int output_path_check(const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *dir = xstrdup(path);
	int rc = 0;

	if (!*path)
		rc = fail_why(err, errlen, "an empty file name");
	else if (path[strlen(path) - 1] == '/')
		rc = fail_why(err, errlen, "%s: names a directory (a trailing /): a FILE is meant",
			      path);
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		rc = fail_why(err, errlen, "%s: is a directory", path);
	else if (access(dirname(dir), W_OK | X_OK))
		rc = fail_why(err, errlen, "%s: cannot create a file in %s: %s", path, dir,
			      strerror(errno));
	free(dir);
	return rc;
}

char *output_target(const char *path, int *mode)
{
	struct stat st;
	char *real = NULL;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		real = realpath(path, NULL); /* NULL if it dangles: the link is replaced */
	char *target = real ? real : xstrdup(path);
	*mode = stat(target, &st) == 0 && S_ISREG(st.st_mode) ? (int)(st.st_mode & 07777) : -1;
	return target;
}

int output_tmp_create(const char *path, const char *target, int mode, char **tmp_path, char *err,
		      size_t errlen)
{
	static const char suffix[] = ".tmp-XXXXXX";
	const char *base = strrchr(target, '/');
	size_t dir_len = base ? (size_t)(base - target) + 1 : 0;
	char *dir = dir_len ? xasprintf("%.*s", (int)dir_len, target) : xstrdup(".");
	long name_max = pathconf(dir, _PC_NAME_MAX);

	free(dir);
	if (name_max <= 0)
		name_max = 255;
	if (strlen(target + dir_len) + sizeof(suffix) - 1 <= (size_t)name_max)
		*tmp_path = xasprintf("%s%s", target, suffix);
	else
		*tmp_path = xasprintf("%.*s.fpulab-XXXXXX", (int)dir_len, target);
	int fd = mkstemp(*tmp_path);
	if (fd < 0) {
		char *folder = xstrdup(path);
		fail_why(err, errlen, "%s: cannot create a file in %s: %s", path, dirname(folder),
			 strerror(errno));
		free(folder);
		free(*tmp_path);
		*tmp_path = NULL;
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, mode >= 0 ? (mode_t)mode : 0666 & ~mask); /* not mkstemp's 0600 */
	return fd;
}

int getopt_failed(const char *cmd, int c, char **argv)
{
	const char *given = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':')
		return usage_error(cmd, "option '%s' needs a value", given);
	if (optopt)
		return usage_error(cmd, "unknown option '-%c'", optopt);
	return usage_error(cmd, "unknown option '%s'", given);
}
