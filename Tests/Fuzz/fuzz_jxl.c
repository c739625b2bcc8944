/*
 * libFuzzer harness: JPEG XL through CImageCodec's libjxl paths (jxl.c, issue 24 item 5): the
 * JPEG reconstruction (pc_jxl_jpeg, and the reconstructed JPEG through pc_jpeg_decode as the
 * Thumbnailer does), then the pixel decode (pc_jxl_decode) with and without the DC-pass stop,
 * and the HDR tone mapping when the file says PQ/HLG. Aborts when a decode succeeds with a
 * result outside its contract (no pixels, a size not the box reduction's, metadata over 1 MiB)
 * or fails without a reason; ASan/UBSan catch the rest. Build and run: see Tests/Fuzz/README.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"

static void check(const uint8_t *data, size_t size, int dc_only) {
    pc_decode_options o;
    memset(&o, 0, sizeof o);
    o.target_edge = 120;
    o.max_pixels = 100000000;
    o.progressive_dc_only = dc_only;
    o.fancy_upsampling = 1;
    o.sequential_reduced = 1;
    o.progressive_dc_only = dc_only;
    pc_decoded d;
    pc_messages m;
    memset(&m, 0, sizeof m);
    pc_status s = pc_jxl_decode(data, size, &o, &d, &m);
    if (s == PC_OK) {
        if (d.pixels == NULL || d.width < 1 || d.height < 1 || d.width > 240 * 2 || d.height > d.stored_height ||
            d.exif_size > (1u << 20) || d.xmp_size > (1u << 20) || d.orientation < 1 || d.orientation > 8) {
            fprintf(stderr, "bad result %dx%d of %dx%d\n", d.width, d.height, d.stored_width, d.stored_height);
            abort();
        }
        volatile unsigned sum = 0;
        for (size_t i = 0; i < (size_t)d.width * d.height * 3; i++) sum += d.pixels[i];
    } else if (s != PC_TOO_LARGE && m.error[0] == '\0') {
        fprintf(stderr, "status %d without a reason\n", s);
        abort();
    }
    pc_free(d.pixels);
    pc_free(d.exif);
    pc_free(d.xmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pc_decode_options o;
    memset(&o, 0, sizeof o);
    o.target_edge = 120;
    o.max_pixels = 100000000;
    uint8_t *jpeg = NULL;
    size_t jpeg_size = 0;
    pc_messages m;
    memset(&m, 0, sizeof m);
    if (pc_jxl_jpeg(data, size, &o, &jpeg, &jpeg_size, &m) == PC_OK) {
        if (jpeg == NULL || jpeg_size == 0 || jpeg_size > (uint64_t)size * 4 + (1u << 20)) abort();
        pc_decoded d;
        pc_messages mj;
        memset(&mj, 0, sizeof mj);
        o.fancy_upsampling = 1;
        o.progressive_dc_only = 1;
        o.sequential_reduced = 1;
        if (pc_jpeg_decode(jpeg, jpeg_size, &o, &d, &mj) == PC_OK) pc_free(d.pixels);
        pc_free(d.exif);
        pc_free(d.xmp);
        pc_free(jpeg);
        return 0;
    }
    check(data, size, 1);
    check(data, size, 0);
    return 0;
}
