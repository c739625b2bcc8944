/*
 * libFuzzer harness: dconly.c's reduced sequential decoder (pc_jpeg_decode_reduced, through
 * pc_jpeg_decode with sequential_reduced = 1) against libjpeg's own decode (the flag off) at
 * scale 1/8 and 2/8. Aborts when the status, the error message, the warnings, the size or a
 * pixel differ. Build and run: see Tests/Fuzz/README.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"

/* Long edge from the first SOFn, 0 if none is found (then only scale 1/8 through target 1). */
static unsigned long_edge(const uint8_t *d, size_t n) {
    for (size_t i = 0; i + 9 < n; i++) {
        if (d[i] != 0xFF) continue;
        unsigned m = d[i + 1];
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            unsigned h = (unsigned)d[i + 5] << 8 | d[i + 6], w = (unsigned)d[i + 7] << 8 | d[i + 8];
            return w > h ? w : h;
        }
    }
    return 0;
}

static void check(const uint8_t *data, size_t size, int target, int fancy) {
    pc_decode_options o;
    memset(&o, 0, sizeof o);
    o.target_edge = target;
    o.max_pixels = 100000000;
    o.fancy_upsampling = fancy;
    o.ignore_icc = 1;
    pc_decoded a, b;
    pc_messages ma, mb;
    memset(&ma, 0, sizeof ma);
    memset(&mb, 0, sizeof mb);
    o.sequential_reduced = 1;
    pc_status sa = pc_jpeg_decode(data, size, &o, &a, &ma);
    o.sequential_reduced = 0;
    pc_status sb = pc_jpeg_decode(data, size, &o, &b, &mb);
    int bad = 0;
    if (sa != sb) { fprintf(stderr, "status %d vs libjpeg %d\n", sa, sb); bad = 1; }
    /* FUZZ_TOLERATE_EOF: a file rejected by both, libjpeg saying "Premature end of JPEG file" (its
     * bit reader fills ahead and meets the end first), is not reported (a known difference). */
    int tolerated = getenv("FUZZ_TOLERATE_EOF") && sa != PC_OK && sb != PC_OK &&
                    strcmp(mb.error, "Premature end of JPEG file") == 0;
    if (!tolerated && strcmp(ma.error, mb.error) != 0) { fprintf(stderr, "error '%s' vs libjpeg '%s'\n", ma.error, mb.error); bad = 1; }
    if (getenv("FUZZ_WARNINGS") && strcmp(ma.warnings, mb.warnings) != 0) {
        fprintf(stderr, "warnings '%s' vs libjpeg '%s'\n", ma.warnings, mb.warnings);
        bad = 1;
    }
    if (sa == PC_OK && sb == PC_OK) {
        if (a.width != b.width || a.height != b.height) {
            fprintf(stderr, "size %dx%d vs libjpeg %dx%d\n", a.width, a.height, b.width, b.height);
            bad = 1;
        } else {
            size_t count = (size_t)a.width * a.height * 3;
            for (size_t i = 0; i < count; i++)
                if (a.pixels[i] != b.pixels[i]) {
                    fprintf(stderr, "pixel byte %zu (x %zu y %zu): %d vs libjpeg %d (%dx%d scale %d fancy %d)\n", i,
                            i / 3 % (size_t)a.width, i / 3 / (size_t)a.width, a.pixels[i], b.pixels[i], a.width,
                            a.height, a.scale, fancy);
                    bad = 1;
                    break;
                }
        }
    }
    if (bad) {
        fprintf(stderr, "target %d fancy %d used_reduced %d\n", target, fancy, a.used_reduced);
        if (!getenv("FUZZ_REPORT_ONLY")) abort(); /* attacks.c: report and go on */
    }
    free(a.pixels);
    free(b.pixels);
    free(a.exif); free(a.xmp); free(b.exif); free(b.xmp);
}

/*
 * FUZZ_PROGRESSIVE: progressive files through dconly.c's DC-only path (progressive_dc_only) against
 * libjpeg's decode at 1/8: the same status and message (pixels differ by design where chroma is
 * upsampled, dconly.c's file comment), and the same pixels for gray and 4:4:4 files.
 */
static void check_progressive(const uint8_t *data, size_t size) {
    pc_decode_options o;
    memset(&o, 0, sizeof o);
    o.target_edge = 1;
    o.max_pixels = 100000000;
    o.fancy_upsampling = 1;
    o.ignore_icc = 1;
    pc_decoded a, b;
    pc_messages ma, mb;
    memset(&ma, 0, sizeof ma);
    memset(&mb, 0, sizeof mb);
    o.progressive_dc_only = 1;
    pc_status sa = pc_jpeg_decode(data, size, &o, &a, &ma);
    o.progressive_dc_only = 0;
    pc_status sb = pc_jpeg_decode(data, size, &o, &b, &mb);
    /* libjpeg's path refuses what needs a coefficient buffer over the budget; the DC-only path
     * needs none (its purpose): no verdict to compare then. */
    int bad = sb != PC_OVER_BUDGET && (sa != sb || strcmp(ma.error, mb.error) != 0);
    if (bad) fprintf(stderr, "progressive: status %d '%s' vs libjpeg %d '%s'\n", sa, ma.error, sb, mb.error);
    if (!bad && sa == PC_OK && (a.width != b.width || a.height != b.height)) {
        fprintf(stderr, "progressive: size differs\n");
        bad = 1;
    }
    if (bad && getenv("FUZZ_DUMP")) { /* keep the first input that differs */
        FILE *f = fopen(getenv("FUZZ_DUMP"), "wx");
        if (f) { fwrite(data, 1, size, f); fclose(f); }
    }
    if (bad && !getenv("FUZZ_REPORT_ONLY")) abort();
    free(a.pixels);
    free(b.pixels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 20) return 0;
    if (getenv("FUZZ_PROGRESSIVE")) {
        check_progressive(data, size);
        return 0;
    }
    unsigned edge = long_edge(data, size);
    int fancy = (size & 1) == 0;
    check(data, size, 1, fancy);                          /* 1/8 */
    if (edge > 16) check(data, size, (int)((edge + 7) / 8 + 1), fancy); /* 2/8 */
    return 0;
}
