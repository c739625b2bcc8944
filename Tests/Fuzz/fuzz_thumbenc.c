/*
 * libFuzzer harness: thumbjpeg.c's encoder (pc_thumbnail_jpeg_encode) against libjpeg-turbo's
 * encode with the same settings (pc_jpeg_encode_libjpeg). The input picks the size (1...300 x
 * 1...300, or a long thin one), the quality (1...100) and how the pixels are made (the input's
 * bytes, flat, gradients, stripes, noise, extremes); aborts when the status, the error or a byte
 * of the file differ. Build and run: see Tests/Fuzz/README.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 6) return 0;
    int w = 1 + (((int)data[0] << 8 | data[1]) % 300), h = 1 + (((int)data[2] << 8 | data[3]) % 300);
    int quality = 1 + data[4] % 100, kind = data[5] >> 4, shape = data[5] & 15;
    if (shape == 1) { w = 1 + (((int)data[0] << 8 | data[1]) % 65500); h = 1 + data[2] % 2; }
    if (shape == 2) { h = 1 + (((int)data[0] << 8 | data[1]) % 65500); w = 1 + data[2] % 2; }
    if (shape == 3) { w = 65500; h = 1; }
    if (shape == 4) { w = 1; h = 65500; }
    if (shape == 5) { w = 65501 + data[1] % 4; h = 1 + data[2] % 3; } /* over libjpeg's limit */
    const uint8_t *src = data + 6;
    size_t n = size - 6;
    size_t count = (size_t)w * (size_t)h * 3;
    uint8_t *rgb = malloc(count);
    if (rgb == NULL) return 0;
    uint32_t state = 0x12345u ^ (uint32_t)size;
    for (size_t i = 0; i < count; i++) {
        size_t p = i / 3, x = p % (size_t)w, y = p / (size_t)w;
        uint8_t v;
        switch (kind) {
        case 0: v = n ? src[i % n] : 0; break;
        case 1: v = n ? src[0] : 128; break;
        case 2: v = (uint8_t)(x * 255 / (size_t)(w > 1 ? w - 1 : 1)); break;
        case 3: v = (uint8_t)((x + y) & 1 ? 255 : 0); break;
        case 4: v = (uint8_t)(((x >> 3) + (y >> 3)) & 1 ? 255 : 0); break;
        case 5: state = state * 1103515245u + 12345u; v = (uint8_t)(state >> 24); break;
        case 6: v = (uint8_t)(i % 3 == 0 ? 255 : 0); break;
        case 7: v = n ? (uint8_t)(src[(p + i % 3) % n] ^ (uint8_t)y) : 0; break;
        default: v = n ? src[(i * 7 + y) % n] : (uint8_t)i; break;
        }
        rgb[i] = v;
    }
    uint8_t *a = NULL, *b = NULL;
    size_t as = 0, bs = 0;
    pc_messages ma, mb;
    memset(&ma, 0, sizeof ma);
    memset(&mb, 0, sizeof mb);
    pc_status sa = pc_thumbnail_jpeg_encode(rgb, w, h, quality, &a, &as, &ma);
    pc_status sb = pc_jpeg_encode_libjpeg(rgb, w, h, quality, &b, &bs, &mb);
    int bad = 0;
    if (sa != sb) { fprintf(stderr, "status %d vs libjpeg %d\n", sa, sb); bad = 1; }
    else if (strcmp(ma.error, mb.error) != 0) { fprintf(stderr, "error '%s' vs '%s'\n", ma.error, mb.error); bad = 1; }
    else if (sa == PC_OK && (as != bs || memcmp(a, b, as) != 0)) {
        size_t i = 0;
        while (i < as && i < bs && a[i] == b[i]) i++;
        fprintf(stderr, "bytes differ at %zu (sizes %zu, %zu)\n", i, as, bs);
        bad = 1;
    }
    if (bad) { fprintf(stderr, "%dx%d quality %d kind %d shape %d\n", w, h, quality, kind, shape); abort(); }
    free(a);
    free(b);
    free(rgb);
    return 0;
}
