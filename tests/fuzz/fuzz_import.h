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
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
