#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"

/*
 * Area-averaging ("box") resampling of 8-bit RGB, the arithmetic of PhotosImaging's
 * Resampler (which this replaced for speed: the Swift loops cost 11 % of the CPU of an
 * import of 640x480 JPEGs, mostly array retains and bounds checks). The results are the
 * same bytes: every weight is (float)overlap / (float)source, every sum is accumulated in
 * float in the same order, and no multiply-add is fused (a fused one rounds once instead
 * of twice and can move a result by one level).
 */
#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

/* Spans of one axis: for output cell i, first[i] and count[i] source cells whose weights
 * are weights[offset[i] ... offset[i] + count[i] - 1]. */
typedef struct pc_spans {
    int *first, *count, *offset;
    float *weights;
} pc_spans;

static void pc_spans_free(pc_spans *s) {
    free(s->first);
    free(s->count);
    free(s->offset);
    free(s->weights);
}

/* Coverage of output cell i, [i*s/t, (i+1)*s/t), over source cells [j, j+1), in exact
 * integer units of 1/t (Resampler.spans). Returns 0 when out of memory. */
static int pc_spans_make(pc_spans *s, int64_t source, int64_t target) {
    s->first = malloc((size_t)target * sizeof(int));
    s->count = malloc((size_t)target * sizeof(int));
    s->offset = malloc((size_t)target * sizeof(int));
    /* At most ceil(source / target) + 1 cells per output cell. */
    int64_t per = source / target + 2;
    s->weights = malloc((size_t)(per * target) * sizeof(float));
    if (s->first == NULL || s->count == NULL || s->offset == NULL || s->weights == NULL) return 0;
    int64_t k = 0;
    for (int64_t i = 0; i < target; i++) {
        int64_t start = i * source, end = (i + 1) * source;
        int64_t first = start / target;
        int64_t last = (end + target - 1) / target - 1;
        if (last > source - 1) last = source - 1;
        if (last < first) last = first;
        s->first[i] = (int)first;
        s->count[i] = (int)(last - first + 1);
        s->offset[i] = (int)k;
        for (int64_t j = first; j <= last; j++) {
            int64_t hi = end < (j + 1) * target ? end : (j + 1) * target;
            int64_t lo = start > j * target ? start : j * target;
            s->weights[k++] = (float)(hi - lo) / (float)source;
        }
    }
    return 1;
}

/* Four floats, one SSE register: a pixel's red, green and blue (and a lane nobody reads). Each
 * lane's operations are the scalar loop's, in its order, so the bytes are the same. */
typedef float pc_v4 __attribute__((vector_size(16)));

static inline pc_v4 pc_load_pixel(const float *p) {
    pc_v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

int pc_area_average(const uint8_t *src, int src_width, int src_height, uint8_t *dst, int width, int height) {
    if (src_width < 1 || src_height < 1 || width < 1 || height < 1) return 0;
    /* Span offsets are ints and count at most source + target weights per axis; the working
     * floats are src_height x width x 3: refuse sizes whose counts do not fit. */
    if ((int64_t)src_width + width > INT32_MAX || (int64_t)src_height + height > INT32_MAX) return 0;
    /* Tap positions are ints counting floats of a row: 3 per source pixel. */
    if (src_width > INT32_MAX / 3) return 0;
    size_t stride = (size_t)width * 3, floats, row_floats;
    if (__builtin_mul_overflow((size_t)src_height, stride * sizeof(float), &floats)) return 0;
    if (__builtin_mul_overflow((size_t)src_width, (size_t)3, &row_floats) || row_floats > SIZE_MAX / sizeof(float) - 2)
        return 0;
    pc_spans columns = {0}, rows = {0};
    float *horizontal = malloc(floats);
    float *sums = malloc(stride * sizeof(float));
    /* One source row as floats, with one float more so that the last pixel's four-float load
     * stays inside. */
    float *row_f = malloc((row_floats + 1) * sizeof(float));
    int ok = horizontal != NULL && sums != NULL && row_f != NULL && pc_spans_make(&columns, src_width, width) &&
             pc_spans_make(&rows, src_height, height);
    /* Every output column gets the same number of taps, `taps` (the largest count), its own
     * followed by taps of weight 0 on its first pixel: adding pixel × 0 (= +0, pixels are not
     * negative) leaves a sum of non-negative terms unchanged, so four columns can be summed at
     * once, as four independent chains, with each column's result what its own loop gives. */
    int taps = 1;
    int *tap_at = NULL;
    float *tap_weight = NULL;
    if (ok) {
        for (int x = 0; x < width; x++)
            if (columns.count[x] > taps) taps = columns.count[x];
        size_t n;
        ok = !__builtin_mul_overflow((size_t)width, (size_t)taps, &n) && n <= SIZE_MAX / sizeof(float);
        if (ok) {
            tap_at = malloc(n * sizeof(int));
            tap_weight = malloc(n * sizeof(float));
            ok = tap_at != NULL && tap_weight != NULL;
        }
        for (int x = 0; ok && x < width; x++) {
            for (int k = 0; k < taps; k++) {
                int real = k < columns.count[x];
                tap_at[(size_t)x * taps + k] = (columns.first[x] + (real ? k : 0)) * 3;
                tap_weight[(size_t)x * taps + k] = real ? columns.weights[columns.offset[x] + k] : 0.0f;
            }
        }
    }
    if (ok) {
        row_f[row_floats] = 0;
        /* Horizontal pass into floats for every source row: per output pixel, the weighted
         * sum of its source pixels, the three channels at once, four pixels at a time. */
        for (int y = 0; y < src_height; y++) {
            const uint8_t *row = src + (size_t)y * row_floats;
            for (size_t i = 0; i < row_floats; i++) row_f[i] = (float)row[i];
            float *out = horizontal + (size_t)y * stride;
            int x = 0;
            for (; x + 4 <= width; x += 4) {
                const int *at = tap_at + (size_t)x * taps;
                const float *w = tap_weight + (size_t)x * taps;
                pc_v4 s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
                for (int k = 0; k < taps; k++) {
                    pc_v4 t0 = pc_load_pixel(row_f + at[k]) * w[k];
                    pc_v4 t1 = pc_load_pixel(row_f + at[taps + k]) * w[taps + k];
                    pc_v4 t2 = pc_load_pixel(row_f + at[2 * taps + k]) * w[2 * taps + k];
                    pc_v4 t3 = pc_load_pixel(row_f + at[3 * taps + k]) * w[3 * taps + k];
                    s0 += t0;
                    s1 += t1;
                    s2 += t2;
                    s3 += t3;
                }
                float *o = out + (size_t)x * 3;
                o[0] = s0[0], o[1] = s0[1], o[2] = s0[2];
                o[3] = s1[0], o[4] = s1[1], o[5] = s1[2];
                o[6] = s2[0], o[7] = s2[1], o[8] = s2[2];
                o[9] = s3[0], o[10] = s3[1], o[11] = s3[2];
            }
            for (; x < width; x++) {
                const int *at = tap_at + (size_t)x * taps;
                const float *w = tap_weight + (size_t)x * taps;
                pc_v4 sum = {0, 0, 0, 0};
                for (int k = 0; k < taps; k++) {
                    pc_v4 t = pc_load_pixel(row_f + at[k]) * w[k];
                    sum += t;
                }
                out[x * 3] = sum[0];
                out[x * 3 + 1] = sum[1];
                out[x * 3 + 2] = sum[2];
            }
        }
        /* Vertical pass. */
        for (int y = 0; y < height; y++) {
            const float *w = rows.weights + rows.offset[y];
            for (size_t i = 0; i < stride; i++) sums[i] = 0;
            for (int k = 0, n = rows.count[y]; k < n; k++) {
                const float *base = horizontal + (size_t)(rows.first[y] + k) * stride;
                float wk = w[k];
                for (size_t i = 0; i < stride; i++) {
                    float t = base[i] * wk;
                    sums[i] += t;
                }
            }
            uint8_t *out = dst + (size_t)y * stride;
            for (size_t i = 0; i < stride; i++) {
                float v = sums[i] + 0.5f;
                v = v > 255 ? 255 : v;
                v = v < 0 ? 0 : v;
                out[i] = (uint8_t)v;
            }
        }
    }
    pc_spans_free(&columns);
    pc_spans_free(&rows);
    free(horizontal);
    free(sums);
    free(row_f);
    free(tap_at);
    free(tap_weight);
    return ok;
}
