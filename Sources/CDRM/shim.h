#ifndef NN_CDRM_SHIM_H
#define NN_CDRM_SHIM_H
#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

/* Dumb buffers (simple CPU-mapped scanout memory). The ioctl numbers are
   function-like macros Swift cannot import, hence these wrappers. */
static inline int nn_drm_create_dumb(int fd, uint32_t width, uint32_t height, uint32_t bpp,
                                     uint32_t *handle, uint32_t *pitch, uint64_t *size) {
    struct drm_mode_create_dumb req = {0};
    req.width = width;
    req.height = height;
    req.bpp = bpp;
    int r = drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &req);
    if (r == 0) { *handle = req.handle; *pitch = req.pitch; *size = req.size; }
    return r;
}

static inline int nn_drm_map_dumb(int fd, uint32_t handle, uint64_t *offset) {
    struct drm_mode_map_dumb req = {0};
    req.handle = handle;
    int r = drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &req);
    if (r == 0) { *offset = req.offset; }
    return r;
}

static inline int nn_drm_destroy_dumb(int fd, uint32_t handle) {
    struct drm_mode_destroy_dumb req = {0};
    req.handle = handle;
    return drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &req);
}
#endif
