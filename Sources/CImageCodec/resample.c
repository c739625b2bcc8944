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

int pc_area_average(const uint8_t *src, int src_width, int src_height, uint8_t *dst, int width, int height) {
    if (src_width < 1 || src_height < 1 || width < 1 || height < 1) return 0;
    /* Span offsets are ints and count at most source + target weights per axis; the working
     * floats are src_height x width x 3: refuse sizes whose counts do not fit. */
    if ((int64_t)src_width + width > INT32_MAX || (int64_t)src_height + height > INT32_MAX) return 0;
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
    if (ok) {
        row_f[row_floats] = 0;
        /* Horizontal pass into floats for every source row: per output pixel, the weighted
         * sum of its source pixels, the three channels at once. */
        for (int y = 0; y < src_height; y++) {
            const uint8_t *row = src + (size_t)y * row_floats;
            for (size_t i = 0; i < row_floats; i++) row_f[i] = (float)row[i];
            float *out = horizontal + (size_t)y * stride;
            for (int x = 0; x < width; x++) {
                const float *w = columns.weights + columns.offset[x];
                const float *p = row_f + (size_t)columns.first[x] * 3;
                pc_v4 sum = {0, 0, 0, 0};
                for (int k = 0, n = columns.count[x]; k < n; k++, p += 3) {
                    pc_v4 pixel;
                    memcpy(&pixel, p, sizeof pixel);
                    pc_v4 t = pixel * w[k];
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
    return ok;
}
