/*
 * dconly.c's reduced sequential decoder (pc_jpeg_decode_reduced; dconly.c says what it does): the
 * scan loop, the reduced IDCTs, upsampling and colour conversion, and libjpeg-turbo's own reader
 * modelled for damage near the end of the file.
 */
#include "dcdecoder.h"

/* ------------------------------------------------------------------ sequential scans at 1/8 and 2/8 */

/*
 * The reduced IDCTs as libjpeg-turbo 2.1.5 runs them on x86-64 (jddctmgr.c picks jsimd_idct_2x2 /
 * jsimd_idct_4x4, simd/x86_64/jidctred-sse2.asm, for DCT_scaled_size 2 and 4; the C
 * jpeg_idct_1x1 of jidctred.c for 1). The SSE2 code follows jidctred.c (CONST_BITS 13,
 * PASS1_BITS 2, the same FIX constants), with 16-bit lanes where the C uses ints: the dequantized
 * coefficient is the low 16 bits of coef × quantizer (pmullw), products are summed in 32 bits
 * (pmaddwd, paddd: modulo 2^32), pass-1 results are saturated to 16 bits (packssdw) except the
 * 2×2's column 0, and outputs are saturated to -128..127 before adding CENTERJSAMPLE. The 4×4
 * pass 1 takes a shortcut (each column's output = 16-bit dequantized DC << 2) when rows 1, 2, 3,
 * 5, 6, 7 of the block are all zero. These are emulated exactly (they differ from jidctred.c's C
 * only for coefficients no 8-bit encoder produces).
 *
 * Every pass-1 value is linear (modulo 2^32) in its column's dequantized coefficients until it is
 * descaled, so a block is not stored: each coefficient the IDCT uses is added into its column's
 * sums as it is decoded (T.81 F.2.2.2), and the IDCT finishes from those sums.
 */
#define SQ_F_0_211 1730
#define SQ_F_0_509 4176
#define SQ_F_0_601 4926
#define SQ_F_0_720 5906
#define SQ_F_0_765 6270
#define SQ_F_0_850 6967
#define SQ_F_0_899 7373
#define SQ_F_1_061 8697
#define SQ_F_1_272 10426
#define SQ_F_1_451 11893
#define SQ_F_1_847 15137
#define SQ_F_2_172 17799
#define SQ_F_2_562 20995
#define SQ_F_3_624 29692

/* Zigzag index → natural (row-major) position (T.81 Figure A.6; libjpeg jpeg_natural_order). */
static const uint8_t sq_natural[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/*
 * Where a coefficient goes, per component and zigzag index (built at SOS for its block size S):
 * its 16-bit quantizer, the pass-1 sums it adds into (index into sq_block.sum; SQ_DISCARD when
 * none) with their multipliers, and flags: the column's bit (1 << col) when the IDCT uses it,
 * SQ_ROWS_NZ for rows 1, 2, 3, 5, 6, 7 (the 4×4 shortcut's test), SQ_AC for any used coefficient
 * but the DC. A row-0 coefficient enters as deq × 2^(CONST_BITS + 2) (2×2) or 2^(CONST_BITS + 1)
 * (4×4): the pass's "<< " written as a multiplication, linear modulo 2^32 like the others.
 */
#define SQ_DISCARD 32
#define SQ_ROWS_NZ 0x100u
#define SQ_AC 0x200u

static void sq_build_zigzag(dc_component *k) {
    static const int32_t m2_odd[8] = { 0, SQ_F_3_624, 0, -SQ_F_1_272, 0, SQ_F_0_850, 0, -SQ_F_0_720 };
    static const int32_t m4_e2[8] = { 0, 0, SQ_F_1_847, 0, 0, 0, -SQ_F_0_765, 0 };
    static const int32_t m4_o2[8] = { 0, SQ_F_2_562, 0, SQ_F_0_899, 0, -SQ_F_0_601, 0, -SQ_F_0_509 };
    static const int32_t m4_o0[8] = { 0, SQ_F_1_061, 0, -SQ_F_2_172, 0, SQ_F_1_451, 0, -SQ_F_0_211 };
    for (int z = 0; z < 64; z++) {
        sq_zz *e = &k->zt[z];
        int pos = sq_natural[z], row = pos >> 3, col = pos & 7;
        e->q = k->q[z];
        e->ia = e->ib = SQ_DISCARD;
        e->ma = e->mb = 0;
        e->flags = 0;
        if (k->S == 2) {
            if (((0xAB >> row) & 1) && ((0xAB >> col) & 1)) { /* rows/columns 0, 1, 3, 5, 7 */
                e->ia = (uint8_t)(col * 4 + (row != 0));
                e->ma = row == 0 ? (int32_t)1 << 15 : m2_odd[row];
                e->flags = 1u << col;
            }
        } else if (k->S == 4) {
            if ((0xEE >> row) & 1) e->flags |= SQ_ROWS_NZ; /* rows 1, 2, 3, 5, 6, 7 */
            if (row != 4 && col != 4) {
                e->flags |= 1u << col;
                if (row == 0) { e->ia = (uint8_t)(col * 4); e->ma = (int32_t)1 << 14; }
                else if (!(row & 1)) { e->ia = (uint8_t)(col * 4 + 1); e->ma = m4_e2[row]; }
                else { e->ia = (uint8_t)(col * 4 + 2); e->ma = m4_o2[row]; e->ib = (uint8_t)(col * 4 + 3); e->mb = m4_o0[row]; }
            }
        }
        if (z != 0 && (e->flags & 0xFF)) e->flags |= SQ_AC;
    }
}

/* One block's pass-1 sums: sum[col × 4 + j], j: 2×2 0 row-0 term, 1 odd sum; 4×4 0 row-0, 1 even, 2, 3 odd. */
#define SQ_SUMS 36 /* 32 and the discard slot, rounded up to whole 16-byte stores */
typedef struct sq_block {
    uint32_t sum[SQ_SUMS] __attribute__((aligned(16)));
    uint32_t flags;             /* column bits, SQ_ROWS_NZ, SQ_AC of the coefficients decoded */
} sq_block;

static inline int16_t sq_sat16(int32_t x) { return (int16_t)(x < -32768 ? -32768 : x > 32767 ? 32767 : x); }
static inline uint8_t sq_sample(int32_t x) { return (uint8_t)((x < -128 ? -128 : x > 127 ? 127 : x) + 128); }
static inline int32_t sq_descale(uint32_t x, int n) { return (int32_t)(x + (1u << (n - 1))) >> n; }

/* jsimd_idct_2x2_sse2 from the sums: a 2×2 block of samples at out (stride bytes per row). */
static void sq_idct_2x2(const sq_block *b, uint8_t *out, size_t stride) {
    static const int32_t m[8] = { 0, SQ_F_3_624, 0, -SQ_F_1_272, 0, SQ_F_0_850, 0, -SQ_F_0_720 };
    int32_t a0 = sq_descale(b->sum[0] + b->sum[1], 13), b0 = sq_descale(b->sum[0] - b->sum[1], 13);
    uint32_t ta = 0, tb = 0;
#if defined(__SSE2__)
    (void)m;
    {
        /* Columns 1, 3, 5, 7 in the lanes (untouched columns' sums are stale: masked to 0). */
        unsigned f = b->flags;
        const uint32_t *u = b->sum;
        __m128i keep = _mm_set_epi32(-(int)((f >> 7) & 1), -(int)((f >> 5) & 1), -(int)((f >> 3) & 1), -(int)((f >> 1) & 1));
        __m128i E = _mm_and_si128(keep, _mm_set_epi32((int)u[28], (int)u[20], (int)u[12], (int)u[4]));
        __m128i O = _mm_and_si128(keep, _mm_set_epi32((int)u[29], (int)u[21], (int)u[13], (int)u[5]));
        __m128i rnd = _mm_set1_epi32(1 << 12);
        __m128i A = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(E, O), rnd), 13);
        __m128i B = _mm_srai_epi32(_mm_add_epi32(_mm_sub_epi32(E, O), rnd), 13);
        /* packssdw: (A1 A3 A5 A7 B1 B3 B5 B7); pmaddwd by (F3.624, -F1.272, F0.850, -F0.720) pairs. */
        __m128i t = _mm_madd_epi16(_mm_packs_epi32(A, B),
                                   _mm_set_epi16(-SQ_F_0_720, SQ_F_0_850, -SQ_F_1_272, SQ_F_3_624, -SQ_F_0_720, SQ_F_0_850,
                                                 -SQ_F_1_272, SQ_F_3_624));
        t = _mm_add_epi32(t, _mm_srli_epi64(t, 32)); /* lanes 0, 2: row A's and row B's sums */
        /* Pass 2's outputs (row 0: t10 + t0, t10 - t0 from A; row 1 from B), descaled, packssdw,
         * packsswb, + CENTERJSAMPLE: bytes 0, 1 are row 0, bytes 2, 3 row 1. */
        __m128i sign = _mm_set_epi32(-1, 0, -1, 0);
        __m128i t0 = _mm_sub_epi32(_mm_xor_si128(_mm_shuffle_epi32(t, 0xA0), sign), sign);
        __m128i t10 = _mm_slli_epi32(_mm_set_epi32(b0, b0, a0, a0), 15);
        __m128i o = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(t10, t0), _mm_set1_epi32(1 << 19)), 20);
        o = _mm_packs_epi16(_mm_packs_epi32(o, o), _mm_setzero_si128());
        uint32_t px = (uint32_t)_mm_cvtsi128_si32(o) ^ 0x80808080u;
        out[0] = (uint8_t)px;
        out[1] = (uint8_t)(px >> 8);
        out[stride] = (uint8_t)(px >> 16);
        out[stride + 1] = (uint8_t)(px >> 24);
        (void)ta;
        (void)tb;
        return;
    }
#else
    for (unsigned cols = b->flags & 0xAA; cols; cols &= cols - 1) { /* columns 1, 3, 5, 7 with coefficients */
        int c = __builtin_ctz(cols);
        const uint32_t *u = b->sum + 4 * c;
        ta += (uint32_t)(sq_sat16(sq_descale(u[0] + u[1], 13)) * m[c]);
        tb += (uint32_t)(sq_sat16(sq_descale(u[0] - u[1], 13)) * m[c]);
    }
#endif
    uint32_t t10 = (uint32_t)a0 << 15;
    out[0] = sq_sample(sq_descale(t10 + ta, 20));
    out[1] = sq_sample(sq_descale(t10 - ta, 20));
    t10 = (uint32_t)b0 << 15;
    out[stride] = sq_sample(sq_descale(t10 + tb, 20));
    out[stride + 1] = sq_sample(sq_descale(t10 - tb, 20));
}

/* jsimd_idct_4x4_sse2 from the sums: a 4×4 block of samples at out. Pass 2 in SSE2 as libjpeg's. */
static void sq_idct_4x4(const sq_block *b, uint8_t *out, size_t stride) {
    int16_t ws[8][4] __attribute__((aligned(16))); /* column-major: ws[col][row] */
    unsigned cols = b->flags & 0xEF;
    memset(ws, 0, sizeof ws);
    for (unsigned m = cols; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        const uint32_t *u = b->sum + 4 * c;
        if (!(b->flags & SQ_ROWS_NZ)) {
            int32_t deq0 = (int32_t)u[0] >> 14; /* exact: a 16-bit value times 2^14 */
            ws[c][0] = ws[c][1] = ws[c][2] = ws[c][3] = (int16_t)(uint16_t)((uint32_t)deq0 << 2);
            continue;
        }
        uint32_t t10 = u[0] + u[1], t12 = u[0] - u[1];
        ws[c][0] = sq_sat16(sq_descale(t10 + u[2], 12));
        ws[c][3] = sq_sat16(sq_descale(t10 - u[2], 12));
        ws[c][1] = sq_sat16(sq_descale(t12 + u[3], 12));
        ws[c][2] = sq_sat16(sq_descale(t12 - u[3], 12));
    }
#if defined(__SSE2__)
    /* Lanes are the four rows; pmaddwd on (column 1, 3), (5, 7), (2, 6) pairs as the asm does. */
    const __m128i zero = _mm_setzero_si128();
    __m128i c0 = _mm_loadl_epi64((const __m128i *)ws[0]);
    __m128i t0 = _mm_srai_epi32(_mm_unpacklo_epi16(zero, c0), 16 - 14);
    __m128i p13 = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)ws[1]), _mm_loadl_epi64((const __m128i *)ws[3]));
    __m128i p57 = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)ws[5]), _mm_loadl_epi64((const __m128i *)ws[7]));
    __m128i p26 = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)ws[2]), _mm_loadl_epi64((const __m128i *)ws[6]));
    __m128i o2 = _mm_add_epi32(_mm_madd_epi16(p13, _mm_set_epi16(SQ_F_0_899, SQ_F_2_562, SQ_F_0_899, SQ_F_2_562, SQ_F_0_899, SQ_F_2_562, SQ_F_0_899, SQ_F_2_562)),
                               _mm_madd_epi16(p57, _mm_set_epi16(-SQ_F_0_509, -SQ_F_0_601, -SQ_F_0_509, -SQ_F_0_601, -SQ_F_0_509, -SQ_F_0_601, -SQ_F_0_509, -SQ_F_0_601)));
    __m128i o0 = _mm_add_epi32(_mm_madd_epi16(p13, _mm_set_epi16(-SQ_F_2_172, SQ_F_1_061, -SQ_F_2_172, SQ_F_1_061, -SQ_F_2_172, SQ_F_1_061, -SQ_F_2_172, SQ_F_1_061)),
                               _mm_madd_epi16(p57, _mm_set_epi16(-SQ_F_0_211, SQ_F_1_451, -SQ_F_0_211, SQ_F_1_451, -SQ_F_0_211, SQ_F_1_451, -SQ_F_0_211, SQ_F_1_451)));
    __m128i e2 = _mm_madd_epi16(p26, _mm_set_epi16(-SQ_F_0_765, SQ_F_1_847, -SQ_F_0_765, SQ_F_1_847, -SQ_F_0_765, SQ_F_1_847, -SQ_F_0_765, SQ_F_1_847));
    __m128i t10 = _mm_add_epi32(t0, e2), t12 = _mm_sub_epi32(t0, e2);
    __m128i rnd = _mm_set1_epi32(1 << 18);
    __m128i d0 = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(t10, o2), rnd), 19);
    __m128i d3 = _mm_srai_epi32(_mm_add_epi32(_mm_sub_epi32(t10, o2), rnd), 19);
    __m128i d1 = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(t12, o0), rnd), 19);
    __m128i d2 = _mm_srai_epi32(_mm_add_epi32(_mm_sub_epi32(t12, o0), rnd), 19);
    /* packssdw, packsswb, + CENTERJSAMPLE; bytes k*4 + r, transposed to r*4 + k. */
    __m128i v = _mm_packs_epi16(_mm_packs_epi32(d0, d1), _mm_packs_epi32(d2, d3));
    v = _mm_xor_si128(v, _mm_set1_epi8((char)0x80));
    __m128i x = _mm_unpacklo_epi8(v, _mm_srli_si128(v, 8));
    __m128i z = _mm_unpacklo_epi8(x, _mm_srli_si128(x, 8));
    for (int r = 0; r < 4; r++) {
        uint32_t row = (uint32_t)_mm_cvtsi128_si32(z);
        memcpy(out + (size_t)r * stride, &row, 4);
        z = _mm_srli_si128(z, 4);
    }
#else
    for (int r = 0; r < 4; r++) {
        int16_t w[8];
        for (int c = 0; c < 8; c++) w[c] = ws[c][r];
        uint8_t *o = out + (size_t)r * stride;
        uint32_t t0 = (uint32_t)(int32_t)w[0] << 14;
        uint32_t e2 = (uint32_t)(w[2] * SQ_F_1_847 - w[6] * SQ_F_0_765);
        uint32_t t10 = t0 + e2, t12 = t0 - e2;
        uint32_t o2 = (uint32_t)(w[1] * SQ_F_2_562 + w[3] * SQ_F_0_899) + (uint32_t)(-w[5] * SQ_F_0_601 - w[7] * SQ_F_0_509);
        uint32_t o0 = (uint32_t)(w[1] * SQ_F_1_061 - w[3] * SQ_F_2_172) + (uint32_t)(w[5] * SQ_F_1_451 - w[7] * SQ_F_0_211);
        o[0] = sq_sample(sq_descale(t10 + o2, 19));
        o[1] = sq_sample(sq_descale(t12 + o0, 19));
        o[2] = sq_sample(sq_descale(t12 - o0, 19));
        o[3] = sq_sample(sq_descale(t10 - o2, 19));
    }
#endif
}

/* Writes a block's S×S samples (S = 1, 2, 4) at out; dc is the block's 16-bit DC (JCOEF). */
static inline __attribute__((always_inline)) void sq_emit_block(const dc_component *k, int S, const sq_block *b, int16_t dc,
                                                              uint8_t *out, size_t stride) {
    if (S == 1) {
        *out = dc_idct_limit(((int)dc * k->q[0] + 4) >> 3); /* jidctred.c jpeg_idct_1x1 (C, int arithmetic) */
        return;
    }
    if (!(b->flags & (S == 2 ? SQ_AC : SQ_AC | SQ_ROWS_NZ))) {
        /* Only the DC: every sample the same (the general formulas with the other sums 0). */
        uint8_t v;
        if (S == 2) {
            int32_t a0 = sq_descale(b->sum[0], 13);
            v = sq_sample(sq_descale((uint32_t)a0 << 15, 20));
            out[0] = out[1] = out[stride] = out[stride + 1] = v;
        } else {
            int16_t w0 = (int16_t)(uint16_t)((uint32_t)((int32_t)b->sum[0] >> 14) << 2);
            v = sq_sample(sq_descale((uint32_t)(int32_t)w0 << 14, 19));
            uint32_t four = 0x01010101u * v;
            for (int r = 0; r < 4; r++) memcpy(out + (size_t)r * stride, &four, 4);
        }
        return;
    }
    if (S == 2) sq_idct_2x2(b, out, stride);
    else sq_idct_4x4(b, out, stride);
}

/*
 * The sequential scans' bit reader: buf holds `bits` unread bits at its top (zeros below), so
 * a lookahead is one shift. Refilled 1..7 bytes at a time while no 0xFF is near, else through
 * dc_fill (stuffing, fill bytes, markers, end of data: T.81 F.1.2.3, B.1.1.2). Called with
 * bits < 32; returns the new count (unchanged at the end of the segment).
 */
static inline __attribute__((always_inline)) int sq_refill(dc_bits *b, uint64_t *buf, int bits) {
    if (!b->marker && !b->eof && b->size - b->pos >= 8 && b->pos <= b->size) {
        uint64_t w;
        memcpy(&w, b->d + b->pos, 8);
        uint64_t x = ~w; /* a 0xFF byte of w is a zero byte of x */
        if (((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL) == 0) {
            int n = (63 - bits) >> 3;
            w = __builtin_bswap64(w) >> (64 - 8 * n) << (64 - 8 * n);
            *buf |= w >> bits;
            b->pos += (size_t)n;
            return bits + 8 * n;
        }
    }
    b->acc = bits ? *buf >> (64 - bits) : 0;
    b->count = bits;
    dc_fill_inline(b);
    *buf = b->count ? b->acc << (64 - b->count) : 0;
    return b->count;
}

/*
 * Decodes one Huffman symbol into rs and sets total to its code length plus the extra bits it
 * announces (DC: the magnitude category; AC: the low nibble), both to be read from the top of
 * buf; returns the error from the enclosing function when they are not all there (as
 * dc_decode_symbol: libjpeg's JWRN_HIT_MARKER / end of file / JWRN_HUFF_BAD_CODE).
 */
#define SQ_DECODE(t, rs, total) do { \
        if (bits < 32) bits = sq_refill(b, &buf, bits); \
        uint32_t e_ = DC_HUFF_ENTRY(t, buf >> (64 - DC_LOOKAHEAD), (uint32_t)(buf >> 48)); \
        if (e_ == 0) return bits < 17 ? dc_short(b) : DC_ERR_BADCODE; \
        (total) = (int)(e_ >> 16); \
        (rs) = (int)(e_ & 0xFF); \
        if ((total) > bits) { \
            bits = sq_refill(b, &buf, bits); \
            if ((total) > bits) return dc_short(b); \
        } \
    } while (0)

/* The low `size` (1..15) of the `total` bits at the top of buf, as EXTEND makes them signed; consumes the total. */
#define SQ_TAKE(total, size, value) do { \
        (value) = dc_extend((uint32_t)(buf >> (64 - (total))) & ((1u << (size)) - 1), (size)); \
        buf <<= (total); \
        bits -= (total); \
    } while (0)

/*
 * Decodes one block (T.81 F.2.2.1 DC difference, F.2.2.2 AC coefficients) as libjpeg-turbo's
 * jdhuff.c decode_mcu_slow does: a run past position 63 writes at jpeg_natural_order[k], which is
 * 63 for k > 63 (the earlier value there is replaced). Keeps the DC in *dc (JCOEF) and, for
 * S > 1, adds the coefficients the S×S IDCT uses into blk's sums.
 */
static inline __attribute__((always_inline)) int sq_block_decode(dc_bits *b, uint64_t *buf_p, int *bits_p, const dc_huffman *dct,
                                                                const dc_huffman *act, int32_t *pred, const dc_component *k, int S,
                                                                sq_block *blk, int16_t *dc) {
    uint64_t buf = *buf_p;
    int bits = *bits_p;
    int t = 0, total = 0;
    SQ_DECODE(dct, t, total);
    int32_t diff = 0;
    if (t) SQ_TAKE(total, t, diff);
    else { buf <<= total; bits -= total; }
    int32_t v;
    if (__builtin_add_overflow(*pred, diff, &v)) return DC_ERR_RANGE; /* libjpeg JERR_BAD_DCT_COEF */
    *pred = v;
    *dc = (int16_t)(uint16_t)(uint32_t)v;
    uint32_t flags = 1;
    int32_t deq63 = 0;
    if (S > 1) {
        /* Column 0's sums; another column's are zeroed when its first coefficient comes. */
        int32_t deq0 = (int16_t)(uint16_t)((uint32_t)*dc * (uint32_t)(uint16_t)k->zt[0].q);
        blk->sum[0] = (uint32_t)deq0 * (uint32_t)k->zt[0].ma;
        blk->sum[1] = blk->sum[2] = blk->sum[3] = 0;
    }
    for (int z = 1; z < 64; z++) {
        int rs = 0;
        SQ_DECODE(act, rs, total);
        int r = rs >> 4, size = rs & 15;
        if (size) {
            z += r;
            int zz = z < 63 ? z : 63;
            const sq_zz *e = &k->zt[zz];
            if (S > 1 && e->flags) {
                int32_t value;
                SQ_TAKE(total, size, value);
                int32_t deq = (int16_t)(uint16_t)((uint32_t)value * (uint32_t)(uint16_t)e->q);
                if (e->flags & 0xFF & ~flags) {
                    uint32_t *u = blk->sum + (e->ia & ~3u);
                    u[0] = u[1] = u[2] = u[3] = 0;
                }
                if (zz == 63) {
                    /* Replaces an earlier write at 63 (a corrupt run): its contribution is taken out. */
                    blk->sum[e->ia] -= (uint32_t)deq63 * (uint32_t)e->ma;
                    blk->sum[e->ib] -= (uint32_t)deq63 * (uint32_t)e->mb;
                    deq63 = deq;
                }
                blk->sum[e->ia] += (uint32_t)deq * (uint32_t)e->ma;
                if (S == 4) blk->sum[e->ib] += (uint32_t)deq * (uint32_t)e->mb;
                flags |= e->flags;
            } else {
                buf <<= total;
                bits -= total;
            }
        } else {
            buf <<= total;
            bits -= total;
            if (r != 15) break;
            z += 15;
        }
    }
    if (S > 1) blk->flags = flags;
    *buf_p = buf;
    *bits_p = bits;
    return DC_OK;
}

/* A component's row r (of its samples at its scaled size) in its ring of three MCU rows. */
static inline uint8_t *sq_ring_row(const dc_component *k, int r) {
    return k->ring + (size_t)(r % k->ring_rows) * (size_t)k->plane_w;
}

/*
 * One chroma (or RGB G/B) row on the output grid at output row y, per the component's modes
 * (dc_seq_layout): jdsample.c fullsize_upsample, h2v1_upsample / int_upsample (replication),
 * h2v1_fancy_upsample (3/4 nearer + 1/4 further sample, biases 1 and 2, edge samples copied),
 * h1v2_fancy_upsample (the same vertically, with the rows above the first and below the last
 * real row replaced by those rows, as jdmainct.c's context rows are). Returns the row.
 */
static const uint8_t *sq_component_row(const dc_component *k, int y, int out_w, uint8_t *tmp, uint8_t *tmp2) {
    const uint8_t *row;
    if (k->vmode == SQ_FULL) {
        row = sq_ring_row(k, y);
    } else if (k->vmode == SQ_REP) {
        row = sq_ring_row(k, y >> 1);
    } else {
        int r0 = y >> 1, r1, bias;
        if (y & 1) { r1 = r0 + 1 < k->ds_h ? r0 + 1 : k->ds_h - 1; bias = 2; }
        else { r1 = r0 > 0 ? r0 - 1 : 0; bias = 1; }
        const uint8_t *a = sq_ring_row(k, r0), *c = sq_ring_row(k, r1);
        int n = k->ds_w < k->plane_w ? k->ds_w : k->plane_w;
        for (int x = 0; x < n; x++) tmp2[x] = (uint8_t)((a[x] * 3 + c[x] + bias) >> 2);
        row = tmp2;
    }
    if (k->hmode == SQ_FULL) return row;
    if (k->hmode == SQ_REP) {
        for (int x = 0; x < out_w; x++) tmp[x] = row[x >> 1];
        return tmp;
    }
    int last = k->ds_w - 1;
    for (int x = 0; x < out_w; x++) {
        int i = x >> 1;
        if (x & 1) tmp[x] = i >= last ? row[last] : (uint8_t)((row[i] * 3 + row[i + 1] + 2) >> 2);
        else tmp[x] = i == 0 ? row[0] : (uint8_t)((row[i] * 3 + row[i - 1] + 1) >> 2);
    }
    return tmp;
}

/*
 * Output rows [y0, y1) into s->pixels from the rings. YCbCr → RGB per JFIF (T.871 §7) with
 * libjpeg's fixed-point arithmetic (jdcolor.c build_ycc_rgb_table / ycc_rgb_convert: the
 * tables' entries computed in place, the same integers), written so the compiler can vectorize.
 */
static void sq_output_rows(dc_decoder *s, int y0, int y1, uint8_t *tmp) {
    int out_w = s->out_w;
    for (int y = y0; y < y1; y++) {
        const uint8_t *luma = sq_ring_row(&s->comp[0], y);
        uint8_t *o = s->pixels + (size_t)y * (size_t)out_w * 3;
        if (s->ncomp == 1) {
            for (int x = 0; x < out_w; x++) o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = luma[x];
            continue;
        }
        const uint8_t *c1 = sq_component_row(&s->comp[1], y, out_w, tmp, tmp + out_w);
        const uint8_t *c2 = sq_component_row(&s->comp[2], y, out_w, tmp + 2 * (size_t)out_w, tmp + 3 * (size_t)out_w);
        if (!s->ycc) {
            for (int x = 0; x < out_w; x++) { o[3 * x] = luma[x]; o[3 * x + 1] = c1[x]; o[3 * x + 2] = c2[x]; }
            continue;
        }
        /* Vectorized straight into the RGB row; the last pixels through planar rows. */
        uint8_t *pr = tmp + 4 * (size_t)out_w, *pg = pr + out_w, *pb = pg + out_w;
        int x0 = 0;
#if defined(__SSE2__)
        /* Eight pixels at a time, the same integers: FIX(1.402) = 2^16 + 26345, FIX(1.772) =
         * 2^17 - 14942, FIX(0.71414) = 2^16 - 18734, so each product splits into a multiple of 2^16
         * (exact through the >> 16) and a 16-bit pmaddwd term with ONE_HALF as 2 × 16384. */
        const __m128i zero = _mm_setzero_si128(), c128 = _mm_set1_epi16(128);
        const __m128i k_r = _mm_set_epi16(16384, 26345, 16384, 26345, 16384, 26345, 16384, 26345);
        const __m128i k_b = _mm_set_epi16(16384, -14942, 16384, -14942, 16384, -14942, 16384, -14942);
        const __m128i k_g = _mm_set_epi16(18734, -22554, 18734, -22554, 18734, -22554, 18734, -22554);
        const __m128i two = _mm_set1_epi16(2), half = _mm_set1_epi32(DC_ONE_HALF);
        /* While a pixel follows the eight (its byte is written over later): each pixel stored as four
         * bytes R, G, B, 0 at 3x, which the next pixel's store overwrites; planar rows not needed. */
        for (; x0 + 8 < out_w; x0 += 8) {
            __m128i yv = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(luma + x0)), zero);
            __m128i cb = _mm_sub_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(c1 + x0)), zero), c128);
            __m128i cr = _mm_sub_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(c2 + x0)), zero), c128);
            __m128i cr2lo = _mm_unpacklo_epi16(cr, two), cr2hi = _mm_unpackhi_epi16(cr, two);
            __m128i cb2lo = _mm_unpacklo_epi16(cb, two), cb2hi = _mm_unpackhi_epi16(cb, two);
            __m128i bgl = _mm_unpacklo_epi16(cb, cr), bgh = _mm_unpackhi_epi16(cb, cr);
            __m128i rr = _mm_packs_epi32(_mm_srai_epi32(_mm_madd_epi16(cr2lo, k_r), 16), _mm_srai_epi32(_mm_madd_epi16(cr2hi, k_r), 16));
            __m128i bb = _mm_packs_epi32(_mm_srai_epi32(_mm_madd_epi16(cb2lo, k_b), 16), _mm_srai_epi32(_mm_madd_epi16(cb2hi, k_b), 16));
            __m128i gg = _mm_packs_epi32(_mm_srai_epi32(_mm_add_epi32(_mm_madd_epi16(bgl, k_g), half), 16),
                                         _mm_srai_epi32(_mm_add_epi32(_mm_madd_epi16(bgh, k_g), half), 16));
            __m128i r16 = _mm_add_epi16(_mm_add_epi16(yv, cr), rr);
            __m128i g16 = _mm_sub_epi16(_mm_add_epi16(yv, gg), cr);
            __m128i b16 = _mm_add_epi16(_mm_add_epi16(yv, _mm_add_epi16(cb, cb)), bb);
            __m128i rg = _mm_unpacklo_epi8(_mm_packus_epi16(r16, r16), _mm_packus_epi16(g16, g16));
            __m128i b0 = _mm_unpacklo_epi8(_mm_packus_epi16(b16, b16), zero);
            __m128i px[2] = { _mm_unpacklo_epi16(rg, b0), _mm_unpackhi_epi16(rg, b0) };
            uint8_t *dst = o + 3 * (size_t)x0;
            for (int h = 0; h < 2; h++) {
                __m128i v = px[h];
                for (int i = 0; i < 4; i++) {
                    uint32_t word = (uint32_t)_mm_cvtsi128_si32(v);
                    memcpy(dst + 3 * (4 * h + i), &word, 4);
                    v = _mm_srli_si128(v, 4);
                }
            }
        }
#endif
        int x1 = x0;
        for (int x = x0; x < out_w; x++) {
            int32_t yy = luma[x], cb = c1[x] - 128, cr = c2[x] - 128;
            int32_t r = yy + ((DC_FIX(1.40200) * cr + DC_ONE_HALF) >> DC_SCALEBITS);
            int32_t g = yy + ((-DC_FIX(0.34414) * cb + DC_ONE_HALF - DC_FIX(0.71414) * cr) >> DC_SCALEBITS);
            int32_t bl = yy + ((DC_FIX(1.77200) * cb + DC_ONE_HALF) >> DC_SCALEBITS);
            pr[x] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
            pg[x] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
            pb[x] = (uint8_t)(bl < 0 ? 0 : bl > 255 ? 255 : bl);
        }
        for (int x = x1; x < out_w; x++) { o[3 * x] = pr[x]; o[3 * x + 1] = pg[x]; o[3 * x + 2] = pb[x]; }
    }
}

/* A block slot of the MCU (A.2.3): its component, tables, and where its samples go. */
typedef struct sq_slot {
    const dc_component *k;
    const dc_huffman *dct, *act;
    int comp, S, x, y;
} sq_slot;

/*
 * The one scan of a sequential file (T.81 Annex F, A.2.2/A.2.3 MCU order, F.1.2.3 restarts),
 * every block entropy-decoded; the samples of MCU row m are turned into output rows once row
 * m + 1 is decoded (vertical fancy upsampling needs the next row), the last at the end.
 */
static inline __attribute__((always_inline)) int sq_scan_body(dc_decoder *s, dc_bits *b, uint8_t *tmp) {
    sq_slot slot[10];
    int slots = 0;
    int single = s->ncomp == 1;
    for (int i = 0; i < s->scan_n; i++) {
        const dc_component *k = &s->comp[s->scan_comp[i]];
        for (int y = 0; y < k->v; y++) {
            for (int x = 0; x < k->h; x++) {
                sq_slot *e = &slot[slots++];
                e->k = k;
                e->comp = s->scan_comp[i];
                e->dct = &s->dc_tables[s->scan_td[i]];
                e->act = &s->ac_tables[s->scan_ta_seq[i]];
                e->S = k->S;
                e->x = x;
                e->y = y;
            }
        }
    }
    int mcus_x = single ? s->comp[0].blocks_w : s->mcus_x, mcus_y = single ? s->comp[0].blocks_h : s->mcus_y;
    int rows_per_mcu = s->vmax * s->scale;
    int32_t pred[DC_MAX_COMPONENTS] = {0, 0, 0};
    unsigned to_go = s->restart_interval;
    int next_rst = 0, e;
    uint64_t buf = 0;
    int bits = 0;
    sq_block blk;
    uint8_t *row_base[10];
    int full_mcus_x = mcus_x; /* MCU columns whose blocks are all real */
    for (int j = 0; j < slots; j++) {
        const dc_component *k = slot[j].k;
        int real = (k->blocks_w - slot[j].x + k->h - 1) / k->h;
        if (real < full_mcus_x) full_mcus_x = real;
    }
    for (int my = 0; my < mcus_y; my++) {
        int rows_real = 1;
        for (int j = 0; j < slots; j++) {
            const dc_component *k = slot[j].k;
            int by = my * k->v + slot[j].y;
            if (by >= k->blocks_h) rows_real = 0;
            row_base[j] = sq_ring_row(k, by * slot[j].S) + (size_t)slot[j].x * (size_t)slot[j].S;
        }
        for (int mx = 0; mx < mcus_x; mx++) {
            if (s->restart_interval) {
                if (to_go == 0) {
                    if ((e = dc_restart(b, next_rst, s))) return e; /* drops the buffered bits (F.1.2.3) */
                    buf = 0;
                    bits = 0;
                    next_rst = (next_rst + 1) & 7;
                    memset(pred, 0, sizeof pred);
                    to_go = s->restart_interval;
                }
                to_go--;
            }
            int all_real = rows_real && mx < full_mcus_x;
            for (int j = 0; j < slots; j++) {
                const sq_slot *sl = &slot[j];
                const dc_component *k = sl->k;
                int16_t dc;
                int S = sl->S;
                size_t stride = (size_t)k->plane_w;
                uint8_t *out = row_base[j] + (size_t)mx * (size_t)(k->h * S);
                if (!all_real) {
                    int bx = mx * k->h + sl->x, by = my * k->v + sl->y;
                    if (bx >= k->blocks_w || by >= k->blocks_h) out = NULL; /* dummy block of an edge MCU (A.2.4) */
                }
                if (S == 1) {
                    if ((e = sq_block_decode(b, &buf, &bits, sl->dct, sl->act, &pred[sl->comp], k, 1, &blk, &dc))) return e;
                    if (out) sq_emit_block(k, 1, &blk, dc, out, stride);
                } else if (S == 2) {
                    if ((e = sq_block_decode(b, &buf, &bits, sl->dct, sl->act, &pred[sl->comp], k, 2, &blk, &dc))) return e;
                    if (out) sq_emit_block(k, 2, &blk, dc, out, stride);
                } else {
                    if ((e = sq_block_decode(b, &buf, &bits, sl->dct, sl->act, &pred[sl->comp], k, 4, &blk, &dc))) return e;
                    if (out) sq_emit_block(k, 4, &blk, dc, out, stride);
                }
            }
        }
        if (my > 0) {
            int y0 = (my - 1) * rows_per_mcu, y1 = y0 + rows_per_mcu;
            sq_output_rows(s, y0, y1 < s->out_h ? y1 : s->out_h, tmp);
        }
    }
    int y0 = (mcus_y - 1) * rows_per_mcu;
    sq_output_rows(s, y0, s->out_h, tmp);
    return DC_OK;
}

static int sq_scan_generic(dc_decoder *s, dc_bits *b, uint8_t *tmp) {
    return sq_scan_body(s, b, tmp);
}

#if defined(DC_HAVE_BMI_CODE)
/* The sequential scan loop in the same compilation (shlx/shrx for the bit reader's shifts). */
__attribute__((target("popcnt,bmi,bmi2")))
static int sq_scan_bmi(dc_decoder *s, dc_bits *b, uint8_t *tmp) {
    return sq_scan_body(s, b, tmp);
}

#endif

/*
 * SOS of a sequential file (T.81 B.2.3) with libjpeg's checks (jdmarker.c get_sos, jdhuff.c
 * start_pass_huff_decoder): one scan holding every component, Ss = 0, Se = 63, Ah = Al = 0
 * (else libjpeg warns JWRN_NOT_SEQUENTIAL or reads several scans: left to it), DC and AC tables
 * that libjpeg can build (jpeg_make_d_derived_tbl), quantization tables defined (latched here,
 * as jdinput.c latch_quant_tables does at the scan's start).
 */
int sq_parse_sos(dc_decoder *s, const uint8_t *p, size_t n) {
    if (n < 1) return 0;
    int ns = p[0];
    if (ns != s->ncomp || n != 4 + 2 * (size_t)ns) return 0;
    if (!dc_parse_scan_selectors(s, p, ns, s->scan_ta_seq)) return 0;
    for (int i = 0; i < ns; i++) {
        if (!dc_huffman_derive(&s->dc_tables[s->scan_td[i]], 1)) return 0;
        if (!dc_huffman_derive(&s->ac_tables[s->scan_ta_seq[i]], 0)) return 0;
        dc_component *k = &s->comp[s->scan_comp[i]];
        if (!s->q_defined[k->tq]) return 0;
        memcpy(k->q, s->qt[k->tq], sizeof k->q);
        sq_build_zigzag(k);
    }
    if (p[1 + 2 * ns] != 0 || p[2 + 2 * ns] != 63 || p[3 + 2 * ns] != 0) return 0;
    return 1;
}

/*
 * libjpeg-turbo's slow Huffman reader (jdhuff.c jpeg_fill_bit_buffer, HUFF_DECODE with an 8-bit
 * lookahead, jpeg_huff_decode) over entropy-coded data that runs to the end of the file. It fills
 * ahead to at least 57 bits whenever it fills (a symbol begun with fewer than 8 bits, or a read
 * of more bits than it holds), and a fill that meets the end of the file is JWRN_JPEG_EOF,
 * "Premature end of JPEG file": so near the end libjpeg can stop before a bad code or a DC out
 * of range that this file's readers, which read only what they use, find first.
 */
typedef struct lj_bits {
    const uint8_t *d;
    size_t size, pos;
    uint64_t acc;
    int left;
} lj_bits;

/* 1 filled, 0 the end of the file, -1 a marker (not a run to the end of the file: not modelled). */
static int lj_fill(lj_bits *r) {
    while (r->left < 57) {
        if (r->pos >= r->size) return 0;
        unsigned c = r->d[r->pos++];
        if (c == 0xFF) {
            do {
                if (r->pos >= r->size) return 0;
                c = r->d[r->pos++];
            } while (c == 0xFF);
            if (c != 0) return -1;
            c = 0xFF;
        }
        r->acc = (r->acc << 8) | c;
        r->left += 8;
    }
    return 1;
}

static int lj_need(lj_bits *r, int n) {
    if (r->left >= n) return DC_OK;
    int f = lj_fill(r);
    return f > 0 ? DC_OK : f == 0 ? DC_ERR_EOF : -1;
}

static uint32_t lj_get(lj_bits *r, int n) {
    r->left -= n;
    return (uint32_t)(r->acc >> r->left) & ((1u << n) - 1);
}

static int lj_symbol(lj_bits *r, const dc_huffman *t, int *symbol) {
    int e, l;
    int32_t code;
    if (r->left < 8 && (e = lj_need(r, 57)) != DC_OK) return e;
    uint32_t look = (uint32_t)(r->acc >> (r->left - 8)) & 0xFF;
    for (l = 1; l <= 8; l++) {
        code = (int32_t)(look >> (8 - l));
        if (code <= t->maxcode[l]) {
            r->left -= l;
            *symbol = t->symbols[code + t->valoffset[l]];
            return DC_OK;
        }
    }
    if ((e = lj_need(r, 9)) != DC_OK) return e;
    code = (int32_t)lj_get(r, 9);
    for (l = 9; code > t->maxcode[l]; l++) {
        if ((e = lj_need(r, 1)) != DC_OK) return e;
        code = (code << 1) | (int32_t)lj_get(r, 1);
    }
    if (l > 16) return DC_ERR_BADCODE;
    *symbol = t->symbols[code + t->valoffset[l]];
    return DC_OK;
}

/*
 * libjpeg's verdict on the last restart interval (or the whole scan) of a sequential scan whose
 * data, starting at `start`, runs to the end of the file: DC_ERR_EOF, DC_ERR_BADCODE,
 * DC_ERR_RANGE, DC_OK when it decodes the interval; -1 when the data ends at a marker, or when
 * `reached` (where this file's reader stopped) is not inside that last interval.
 */
static int sq_libjpeg_tail_verdict(const dc_decoder *s, size_t start, size_t reached) {
    size_t p = start, interval = start;
    unsigned restarts = 0;
    for (;;) {
        const uint8_t *ff = p < s->size ? memchr(s->d + p, 0xFF, s->size - p) : NULL;
        if (ff == NULL) break;
        p = (size_t)(ff - s->d);
        while (p < s->size && s->d[p] == 0xFF) p++;
        if (p >= s->size) break;
        int m = s->d[p++];
        if (m == 0x00) continue;
        if (m < 0xD0 || m > 0xD7 || !s->restart_interval) return -1;
        restarts++;
        interval = p;
    }
    if (reached <= interval) return -1;
    int single = s->scan_n == 1;
    uint64_t mcus = single ? (uint64_t)s->comp[s->scan_comp[0]].blocks_w * (uint64_t)s->comp[s->scan_comp[0]].blocks_h
                           : (uint64_t)s->mcus_x * (uint64_t)s->mcus_y;
    uint64_t first = (uint64_t)restarts * s->restart_interval;
    if (first >= mcus) return -1;
    uint64_t last = s->restart_interval && first + s->restart_interval < mcus ? first + s->restart_interval : mcus;
    lj_bits r = { s->d, s->size, interval, 0, 0 };
    int32_t pred[DC_MAX_COMPONENTS] = {0, 0, 0};
    for (uint64_t m = first; m < last; m++) {
        for (int i = 0; i < s->scan_n; i++) {
            const dc_component *k = &s->comp[s->scan_comp[i]];
            const dc_huffman *dct = &s->dc_tables[s->scan_td[i]], *act = &s->ac_tables[s->scan_ta_seq[i]];
            int blocks = single ? 1 : k->h * k->v;
            for (int j = 0; j < blocks; j++) {
                int t, e;
                if ((e = lj_symbol(&r, dct, &t)) != DC_OK) return e;
                int32_t diff = 0;
                if (t) {
                    if ((e = lj_need(&r, t)) != DC_OK) return e;
                    diff = dc_extend(lj_get(&r, t), t);
                }
                if (__builtin_add_overflow(pred[s->scan_comp[i]], diff, &pred[s->scan_comp[i]])) return DC_ERR_RANGE;
                for (int z = 1; z < 64; z++) {
                    int rs;
                    if ((e = lj_symbol(&r, act, &rs)) != DC_OK) return e;
                    int run = rs >> 4, size = rs & 15;
                    if (size) {
                        z += run;
                        if ((e = lj_need(&r, size)) != DC_OK) return e;
                        (void)lj_get(&r, size);
                    } else {
                        if (run != 15) break;
                        z += 15;
                    }
                }
            }
        }
    }
    return DC_OK;
}

/* Decodes the scan whose data starts at *pos into s->pixels; *pos and *marker as dc_decode_scan. */
int sq_decode_scan(dc_decoder *s, size_t *pos, int *marker) {
    uint8_t *tmp = malloc(7 * (size_t)s->out_w);
    if (tmp == NULL) return -1;
    dc_bits b = { s->d, s->size, *pos, 0, 0, 0, 0 };
#if defined(DC_HAVE_BMI_CODE)
    int e = s->bmi_code ? sq_scan_bmi(s, &b, tmp) : sq_scan_generic(s, &b, tmp);
#else
    int e = sq_scan_generic(s, &b, tmp);
#endif
    free(tmp);
    if (!e && b.eof) e = DC_ERR_EOF;
    /* Damage found in data that runs to the end of the file: libjpeg may meet that end first. */
    if ((e == DC_ERR_BADCODE || e == DC_ERR_RANGE) && sq_libjpeg_tail_verdict(s, *pos, b.pos) == DC_ERR_EOF)
        e = DC_ERR_EOF;
    *pos = b.pos;
    *marker = b.marker;
    return e;
}
