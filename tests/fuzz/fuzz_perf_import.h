/* SPDX-License-Identifier: MIT */
#ifndef FPULAB_TESTS_FUZZ_PERF_IMPORT_H
#define FPULAB_TESTS_FUZZ_PERF_IMPORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * One input of the importer's fuzz target (fuzz_perf_import.c): selector
 * byte, then perf script text. Aborts on a broken invariant. Return: the
 * import's status (0 imported, -1 refused with the message in @err).
 */
int fuzz_perf_import_one(const uint8_t *data, size_t len, char *err, size_t errlen);

#endif
