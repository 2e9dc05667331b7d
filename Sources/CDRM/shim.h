#ifndef NN_CDRM_SHIM_H
#define NN_CDRM_SHIM_H
#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#endif
