/* SPDX-License-Identifier: MIT */
/* Pinning QEMU's vCPU threads to host CPUs: QEMU starts paused (-S) with a
 * QMP socket; we ask it for its vCPU threads (query-cpus-fast), pin vCPU i
 * to the i-th CPU (mod their number) of our own affinity mask, then resume
 * the guest (cont). */
#ifndef FPULAB_CLI_LAB_VCPU_PIN_H
#define FPULAB_CLI_LAB_VCPU_PIN_H

#include <stddef.h>
#include <sys/types.h>

#define PIN_MAX_VCPUS 64 /* up to 64 vCPUs; the lab takes --cpus 1..FPULAB_MAX_CPUS (16) */

struct vcpu_pins {
	unsigned n; /* vCPUs pinned */
	unsigned vcpu[PIN_MAX_VCPUS];
	int host_cpu[PIN_MAX_VCPUS];
	char value[PIN_MAX_VCPUS * 8 + 8];    /* JSON/CSV: "0:0,1:1", or "no" */
	char header[PIN_MAX_VCPUS * 12 + 96]; /* table: "0->cpu0 1->cpu1", or "no (why)" */
};

/* Nothing pinned, and why (for the table header). */
void vcpu_pins_none(struct vcpu_pins *p, const char *why);

/* A private directory for QEMU's QMP socket; removed with qmp_socket_remove. */
struct qmp_socket {
	char dir[96];
	char path[108]; /* sockaddr_un.sun_path */
};
int qmp_socket_make(struct qmp_socket *s, char *err, size_t len);
void qmp_socket_remove(const struct qmp_socket *s);

/* Connect to the paused QEMU, pin its vCPU threads, resume the guest.
 * Returns QMP_OK when the guest runs (pins says what was pinned; a vCPU that
 * could not be pinned is a warning on stderr); QMP_QEMU_EXITED when QEMU
 * exited first; QMP_INTERRUPTED; QMP_FAILED with err when the guest could not
 * be resumed (no QMP connection, cont refused). */
int vcpu_pin_and_resume(const char *qmp_path, pid_t qemu, struct vcpu_pins *pins, char *err,
			size_t len);

struct vcpu_thread {
	unsigned cpu_index;
	long tid; /* -1: QEMU gave no thread-id */
};
/* The vCPUs of a query-cpus-fast reply line, in its order: how many (at most
 * max), or -1 when the reply has no "return" array. */
int vcpu_threads_parse(const char *reply, struct vcpu_thread *t, int max);
/* Pin each thread to allowed[cpu_index % n_allowed]; failures are warnings. */
void vcpu_pin_threads(const struct vcpu_thread *t, int n, const int *allowed, int n_allowed,
		      struct vcpu_pins *pins);

#endif
