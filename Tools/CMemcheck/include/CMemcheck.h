// Valgrind memcheck client requests for the constant-time check
// (scripts/ct-check). Host-only: not part of the firmware.
#ifndef NN_CMEMCHECK_H
#define NN_CMEMCHECK_H
#include <stddef.h>

/// Marks bytes as undefined: memcheck then reports every branch and every
/// memory address that depends on them.
void nn_memcheck_secret(void *bytes, size_t count);
/// Marks bytes as defined again (a result that may be shown).
void nn_memcheck_public(void *bytes, size_t count);
/// Nonzero when running under valgrind.
int nn_memcheck_running(void);
#endif
