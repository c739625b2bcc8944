/*
 * Writes Sources/CImageCodec/jpegclone_files.h: the version fence's probe files (jpegclone.c), the
 * probe image encoded by the linked libjpeg-turbo (a checked version) as 4:2:2 with restart
 * intervals and as progressive 4:4:4. Build and run from the repository root:
 *     S=Sources/CImageCodec; /opt/swift/usr/bin/clang -I$S/include -I$S -o /tmp/probe_files Tests/Fuzz/probe_files.c \
 *         $S/jpegclone.c $S/jpeg.c $S/dconly.c $S/dc*.c $S/color.c $S/thumbjpeg.c -ljpeg -llcms2 -lm -lpthread
 *     /tmp/probe_files > $S/jpegclone_files.h
 */
#include <stdio.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "jpegclone.h"

static void dump(const char *name, const uint8_t *d, size_t n) {
    printf("static const uint8_t %s[%zu] = {", name, n);
    for (size_t i = 0; i < n; i++) printf("%s0x%02x,", i % 16 ? " " : "\n    ", d[i]);
    printf("\n};\n");
}

int main(void) {
    uint8_t rgb[32 * 16 * 3];
    pc_jpeg_probe_image(rgb);
    pc_jpeg_encode_options e422 = { 3, 90, PC_BASELINE, 2, 1, 2, 0 };
    pc_jpeg_encode_options eprog = { 3, 90, PC_PROGRESSIVE_SIMPLE, 1, 1, 0, 0 };
    uint8_t *a = NULL, *b = NULL;
    size_t an = 0, bn = 0;
    pc_messages m = { 0 };
    if (pc_jpeg_encode_ex(rgb, 32, 16, &e422, &a, &an, &m) != PC_OK ||
        pc_jpeg_encode_ex(rgb, 32, 16, &eprog, &b, &bn, &m) != PC_OK) {
        fprintf(stderr, "probe_files: %s\n", m.error);
        return 1;
    }
    printf("/* Made by Tests/Fuzz/probe_files.c with libjpeg-turbo %s: the probe image of jpegclone.c. */\n",
           pc_jpeg_linked_version());
    dump("pc_probe_422", a, an);
    dump("pc_probe_progressive", b, bn);
    pc_free(a);
    pc_free(b);
    return 0;
}
