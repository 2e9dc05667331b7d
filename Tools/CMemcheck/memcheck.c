#include "CMemcheck.h"
#include <valgrind/memcheck.h>

void nn_memcheck_secret(void *bytes, size_t count) { VALGRIND_MAKE_MEM_UNDEFINED(bytes, count); }
void nn_memcheck_public(void *bytes, size_t count) { VALGRIND_MAKE_MEM_DEFINED(bytes, count); }
int nn_memcheck_running(void) { return RUNNING_ON_VALGRIND != 0; }
