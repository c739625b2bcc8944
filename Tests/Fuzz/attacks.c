/*
 * Hand-made attacks on the reduced decoder, through fuzz_reduced.c's check (FUZZ_REPORT_ONLY=1
 * reports each difference instead of aborting): for each JPEG named on the command line, every
 * truncation, every byte of the entropy-coded data set to each of its 256 values, every byte
 * removed, and FF fill bytes inserted at every offset of the scan data. Build: see README.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Start and end of the first scan's entropy-coded data (after SOS, to a marker other than RSTn/FF00). */
static void scan_range(const uint8_t *d, size_t n, size_t *start, size_t *end) {
    size_t i = 2;
    *start = *end = n;
    while (i + 4 <= n && d[i] == 0xFF) {
        size_t length = (size_t)d[i + 2] << 8 | d[i + 3];
        if (d[i + 1] == 0xDA) { *start = i + 2 + length; break; }
        i += 2 + length;
    }
    for (size_t j = *start; j + 1 < n; j++)
        if (d[j] == 0xFF && d[j + 1] != 0 && !(d[j + 1] >= 0xD0 && d[j + 1] <= 0xD7)) { *end = j; return; }
}

int main(int argc, char **argv) {
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) continue;
        static uint8_t d[1 << 20], t[(1 << 20) + 8];
        size_t n = fread(d, 1, sizeof d, f);
        fclose(f);
        size_t start, end;
        scan_range(d, n, &start, &end);
        if (getenv("ATTACKS_TO_END")) end = n; /* every byte after the first SOS: later scans and their headers too */
        fprintf(stderr, "%s: %zu bytes, scan data %zu..%zu\n", argv[a], n, start, end);
        LLVMFuzzerTestOneInput(d, n);
        if (getenv("ATTACKS_PLAIN")) continue; /* the file as it is, no mutations */
        long runs = 0;
        for (size_t cut = 0; cut < n; cut++, runs++) LLVMFuzzerTestOneInput(d, cut);
        for (size_t i = start; i < end; i++) {
            memcpy(t, d, n);
            for (int v = 0; v < 256; v++, runs++) { t[i] = (uint8_t)v; LLVMFuzzerTestOneInput(t, n); }
            memcpy(t, d, i);
            memcpy(t + i, d + i + 1, n - i - 1);
            LLVMFuzzerTestOneInput(t, n - 1);
            for (int k = 1; k <= 3; k++) { /* k FF fill bytes, then the rest */
                memcpy(t, d, i);
                memset(t + i, 0xFF, (size_t)k);
                memcpy(t + i + k, d + i, n - i);
                LLVMFuzzerTestOneInput(t, n + (size_t)k);
            }
            runs += 4;
        }
        fprintf(stderr, "%s: %ld decodes compared\n", argv[a], runs);
    }
    return 0;
}
