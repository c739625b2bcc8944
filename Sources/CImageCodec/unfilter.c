/*
 * PNG row unfiltering (PNG spec §9.2-§9.4), for png.c's fed path: Debian's libpng 1.6 is built
 * without its SSE2 filter code (PNG_INTEL_SSE), so its byte-at-a-time Average and Paeth were
 * 23 % of a PNG import's instructions. For 3- and 4-byte pixels (8-bit RGB, RGBA) the three
 * filters with a dependency on the pixel to the left work one pixel at a time in SSE2 lanes,
 * the way libpng's own contrib intel/filter_sse2_intrinsics.c does; other pixel sizes
 * byte at a time. Integer arithmetic throughout: the same bytes whichever code runs.
 */
#include <string.h>
#include "unfilter.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static void pc_unfilter_sub(uint8_t *row, size_t n, size_t bpp) {
    for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
}

static void pc_unfilter_up(uint8_t *row, const uint8_t *prev, size_t n) {
    for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + prev[i]);
}

static void pc_unfilter_avg(uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    size_t i = 0;
    for (; i < bpp && i < n; i++) row[i] = (uint8_t)(row[i] + (prev[i] >> 1));
    for (; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
}

static inline uint8_t pc_paeth(int a, int b, int c) {
    int pa = b - c, pb = a - c, pc = pa + pb;
    if (pa < 0) pa = -pa;
    if (pb < 0) pb = -pb;
    if (pc < 0) pc = -pc;
    /* Ties go to a, then b (PNG spec §9.4). */
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

static void pc_unfilter_paeth(uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    size_t i = 0;
    for (; i < bpp && i < n; i++) row[i] = (uint8_t)(row[i] + prev[i]); /* a = c = 0: b wins */
    for (; i < n; i++) row[i] = (uint8_t)(row[i] + pc_paeth(row[i - bpp], prev[i], prev[i - bpp]));
}

#if defined(__SSE2__)
/*
 * One pixel of 3 or 4 bytes into the low lanes of a register, and back. BPP is a constant in
 * every caller (the functions below are instantiated for 3 and 4), so the copies compile to
 * plain loads and stores instead of memcpy calls through a stack slot.
 */
#define PC_ALWAYS_INLINE static inline __attribute__((always_inline))
PC_ALWAYS_INLINE __m128i pc_load(const uint8_t *p, size_t bpp) {
    uint32_t v = 0;
    if (bpp == 4) memcpy(&v, p, 4);
    else v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return _mm_cvtsi32_si128((int)v);
}

PC_ALWAYS_INLINE void pc_store(uint8_t *p, __m128i v, size_t bpp) {
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(v);
    if (bpp == 4) memcpy(p, &x, 4);
    else { p[0] = (uint8_t)x; p[1] = (uint8_t)(x >> 8); p[2] = (uint8_t)(x >> 16); }
}

/* Sub, Average, Paeth on whole pixels of bpp (3 or 4) bytes; n is a multiple of bpp. */
PC_ALWAYS_INLINE void pc_unfilter_sub_sse2(uint8_t *row, size_t n, size_t bpp) {
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < n; i += bpp) {
        a = _mm_add_epi8(a, pc_load(row + i, bpp));
        pc_store(row + i, a, bpp);
    }
}

PC_ALWAYS_INLINE void pc_unfilter_avg_sse2(uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    const __m128i ones = _mm_set1_epi8(1);
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < n; i += bpp) {
        __m128i b = pc_load(prev + i, bpp);
        /* floor((a + b) / 2): pavgb rounds up, so take back the odd sums' 1. */
        __m128i avg = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), ones));
        a = _mm_add_epi8(pc_load(row + i, bpp), avg);
        pc_store(row + i, a, bpp);
    }
}

PC_ALWAYS_INLINE __m128i pc_abs16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

PC_ALWAYS_INLINE __m128i pc_select(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

PC_ALWAYS_INLINE void pc_unfilter_paeth_sse2(uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    const __m128i zero = _mm_setzero_si128();
    /* a, b, c, and the result d, as 16-bit lanes. */
    __m128i b = zero, d = zero;
    for (size_t i = 0; i < n; i += bpp) {
        __m128i c = b, a = d;
        b = _mm_unpacklo_epi8(pc_load(prev + i, bpp), zero);
        d = _mm_unpacklo_epi8(pc_load(row + i, bpp), zero);
        __m128i pa = _mm_sub_epi16(b, c), pb = _mm_sub_epi16(a, c);
        __m128i pc = pc_abs16(_mm_add_epi16(pa, pb));
        pa = pc_abs16(pa);
        pb = pc_abs16(pb);
        __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
        __m128i nearest = pc_select(_mm_cmpeq_epi16(smallest, pa), a, pc_select(_mm_cmpeq_epi16(smallest, pb), b, c));
        /* Bytewise add: the high byte of each lane stays 0, the low one wraps as in the spec. */
        d = _mm_add_epi8(d, nearest);
        pc_store(row + i, _mm_packus_epi16(d, d), bpp);
    }
}

/* 1 when done here (3- or 4-byte pixels), 0 for the byte-at-a-time code. */
static int pc_unfilter_sse2(int type, uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    if ((bpp != 3 && bpp != 4) || n % bpp != 0) return 0;
    if (bpp == 3) {
        if (type == 1) pc_unfilter_sub_sse2(row, n, 3);
        else if (type == 3) pc_unfilter_avg_sse2(row, prev, n, 3);
        else pc_unfilter_paeth_sse2(row, prev, n, 3);
    } else {
        if (type == 1) pc_unfilter_sub_sse2(row, n, 4);
        else if (type == 3) pc_unfilter_avg_sse2(row, prev, n, 4);
        else pc_unfilter_paeth_sse2(row, prev, n, 4);
    }
    return 1;
}
#else
static int pc_unfilter_sse2(int type, uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    (void)type; (void)row; (void)prev; (void)n; (void)bpp;
    return 0;
}
#endif

int pc_unfilter_row(int type, uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    if (bpp < 1) bpp = 1;
    switch (type) {
    case 0: return 1;
    case 1: if (!pc_unfilter_sse2(type, row, prev, n, bpp)) pc_unfilter_sub(row, n, bpp); return 1;
    case 2: pc_unfilter_up(row, prev, n); return 1;
    case 3: if (!pc_unfilter_sse2(type, row, prev, n, bpp)) pc_unfilter_avg(row, prev, n, bpp); return 1;
    case 4: if (!pc_unfilter_sse2(type, row, prev, n, bpp)) pc_unfilter_paeth(row, prev, n, bpp); return 1;
    default: return 0;
    }
}
