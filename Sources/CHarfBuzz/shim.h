#ifndef NN_CHARFBUZZ_SHIM_H
#define NN_CHARFBUZZ_SHIM_H
/* HarfBuzz and its FreeType integration (hb-ft.h), which shares the FT_Face
 * the renderer already holds. The module names the freetype2 pkg-config
 * package, not harfbuzz: harfbuzz.pc pulls in glib's headers, which the
 * shaping does not use, while hb-ft.h needs FreeType's include folder. */
#include <harfbuzz/hb.h>
#include <harfbuzz/hb-ft.h>
#endif
