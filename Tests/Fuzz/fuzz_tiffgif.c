/*
 * libFuzzer harness: the TIFF (libtiff, tiff.c) and GIF (giflib, gif.c) decoders on any bytes.
 * Each input is decoded as a TIFF, as a GIF and through the RAW-container check, at target edges
 * 120 and 1, with the default pixel limit. Aborts (ASan/UBSan) on a memory error or undefined
 * behaviour; also when a decode reports success without pixels, a failure without a reason, or
 * pixels larger than the limit allows. Build and run: see Tests/Fuzz/README.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"

typedef pc_status (*pc_decoder)(const uint8_t *, size_t, const pc_decode_options *, pc_decoded *, pc_messages *);

static void check(pc_decoder decode, const char *name, const uint8_t *data, size_t size, int target) {
    pc_decode_options o;
    memset(&o, 0, sizeof o);
    o.target_edge = target;
    o.max_pixels = 100000000;
    pc_decoded out;
    pc_messages m;
    memset(&m, 0, sizeof m);
    pc_status s = decode(data, size, &o, &out, &m);
    if (s == PC_OK) {
        if (out.pixels == NULL || out.width < 1 || out.height < 1) { fprintf(stderr, "%s: OK without pixels\n", name); abort(); }
        if ((uint64_t)out.width * out.height > o.max_pixels) { fprintf(stderr, "%s: %dx%d over the limit\n", name, out.width, out.height); abort(); }
        volatile uint8_t sum = 0; /* every byte readable (ASan) */
        for (size_t i = 0; i < (size_t)out.width * out.height * 3; i++) sum ^= out.pixels[i];
    } else if (s != PC_TOO_LARGE && m.error[0] == '\0') {
        fprintf(stderr, "%s: status %d without a reason\n", name, s);
        abort();
    }
    pc_free(out.pixels);
    pc_free(out.exif);
    pc_free(out.xmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)pc_tiff_is_raw(data, size);
    check(pc_tiff_decode, "tiff", data, size, 120);
    check(pc_tiff_decode, "tiff", data, size, 1);
    check(pc_gif_decode, "gif", data, size, 120);
    check(pc_gif_decode, "gif", data, size, 1);
    return 0;
}
