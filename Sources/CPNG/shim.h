#ifndef NN_CPNG_SHIM_H
#define NN_CPNG_SHIM_H
#include <png.h>
#endif
