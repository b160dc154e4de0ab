/* SPDX-License-Identifier: MIT */
/*
 * Pass 1 of the Linux importer (perf_internal.h): every line of the perf
 * text parsed and checked (nothing is written before the whole recording
 * has been read), each pid resolved to a task incarnation, and each event
 * spooled as a 32-byte record to a temporary file for pass 2. A task
 * incarnation begins where the recording first names its pid, or at the
 * fork that creates it; pid reuse is a new incarnation. Whether one is a
 * user task (any x86_fpu activity, or forked by a user task through
 * fpu_clone()'s x86_fpu_copy_dst) is known only at the end of the
 * recording: that is why there are two passes.
 */
#include "perf_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define CHUNK (1u << 20)

/* pid -> its current incarnation: open addressing, linear probing. */
struct pidmap {
	int32_t *key; /* 0: empty */
	uint32_t *val;
	size_t cap, n;
};

struct scanner {
	struct perf_scan *s;
	struct pidmap map;
	size_t inc_cap;
	uint8_t cpu_slot[PERF_CPU_LIMIT]; /* Linux CPU -> slot + 1 (first-seen order) */
	uint16_t slot_cpu[FPULAB_TRACE_MAX_CPUS];
	uint64_t slot_ts[FPULAB_TRACE_MAX_CPUS];   /* the last timestamp on each */
	uint32_t slot_line[FPULAB_TRACE_MAX_CPUS]; /* and its line */
	uint32_t slot_prev[FPULAB_TRACE_MAX_CPUS]; /* the last switch's prev there */
	unsigned int nslots;
	bool oom;
};

static size_t hash(int32_t pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static int map_grow(struct pidmap *m)
{
	struct pidmap n = { .cap = m->cap ? m->cap * 2 : 4096 };

	n.key = calloc(n.cap, sizeof(*n.key));
	n.val = malloc(n.cap * sizeof(*n.val));
	if (!n.key || !n.val) {
		free(n.key);
		free(n.val);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->key[i])
			continue;
		size_t h = hash(m->key[i], n.cap);
		while (n.key[h])
			h = (h + 1) & (n.cap - 1);
		n.key[h] = m->key[i];
		n.val[h] = m->val[i];
	}
	n.n = m->n;
	free(m->key);
	free(m->val);
	*m = n;
	return 0;
}

/* The slot of @pid in the map (its key set), growing the map first if needed. */
static size_t *map_slot(struct pidmap *m, int32_t pid, size_t *slot)
{
	if ((m->n + 1) * 2 > m->cap && map_grow(m))
		return NULL;
	size_t h = hash(pid, m->cap);
	while (m->key[h] && m->key[h] != pid)
		h = (h + 1) & (m->cap - 1);
	*slot = h;
	return slot;
}

/* A new incarnation of @pid; INC_NONE when out of memory. */
static uint32_t new_inc(struct scanner *k, int32_t pid)
{
	struct perf_scan *s = k->s;
	size_t slot;

	if (s->ninc == k->inc_cap) {
		size_t cap = k->inc_cap ? k->inc_cap * 2 : 4096;
		int32_t *p = realloc(s->inc_pid, cap * sizeof(*p));
		if (p)
			s->inc_pid = p;
		uint8_t *f = realloc(s->inc_flags, cap);
		if (f)
			s->inc_flags = f;
		if (!p || !f || s->ninc >= UINT32_MAX - 1) {
			k->oom = true;
			return INC_NONE;
		}
		k->inc_cap = cap;
	}
	if (!map_slot(&k->map, pid, &slot)) {
		k->oom = true;
		return INC_NONE;
	}
	k->map.n += !k->map.key[slot];
	k->map.key[slot] = pid;
	k->map.val[slot] = s->ninc;
	s->inc_pid[s->ninc] = pid;
	s->inc_flags[s->ninc] = 0;
	return s->ninc++;
}

/* @pid's current incarnation, made at its first mention; 0 for the idle task. */
static uint32_t inc_of(struct scanner *k, int32_t pid)
{
	size_t slot;

	if (pid <= 0)
		return pid == 0 ? INC_IDLE : INC_NONE;
	if (!map_slot(&k->map, pid, &slot)) {
		k->oom = true;
		return INC_NONE;
	}
	return k->map.key[slot] ? k->map.val[slot] : new_inc(k, pid);
}

/* exec with old_pid != pid: the exec'ing thread takes the leader's pid (de_thread()). */
static void rename_pid(struct scanner *k, int32_t old, int32_t pid)
{
	uint32_t inc = inc_of(k, old);
	size_t slot;

	if (inc == INC_NONE || old <= 0 || pid <= 0 || !map_slot(&k->map, pid, &slot))
		return;
	k->map.n += !k->map.key[slot];
	k->map.key[slot] = pid;
	k->map.val[slot] = inc;
	k->s->inc_pid[inc] = pid;
	/* the old tid is the dying leader's now (exchange_tids()): a task of its own */
	new_inc(k, old);
}

/* The Linux CPU's slot, a new one at its first mention; -1 past the format's 64. */
static int cpu_slot(struct scanner *k, uint32_t cpu, uint32_t line, char *err, size_t errlen)
{
	if (cpu >= PERF_CPU_LIMIT)
		return fail_why(err, errlen,
				"line %" PRIu32 ": CPU %" PRIu32
				": the importer maps CPU numbers below %d",
				line, cpu, PERF_CPU_LIMIT);
	if (!k->cpu_slot[cpu]) {
		if (k->nslots == FPULAB_TRACE_MAX_CPUS)
			return fail_why(
				err, errlen,
				"line %" PRIu32 ": CPU %" PRIu32
				" is the recording's 65th: an fpulab trace has at most %d CPUs",
				line, cpu, FPULAB_TRACE_MAX_CPUS);
		k->slot_cpu[k->nslots] = (uint16_t)cpu;
		k->cpu_slot[cpu] = (uint8_t)++k->nslots;
	}
	return k->cpu_slot[cpu] - 1;
}

/* The record's pids as incarnations, and what the line says about them. */
static void resolve(struct scanner *k, const struct perf_line *l, unsigned int slot, struct prec *r)
{
	uint8_t *fl;

	if (l->type == PE_EXEC && l->pid_b != l->pid_a)
		rename_pid(k, l->pid_b, l->pid_a);
	r->subj = inc_of(k, l->tid);
	switch (l->type) {
	case PE_SWITCH:
		r->a = inc_of(k, l->pid_a);
		r->b = inc_of(k, l->pid_b);
		if (l->tid < 0)
			r->subj = r->a;
		k->slot_prev[slot] = r->a;
		break;
	case PE_DEACT:
		if (l->tid < 0)
			r->subj = k->slot_prev[slot];
		break;
	case PE_FORK:
		r->a = inc_of(k, l->pid_a);
		r->b = l->pid_b > 0 ? new_inc(k, l->pid_b) : INC_NONE;
		fl = k->s->inc_flags; /* after new_inc(): it may have moved */
		if (r->a != INC_NONE && r->a != INC_IDLE && r->b != INC_NONE &&
		    (fl[r->a] & INCF_COPY)) {
			fl[r->a] &= (uint8_t)~INCF_COPY;
			fl[r->b] |= INCF_USER;
		}
		break;
	case PE_MIGRATE:
	case PE_EXIT:
		r->a = inc_of(k, l->pid_a);
		break;
	default:
		break;
	}
	if (r->subj == INC_NONE || r->subj == INC_IDLE || k->oom)
		return;
	fl = k->s->inc_flags; /* inc_of() and new_inc() above may have moved it */
	if (l->type == PE_ACT || l->type == PE_DEACT || l->type == PE_DROP ||
	    l->type == PE_AFTER_SAVE)
		fl[r->subj] |= INCF_USER;
	if (l->type == PE_COPY_DST)
		fl[r->subj] |= INCF_COPY | INCF_USER;
}

/* Per-CPU order: a timestamp may equal the previous one there (perf's order is kept), never
 * precede it. */
static int check_time(struct scanner *k, const struct perf_line *l, unsigned int slot,
		      uint32_t line, char *err, size_t errlen)
{
	if (k->slot_line[slot] && l->ts_ns < k->slot_ts[slot])
		return fail_why(err, errlen,
				"line %" PRIu32 ": timestamp %" PRIu64 ".%09" PRIu64
				" on CPU %u goes back from %" PRIu64 ".%09" PRIu64 " (line %" PRIu32
				") on the same CPU",
				line, l->ts_ns / 1000000000, l->ts_ns % 1000000000, l->cpu,
				k->slot_ts[slot] / 1000000000, k->slot_ts[slot] % 1000000000,
				k->slot_line[slot]);
	if (k->s->events && (l->digits == 9) != k->s->ns)
		return fail_why(err, errlen,
				"line %" PRIu32 ": a timestamp with %u decimals after ones with %u",
				line, l->digits, k->s->ns ? 9 : 6);
	k->slot_ts[slot] = l->ts_ns;
	k->slot_line[slot] = line;
	return 0;
}

static void note_skipped(struct perf_scan *s, const char *name)
{
	size_t n = strlen(s->skipped_names), len = strlen(name);

	s->skipped++;
	if (strstr(s->skipped_names, name) || n + len + 3 >= sizeof(s->skipped_names))
		return;
	snprintf(s->skipped_names + n, sizeof(s->skipped_names) - n, "%s%s", n ? ", " : "", name);
}

/* One parsed line: checked, resolved, spooled. */
static int scan_event(struct scanner *k, const struct perf_line *l, uint32_t line, char *err,
		      size_t errlen)
{
	struct perf_scan *s = k->s;
	struct prec r = { .ts = l->ts_ns, .line = line, .type = (uint8_t)l->type };
	int slot = cpu_slot(k, l->cpu, line, err, errlen);

	if (slot < 0 || check_time(k, l, (unsigned int)slot, line, err, errlen))
		return -1;
	/* the recording's span: perf may print a CPU's event before an earlier one of
	 * another CPU ("out of order events"), so not the first and last lines' */
	if (s->events && l->ts_ns < s->last_ts) {
		s->back_steps++;
		if (s->last_ts - l->ts_ns > s->back_max_ns)
			s->back_max_ns = s->last_ts - l->ts_ns;
	}
	if (!s->events++ || l->ts_ns < s->first_ts)
		s->first_ts = l->ts_ns;
	if (s->events == 1 || l->ts_ns > s->last_ts)
		s->last_ts = l->ts_ns;
	s->ns = l->digits == 9;
	s->n[l->type]++;
	if (l->type == PE_SKIP) {
		note_skipped(s, l->name);
		return 0;
	}
	if (l->type >= PE_ACT && l->type <= PE_FPU_OTHER) {
		s->fpu_lines++;
		s->xcomp_or |= l->xcomp_bv;
		s->xfeat_or |= l->xfeatures;
	}
	if (l->type == PE_FPU_OTHER)
		return 0;
	r.cpu = (uint16_t)slot;
	resolve(k, l, (unsigned int)slot, &r);
	if (l->type == PE_MIGRATE) {
		int o = cpu_slot(k, l->cpu_a, line, err, errlen);
		int d = o < 0 ? -1 : cpu_slot(k, l->cpu_b, line, err, errlen);
		if (d < 0)
			return -1;
		r.x = (uint32_t)o;
		r.b = (uint32_t)d;
	}
	if (l->type == PE_LOST) {
		s->lost += l->lost;
		r.a = l->lost > UINT32_MAX ? UINT32_MAX : (uint32_t)l->lost;
	}
	if (l->type >= PE_ACT && l->type <= PE_AFTER_SAVE)
		r.x = (uint32_t)l->xfeatures;
	r.flags = (uint8_t)((l->load ? PRF_LOAD : 0) | (l->dead ? PRF_DEAD : 0) |
			    (l->handler ? PRF_HANDLER : 0));
	s->sigreturn |= l->type == PE_SIGRETURN;
	if (k->oom)
		return fail_why(err, errlen, "line %" PRIu32 ": out of memory", line);
	if (fwrite(&r, sizeof(r), 1, s->spool) != 1)
		return fail_why(err, errlen, "the importer's temporary file: %s", strerror(errno));
	return 0;
}

/* Each complete line of @buf[0, @len): parsed and scanned; the bytes of an incomplete last
 * line are left for the next read (*@used: the bytes consumed). */
static int scan_lines(struct scanner *k, char *buf, size_t len, size_t *used, char *err,
		      size_t errlen)
{
	char *p = buf, *end = buf + len, *nl;
	char msg[256];

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		struct perf_line l;
		uint32_t line = (uint32_t)++k->s->lines;
		*nl = '\0';
		if (k->s->lines >= UINT32_MAX)
			return fail_why(err, errlen, "more than %u lines", UINT32_MAX - 1);
		int rc = perf_parse_line(p, (size_t)(nl - p), &l, msg, sizeof(msg));
		if (rc < 0)
			return fail_why(err, errlen, "line %" PRIu32 ": %s", line, msg);
		if (!rc && scan_event(k, &l, line, err, errlen))
			return -1;
		p = nl + 1;
	}
	*used = (size_t)(p - buf);
	return 0;
}

/* The CPUs in Linux's order: each record's slot becomes the trace's CPU number; each CPU's
 * last timestamp is where its recording ended. */
static void number_cpus(struct scanner *k, uint8_t *slot_to_cpu)
{
	struct perf_scan *s = k->s;

	s->ncpus = 0;
	for (unsigned int cpu = 0; cpu < PERF_CPU_LIMIT; cpu++)
		if (k->cpu_slot[cpu]) {
			unsigned int slot = k->cpu_slot[cpu] - 1u;
			slot_to_cpu[slot] = (uint8_t)s->ncpus;
			s->cpu_last_ts[s->ncpus] = k->slot_ts[slot];
			s->cpu_last_line[s->ncpus] = k->slot_line[slot];
			s->linux_cpu[s->ncpus++] = (uint16_t)cpu;
		}
}

/*
 * A stream (standard input, a FIFO) is read once, as perf script text: what its first
 * 8 bytes say it is instead, said in @err. Return: true when it is not text.
 */
static bool not_text(const char *buf, char *err, size_t errlen)
{
	switch (perf_input_kind(buf, 8)) {
	case 'f':
		fail_why(err, errlen,
			 "an fpulab trace already, not perf script text (replay its file: fpulab "
			 "replay FILE)");
		return true;
	case 'p':
		fail_why(err, errlen,
			 "a perf.data, not perf script text: give its file name, or pipe `perf "
			 "script -i FILE --ns --show-lost-events`");
		return true;
	case 'x':
		fail_why(err, errlen,
			 "xz-compressed: a stream is read as perf script text; give its file name, "
			 "or pipe `xz -dc FILE`");
		return true;
	default:
		return false;
	}
}

int perf_input_kind(const void *head, size_t n)
{
	if (n >= 8 && !memcmp(head, "PERFILE2", 8))
		return 'p';
	if (n >= 8 && !memcmp(head, FPULAB_TRACE_MAGIC, 8))
		return 'f';
	if (n >= 6 && !memcmp(head,
			      "\xfd"
			      "7zXZ",
			      6)) /* with its NUL: xz's 6-byte magic */
		return 'x';
	return 't';
}

int perf_scan(FILE *in, struct perf_scan *s, char *err, size_t errlen)
{
	struct scanner *k = calloc(1, sizeof(*k));
	char *buf = malloc(CHUNK + 1);
	size_t have = 0, got, used;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->spool = tmpfile();
	if (!k || !buf || !s->spool) {
		free(k);
		free(buf);
		return fail_why(err, errlen, "the importer's temporary file: %s", strerror(errno));
	}
	k->s = s;
	if (new_inc(k, 0) != INC_IDLE) /* incarnation 0: the idle task */
		rc = fail_why(err, errlen, "out of memory");
	while (!rc && (got = fread(buf + have, 1, CHUNK - have, in)) > 0) {
		have += got;
		used = 0;
		if (!s->lines && have >= 8 && not_text(buf, err, errlen)) {
			rc = -1;
			break;
		}
		rc = scan_lines(k, buf, have, &used, err, errlen);
		if (rc)
			break;
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have == CHUNK)
			rc = fail_why(err, errlen, "line %" PRIu64 ": longer than %u bytes",
				      s->lines + 1, CHUNK);
	}
	if (!rc && ferror(in))
		rc = fail_why(err, errlen, "reading the recording: %s", strerror(errno));
	if (!rc && have)
		rc = fail_why(err, errlen,
			      "line %" PRIu64
			      ": truncated: the recording ends inside a line (no newline)",
			      s->lines + 1);
	if (!rc && fflush(s->spool))
		rc = fail_why(err, errlen, "the importer's temporary file: %s", strerror(errno));
	if (!rc)
		number_cpus(k, s->slot_to_cpu);
	free(k->map.key);
	free(k->map.val);
	free(k);
	free(buf);
	return rc;
}

void perf_scan_free(struct perf_scan *s)
{
	if (s->spool)
		fclose(s->spool);
	free(s->inc_pid);
	free(s->inc_flags);
	memset(s, 0, sizeof(*s));
}

uint64_t perf_scan_xcr0(const struct perf_scan *s)
{
	uint64_t known = TRACE_XCR0_KNOWN;

	return ((s->xcomp_or | s->xfeat_or) & known) | 0x3;
}
