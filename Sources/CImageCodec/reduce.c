#include <stdlib.h>
#include <string.h>
#include "reduce.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/*
 * Clears box and sets the geometry both initialisers share: the factor (at least 1), the
 * input size in pixels and channels, and the output size, each side ceil(input / factor).
 */
static void pc_box_geometry(pc_box *box, int in_width, int in_height, int channels, int factor) {
    memset(box, 0, sizeof *box);
    box->factor = factor < 1 ? 1 : factor;
    box->in_width = in_width;
    box->in_height = in_height;
    box->channels = channels;
    box->out_width = (in_width + box->factor - 1) / box->factor;
    box->out_height = (in_height + box->factor - 1) / box->factor;
}

int pc_box_init(pc_box *box, int in_width, int in_height, int channels, int factor) {
    pc_box_geometry(box, in_width, in_height, channels, factor);
    /* RGBA columns keep 4 values per pixel so that pc_box_add_row adds whole SSE2 lanes. */
    box->stride = channels == 4 ? 4 : 3;
    box->sums = calloc((size_t)box->out_width * 3, sizeof(uint32_t));
    box->columns = calloc((size_t)in_width * (size_t)box->stride, sizeof(uint32_t));
    box->out = malloc((size_t)box->out_width * box->out_height * 3);
    return box->sums != NULL && box->columns != NULL && box->out != NULL;
}

/* Straight (non-premultiplied) PNG alpha over white, in the 8-bit encoded values. */
static inline uint32_t pc_over_white(uint32_t value, uint32_t alpha) {
    return (value * alpha + 255u * (255u - alpha) + 127u) / 255u;
}

/*
 * Ends a band: the column sums of its rows are added up f columns at a time into sums, which
 * become the averages of one output row. Integer sums, so the order of the additions (columns
 * first, then across) gives exactly what adding each row's f-pixel runs did.
 */
static void pc_box_flush(pc_box *box) {
    int f = box->factor;
    const uint32_t *columns = box->columns;
    const size_t stride = (size_t)box->stride;
    int x = 0;
    for (int ox = 0; ox < box->out_width; ox++) {
        uint32_t r = 0, g = 0, b = 0;
        int end = x + f;
        if (end > box->in_width) end = box->in_width;
        for (; x < end; x++) {
            const uint32_t *c = columns + (size_t)x * stride;
            r += c[0]; g += c[1]; b += c[2];
        }
        box->sums[ox * 3] = r; box->sums[ox * 3 + 1] = g; box->sums[ox * 3 + 2] = b;
    }
    uint8_t *dst = box->out + (size_t)box->out_row * box->out_width * 3;
    for (int ox = 0; ox < box->out_width; ox++) {
        int n_columns = box->in_width - ox * f;
        if (n_columns > f) n_columns = f;
        uint32_t n = (uint32_t)n_columns * (uint32_t)box->rows_in_band;
        for (int c = 0; c < 3; c++) {
            dst[ox * 3 + c] = (uint8_t)((box->sums[ox * 3 + c] + n / 2) / n);
        }
    }
    memset(box->columns, 0, (size_t)box->in_width * stride * sizeof(uint32_t));
    box->rows_in_band = 0;
    box->out_row++;
}

/*
 * Adds one source row to the band's column sums: a straight element-wise add for RGB (which
 * the compiler vectorises: the per-output-pixel runs it replaced cost 8 % of a PNG import's
 * CPU), alpha flattened onto white per pixel first for RGBA. A column sum is at most 255 x f,
 * and what pc_box_flush adds up from them at most 255 x f x f, as the sums were before.
 */
void pc_box_add_row(pc_box *box, const uint8_t *row) {
    uint32_t *columns = box->columns;
    int w = box->in_width;
    if (box->channels == 3) {
        size_t n = (size_t)w * 3;
        for (size_t i = 0; i < n; i++) columns[i] += row[i];
    } else {
        int x = 0;
#if defined(__SSE2__)
        /*
         * Four pixels at a time in 16-bit lanes: value × alpha + 255 × (255 − alpha) + 127 is at
         * most 65,152, and for t ≤ 65,534, t / 255 = (t + 1 + (t >> 8)) >> 8 (checked for every t),
         * so each lane holds exactly what pc_over_white returns.
         */
        const __m128i zero = _mm_setzero_si128(), full = _mm_set1_epi16(255), half = _mm_set1_epi16(127);
        const __m128i one = _mm_set1_epi16(1);
        for (; x + 4 <= w; x += 4) {
            __m128i px = _mm_loadu_si128((const __m128i *)(row + (size_t)x * 4));
            uint32_t *c = columns + (size_t)x * 4;
            for (int h = 0; h < 2; h++) {
                __m128i v = h == 0 ? _mm_unpacklo_epi8(px, zero) : _mm_unpackhi_epi8(px, zero);
                __m128i a = _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xFF), 0xFF);
                __m128i t = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(v, a),
                                                        _mm_mullo_epi16(_mm_sub_epi16(full, a), full)), half);
                __m128i q = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(t, one), _mm_srli_epi16(t, 8)), 8);
                /* Two pixels of 4 lanes each, widened to 32 bits and added to their columns (the
                 * alpha lane's column is never read). */
                __m128i *lo = (__m128i *)(c + h * 8), *hi = (__m128i *)(c + h * 8 + 4);
                _mm_storeu_si128(lo, _mm_add_epi32(_mm_loadu_si128(lo), _mm_unpacklo_epi16(q, zero)));
                _mm_storeu_si128(hi, _mm_add_epi32(_mm_loadu_si128(hi), _mm_unpackhi_epi16(q, zero)));
            }
        }
#endif
        for (; x < w; x++) {
            uint32_t a = row[x * 4 + 3];
            columns[x * 4] += pc_over_white(row[x * 4], a);
            columns[x * 4 + 1] += pc_over_white(row[x * 4 + 1], a);
            columns[x * 4 + 2] += pc_over_white(row[x * 4 + 2], a);
        }
    }
    box->rows_in_band++;
    int consumed = box->out_row * box->factor + box->rows_in_band;
    if (box->rows_in_band == box->factor || consumed == box->in_height) pc_box_flush(box);
}

void pc_box_free(pc_box *box) {
    free(box->sums);
    box->sums = NULL;
    free(box->columns);
    box->columns = NULL;
    /* box->out is handed to the caller on success and freed by it otherwise */
}

int pc_box_init_grid(pc_box *box, int in_width, int in_height, int channels, int factor) {
    pc_box_geometry(box, in_width, in_height, channels, factor);
    box->sums = calloc((size_t)box->out_width * (size_t)box->out_height * 3, sizeof(uint32_t));
    box->out = malloc((size_t)box->out_width * box->out_height * 3);
    return box->sums != NULL && box->out != NULL;
}

void pc_box_add_pixels(pc_box *box, const uint8_t *pixels, int count, int y, int x0, int dx) {
    int f = box->factor;
    uint32_t *row = box->sums + (size_t)(y / f) * (size_t)box->out_width * 3;
    for (int i = 0, x = x0; i < count; i++, x += dx) {
        uint32_t *sum = row + (size_t)(x / f) * 3;
        if (box->channels == 3) {
            sum[0] += pixels[i * 3]; sum[1] += pixels[i * 3 + 1]; sum[2] += pixels[i * 3 + 2];
        } else {
            uint32_t a = pixels[i * 4 + 3];
            sum[0] += pc_over_white(pixels[i * 4], a);
            sum[1] += pc_over_white(pixels[i * 4 + 1], a);
            sum[2] += pc_over_white(pixels[i * 4 + 2], a);
        }
    }
}

void pc_box_finish(pc_box *box) {
    int f = box->factor;
    for (int oy = 0; oy < box->out_height; oy++) {
        int rows = box->in_height - oy * f;
        if (rows > f) rows = f;
        const uint32_t *sums = box->sums + (size_t)oy * (size_t)box->out_width * 3;
        uint8_t *dst = box->out + (size_t)oy * (size_t)box->out_width * 3;
        for (int ox = 0; ox < box->out_width; ox++) {
            int columns = box->in_width - ox * f;
            if (columns > f) columns = f;
            uint32_t n = (uint32_t)columns * (uint32_t)rows;
            for (int c = 0; c < 3; c++) dst[ox * 3 + c] = (uint8_t)((sums[ox * 3 + c] + n / 2) / n);
        }
    }
}
