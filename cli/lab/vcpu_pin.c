/* SPDX-License-Identifier: MIT */
/* Pinning QEMU's vCPU threads over QMP (see vcpu_pin.h). */
#include "vcpu_pin.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qmp.h"

#define QMP_SOCKET_NAME "qmp.sock"

void vcpu_pins_none(struct vcpu_pins *p, const char *why)
{
	p->n = 0;
	snprintf(p->value, sizeof(p->value), "no");
	snprintf(p->header, sizeof(p->header), "no (%s)", why);
}

int qmp_socket_make(struct qmp_socket *s, char *err, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	/* The socket path must fit sun_path; a long TMPDIR falls back to /tmp. */
	if (!tmp || !*tmp || strlen(tmp) + sizeof("/fpulab-qmp.XXXXXX") > sizeof(s->dir))
		tmp = "/tmp";
	snprintf(s->dir, sizeof(s->dir), "%s/fpulab-qmp.XXXXXX", tmp);
	if (!mkdtemp(s->dir)) { /* mode 0700: only we can reach QEMU's monitor */
		snprintf(err, len, "cannot create a directory for the QMP socket in %s: %s", tmp,
			 strerror(errno));
		s->dir[0] = '\0';
		return -1;
	}
	snprintf(s->path, sizeof(s->path), "%s/%s", s->dir, QMP_SOCKET_NAME);
	return 0;
}

void qmp_socket_remove(const struct qmp_socket *s)
{
	if (!s->dir[0])
		return;
	unlink(s->path);
	rmdir(s->dir);
}

int vcpu_threads_parse(const char *reply, struct vcpu_thread *t, int max)
{
	const char *p = *reply == '{' ? qmp_json_member(reply, "return") : NULL;
	int n = 0;

	if (!p || *p != '[')
		return -1;
	for (p++; *p && n < max;) {
		uint64_t v;
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (*p != '{')
			break;
		/* Members of the vCPU's own object: "props" has a thread-id of its own
		 * (the SMT thread number), which qmp_json_member does not look into. */
		const char *index = qmp_json_member(p, "cpu-index"),
			   *tid = qmp_json_member(p, "thread-id");
		t[n].cpu_index = index && qmp_json_u64(index, &v) ? (unsigned)v : (unsigned)n;
		t[n].tid = tid && qmp_json_u64(tid, &v) && v > 0 && v <= INT32_MAX ? (long)v : -1;
		n++;
		p = qmp_json_value_end(p);
	}
	return n;
}

static void pins_describe(struct vcpu_pins *p)
{
	size_t v = 0, h = 0;

	if (!p->n) {
		vcpu_pins_none(p, "pinning failed: see the warnings on stderr");
		return;
	}
	p->value[0] = p->header[0] = '\0';
	for (unsigned i = 0; i < p->n; i++) {
		v += (size_t)snprintf(p->value + v, sizeof(p->value) - v, "%s%u:%d", i ? "," : "",
				      p->vcpu[i], p->host_cpu[i]);
		h += (size_t)snprintf(p->header + h, sizeof(p->header) - h, "%s%u->cpu%d",
				      i ? " " : "", p->vcpu[i], p->host_cpu[i]);
	}
}

void vcpu_pin_threads(const struct vcpu_thread *t, int n, const int *allowed, int n_allowed,
		      struct vcpu_pins *pins)
{
	pins->n = 0;
	for (int i = 0; i < n && pins->n < PIN_MAX_VCPUS; i++) {
		int cpu = allowed[t[i].cpu_index % (unsigned)n_allowed];
		cpu_set_t set;

		if (t[i].tid < 0) {
			fprintf(stderr,
				"fpulab: warning: QEMU gave no thread-id for vCPU %u; it runs "
				"unpinned\n",
				t[i].cpu_index);
			continue;
		}
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity((pid_t)t[i].tid, sizeof(set), &set) < 0) {
			fprintf(stderr,
				"fpulab: warning: cannot pin vCPU %u (thread %ld) to host CPU "
				"%d: %s; it runs unpinned\n",
				t[i].cpu_index, t[i].tid, cpu, strerror(errno));
			continue;
		}
		pins->vcpu[pins->n] = t[i].cpu_index;
		pins->host_cpu[pins->n++] = cpu;
	}
	pins_describe(pins);
}

/* The host CPUs we may run on, in order. */
static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* Ask QEMU for its vCPU threads and pin them; every failure is a warning. */
static int pin_vcpus(struct qmp *q, struct vcpu_pins *pins)
{
	struct vcpu_thread threads[PIN_MAX_VCPUS];
	int allowed[CPU_SETSIZE], n_allowed = allowed_cpus(allowed, CPU_SETSIZE), n, rc;
	const char *reply;
	char err[256];

	vcpu_pins_none(pins, "pinning failed: see the warnings on stderr");
	rc = qmp_execute(q, "query-cpus-fast", &reply, err, sizeof(err));
	if (rc != QMP_OK) {
		if (rc == QMP_FAILED)
			fprintf(stderr,
				"fpulab: warning: cannot list the vCPU threads (%s); they run "
				"unpinned\n",
				err);
		return rc;
	}
	n = vcpu_threads_parse(reply, threads, PIN_MAX_VCPUS);
	if (n <= 0 || n_allowed == 0) {
		fprintf(stderr, "fpulab: warning: %s; the vCPUs run unpinned\n",
			n_allowed == 0 ? "sched_getaffinity failed: no host CPUs to pin to"
				       : "QMP query-cpus-fast listed no vCPUs");
		return QMP_OK;
	}
	vcpu_pin_threads(threads, n, allowed, n_allowed, pins);
	return QMP_OK;
}

static int talk(struct qmp *q, const char *qmp_path, pid_t qemu, struct vcpu_pins *pins, char *err,
		size_t len)
{
	const char *reply;
	int rc = qmp_connect(q, qmp_path, qemu, err, len);

	if (rc != QMP_OK)
		return rc;
	rc = qmp_execute(q, "qmp_capabilities", &reply, err, len);
	if (rc == QMP_OK)
		rc = pin_vcpus(q, pins);
	if (rc == QMP_OK)
		rc = qmp_execute(q, "cont", &reply, err, len);
	qmp_close(q);
	return rc;
}

int vcpu_pin_and_resume(const char *qmp_path, pid_t qemu, struct vcpu_pins *pins, char *err,
			size_t len)
{
	struct qmp *q = malloc(sizeof(*q)); /* a 64 KB line buffer */
	int rc;

	vcpu_pins_none(pins, "pinning failed: see the warnings on stderr");
	if (!q) {
		snprintf(err, len, "out of memory");
		return QMP_FAILED;
	}
	rc = talk(q, qmp_path, qemu, pins, err, len);
	free(q);
	return rc;
}
