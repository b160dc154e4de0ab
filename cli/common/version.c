/* SPDX-License-Identifier: MIT */
#include "version.h"

#ifndef FPULAB_GIT_DESCRIBE
#define FPULAB_GIT_DESCRIBE "unknown"
#endif

const char *fpulab_version(void)
{
	return FPULAB_VERSION;
}

const char *fpulab_git_describe(void)
{
	return FPULAB_GIT_DESCRIBE;
}
