/*
 * thumbjpeg.c: our own baseline JPEG encoder for thumbnails (pc_thumbnail_jpeg_encode, used by
 * pc_jpeg_encode). 8-bit RGB in; YCbCr, 4:2:0, one interleaved sequential scan (SOF0), Huffman
 * tables optimized for the image, no restart markers; JFIF APP0 and the sRGB Exif APP1
 * (pc_srgb_exif_app1, jpeg.c) after SOI.
 *
 * It writes what libjpeg-turbo 2.1.5 writes for the same input (jpeg_set_defaults,
 * jpeg_set_quality(q, TRUE), optimize_coding, JDCT_ISLOW, and jpeg.c's shared Huffman tables up
 * to 240 x 240 pixels): every quantized DCT coefficient the same, the same tables, the same bytes.
 * What each step follows:
 *   - colour conversion: jccolor.c rgb_ycc (JFIF / T.871 equations in 16-bit fixed point:
 *     FIX(x) = x * 65536 + 0.5 truncated; Y rounds with ONE_HALF, Cb and Cr with ONE_HALF - 1).
 *   - edge expansion: jcprepct.c (bottom rows replicated to an even row count, then the
 *     downsampled rows to a whole iMCU row) and jcsample.c expand_right_edge (rightmost column
 *     replicated to whole blocks, to 16 columns per MCU before the chroma downsampling).
 *   - downsampling: jcsample.c h2v2_downsample, (a + b + c + d + bias) >> 2 with bias 1, 2, 1, 2...
 *     along each output row.
 *   - blocks past the image in an MCU (jccoefct.c compress_first_pass): all AC zero and the DC
 *     of the last real block to their left (right edge), or of the MCU's right block above (bottom).
 *   - forward DCT: jfdctint.c jpeg_fdct_islow (Loeffler-Ligtenberg-Moschytz, CONST_BITS 13,
 *     PASS1_BITS 2; outputs scaled up by 8); libjpeg-turbo's SSE2/AVX2 version gives the same
 *     integers (the tests compare coefficients with libjpeg's own encode).
 *   - quantization tables: jcparam.c (T.81 Annex K.1 tables, jpeg_quality_scaling,
 *     jpeg_add_quant_table with force_baseline: (t * scale + 50) / 100 in 1...255).
 *   - quantization: jcdctmgr.c compute_reciprocal / quantize (divisor q * 8, rounding by a 16-bit
 *     reciprocal with correction: the rounded quotient, half away from zero).
 *   - entropy coding: T.81 F.1.2 (DC differences, AC run/size symbols, ZRL, EOB), F.1.2.3 byte
 *     stuffing, bits padded with 1s; jchuff.c encode_one_block.
 *   - optimal tables: T.81 Annex K.2 as jchuff.c jpeg_gen_optimal_table does it (pseudo-symbol
 *     256 with count 1, ties broken towards the larger symbol, lengths limited to 16 bits by
 *     K.2's Figure K.3 adjustment), with a binary heap instead of K.2's scans over 257 symbols:
 *     the same merges in the same order, so the same code lengths; codes by T.81 Annex C.
 *   - markers: jcmarker.c (SOI, APP0 JFIF 1.01 aspect 1:1, APP1, one DQT per table in zigzag
 *     order, SOF0, one DHT per table as the scan first names it, SOS, EOI); T.81 B.2, B.2.4.
 *
 * The image is worked one MCU row (16 pixel rows) at a time; each block's symbols are kept as
 * tokens (at most 64 per block) while their counts are gathered, then the tables are built and
 * the tokens written: one pass over the pixels. Memory: the tokens (at most 256 bytes per 8 x 8
 * block, 6 bytes per pixel) and the output (bounded from the symbol counts before it is
 * allocated). Nothing global is mutable; nothing exits.
 *
 * On x86-64 (SSE2, its baseline) the colour conversion, downsampling, transform and quantization work
 * 8 samples at a time with libjpeg-turbo's SIMD arithmetic (16-bit lanes, exact 32-bit products from
 * pmaddwd); elsewhere the same integer steps run in portable C. Both give libjpeg's coefficients
 * (ThumbnailEncoderTests on x86-64; the portable C checked against libjpeg with __SSE2__ undefined).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "messages.h"
#if defined(__SSE2__)
#include <emmintrin.h> /* x86-64's baseline: the block transform, quantization and colour conversion */
#define PC_TJ_SSE2 1
#endif

/* T.81 Table K.1 / K.2 (jcparam.c std_luminance_quant_tbl, std_chrominance_quant_tbl), natural order. */
static const uint8_t pc_tj_luma_quant[64] = {
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
};
static const uint8_t pc_tj_chroma_quant[64] = {
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
};

/* Zigzag position -> natural (row-major) index (T.81 Figure A.6; jutils.c jpeg_natural_order). */
static const uint8_t pc_tj_natural[64] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/* Natural index -> zigzag position (the inverse of pc_tj_natural). */
static const uint8_t pc_tj_zigzag[64] = {
    0, 1, 5, 6, 14, 15, 27, 28, 2, 4, 7, 13, 16, 26, 29, 42,
    3, 8, 12, 17, 25, 30, 41, 43, 9, 11, 18, 24, 31, 40, 44, 53,
    10, 19, 23, 32, 39, 45, 52, 54, 20, 22, 33, 38, 46, 51, 55, 60,
    21, 34, 37, 47, 50, 56, 59, 61, 35, 36, 48, 49, 57, 58, 62, 63,
};

#define PC_TJ_MAX_DIMENSION 65500 /* jmorecfg.h JPEG_MAX_DIMENSION */

/* One quantization table: its values and jcdctmgr.c's reciprocal divisors, natural order. */
typedef struct pc_tj_quant {
    uint8_t value[64];      /* for DQT */
    uint16_t recip[64];     /* 2^shift / (value * 8), rounded as compute_reciprocal does */
    uint16_t corr[64];      /* value * 4 (+ 1 when the reciprocal was rounded down) */
    uint16_t scale[64];     /* 2^(32 - shift): the SIMD form of the shift, as libjpeg-turbo's */
    uint8_t shift[64];
} pc_tj_quant;

/* jcdctmgr.c compute_reciprocal for a 16-bit DCTELEM (libjpeg-turbo's SIMD build). */
static void pc_tj_divisor(unsigned divisor, pc_tj_quant *q, int i) {
    int b = 31 - __builtin_clz(divisor);
    int r = 16 + b;
    uint32_t fq = (1u << r) / divisor, fr = (1u << r) % divisor, c = divisor / 2;
    if (fr == 0) {
        fq >>= 1;
        r--;
    } else if (fr <= divisor / 2) {
        c++;
    } else {
        fq++;
    }
    q->recip[i] = (uint16_t)fq;
    q->corr[i] = (uint16_t)c;
    q->scale[i] = (uint16_t)(1u << (32 - r));
    q->shift[i] = (uint8_t)r;
}

/* jcparam.c jpeg_add_quant_table with force_baseline, scaled by jpeg_quality_scaling. */
static void pc_tj_make_quant(pc_tj_quant *q, const uint8_t *basic, int quality) {
    long scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
    for (int i = 0; i < 64; i++) {
        long t = ((long)basic[i] * scale + 50) / 100;
        if (t <= 0) t = 1;
        if (t > 255) t = 255;
        q->value[i] = (uint8_t)t;
        pc_tj_divisor((unsigned)t << 3, q, i);
    }
}

/* jfdctint.c constants, FIX(x) with CONST_BITS 13. */
#define PC_F0298 2446
#define PC_F0390 3196
#define PC_F0541 4433
#define PC_F0765 6270
#define PC_F0899 7373
#define PC_F1175 9633
#define PC_F1501 12299
#define PC_F1847 15137
#define PC_F1961 16069
#define PC_F2053 16819
#define PC_F2562 20995
#define PC_F3072 25172

#if PC_TJ_SSE2
/* Transposes 8 x 8 16-bit values held as 8 rows. */
static inline void pc_tj_transpose(__m128i *v) {
    __m128i a0 = _mm_unpacklo_epi16(v[0], v[1]), a1 = _mm_unpackhi_epi16(v[0], v[1]);
    __m128i a2 = _mm_unpacklo_epi16(v[2], v[3]), a3 = _mm_unpackhi_epi16(v[2], v[3]);
    __m128i a4 = _mm_unpacklo_epi16(v[4], v[5]), a5 = _mm_unpackhi_epi16(v[4], v[5]);
    __m128i a6 = _mm_unpacklo_epi16(v[6], v[7]), a7 = _mm_unpackhi_epi16(v[6], v[7]);
    __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
    __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
    __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    v[0] = _mm_unpacklo_epi64(b0, b4);
    v[1] = _mm_unpackhi_epi64(b0, b4);
    v[2] = _mm_unpacklo_epi64(b1, b5);
    v[3] = _mm_unpackhi_epi64(b1, b5);
    v[4] = _mm_unpacklo_epi64(b2, b6);
    v[5] = _mm_unpackhi_epi64(b2, b6);
    v[6] = _mm_unpacklo_epi64(b3, b7);
    v[7] = _mm_unpackhi_epi64(b3, b7);
}

/* (a * ka + b * kb + 2^(n-1)) >> n per lane, 32-bit exact (pmaddwd), packed back to 16 bits. */
static inline __m128i pc_tj_rotate(__m128i a, __m128i b, int ka, int kb, int n) {
    __m128i k = _mm_set1_epi32((int)((uint32_t)(uint16_t)ka | (uint32_t)kb << 16));
    __m128i round = _mm_set1_epi32(1 << (n - 1));
    __m128i lo = _mm_madd_epi16(_mm_unpacklo_epi16(a, b), k), hi = _mm_madd_epi16(_mm_unpackhi_epi16(a, b), k);
    return _mm_packs_epi32(_mm_sra_epi32(_mm_add_epi32(lo, round), _mm_cvtsi32_si128(n)),
                           _mm_sra_epi32(_mm_add_epi32(hi, round), _mm_cvtsi32_si128(n)));
}

/* a * ka + b * kb + c * kc + d * kd, rounded and shifted by n, as pc_tj_rotate. */
static inline __m128i pc_tj_rotate4(__m128i a, __m128i b, int ka, int kb, __m128i c, __m128i d, int kc, int kd,
                                    int n) {
    __m128i k1 = _mm_set1_epi32((int)((uint32_t)(uint16_t)ka | (uint32_t)kb << 16));
    __m128i k2 = _mm_set1_epi32((int)((uint32_t)(uint16_t)kc | (uint32_t)kd << 16));
    __m128i round = _mm_set1_epi32(1 << (n - 1));
    __m128i lo = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(a, b), k1), _mm_madd_epi16(_mm_unpacklo_epi16(c, d), k2));
    __m128i hi = _mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(a, b), k1), _mm_madd_epi16(_mm_unpackhi_epi16(c, d), k2));
    return _mm_packs_epi32(_mm_sra_epi32(_mm_add_epi32(lo, round), _mm_cvtsi32_si128(n)),
                           _mm_sra_epi32(_mm_add_epi32(hi, round), _mm_cvtsi32_si128(n)));
}

/*
 * One pass of jpeg_fdct_islow over 8 lanes at once (d[i] holds element i of 8 rows or columns), in
 * 16-bit lanes with 32-bit products as libjpeg-turbo's jfdctint-sse2 does: the products are exact, so
 * the results are jfdctint.c's. Centred samples keep every sum within 16 bits (jfdctint.c's own bound
 * for 8-bit samples).
 */
static inline void pc_tj_dct_pass(__m128i *d, int pass) {
    __m128i tmp0 = _mm_add_epi16(d[0], d[7]), tmp7 = _mm_sub_epi16(d[0], d[7]);
    __m128i tmp1 = _mm_add_epi16(d[1], d[6]), tmp6 = _mm_sub_epi16(d[1], d[6]);
    __m128i tmp2 = _mm_add_epi16(d[2], d[5]), tmp5 = _mm_sub_epi16(d[2], d[5]);
    __m128i tmp3 = _mm_add_epi16(d[3], d[4]), tmp4 = _mm_sub_epi16(d[3], d[4]);
    __m128i tmp10 = _mm_add_epi16(tmp0, tmp3), tmp13 = _mm_sub_epi16(tmp0, tmp3);
    __m128i tmp11 = _mm_add_epi16(tmp1, tmp2), tmp12 = _mm_sub_epi16(tmp1, tmp2);
    int n = pass == 1 ? 11 : 15; /* CONST_BITS - PASS1_BITS, CONST_BITS + PASS1_BITS */
    if (pass == 1) {
        d[0] = _mm_slli_epi16(_mm_add_epi16(tmp10, tmp11), 2);
        d[4] = _mm_slli_epi16(_mm_sub_epi16(tmp10, tmp11), 2);
    } else {
        __m128i two = _mm_set1_epi16(2);
        d[0] = _mm_srai_epi16(_mm_add_epi16(_mm_add_epi16(tmp10, tmp11), two), 2);
        d[4] = _mm_srai_epi16(_mm_add_epi16(_mm_sub_epi16(tmp10, tmp11), two), 2);
    }
    /* z1 = (tmp12 + tmp13) * c6; out2 = z1 + tmp13 * (c2 - c6); out6 = z1 - tmp12 * (c2 + c6) */
    d[2] = pc_tj_rotate(tmp13, tmp12, PC_F0541 + PC_F0765, PC_F0541, n);
    d[6] = pc_tj_rotate(tmp13, tmp12, PC_F0541, PC_F0541 - PC_F1847, n);
    /* odd part: z3, z4 with z5 folded in; z1 = tmp4 + tmp7 and z2 = tmp5 + tmp6 folded into pairs */
    __m128i z3 = _mm_add_epi16(tmp4, tmp6), z4 = _mm_add_epi16(tmp5, tmp7);
    d[7] = pc_tj_rotate4(tmp4, tmp7, PC_F0298 - PC_F0899, -PC_F0899, z3, z4, PC_F1175 - PC_F1961, PC_F1175, n);
    d[1] = pc_tj_rotate4(tmp4, tmp7, -PC_F0899, PC_F1501 - PC_F0899, z3, z4, PC_F1175, PC_F1175 - PC_F0390, n);
    d[5] = pc_tj_rotate4(tmp5, tmp6, PC_F2053 - PC_F2562, -PC_F2562, z3, z4, PC_F1175, PC_F1175 - PC_F0390, n);
    d[3] = pc_tj_rotate4(tmp5, tmp6, -PC_F2562, PC_F3072 - PC_F2562, z3, z4, PC_F1175 - PC_F1961, PC_F1175, n);
}

/*
 * One block: samples (8 x 8 at `stride`) centred, transformed, quantized (jcdctmgr.c quantize:
 * |x| + corr times the reciprocal, high halves twice as libjpeg-turbo's jsimd_quantize) into coef,
 * natural order. Returns the mask of nonzero coefficients (bit i: natural index i).
 */
static inline uint64_t pc_tj_block(const uint8_t *samples, size_t stride, const pc_tj_quant *q, int16_t *coef) {
    __m128i v[8];
    __m128i zero = _mm_setzero_si128(), centre = _mm_set1_epi16(128);
    for (int r = 0; r < 8; r++)
        v[r] = _mm_sub_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(samples + r * stride)), zero), centre);
    pc_tj_transpose(v); /* v[c]: column c; a pass across the vectors transforms each row */
    pc_tj_dct_pass(v, 1);
    pc_tj_transpose(v); /* v[r]: row r of the row-transformed block */
    pc_tj_dct_pass(v, 2);
    uint64_t zeros = 0;
    for (int r = 0; r < 8; r++) {
        __m128i x = v[r];
        __m128i sign = _mm_srai_epi16(x, 15);
        __m128i a = _mm_sub_epi16(_mm_xor_si128(x, sign), sign);
        a = _mm_add_epi16(a, _mm_loadu_si128((const __m128i *)(q->corr + 8 * r)));
        a = _mm_mulhi_epu16(a, _mm_loadu_si128((const __m128i *)(q->recip + 8 * r)));
        a = _mm_mulhi_epu16(a, _mm_loadu_si128((const __m128i *)(q->scale + 8 * r)));
        x = _mm_sub_epi16(_mm_xor_si128(a, sign), sign);
        _mm_storeu_si128((__m128i *)(coef + 8 * r), x);
        v[r] = x;
    }
    for (int r = 0; r < 8; r += 2) {
        __m128i z = _mm_packs_epi16(_mm_cmpeq_epi16(v[r], zero), _mm_cmpeq_epi16(v[r + 1], zero));
        zeros |= (uint64_t)(uint16_t)_mm_movemask_epi8(z) << (8 * r);
    }
    return ~zeros;
}
#else
/* jfdctint.c jpeg_fdct_islow on samples already centred (jcdctmgr.c convsamp). */
static inline void pc_tj_fdct(int32_t *d) {
    for (int row = 0; row < 8; row++) {
        int32_t *p = d + row * 8;
        int32_t tmp0 = p[0] + p[7], tmp7 = p[0] - p[7];
        int32_t tmp1 = p[1] + p[6], tmp6 = p[1] - p[6];
        int32_t tmp2 = p[2] + p[5], tmp5 = p[2] - p[5];
        int32_t tmp3 = p[3] + p[4], tmp4 = p[3] - p[4];
        int32_t tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
        p[0] = (tmp10 + tmp11) * 4;
        p[4] = (tmp10 - tmp11) * 4;
        int32_t z1 = (tmp12 + tmp13) * PC_F0541 + (1 << 10);
        p[2] = (z1 + tmp13 * PC_F0765) >> 11;
        p[6] = (z1 - tmp12 * PC_F1847) >> 11;
        z1 = tmp4 + tmp7;
        int32_t z2 = tmp5 + tmp6, z3 = tmp4 + tmp6, z4 = tmp5 + tmp7;
        int32_t z5 = (z3 + z4) * PC_F1175 + (1 << 10);
        tmp4 *= PC_F0298;
        tmp5 *= PC_F2053;
        tmp6 *= PC_F3072;
        tmp7 *= PC_F1501;
        z1 *= -PC_F0899;
        z2 *= -PC_F2562;
        z3 = z3 * -PC_F1961 + z5;
        z4 = z4 * -PC_F0390 + z5;
        p[7] = (tmp4 + z1 + z3) >> 11;
        p[5] = (tmp5 + z2 + z4) >> 11;
        p[3] = (tmp6 + z2 + z3) >> 11;
        p[1] = (tmp7 + z1 + z4) >> 11;
    }
    for (int col = 0; col < 8; col++) {
        int32_t *p = d + col;
        int32_t tmp0 = p[0] + p[56], tmp7 = p[0] - p[56];
        int32_t tmp1 = p[8] + p[48], tmp6 = p[8] - p[48];
        int32_t tmp2 = p[16] + p[40], tmp5 = p[16] - p[40];
        int32_t tmp3 = p[24] + p[32], tmp4 = p[24] - p[32];
        int32_t tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
        p[0] = (tmp10 + tmp11 + 2) >> 2;
        p[32] = (tmp10 - tmp11 + 2) >> 2;
        int32_t z1 = (tmp12 + tmp13) * PC_F0541 + (1 << 14);
        p[16] = (z1 + tmp13 * PC_F0765) >> 15;
        p[48] = (z1 - tmp12 * PC_F1847) >> 15;
        z1 = tmp4 + tmp7;
        int32_t z2 = tmp5 + tmp6, z3 = tmp4 + tmp6, z4 = tmp5 + tmp7;
        int32_t z5 = (z3 + z4) * PC_F1175 + (1 << 14);
        tmp4 *= PC_F0298;
        tmp5 *= PC_F2053;
        tmp6 *= PC_F3072;
        tmp7 *= PC_F1501;
        z1 *= -PC_F0899;
        z2 *= -PC_F2562;
        z3 = z3 * -PC_F1961 + z5;
        z4 = z4 * -PC_F0390 + z5;
        p[56] = (tmp4 + z1 + z3) >> 15;
        p[40] = (tmp5 + z2 + z4) >> 15;
        p[24] = (tmp6 + z2 + z3) >> 15;
        p[8] = (tmp7 + z1 + z4) >> 15;
    }
}

/* One block as pc_tj_block above, in portable C (jcdctmgr.c convsamp, jpeg_fdct_islow, quantize). */
static inline uint64_t pc_tj_block(const uint8_t *samples, size_t stride, const pc_tj_quant *q, int16_t *coef) {
    int32_t ws[64];
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) ws[r * 8 + c] = (int32_t)samples[r * stride + (size_t)c] - 128;
    pc_tj_fdct(ws);
    uint64_t nonzero = 0;
    for (int i = 0; i < 64; i++) {
        int32_t x = ws[i];
        uint32_t a = (uint32_t)(x < 0 ? -x : x);
        int32_t v = (int32_t)(((a + q->corr[i]) * q->recip[i]) >> q->shift[i]);
        coef[i] = (int16_t)(x < 0 ? -v : v);
        nonzero |= (uint64_t)(v != 0) << i;
    }
    return nonzero;
}
#endif

/* Huffman state while gathering: symbol counts per table (0 luma / shared, 1 chroma). */
typedef struct pc_tj_counts {
    uint32_t dc[2][257];
    uint32_t ac[2][257];
} pc_tj_counts;

/* Number of bits of |v| (T.81 F.1.2.1.1 SSSS), 0 for 0. */
static inline int pc_tj_nbits(int v) {
    unsigned a = (unsigned)(v < 0 ? -v : v);
    return a == 0 ? 0 : 32 - __builtin_clz(a);
}

/* A token: the symbol in the low 8 bits, its appended bits above (T.81 F.1.2.1, F.1.2.2). */
static inline uint32_t pc_tj_token(int symbol, int value, int nbits) {
    unsigned bits = (unsigned)(value < 0 ? value - 1 : value) & ((1u << nbits) - 1);
    return (uint32_t)bits << 8 | (uint32_t)symbol;
}

/*
 * Appends a quantized block's tokens (coef in natural order, `nonzero` its mask): the DC difference,
 * then the AC run/size symbols in zigzag order with ZRL and EOB (T.81 F.1.2.2), counting each symbol.
 * Returns the token count.
 */
static inline int pc_tj_tokenize(const int16_t *coef, uint64_t nonzero, int *last_dc, uint32_t *tokens,
                                 uint32_t *dc_counts, uint32_t *ac_counts) {
    int n = 0;
    int diff = coef[0] - *last_dc;
    *last_dc = coef[0];
    int nb = pc_tj_nbits(diff);
    tokens[n++] = pc_tj_token(nb, diff, nb);
    dc_counts[nb]++;
    uint64_t zigzag = 0;
    for (uint64_t m = nonzero & ~(uint64_t)1; m; m &= m - 1)
        zigzag |= (uint64_t)1 << pc_tj_zigzag[__builtin_ctzll(m)];
    int k = 0; /* last coded position */
    while (zigzag) {
        int next = __builtin_ctzll(zigzag);
        zigzag &= zigzag - 1;
        int run = next - k - 1;
        while (run > 15) {
            tokens[n++] = 0xF0;
            ac_counts[0xF0]++;
            run -= 16;
        }
        int v = coef[pc_tj_natural[next]];
        nb = pc_tj_nbits(v);
        int symbol = run << 4 | nb;
        tokens[n++] = pc_tj_token(symbol, v, nb);
        ac_counts[symbol]++;
        k = next;
    }
    if (k < 63) {
        tokens[n++] = 0x00;
        ac_counts[0]++;
    }
    return n;
}

/* A block past the image edge: AC all zero, the given DC (jccoefct.c). */
static inline int pc_tj_dummy(int dc, int *last_dc, uint32_t *tokens, uint32_t *dc_counts, uint32_t *ac_counts) {
    int diff = dc - *last_dc;
    *last_dc = dc;
    int nb = pc_tj_nbits(diff);
    tokens[0] = pc_tj_token(nb, diff, nb);
    tokens[1] = 0x00;
    dc_counts[nb]++;
    ac_counts[0]++;
    return 2;
}

/* A Huffman table: DHT contents (T.81 B.2.4.2) and the codes (T.81 C.2). */
typedef struct pc_tj_huffman {
    uint8_t bits[17];       /* bits[l]: symbols of code length l */
    uint8_t values[256];    /* symbols by code length */
    int count;
    uint16_t code[256];
    uint8_t size[256];
} pc_tj_huffman;

/*
 * T.81 Annex K.2 as jchuff.c jpeg_gen_optimal_table: Huffman's procedure over the nonzero
 * counts plus the pseudo-symbol 256 (count 1), always merging the two smallest counts, a tie
 * going to the larger symbol number (a merged tree carries its first symbol's number), then
 * code lengths over 16 moved up (Figure K.3) and 256's code removed. The two smallest are taken
 * from a binary heap ordered by (count, larger number first): the same merges K.2's scans make.
 */
static void pc_tj_optimal_table(const uint32_t *counts, pc_tj_huffman *t) {
    uint32_t freq[2 * 257];
    int symbol[257], rep[2 * 257], parent[2 * 257], depth[2 * 257], heap[257];
    int n = 0;
    for (int s = 0; s < 256; s++)
        if (counts[s]) {
            symbol[n] = s;
            freq[n] = counts[s];
            rep[n] = n;
            n++;
        }
    symbol[n] = 256;
    freq[n] = 1;
    rep[n] = n;
    n++;
/* a before b in the heap: smaller count, or the same count and the larger symbol number */
#define PC_TJ_BEFORE(a, b) (freq[a] < freq[b] || (freq[a] == freq[b] && rep[a] > rep[b]))
    int size = 0;
    for (int i = 0; i < n; i++) { /* sift up */
        int j = size++;
        while (j > 0 && PC_TJ_BEFORE(i, heap[(j - 1) / 2])) {
            heap[j] = heap[(j - 1) / 2];
            j = (j - 1) / 2;
        }
        heap[j] = i;
    }
    int next = n;
    while (size > 1) {
        int pair[2];
        for (int p = 0; p < 2; p++) { /* pop the first node */
            pair[p] = heap[0];
            int last = heap[--size], j = 0;
            for (;;) {
                int c = 2 * j + 1;
                if (c >= size) break;
                if (c + 1 < size && PC_TJ_BEFORE(heap[c + 1], heap[c])) c++;
                if (!PC_TJ_BEFORE(heap[c], last)) break;
                heap[j] = heap[c];
                j = c;
            }
            heap[j] = last;
        }
        int m = next++;
        freq[m] = freq[pair[0]] + freq[pair[1]];
        rep[m] = rep[pair[0]];
        parent[pair[0]] = parent[pair[1]] = m;
        int j = size++;
        while (j > 0 && PC_TJ_BEFORE(m, heap[(j - 1) / 2])) {
            heap[j] = heap[(j - 1) / 2];
            j = (j - 1) / 2;
        }
        heap[j] = m;
    }
#undef PC_TJ_BEFORE
    int root = next - 1;
    depth[root] = 0;
    for (int i = root - 1; i >= 0; i--) depth[i] = depth[parent[i]] + 1;

    int bits[258];
    memset(bits, 0, sizeof bits);
    int longest = 0;
    for (int i = 0; i < n; i++) {
        bits[depth[i]]++;
        if (depth[i] > longest) longest = depth[i];
    }
    int position[258];
    int p = 0;
    for (int l = 1; l <= longest; l++) {
        position[l] = p;
        p += bits[l];
    }
    int i = longest;
    for (; i > 16; i--) {
        while (bits[i] > 0) {
            int j = i - 2;
            while (bits[j] == 0) j--;
            bits[i] -= 2;
            bits[i - 1]++;
            bits[j + 1] += 2;
            bits[j]--;
        }
    }
    while (bits[i] == 0) i--;
    bits[i]--;
    t->bits[0] = 0;
    for (int l = 1; l <= 16; l++) t->bits[l] = (uint8_t)bits[l];
    t->count = n - 1;
    for (int s = 0; s < n - 1; s++) t->values[position[depth[s]]++] = (uint8_t)symbol[s];
    /* T.81 C.2: canonical codes, by length then by position in values */
    unsigned code = 0;
    int k = 0;
    memset(t->size, 0, sizeof t->size);
    for (int l = 1; l <= 16; l++) {
        for (int c = 0; c < t->bits[l]; c++, k++) {
            t->code[t->values[k]] = (uint16_t)code++;
            t->size[t->values[k]] = (uint8_t)l;
        }
        code <<= 1;
    }
}

/* Bits the entropy-coded data takes with table t for `counts`: codes and appended bits. */
static uint64_t pc_tj_coded_bits(const uint32_t *counts, const pc_tj_huffman *t) {
    uint64_t total = 0;
    for (int s = 0; s < 256; s++)
        if (counts[s]) total += (uint64_t)counts[s] * (uint64_t)(t->size[s] + (s & 15));
    return total;
}

static uint8_t *pc_tj_put16(uint8_t *p, unsigned v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static uint8_t *pc_tj_dht(uint8_t *p, const pc_tj_huffman *t, int class_and_id) {
    p[0] = 0xFF;
    p[1] = 0xC4;
    p = pc_tj_put16(p + 2, (unsigned)(2 + 1 + 16 + t->count));
    *p++ = (uint8_t)class_and_id;
    memcpy(p, t->bits + 1, 16);
    p += 16;
    memcpy(p, t->values, (size_t)t->count);
    return p + t->count;
}

static uint8_t *pc_tj_dqt(uint8_t *p, const pc_tj_quant *q, int id) {
    p[0] = 0xFF;
    p[1] = 0xDB;
    p = pc_tj_put16(p + 2, 2 + 1 + 64);
    *p++ = (uint8_t)id;
    for (int k = 0; k < 64; k++) *p++ = q->value[pc_tj_natural[k]];
    return p;
}

/* Bytes of the fixed part of the file for the given table sizes (markers, tables, EOI). */
static size_t pc_tj_header_bytes(const pc_tj_huffman *tables, int table_count) {
    size_t total = 2 + 18 + 4 + pc_srgb_exif_app1_size + 2 * 69 + 19 + 14 + 2;
    for (int i = 0; i < table_count; i++) total += 2 + 2 + 1 + 16 + (size_t)tables[i].count;
    return total;
}

/* The working memory for a width x height encode, or 0 when it cannot be expressed in a size_t. */
size_t pc_thumbnail_jpeg_encode_memory(int width, int height) {
    if (width < 1 || height < 1 || width > PC_TJ_MAX_DIMENSION || height > PC_TJ_MAX_DIMENSION) return 0;
    uint64_t across = ((uint64_t)width + 15) / 16, down = ((uint64_t)height + 15) / 16;
    uint64_t blocks = across * down * 6;
    uint64_t band = across * 16 * 16 * 3 + across * 8 * 8 * 2;
    uint64_t bytes = blocks * 64 * sizeof(uint32_t) + blocks + band;
    if (bytes > SIZE_MAX) return 0;
    return (size_t)bytes;
}

#if PC_TJ_SSE2
/* Two 16-bit factors as the 32-bit lane pmaddwd multiplies a pair of 16-bit lanes by. */
static inline __m128i pc_tj_pair(int low, int high) {
    return _mm_set1_epi32((int)((uint32_t)(uint16_t)low | (uint32_t)(uint16_t)high << 16));
}

/* (sum + 2^15 or Cb/Cr's offset) >> 16 for 8 pixels (two halves of 4), to 8 bytes. */
static inline void pc_tj_store8(uint8_t *out, __m128i lo, __m128i hi) {
    __m128i w = _mm_packs_epi32(_mm_srai_epi32(lo, 16), _mm_srai_epi32(hi, 16));
    _mm_storel_epi64((__m128i *)out, _mm_packus_epi16(w, w));
}
#endif

/*
 * jccolor.c rgb_ycc_convert: one row into Y, Cb, Cr, the last pixel repeated up to `padded`.
 * The SSE2 form splits G's luma factor as libjpeg-turbo's jccolext-sse2 does (0.587 = 0.337 + 0.250,
 * FIX(0.33700) + FIX(0.25000) = FIX(0.58700)) and multiplies B's and R's 0.5 as two 0.25s: the
 * same integer sums.
 */
static void pc_tj_convert_row(const uint8_t *rgb, int width, int padded, uint8_t *y, uint8_t *cb, uint8_t *cr) {
    int x = 0;
#if PC_TJ_SSE2
    const __m128i y_rg = pc_tj_pair(19595, 22086), y_bg = pc_tj_pair(7471, 16384);
    const __m128i cb_rg = pc_tj_pair(-11059, -21709), quarter = pc_tj_pair(16384, 16384);
    const __m128i cr_gb = pc_tj_pair(-27439, -5329);
    const __m128i y_offset = _mm_set1_epi32(32768), c_offset = _mm_set1_epi32((128 << 16) + 32767);
    const __m128i low_byte = _mm_set1_epi32(0xFF);
    /* 8 pixels read as 8 overlapping 32-bit words (R | G << 8 | B << 16 | next R << 24): while a 25th byte
     * is there to read */
    for (; x + 9 <= width; x += 8) {
        const uint8_t *p = rgb + 3 * x;
        uint32_t w[8];
        for (int i = 0; i < 8; i++) memcpy(&w[i], p + 3 * i, 4);
        __m128i a = _mm_setr_epi32((int)w[0], (int)w[1], (int)w[2], (int)w[3]);
        __m128i c = _mm_setr_epi32((int)w[4], (int)w[5], (int)w[6], (int)w[7]);
        __m128i r = _mm_packs_epi32(_mm_and_si128(a, low_byte), _mm_and_si128(c, low_byte));
        __m128i g = _mm_packs_epi32(_mm_and_si128(_mm_srli_epi32(a, 8), low_byte),
                                    _mm_and_si128(_mm_srli_epi32(c, 8), low_byte));
        __m128i b = _mm_packs_epi32(_mm_and_si128(_mm_srli_epi32(a, 16), low_byte),
                                    _mm_and_si128(_mm_srli_epi32(c, 16), low_byte));
        __m128i rg_lo = _mm_unpacklo_epi16(r, g), rg_hi = _mm_unpackhi_epi16(r, g);
        __m128i bg_lo = _mm_unpacklo_epi16(b, g), bg_hi = _mm_unpackhi_epi16(b, g);
        __m128i bb_lo = _mm_unpacklo_epi16(b, b), bb_hi = _mm_unpackhi_epi16(b, b);
        __m128i rr_lo = _mm_unpacklo_epi16(r, r), rr_hi = _mm_unpackhi_epi16(r, r);
        __m128i gb_lo = _mm_unpacklo_epi16(g, b), gb_hi = _mm_unpackhi_epi16(g, b);
        pc_tj_store8(y + x,
                     _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(rg_lo, y_rg), _mm_madd_epi16(bg_lo, y_bg)), y_offset),
                     _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(rg_hi, y_rg), _mm_madd_epi16(bg_hi, y_bg)), y_offset));
        pc_tj_store8(cb + x,
                     _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(rg_lo, cb_rg), _mm_madd_epi16(bb_lo, quarter)), c_offset),
                     _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(rg_hi, cb_rg), _mm_madd_epi16(bb_hi, quarter)), c_offset));
        pc_tj_store8(cr + x,
                     _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(rr_lo, quarter), _mm_madd_epi16(gb_lo, cr_gb)), c_offset),
                     _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(rr_hi, quarter), _mm_madd_epi16(gb_hi, cr_gb)), c_offset));
    }
#endif
    for (; x < width; x++) {
        int32_t r = rgb[3 * x], g = rgb[3 * x + 1], b = rgb[3 * x + 2];
        y[x] = (uint8_t)((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
        cb[x] = (uint8_t)((-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16);
        cr[x] = (uint8_t)((32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16);
    }
    for (x = width; x < padded; x++) {
        y[x] = y[width - 1];
        cb[x] = cb[width - 1];
        cr[x] = cr[width - 1];
    }
}

/* jcsample.c h2v2_downsample of one output row (`count` samples, a multiple of 8) from two rows. */
static void pc_tj_downsample_row(const uint8_t *row0, const uint8_t *row1, uint8_t *out, size_t count) {
    size_t i = 0;
#if PC_TJ_SSE2
    const __m128i zero = _mm_setzero_si128(), ones = _mm_set1_epi16(1), bias = _mm_setr_epi32(1, 2, 1, 2);
    for (; i + 8 <= count; i += 8) {
        __m128i a = _mm_loadu_si128((const __m128i *)(row0 + 2 * i));
        __m128i b = _mm_loadu_si128((const __m128i *)(row1 + 2 * i));
        __m128i lo = _mm_add_epi16(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero));
        __m128i hi = _mm_add_epi16(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero));
        lo = _mm_srli_epi32(_mm_add_epi32(_mm_madd_epi16(lo, ones), bias), 2);
        hi = _mm_srli_epi32(_mm_add_epi32(_mm_madd_epi16(hi, ones), bias), 2);
        __m128i w = _mm_packs_epi32(lo, hi);
        _mm_storel_epi64((__m128i *)(out + i), _mm_packus_epi16(w, w));
    }
#endif
    for (; i < count; i++) {
        int bias = 1 + (int)(i & 1);
        out[i] = (uint8_t)((row0[2 * i] + row0[2 * i + 1] + row1[2 * i] + row1[2 * i + 1] + bias) >> 2);
    }
}

/* Writes `len` bits (at most 27) to the entropy-coded data, 32 at a time, stuffing a 0 after each 0xFF
 * (T.81 F.1.2.3). */
typedef struct pc_tj_bits {
    uint64_t buffer;
    int count;
    uint8_t *p;
} pc_tj_bits;

static inline void pc_tj_put(pc_tj_bits *w, uint32_t bits, int len) {
    w->buffer = w->buffer << len | bits;
    w->count += len;
    if (w->count < 32) return;
    w->count -= 32;
    uint32_t word = (uint32_t)(w->buffer >> w->count), inverse = ~word;
    if (((inverse - 0x01010101u) & ~inverse & 0x80808080u) == 0) { /* no 0xFF byte */
        w->p[0] = (uint8_t)(word >> 24);
        w->p[1] = (uint8_t)(word >> 16);
        w->p[2] = (uint8_t)(word >> 8);
        w->p[3] = (uint8_t)word;
        w->p += 4;
        return;
    }
    for (int shift = 24; shift >= 0; shift -= 8) {
        uint8_t byte = (uint8_t)(word >> shift);
        *w->p++ = byte;
        if (byte == 0xFF) *w->p++ = 0;
    }
}

/* Pads the last byte with 1 bits (jchuff.c flush_bits) and writes what is left. */
static inline void pc_tj_flush(pc_tj_bits *w) {
    int pad = (8 - w->count % 8) % 8;
    w->buffer = w->buffer << pad | ((1u << pad) - 1);
    w->count += pad;
    while (w->count >= 8) {
        w->count -= 8;
        uint8_t byte = (uint8_t)(w->buffer >> w->count);
        *w->p++ = byte;
        if (byte == 0xFF) *w->p++ = 0;
    }
}

static int pc_tj_shared_tables(int width, int height) {
    return (uint64_t)width * (uint64_t)height <= 240u * 240u;
}

pc_status pc_thumbnail_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                                   uint8_t **out, size_t *out_size, pc_messages *messages) {
    *out = NULL;
    *out_size = 0;
    if (width < 1 || height < 1) {
        pc_set_error(messages, "bad JPEG encode parameters");
        return PC_UNSUPPORTED;
    }
    if (width > PC_TJ_MAX_DIMENSION || height > PC_TJ_MAX_DIMENSION) {
        /* libjpeg's JERR_IMAGE_TOO_BIG, classified PC_CORRUPT by jpeg.c */
        pc_set_error(messages, "Maximum supported image dimension is 65500 pixels");
        return PC_CORRUPT;
    }
    quality = quality < 1 ? 1 : quality > 100 ? 100 : quality;
    size_t memory = pc_thumbnail_jpeg_encode_memory(width, height);
    uint8_t *work = memory ? malloc(memory) : NULL;
    pc_tj_counts *counts = calloc(1, sizeof *counts);
    pc_tj_quant *quant = malloc(2 * sizeof *quant);
    pc_tj_huffman *tables = malloc(4 * sizeof *tables);
    if (work == NULL || counts == NULL || quant == NULL || tables == NULL) {
        free(work);
        free(counts);
        free(quant);
        free(tables);
        pc_set_error(messages, "out of memory");
        return PC_NO_MEMORY;
    }
    pc_tj_make_quant(&quant[0], pc_tj_luma_quant, quality);
    pc_tj_make_quant(&quant[1], pc_tj_chroma_quant, quality);
    int shared = pc_tj_shared_tables(width, height);
    int chroma_table = shared ? 0 : 1;

    size_t across = ((size_t)width + 15) / 16, down = ((size_t)height + 15) / 16;
    size_t blocks = across * down * 6;
    size_t padded = across * 16, half = across * 8;
    uint32_t *tokens = (uint32_t *)work;
    uint8_t *token_counts = work + blocks * 64 * sizeof(uint32_t);
    uint8_t *yband = token_counts + blocks;
    uint8_t *cbfull = yband + 16 * padded, *crfull = cbfull + 16 * padded;
    uint8_t *cbband = crfull + 16 * padded, *crband = cbband + 8 * half;
    size_t luma_across = ((size_t)width + 7) / 8, luma_down = ((size_t)height + 7) / 8;

    int16_t coef[64];
    int last_dc[3] = { 0, 0, 0 };
    size_t ntokens = 0, block = 0;
    for (size_t my = 0; my < down; my++) {
        /* sixteen rows of Y, Cb, Cr; rows past the image repeat its last row (jcprepct.c) */
        for (size_t r = 0; r < 16; r++) {
            size_t y = my * 16 + r;
            if (y >= (size_t)height) {
                memcpy(yband + r * padded, yband + (r - 1) * padded, padded);
                memcpy(cbfull + r * padded, cbfull + (r - 1) * padded, padded);
                memcpy(crfull + r * padded, crfull + (r - 1) * padded, padded);
            } else {
                pc_tj_convert_row(rgb + y * (size_t)width * 3, width, (int)padded, yband + r * padded,
                                  cbfull + r * padded, crfull + r * padded);
            }
        }
        /* jcsample.c h2v2_downsample; chroma rows past the image's last repeat it (jcprepct.c) */
        for (size_t j = 0; j < 8; j++) {
            uint8_t *cbo = cbband + j * half, *cro = crband + j * half;
            if ((my * 8 + j) * 2 >= (size_t)height) {
                memcpy(cbo, cbo - half, half);
                memcpy(cro, cro - half, half);
                continue;
            }
            pc_tj_downsample_row(cbfull + 2 * j * padded, cbfull + (2 * j + 1) * padded, cbo, half);
            pc_tj_downsample_row(crfull + 2 * j * padded, crfull + (2 * j + 1) * padded, cro, half);
        }
        for (size_t mx = 0; mx < across; mx++) {
            int dcs[4];
            for (int b = 0; b < 4; b++) {
                size_t bx = mx * 2 + (size_t)(b & 1), by = my * 2 + (size_t)(b >> 1);
                uint32_t *t = tokens + ntokens;
                int n;
                if (by >= luma_down) {
                    dcs[b] = dcs[1]; /* a row past the bottom: the MCU's right block above */
                    n = pc_tj_dummy(dcs[b], &last_dc[0], t, counts->dc[0], counts->ac[0]);
                } else if (bx >= luma_across) {
                    dcs[b] = dcs[b - 1]; /* past the right edge: the block to the left */
                    n = pc_tj_dummy(dcs[b], &last_dc[0], t, counts->dc[0], counts->ac[0]);
                } else {
                    uint64_t nonzero = pc_tj_block(yband + (size_t)(b >> 1) * 8 * padded + bx * 8, padded, &quant[0], coef);
                    dcs[b] = coef[0];
                    n = pc_tj_tokenize(coef, nonzero, &last_dc[0], t, counts->dc[0], counts->ac[0]);
                }
                token_counts[block++] = (uint8_t)n;
                ntokens += (size_t)n;
            }
            for (int c = 0; c < 2; c++) {
                uint64_t nonzero = pc_tj_block((c == 0 ? cbband : crband) + mx * 8, half, &quant[1], coef);
                int n = pc_tj_tokenize(coef, nonzero, &last_dc[1 + c], tokens + ntokens, counts->dc[chroma_table],
                                       counts->ac[chroma_table]);
                token_counts[block++] = (uint8_t)n;
                ntokens += (size_t)n;
            }
        }
    }

    /* tables: DC 0, AC 0 (and DC 1, AC 1): the order jcmarker.c writes them */
    int table_count = shared ? 2 : 4;
    uint64_t coded = 0;
    for (int i = 0; i < table_count; i++) {
        const uint32_t *c = (i & 1) ? counts->ac[i >> 1] : counts->dc[i >> 1];
        pc_tj_optimal_table(c, &tables[i]);
        coded += pc_tj_coded_bits(c, &tables[i]);
    }
    uint64_t coded_bytes = (coded + 7) / 8;
    /* every byte of the data may need a stuffed 0 after it */
    uint64_t capacity = pc_tj_header_bytes(tables, table_count) + 2 * coded_bytes;
    uint8_t *file = capacity <= SIZE_MAX ? malloc((size_t)capacity) : NULL;
    if (file == NULL) {
        free(work);
        free(counts);
        free(quant);
        free(tables);
        pc_set_error(messages, "out of memory");
        return PC_NO_MEMORY;
    }
    uint8_t *p = file;
    static const uint8_t jfif[20] = {
        0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
    };
    memcpy(p, jfif, sizeof jfif);
    p += sizeof jfif;
    p[0] = 0xFF;
    p[1] = 0xE1;
    p = pc_tj_put16(p + 2, (unsigned)(pc_srgb_exif_app1_size + 2));
    memcpy(p, pc_srgb_exif_app1, pc_srgb_exif_app1_size);
    p += pc_srgb_exif_app1_size;
    p = pc_tj_dqt(p, &quant[0], 0);
    p = pc_tj_dqt(p, &quant[1], 1);
    const uint8_t sof[] = {
        0xFF, 0xC0, 0, 17, 8, (uint8_t)(height >> 8), (uint8_t)height, (uint8_t)(width >> 8), (uint8_t)width, 3,
        1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
    };
    memcpy(p, sof, sizeof sof);
    p += sizeof sof;
    for (int i = 0; i < table_count; i++) p = pc_tj_dht(p, &tables[i], (i & 1) << 4 | i >> 1);
    uint8_t chroma_selectors = shared ? 0x00 : 0x11;
    const uint8_t sos[] = { 0xFF, 0xDA, 0, 12, 3, 1, 0x00, 2, chroma_selectors, 3, chroma_selectors, 0, 63, 0 };
    memcpy(p, sos, sizeof sos);
    p += sizeof sos;

    pc_tj_bits w = { 0, 0, p };
    const uint32_t *t = tokens;
    block = 0;
    for (size_t m = 0; m < across * down; m++) {
        for (int b = 0; b < 6; b++) {
            const pc_tj_huffman *dc = &tables[b < 4 ? 0 : 2 * chroma_table];
            const pc_tj_huffman *ac = &tables[b < 4 ? 1 : 2 * chroma_table + 1];
            int n = token_counts[block++];
            int s = (int)(t[0] & 0xFF);
            pc_tj_put(&w, (uint32_t)dc->code[s] << s | t[0] >> 8, dc->size[s] + s);
            for (int i = 1; i < n; i++) {
                s = (int)(t[i] & 0xFF);
                int extra = s & 15;
                pc_tj_put(&w, (uint32_t)ac->code[s] << extra | t[i] >> 8, ac->size[s] + extra);
            }
            t += n;
        }
    }
    pc_tj_flush(&w);
    p = w.p;
    p[0] = 0xFF;
    p[1] = 0xD9;
    p += 2;

    free(work);
    free(counts);
    free(quant);
    free(tables);
    *out = file;
    *out_size = (size_t)(p - file);
    return PC_OK;
}

int pc_thumbnail_optimal_table_test(const uint32_t *counts, uint8_t *bits, uint8_t *values) {
    pc_tj_huffman t;
    pc_tj_optimal_table(counts, &t);
    memcpy(bits, t.bits, 17);
    memcpy(values, t.values, (size_t)t.count);
    return t.count;
}
