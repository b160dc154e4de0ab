/* SPDX-License-Identifier: MIT */
/*
 * Parsing one line of `perf script` text (perf_line.h). Fields that hold
 * names (COMM, prev_comm=, filename=) may hold spaces, '=' and any other
 * byte, so each line is taken apart from its fixed points: the "[CPU]"
 * field after the TID, and, in a tracepoint's fields, the keys that follow
 * a name, found from the right.
 */
#include "perf_line.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"

#define FIELDS_HINT                                                                      \
	" (perf script with other -F fields? the importer reads its default ones, with " \
	"or without comm and with pid/tid)"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The last occurrence of @key in [@s, @end), or NULL. */
static const char *rfind(const char *s, const char *end, const char *key)
{
	size_t n = strlen(key);

	if ((size_t)(end - s) < n)
		return NULL;
	for (const char *p = end - n; p >= s; p--)
		if (!memcmp(p, key, n))
			return p;
	return NULL;
}

/* A decimal integer filling [@p, @end) exactly, optionally negative. */
static bool parse_dec(const char *p, const char *end, int64_t *v)
{
	bool neg = p < end && *p == '-';
	uint64_t x = 0;

	p += neg;
	if (p >= end || end - p > 18)
		return false;
	for (; p < end; p++) {
		if (!is_digit(*p))
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

/* A hexadecimal integer filling [@p, @end), with or without 0x. */
static bool parse_hex(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p >= end || end - p > 16)
		return false;
	for (; p < end; p++) {
		char c = *p;
		unsigned int d = is_digit(c)              ? (unsigned int)(c - '0')
				 : (c >= 'a' && c <= 'f') ? (unsigned int)(c - 'a' + 10)
				 : (c >= 'A' && c <= 'F') ? (unsigned int)(c - 'A' + 10)
							  : 16;
		if (d > 15)
			return false;
		x = x << 4 | d;
	}
	*v = x;
	return true;
}

/* A pid: the decimal between the end of @key (found from the right in [@s, @end)) and @end. */
static bool key_pid(const char *s, const char *end, const char *key, int32_t *pid, const char **at)
{
	const char *k = rfind(s, end, key);
	int64_t v;

	if (!k || !parse_dec(k + strlen(key), end, &v) || v < -1 || v > INT32_MAX)
		return false;
	*pid = (int32_t)v;
	if (at)
		*at = k;
	return true;
}

/* "prev_comm=C prev_pid=P prev_prio=Q prev_state=S ==> next_comm=C next_pid=P next_prio=Q" */
static int parse_switch(const char *f, const char *end, struct perf_line *l, char *err,
			size_t errlen)
{
	const char *arrow = rfind(f, end, " ==> next_comm="), *st, *prio, *nprio;

	if (strncmp(f, "prev_comm=", 10) || !arrow)
		return fail_why(err, errlen, "sched_switch without prev_comm= ... ==> next_comm=");
	st = rfind(f, arrow, " prev_state=");
	prio = st ? rfind(f, st, " prev_prio=") : NULL;
	nprio = rfind(arrow, end, " next_prio=");
	if (!prio || !nprio || !key_pid(f, prio, " prev_pid=", &l->pid_a, NULL) ||
	    !key_pid(arrow, nprio, " next_pid=", &l->pid_b, NULL))
		return fail_why(err, errlen,
				"sched_switch without prev_pid, prev_state or next_pid");
	l->dead = memchr(st + 12, 'X', (size_t)(arrow - st - 12)) ||
		  memchr(st + 12, 'Z', (size_t)(arrow - st - 12));
	return 0;
}

/* "comm=C pid=P prio=Q orig_cpu=A dest_cpu=B" */
static int parse_migrate(const char *f, const char *end, struct perf_line *l, char *err,
			 size_t errlen)
{
	const char *dest = rfind(f, end, " dest_cpu="), *orig, *prio;
	int64_t a, b;

	orig = dest ? rfind(f, dest, " orig_cpu=") : NULL;
	prio = orig ? rfind(f, orig, " prio=") : NULL;
	if (!prio || !key_pid(f, prio, " pid=", &l->pid_a, NULL) ||
	    !parse_dec(orig + 10, dest, &a) || !parse_dec(dest + 10, end, &b) || a < 0 || b < 0 ||
	    a > 1 << 20 || b > 1 << 20)
		return fail_why(err, errlen,
				"sched_migrate_task without pid, orig_cpu or dest_cpu");
	l->cpu_a = (uint32_t)a;
	l->cpu_b = (uint32_t)b;
	return 0;
}

/* fork "comm=C pid=P child_comm=C child_pid=P"; exec "filename=F pid=P old_pid=P";
 * exit "comm=C pid=P prio=Q[ group_dead=B]" */
static int parse_task(const char *f, const char *end, struct perf_line *l, char *err, size_t errlen)
{
	const char *k;

	if (l->type == PE_FORK) {
		if (!key_pid(f, end, " child_pid=", &l->pid_b, &k) ||
		    !(k = rfind(f, k, " child_comm=")) || !key_pid(f, k, " pid=", &l->pid_a, NULL))
			return fail_why(err, errlen, "sched_process_fork without pid or child_pid");
	} else if (l->type == PE_EXEC) {
		if (!key_pid(f, end, " old_pid=", &l->pid_b, &k) ||
		    !key_pid(f, k, " pid=", &l->pid_a, NULL))
			return fail_why(err, errlen, "sched_process_exec without pid or old_pid");
	} else {
		k = rfind(f, end, " prio=");
		if (!k || !key_pid(f, k, " pid=", &l->pid_a, NULL))
			return fail_why(err, errlen, "sched_process_exit without pid");
	}
	return 0;
}

/* "sig=N errno=N code=N sa_handler=H sa_flags=H" */
static int parse_signal(const char *f, const char *end, struct perf_line *l, char *err,
			size_t errlen)
{
	const char *h = rfind(f, end, " sa_handler="), *fl = rfind(f, end, " sa_flags=");
	uint64_t v;

	if (!h || !fl || fl < h || !parse_hex(h + 12, fl, &v))
		return fail_why(err, errlen, "signal_deliver without sa_handler");
	l->handler = v > 1; /* SIG_DFL 0, SIG_IGN 1 */
	return 0;
}

/* "x86/fpu: PTR load: N xfeatures: H xcomp_bv: H" (Linux 5.2 on: load is TIF_NEED_FPU_LOAD) */
static int parse_fpu(const char *f, const char *end, struct perf_line *l, char *err, size_t errlen)
{
	const char *ld = rfind(f, end, " load: "), *xf = rfind(f, end, " xfeatures: "),
		   *xc = rfind(f, end, " xcomp_bv: ");
	int64_t v;

	if (!ld)
		return fail_why(err, errlen,
				"x86_fpu event without a load: field (Linux before 5.2, without "
				"TIF_NEED_FPU_LOAD, is not supported)");
	if (!xf || !xc || !(ld < xf && xf < xc) || !parse_dec(ld + 7, xf, &v) || v < 0 || v > 1 ||
	    !parse_hex(xf + 12, xc, &l->xfeatures) || !parse_hex(xc + 11, end, &l->xcomp_bv))
		return fail_why(err, errlen, "x86_fpu event without load, xfeatures or xcomp_bv");
	l->load = (int)v;
	return 0;
}

static const struct {
	const char *name;
	enum perf_ev type;
} events[] = {
	{ "sched:sched_switch", PE_SWITCH },
	{ "sched:sched_migrate_task", PE_MIGRATE },
	{ "sched:sched_process_fork", PE_FORK },
	{ "sched:sched_process_exec", PE_EXEC },
	{ "sched:sched_process_exit", PE_EXIT },
	{ "signal:signal_deliver", PE_SIGNAL },
	{ "syscalls:sys_enter_rt_sigreturn", PE_SIGRETURN },
	{ "x86_fpu:x86_fpu_regs_activated", PE_ACT },
	{ "x86_fpu:x86_fpu_regs_deactivated", PE_DEACT },
	{ "x86_fpu:x86_fpu_dropped", PE_DROP },
	{ "x86_fpu:x86_fpu_copy_dst", PE_COPY_DST },
	{ "x86_fpu:x86_fpu_after_save", PE_AFTER_SAVE },
};

static int parse_fields(const char *f, const char *end, struct perf_line *l, char *err,
			size_t errlen)
{
	switch (l->type) {
	case PE_SWITCH:
		return parse_switch(f, end, l, err, errlen);
	case PE_MIGRATE:
		return parse_migrate(f, end, l, err, errlen);
	case PE_FORK:
	case PE_EXEC:
	case PE_EXIT:
		return parse_task(f, end, l, err, errlen);
	case PE_SIGNAL:
		return parse_signal(f, end, l, err, errlen);
	case PE_ACT:
	case PE_DEACT:
	case PE_DROP:
	case PE_COPY_DST:
	case PE_AFTER_SAVE:
		return parse_fpu(f, end, l, err, errlen);
	default:
		return 0;
	}
}

/* "PERF_RECORD_LOST lost N" (--show-lost-events), and its _SAMPLES kin. */
static int parse_lost(const char *p, const char *end, struct perf_line *l, char *err, size_t errlen)
{
	const char *k = rfind(p, end, " lost ");
	int64_t v;

	if (!k || !parse_dec(k + 6, end, &v) || v < 0)
		return fail_why(err, errlen, "PERF_RECORD_LOST without a count");
	l->type = PE_LOST;
	l->lost = (uint64_t)v;
	return 0;
}

/* "SECONDS.FRACTION:" at @p; the position after the colon in *@next. */
static int parse_time(const char *p, const char *end, struct perf_line *l, const char **next)
{
	const char *dot = p, *q;
	uint64_t s = 0, f = 0;

	while (dot < end && is_digit(*dot))
		dot++;
	if (dot == p || dot - p > 10 || dot >= end || *dot != '.')
		return -1;
	for (q = p; q < dot; q++)
		s = s * 10 + (uint64_t)(*q - '0');
	for (q = dot + 1; q < end && is_digit(*q); q++)
		f = f * 10 + (uint64_t)(*q - '0');
	l->digits = (unsigned int)(q - dot - 1);
	if (l->digits < 1 || l->digits > 9 || q >= end || *q != ':')
		return -1;
	for (unsigned int d = l->digits; d < 9; d++)
		f *= 10;
	l->ts_ns = s * 1000000000ull + f;
	*next = q + 1;
	return 0;
}

/* "COMM TID [CPU] ": the CPU, the TID before it; the position after "] " in *@next. */
static int parse_head(const char *line, const char *end, struct perf_line *l, const char **next)
{
	for (const char *b = memchr(line, '[', (size_t)(end - line)); b;
	     b = memchr(b + 1, '[', (size_t)(end - b - 1))) {
		const char *c = b + 1, *t = b, *tid;
		uint64_t cpu = 0;
		int64_t v;
		while (c < end && is_digit(*c) && cpu < 1u << 20)
			cpu = cpu * 10 + (uint64_t)(*c++ - '0');
		if (c == b + 1 || c >= end - 1 || *c != ']' || c[1] != ' ' || t == line ||
		    t[-1] != ' ')
			continue;
		while (t > line && t[-1] == ' ')
			t--;
		tid = t;
		while (tid > line && tid[-1] != ' ' && tid[-1] != '/')
			tid--;
		if (!parse_dec(tid, t, &v) || v < -1 || v > INT32_MAX)
			continue;
		l->tid = (int32_t)v;
		l->cpu = (uint32_t)cpu;
		*next = c + 2;
		return 0;
	}
	return -1;
}

int perf_parse_line(char *line, size_t len, struct perf_line *l, char *err, size_t errlen)
{
	const char *end = line + len, *p = line, *name, *colon;

	while (end > line && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	while (p < end && *p == ' ')
		p++;
	if (p == end || *p == '#')
		return 1;
	memset(l, 0, sizeof(*l));
	if (*p == '{')
		return fail_why(err, errlen,
				"starts with '{': this looks like JSON result rows (as "
				"--format json writes them), not perf script text");
	if (parse_head(line, end, l, &p))
		return fail_why(err, errlen,
				"not a line of perf script's default fields (COMM TID [CPU] TIME: "
				"EVENT: FIELDS): no [CPU] after a TID" FIELDS_HINT);
	while (p < end && *p == ' ')
		p++;
	if (parse_time(p, end, l, &p))
		return fail_why(err, errlen,
				"no timestamp SECONDS.FRACTION: after [%u]" FIELDS_HINT, l->cpu);
	while (p < end && *p == ' ')
		p++;
	if (!strncmp(p, "PERF_RECORD_LOST", 16))
		return parse_lost(p, end, l, err, errlen);
	name = p;
	colon = memchr(p, ':', (size_t)(end - p));
	colon = colon ? memchr(colon + 1, ':', (size_t)(end - colon - 1)) : NULL;
	if (!colon || memchr(name, ' ', (size_t)(colon - name)))
		return fail_why(err, errlen, "no SYSTEM:EVENT: after the timestamp" FIELDS_HINT);
	*(char *)colon = '\0';
	l->name = name;
	p = colon + 1 + (colon + 1 < end && colon[1] == ' ');
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(name, events[i].name))
			l->type = events[i].type;
	if (l->type == PE_SKIP && !strncmp(name, "x86_fpu:", 8))
		l->type = PE_FPU_OTHER;
	if (parse_fields(p, end, l, err, errlen)) {
		char what[384];
		snprintf(what, sizeof(what), "%s: %s" FIELDS_HINT, name, err);
		return fail_why(err, errlen, "%s", what);
	}
	return 0;
}
