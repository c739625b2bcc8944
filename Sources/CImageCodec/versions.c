/*
 * The versions of the image libraries this build runs with, for `photos --version`: asked of
 * each library at run time where it has a call for it (libpng png_get_libpng_ver, libpng-manual.txt
 * "Checking the library version"; Little CMS cmsGetEncodedCMMversion, lcms2 API reference
 * §2; libheif heif_get_version, heif.h; libwebp WebPGetDecoderVersion, webp/decode.h; libjxl JxlDecoderVersion, jxl/decode.h); for
 * libjpeg-turbo, whose libjpeg 6.2 ABI has no such call, the version text found in the loaded
 * library (jpegclone.c), else the version compiled against (jconfig.h LIBJPEG_TURBO_VERSION_NUMBER).
 */
#include <stdio.h>
#include <jpeglib.h>
#include <png.h>
#include <lcms2.h>
#include "heifapi.h" /* libheif, loaded on first use */
#include <webp/decode.h>
#include <jxl/decode.h>
#include "CImageCodec.h"
#include "jpegclone.h"

void pc_tiff_version(char *out, size_t capacity); /* tiff.c */
void pc_gif_version(char *out, size_t capacity);  /* gif.c */

static void pc_write_dotted(char *out, size_t capacity, unsigned major, unsigned minor, unsigned patch) {
    snprintf(out, capacity, "%u.%u.%u", major, minor, patch);
}

void pc_library_versions(pc_library_versions_t *out) {
    const char *linked = pc_jpeg_linked_version();
    if (linked[0] != '\0') {
        snprintf(out->jpeg, sizeof out->jpeg, "%s", linked);
    } else {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
    unsigned jpeg = LIBJPEG_TURBO_VERSION_NUMBER; /* MMMmmmppp */
    pc_write_dotted(out->jpeg, sizeof out->jpeg, jpeg / 1000000, (jpeg / 1000) % 1000, jpeg % 1000);
#else
    snprintf(out->jpeg, sizeof out->jpeg, "libjpeg %d", JPEG_LIB_VERSION);
#endif
    }
    snprintf(out->png, sizeof out->png, "%s", png_get_libpng_ver(NULL));
    int lcms = cmsGetEncodedCMMversion(); /* e.g. 2140 for 2.14 (lcms2.h LCMS_VERSION) */
    snprintf(out->lcms, sizeof out->lcms, "%d.%d", lcms / 1000, (lcms % 1000) / 10);
    if (pc_heif_load(NULL, 0))
        snprintf(out->heif, sizeof out->heif, "%s", heif_get_version());
    else
        snprintf(out->heif, sizeof out->heif, "unavailable");
    int webp = WebPGetDecoderVersion(); /* 0xMMmmpp */
    pc_write_dotted(out->webp, sizeof out->webp, (webp >> 16) & 0xFF, (webp >> 8) & 0xFF, webp & 0xFF);
    pc_tiff_version(out->tiff, sizeof out->tiff);
    pc_gif_version(out->gif, sizeof out->gif);
    uint32_t jxl = JxlDecoderVersion(); /* MAJOR * 1000000 + MINOR * 1000 + PATCH (jxl/decode.h) */
    pc_write_dotted(out->jxl, sizeof out->jxl, jxl / 1000000, (jxl / 1000) % 1000, jxl % 1000);
}
