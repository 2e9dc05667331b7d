#ifndef NN_CFREETYPE_SHIM_H
#define NN_CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_SYSTEM_H
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* FreeType on Linux maps a font file whole (builds/unix/ftsystem.c), and
   every page it touches counts in the process's resident memory, with the
   kernel's fault-around 64 KiB at a time: hinting the first CJK glyph reads
   dozens of reference glyphs spread over the 3.5 MB glyf table of
   WenQuanYi Micro Hei and left 3 MB of it resident. A stream that reads
   with pread(2) leaves the file in the page cache, shared, and holds in the
   process only what FreeType copies out (the loca and kern tables, the
   glyph being loaded). */

static inline unsigned long nn_ft_pread(FT_Stream stream, unsigned long offset, unsigned char *buffer,
                                 unsigned long count) {
    /* A count of 0 is a seek: non-zero says it is out of range. */
    if (count == 0) return offset > stream->size ? 1 : 0;
    if (offset >= stream->size) return 0;
    if (count > stream->size - offset) count = stream->size - offset;
    unsigned long done = 0;
    while (done < count) {
        ssize_t n = pread((int)stream->descriptor.value, buffer + done, count - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (unsigned long)n;
    }
    return done;
}

static inline void nn_ft_close(FT_Stream stream) {
    close((int)stream->descriptor.value);
    free(stream);
}

/* FT_New_Face through a pread stream. FreeType owns the stream from the
   call on: it closes it (nn_ft_close) with the face, or at once if the
   file is not a font. */
static inline FT_Error nn_ft_open_face(FT_Library library, const char *path, FT_Long index, FT_Face *face) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FT_Err_Cannot_Open_Resource;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        close(fd);
        return FT_Err_Cannot_Open_Stream;
    }
    FT_Stream stream = (FT_Stream)calloc(1, sizeof(*stream));
    if (stream == NULL) {
        close(fd);
        return FT_Err_Out_Of_Memory;
    }
    stream->descriptor.value = fd;
    stream->size = (unsigned long)st.st_size;
    stream->read = nn_ft_pread;
    stream->close = nn_ft_close;
    FT_Open_Args args;
    args.flags = FT_OPEN_STREAM;
    args.memory_base = NULL;
    args.memory_size = 0;
    args.pathname = NULL;
    args.stream = stream;
    args.driver = NULL;
    args.num_params = 0;
    args.params = NULL;
    return FT_Open_Face(library, &args, index, face);
}
#endif
