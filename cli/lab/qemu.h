/* SPDX-License-Identifier: MIT */
/* The QEMU command line that boots the lab, choosing the accelerator, and
 * starting QEMU with its serial console on a pipe. */
#ifndef FPULAB_CLI_LAB_QEMU_H
#define FPULAB_CLI_LAB_QEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define QEMU_DEFAULT_BINARY "qemu-system-x86_64" /* env FPULAB_QEMU overrides */
#define QEMU_DEFAULT_MACHINE "microvm"           /* q35 if microvm ever fails to boot */
#define QEMU_DEFAULT_TCG_THREADS "single"        /* 2 host cores: often faster for IPIs */
#define QEMU_MEMORY "256M"
#define QEMU_MEMORY_TRACE "512M" /* --trace: room for the trace buffers (docs/trace.md) */
#define QEMU_INSTALL_HINT "apt-get install qemu-system-x86"

struct qemu_setup {
	const char *machine;
	bool kvm;
	const char *tcg_threads; /* TCG only */
	bool icount;             /* TCG only: -icount shift=0,sleep=off */
	const char *cpu_model;   /* NULL: max (TCG) or host (KVM) */
	unsigned cpus;
	const char *kernel;
	const char *append;
	const char *qmp_socket; /* non-NULL: start paused (-S) with QMP on this socket */
	bool trace;             /* --trace: QEMU_MEMORY_TRACE, and console input on a pipe */
};

#define QEMU_ARGV_MAX 40
struct qemu_command {
	char *argv[QEMU_ARGV_MAX];
	char machine[32], accel[48], smp[16], qmp[160];
	bool console_input; /* the guest's console input is a pipe (qemu_process.console_in_fd) */
};

const char *qemu_binary(void);
const char *qemu_cpu_model(const struct qemu_setup *s); /* -cpu argument */
/* Whether QEMU runs each vCPU on a thread of its own (KVM, multi-threaded
 * TCG): only then can vCPU threads be pinned. */
bool qemu_vcpu_threads(const struct qemu_setup *s);
void qemu_build_command(const struct qemu_setup *s, struct qemu_command *cmd);

/* KVM is usable when /proc/cpuinfo shows vmx or svm and /dev/kvm opens
 * read-write. If not, why says what is missing. (Tests may point
 * FPULAB_CPUINFO and FPULAB_KVM_DEV elsewhere.) */
bool kvm_usable(char *why, size_t len);

struct qemu_process {
	pid_t pid;
	int console_fd;    /* guest serial console (QEMU stdout) */
	int stderr_fd;     /* QEMU's own messages */
	int console_in_fd; /* guest serial console input (QEMU stdin), or -1: /dev/null */
};
/* Start QEMU. Returns 0, or -1 with a message in err (missing binary: the
 * message says how to install it). */
int qemu_start(const struct qemu_command *cmd, struct qemu_process *p, char *err, size_t len);

#endif
