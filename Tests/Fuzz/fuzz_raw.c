/*
 * libFuzzer harness for camera RAW files (raw.c): pc_raw_sniff on every input, then, for what it takes
 * for RAW, pc_raw_decode in this process (PHOTOS_RAW_IN_PROCESS=1, so ASan/UBSan see raw.c's own reads
 * and LibRaw's crashes are the fuzzer's, not a child's). Checks: the sniff reads only within the input;
 * a decode either fails with a reason or returns a JPEG at most 64 KiB longer than the input (raw.c PC_RAW_PREVIEW_SLACK), or pixels of the size
 * it says, never both empty. Seeds: the RAW files of the shared corpus (camera-formats/raw/) and DNGs
 * from the tests' DNGWriter. Build and run: Tests/Fuzz/README.md.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "CImageCodec.h"
#define FAIL(why) do { fprintf(stderr, "fuzz_raw: %s (status %d, %s)\n", why, (int)status, m.error); abort(); } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("PHOTOS_RAW_IN_PROCESS", "1", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char format[16];
    if (!pc_raw_sniff(data, size, format, sizeof format)) return 0;
    if (format[0] == '\0' || strlen(format) >= sizeof format) abort();
    pc_decode_options options;
    memset(&options, 0, sizeof options);
    options.target_edge = 120;
    options.max_pixels = 100000000;
    pc_raw_info info;
    pc_decoded out;
    pc_messages m;
    memset(&m, 0, sizeof m);
    uint8_t *jpeg = NULL;
    size_t jpeg_size = 0;
    pc_status status = pc_raw_decode(data, size, &options, &info, &out, &jpeg, &jpeg_size, &m);
    if (status == PC_OK) {
        if (jpeg == NULL && out.pixels == NULL) FAIL("no image");
        if (jpeg != NULL && jpeg_size > size + (64u << 10)) FAIL("preview larger than the file");
        if (out.pixels != NULL) {
            volatile uint8_t sum = 0;
            for (size_t i = 0; i < (size_t)out.width * (size_t)out.height * 3; i++) sum ^= out.pixels[i];
        }
    } else if (m.error[0] == '\0' && status != PC_TOO_LARGE) {
        FAIL("failure without a reason");
    }
    free(jpeg);
    free(out.pixels);
    return 0;
}
