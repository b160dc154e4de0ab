/* SPDX-License-Identifier: MIT */
/* What fpulab was built from. */
#ifndef FPULAB_CLI_COMMON_VERSION_H
#define FPULAB_CLI_COMMON_VERSION_H

#define FPULAB_VERSION "0.6.0"

/* fpulab_version - FPULAB_VERSION. */
const char *fpulab_version(void);

/* fpulab_git_describe - `git describe --always --dirty` of the tree it was
 * built from, or "unknown" outside a git checkout. */
const char *fpulab_git_describe(void);

#endif
