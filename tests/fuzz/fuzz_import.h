/* SPDX-License-Identifier: MIT */
#ifndef TESTS_FUZZ_IMPORT_H
#define TESTS_FUZZ_IMPORT_H
#include <stddef.h>
#include <stdint.h>

/*
 * Import @data as an untrusted standard-format image. When accepted, XRSTOR
 * both the converted kernel buffer and the raw image on this CPU (a fault
 * kills the process), and check export/import round-trips. Traps on a broken
 * invariant. Return: the xstate_import_std() result.
 */
int fuzz_import_one(const uint8_t *data, size_t len);

/*
 * One fuzz input: @selector % 4 picks the kernel buffer (FXSAVE, XSAVE,
 * XSAVEOPT, XSAVEC; one this CPU lacks falls back to FXSAVE), bit 4 the path
 * (0: xstate_import_std, 1: fpu_sigframe_restore). Accepted images are
 * restored on this CPU as above. Return: the import's result.
 */
int fuzz_one(unsigned int selector, const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
