#ifndef NN_CPNG_SHIM_H
#define NN_CPNG_SHIM_H
#include <png.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* libpng reports errors by longjmp, which Swift cannot catch: the classic
   write API is used from here, where the jump lands in C. */
static inline void nn_png_error(png_structp png, png_const_charp message) {
    char *out = (char *)png_get_error_ptr(png);
    if (out) {
        strncpy(out, message, 127);
        out[127] = 0;
    }
    png_longjmp(png, 1);
}

static inline void nn_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/* Writes XRGB8888 words (little-endian: B, G, R, X bytes; `stride` in words)
   as an 8-bit RGB PNG, row by row straight from `pixels`: libpng drops the X
   byte and swaps to RGB one row at a time, so no converted copy of the image
   is made. Returns 0, or -1 with a message in `message` (128 bytes). */
static inline int nn_png_write_xrgb(const char *path, uint32_t width, uint32_t height,
                                    const uint32_t *pixels, size_t stride, char *message) {
    message[0] = 0;
    FILE *file = fopen(path, "wb");
    if (!file) {
        snprintf(message, 128, "open: %s", strerror(errno));
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, nn_png_error, nn_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        fclose(file);
        snprintf(message, 128, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return -1;
    }
    png_init_io(png, file);
    /* zlib's deflate state at its defaults (a 32 KB window, a 64K-entry hash
       and a 64 KB symbol buffer) is 256 KB, and it is the largest thing the
       head unit allocates for a frame. An 8 KB window still reaches two rows
       of an 800-pixel frame back, where the flat regions of a screen repeat;
       with the smaller hash the state is 96 KB. The pixels are the same. */
    png_set_compression_window_bits(png, 13);
    png_set_compression_mem_level(png, 7);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_set_bgr(png);
    png_set_filler(png, 0, PNG_FILLER_AFTER);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride));
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(file) != 0) {
        snprintf(message, 128, "close: %s", strerror(errno));
        return -1;
    }
    return 0;
}
#endif
