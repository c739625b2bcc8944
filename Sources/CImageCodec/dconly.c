/*
 * Two decoders sharing one marker parser (DHT/DQT/SOF/SOS, T.81 Annex B), one bit reader
 * (T.81 F.2.2.5, F.1.2.3) and one Huffman decoder (T.81 F.2.2.3, Annex C tables validated as
 * libjpeg-turbo's jdhuff.c jpeg_make_d_derived_tbl does):
 *
 * 1. pc_jpeg_decode_reduced: sequential Huffman JPEGs (SOF0/SOF1, T.81 Annex F) at scale 1/8
 *    and 2/8. Handled: 8-bit samples, one scan holding every component (interleaved, T.81
 *    A.2.3, or a single component, A.2.2), gray or three components (YCbCr, or RGB by
 *    libjpeg's colour-space rules) with luma sampling h,v in {1,2} and 1x1 chroma, restart
 *    intervals. Every Huffman symbol of every block is decoded, so damage is refused with the
 *    message libjpeg's full decode gives (bad code, code past the segment, premature end, wrong
 *    RSTn, DC out of range); only the coefficients the reduced IDCT uses are kept, added into
 *    its pass-1 sums as they are decoded (no coefficient buffer, no 64-coefficient block).
 *    Output: the same pixels as libjpeg-turbo 2.1.5's decode at that scale with JDCT_ISLOW and
 *    do_fancy_upsampling as asked: block sizes from jdmaster.c jpeg_core_output_dimensions
 *    (4:2:0 chroma gets a 2x2 IDCT at 1/8 and a 4x4 IDCT at 2/8), the IDCTs of jidctred.c as
 *    simd/x86_64/jidctred-sse2.asm computes them (16-bit lanes; jpeg_idct_1x1 in C), upsampling
 *    of jdsample.c (h2v1/h1v2 fancy or replication; jdmainct.c edge rows), colour conversion of
 *    jdcolor.c. Memory: the output image and three MCU rows of samples per component.
 *    Anything else (progressive, arithmetic, 12-bit, CMYK/YCCK, several scans, other sampling,
 *    tables or markers libjpeg might judge differently) returns PC_NOT_HANDLED.
 *
 * 2. pc_jpeg_decode_dc_only: progressive JPEGs at 1/8, described next.
 *
 * DC-only decoder for progressive JPEGs at 1/8 scale.
 *
 * At scale 1/8 every 8×8 block becomes one pixel whose value depends only on
 * the block's DC coefficient (libjpeg-turbo jidctred.c jpeg_idct_1x1:
 * DESCALE(dc * q[0], 3) + CENTERJSAMPLE). A progressive JPEG (ITU-T T.81
 * Annex G, SOF2) sends the DC coefficients of all blocks in their own scans
 * (Ss = Se = 0), before and between the AC scans. This file decodes those DC
 * scans, keeping one 16-bit value per block per component, and entropy-decodes
 * the AC scans without storing them (one 64-bit nonzero mask per block, which AC
 * refinement scans need, T.81 G.1.2.3), so that damage anywhere in the stream is
 * seen exactly as libjpeg's own decode sees it. libjpeg's decode of a progressive
 * file first allocates a coefficient buffer for the whole image (2 bytes × 64 ×
 * every block); this needs 10 bytes per block.
 *
 * DC successive-approximation refinement scans are applied wherever they come
 * (jpeg_simple_progression puts the DC LSB scan late): the DC values are exact and
 * the output equals libjpeg's full 1/8 decode wherever the chroma needs no
 * upsampling filter (4:4:4, 4:2:2, 4:4:0, gray).
 *
 * Handled: SOF2, Huffman coding, 8-bit samples, 1 component (gray) or 3
 * (YCbCr, or RGB per libjpeg's colour-space rules), luma sampling h,v in {1,2}
 * with 1×1 chroma. Anything else, and anything this parser finds odd that
 * libjpeg might treat differently (bogus tables, inconsistent progression,
 * unknown markers, DNL, a second frame, Adobe transforms other than 0/1, a
 * component without a DC scan...), returns
 * PC_NOT_HANDLED so the caller decodes with libjpeg, which stays the arbiter
 * of odd files. Files truncated anywhere (no EOI) are rejected with libjpeg's
 * "Premature end of JPEG file"; corrupt entropy-coded data in any scan is
 * rejected with libjpeg's message for it (pc_jpeg_warning_rejects in jpeg.c):
 * a bad Huffman code, a code or run that needs bits past its segment, a wrong
 * RSTn, an AC refinement symbol whose size is not 1. Junk between segments is
 * skipped as libjpeg skips it (a harmless warning there).
 *
 * Every read is bounds-checked; nothing is global; nothing exits.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "messages.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define DC_MAX_COMPONENTS 3
#define DC_LOOKAHEAD 10       /* bits resolved by one table lookup (measured: 9-12 alike, 10 best by a hair) */
#define DC_MAX_DIMENSION 65500 /* libjpeg JPEG_MAX_DIMENSION */

/* Why a decode stopped early. */
enum {
    DC_OK = 0,
    DC_ERR_MARKER,   /* JWRN_HIT_MARKER: a code needed bits past the segment's end */
    DC_ERR_EOF,      /* JWRN_JPEG_EOF: the file ended */
    DC_ERR_BADCODE,  /* JWRN_HUFF_BAD_CODE */
    DC_ERR_RANGE,    /* JERR_BAD_DCT_COEF */
    DC_ERR_RESYNC    /* JWRN_MUST_RESYNC: the marker after an interval is not the next RSTn */
};

/* One Huffman table as sent in DHT (T.81 B.2.4.2) plus its decoding tables (T.81 F.2.2.3). */
typedef struct dc_huffman {
    int defined;
    int derived;                /* 0 not yet, 1 built and valid, -1 invalid */
    int derived_as_dc;          /* whether the symbol check for DC tables was done */
    uint8_t counts[17];         /* BITS: codes of length 1..16 */
    uint8_t symbols[256];       /* HUFFVAL */
    int count;
    int32_t maxcode[18];        /* MAXCODE(l), -1 when no code has length l; [17] sentinel */
    int32_t valoffset[17];      /* symbol index = code + valoffset[l] (VALPTR - MINCODE) */
    /* For codes up to DC_LOOKAHEAD bits: (length << 8) | symbol, and in bits 16..23 the length
     * plus the extra bits the symbol announces (its magnitude category; AC: the low nibble). */
    uint32_t lookup[1 << DC_LOOKAHEAD];
} dc_huffman;

/* A zigzag position's quantizer and place in the reduced IDCT (sq_build_zigzag). */
typedef struct sq_zz {
    int16_t q;
    uint8_t ia, ib;
    int32_t ma, mb;
    uint32_t flags;
} sq_zz;

typedef struct dc_component {
    int id, h, v, tq;
    int latched;                /* q0 copied at the component's first scan (libjpeg latch_quant_tables) */
    int q0;
    int blocks_w, blocks_h;     /* ceil(component width / 8), ceil(component height / 8) */
    int grid_w, grid_h;         /* rounded up to whole MCUs: interleaved scans fill dummy blocks */
    int16_t *dc;                /* grid_w × grid_h DC coefficients, already << Al */
    int8_t coef_bits[64];       /* libjpeg coef_bits: -1 nothing yet, else the current Al */
    uint64_t *nonzero;          /* blocks_w × blocks_h: bit k set when AC coefficient k (zigzag) is nonzero */
    /* Sequential reduced decode (pc_jpeg_decode_reduced) only. */
    int16_t q[64];              /* quantizers in zigzag order, latched at SOS, as libjpeg's ISLOW_MULT_TYPE (short) */
    sq_zz zt[64];               /* per zigzag index: quantizer and pass-1 sums (sq_build_zigzag) */
    int S;                      /* scaled block size: 1, 2 or 4 samples per block side (libjpeg DCT_scaled_size) */
    int ds_w, ds_h;             /* libjpeg downsampled_width/height at that size */
    int hmode, vmode;           /* SQ_FULL, SQ_REP or SQ_FANCY: how it reaches the output grid */
    int plane_w, ring_rows;     /* ring of the last three MCU rows' samples: plane_w × ring_rows bytes */
    uint8_t *ring;
} dc_component;

/* Entropy-coded segment reader (T.81 F.2.2.5, byte stuffing F.1.2.3, fill bytes B.1.1.2). */
typedef struct dc_bits {
    const uint8_t *d;
    size_t size, pos;
    uint64_t acc;               /* the last `count` bits read, right-aligned */
    int count;
    int marker;                 /* marker code that ended the segment, 0 while data continues */
    int eof;                    /* the file ended inside the segment */
} dc_bits;

typedef struct dc_decoder {
    const uint8_t *d;
    size_t size;
    int width, height, ncomp, hmax, vmax, mcus_x, mcus_y;
    int seen_sof;
    dc_component comp[DC_MAX_COMPONENTS];
    int q_defined[4];
    int q0[4];
    int16_t qt[4][64];          /* DQT tables, zigzag order, as ISLOW_MULT_TYPE (short) */
    /* Sequential reduced decode: mode, scale and the image being built. */
    int sequential;             /* 1: pc_jpeg_decode_reduced (SOF0/SOF1), 0: DC-only progressive */
    int scale;                  /* 1 or 2: output is scale/8 of the image */
    int fancy;                  /* libjpeg do_fancy_upsampling */
    int ycc;                    /* 3 components: 1 YCbCr, 0 RGB (both modes: decided at the first SOS) */
    int out_w, out_h;
    uint8_t *pixels;            /* out_w × out_h × 3, filled MCU row by MCU row */
    int scan_done;              /* the one scan has been decoded */
    dc_huffman dc_tables[4], ac_tables[4];
    unsigned restart_interval;
    int scans;                  /* SOS segments seen (PC_MAX_SCANS) */
    int saw_jfif, saw_adobe, adobe_transform;
    /* The scan being decoded (T.81 B.2.3). */
    int scan_n, scan_comp[4], scan_td[4], scan_ta, ss, se, ah, al;
    int scan_ta_seq[4];         /* sequential: AC table of each scan component */
    /* Error detail for the message. */
    int error, error_marker, error_expected;
    uint64_t over_budget_mb;    /* set when dc_parse_sof refuses the frame against the budget */
    int bmi_code;               /* 1: the AC scans run dc_ac_scan_bmi (the CPU has it, not refused by the options) */
} dc_decoder;

/* ------------------------------------------------------------------ bits */

static void dc_fill(dc_bits *b) {
    while (b->count <= 56 && !b->marker && !b->eof) {
        if (b->pos >= b->size) { b->eof = 1; break; }
        unsigned c = b->d[b->pos];
        if (c == 0xFF) {
            size_t p = b->pos + 1;
            while (p < b->size && b->d[p] == 0xFF) p++; /* fill bytes before a marker (B.1.1.2) */
            if (p >= b->size) { b->pos = p; b->eof = 1; break; }
            if (b->d[p] != 0x00) { b->marker = b->d[p]; b->pos = p + 1; break; }
            b->pos = p + 1;     /* FF 00 is a data byte FF (F.1.2.3) */
        } else {
            b->pos++;
        }
        b->acc = (b->acc << 8) | c;
        b->count += 8;
    }
}

/* Error for a read that needs more bits than the segment holds. */
static int dc_short(const dc_bits *b) { return b->eof ? DC_ERR_EOF : DC_ERR_MARKER; }

/* The next n (1..16) bits, zero-padded past the segment's end, without consuming them. */
static inline uint32_t dc_peek(dc_bits *b, int n) {
    if (b->count < n) dc_fill(b);
    uint64_t v = b->count >= n ? b->acc >> (b->count - n) : b->acc << (n - b->count);
    return (uint32_t)v & ((1u << n) - 1);
}

/* Reads n (1..16) bits into *value. */
static inline int dc_get_bits(dc_bits *b, int n, uint32_t *value) {
    if (b->count < n) {
        dc_fill(b);
        if (b->count < n) return dc_short(b);
    }
    b->count -= n;
    *value = (uint32_t)(b->acc >> b->count) & ((1u << n) - 1);
    return DC_OK;
}

/* Decodes one Huffman-coded symbol (T.81 F.2.2.3 DECODE, with a lookup table for short codes). */
static inline int dc_decode_symbol(dc_bits *b, const dc_huffman *t, int *symbol) {
    uint32_t look = dc_peek(b, DC_LOOKAHEAD);
    unsigned e = t->lookup[look];
    if (e != 0) {
        int length = (int)((e >> 8) & 0xFF);
        if (length > b->count) return dc_short(b);
        b->count -= length;
        *symbol = (int)(e & 0xFF);
        return DC_OK;
    }
    uint32_t code16 = dc_peek(b, 16);
    for (int l = DC_LOOKAHEAD + 1; l <= 16; l++) {
        int32_t code = (int32_t)(code16 >> (16 - l));
        if (code <= t->maxcode[l]) {
            if (l > b->count) return dc_short(b);
            b->count -= l;
            *symbol = t->symbols[code + t->valoffset[l]];
            return DC_OK;
        }
    }
    /* No code matches in 16 bits: libjpeg reads a 17th bit before it gives up (jpeg_huff_decode runs
     * to its maxcode[17] sentinel), so it reports the missing bits first if there were not 17. */
    if (b->count < 17) dc_fill(b);
    return b->count < 17 ? dc_short(b) : DC_ERR_BADCODE;
}

/*
 * At the start of a restart interval: drop the padding bits (F.1.2.3), find the
 * next marker the way libjpeg's next_marker does (skipping any junk), and
 * require RSTn with n = expected (T.81 F.1.2.3, B.2.1).
 */
static int dc_restart(dc_bits *b, int expected, dc_decoder *s) {
    b->acc = 0;
    b->count = 0;
    if (!b->marker) {
        for (;;) {
            while (b->pos < b->size && b->d[b->pos] != 0xFF) b->pos++;
            while (b->pos < b->size && b->d[b->pos] == 0xFF) b->pos++;
            if (b->pos >= b->size) { b->eof = 1; return DC_ERR_EOF; }
            int m = b->d[b->pos++];
            if (m != 0x00) { b->marker = m; break; }
        }
    }
    if (b->marker != 0xD0 + expected) {
        s->error_marker = b->marker;
        s->error_expected = expected;
        return DC_ERR_RESYNC;
    }
    b->marker = 0;
    return DC_OK;
}

/* ------------------------------------------------------------------ samples */

/* libjpeg's IDCT range limit (jdmaster.c prepare_range_limit_table) applied to x + CENTERJSAMPLE. */
static inline uint8_t dc_idct_limit(int x) {
    int r = x & 1023;
    if (r < 128) return (uint8_t)(r + 128);
    if (r < 512) return 255;
    if (r < 896) return 0;
    return (uint8_t)(r - 896);
}

#define DC_SCALEBITS 16
#define DC_ONE_HALF ((int32_t)1 << (DC_SCALEBITS - 1))
#define DC_FIX(x) ((int32_t)((x) * (1L << DC_SCALEBITS) + 0.5))

static inline uint8_t dc_clamp(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* ------------------------------------------------------------------ tables */

/*
 * Builds the decoding tables of a DHT table and validates it as libjpeg's
 * jpeg_make_d_derived_tbl does: codes are generated per T.81 Annex C
 * (Figures C.1, C.2) and must fit their lengths with no all-ones code; a DC
 * table's symbols (magnitude categories) must be at most 15.
 */
static int dc_huffman_derive(dc_huffman *t, int is_dc) {
    if (!t->defined) return 0;
    if (t->derived != 0 && (!is_dc || t->derived_as_dc)) return t->derived > 0;
    if (is_dc) {
        for (int i = 0; i < t->count; i++) {
            if (t->symbols[i] > 15) { t->derived = -1; return 0; }
        }
        t->derived_as_dc = 1;
    }
    memset(t->lookup, 0, sizeof t->lookup);
    int32_t code = 0;
    int k = 0;
    for (int l = 1; l <= 16; l++) {
        int n = t->counts[l];
        /* libjpeg: "code must still fit in si bits, since no code is allowed to be all ones" */
        if (code + n >= (1 << l)) { t->derived = -1; return 0; }
        t->valoffset[l] = k - code;
        for (int i = 0; i < n; i++, code++, k++) {
            if (l <= DC_LOOKAHEAD) {
                int shift = DC_LOOKAHEAD - l;
                int extra = is_dc ? t->symbols[k] : (t->symbols[k] & 15);
                uint32_t entry = (uint32_t)((l + extra) << 16 | l << 8 | t->symbols[k]);
                for (int j = 0; j < (1 << shift); j++) t->lookup[(code << shift) | j] = entry;
            }
        }
        t->maxcode[l] = n ? code - 1 : -1;
        code <<= 1;
    }
    t->maxcode[17] = INT32_MAX;
    t->derived = 1;
    return 1;
}

/* DHT (T.81 B.2.4.2): one or more tables; libjpeg get_dht's limits (count <= 256, within the segment). */
static int dc_parse_dht(dc_decoder *s, const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (n - i < 17) return 0;
        int tc = p[i] >> 4, th = p[i] & 0x0F;
        if (tc > 1 || th > 3) return 0;
        dc_huffman *t = tc == 0 ? &s->dc_tables[th] : &s->ac_tables[th];
        int count = 0;
        uint8_t counts[17] = {0};
        for (int l = 1; l <= 16; l++) { counts[l] = p[i + l]; count += counts[l]; }
        i += 17;
        if (count > 256 || (size_t)count > n - i) return 0;
        memcpy(t->counts, counts, sizeof counts);
        memset(t->symbols, 0, sizeof t->symbols);
        memcpy(t->symbols, p + i, (size_t)count);
        t->count = count;
        t->defined = 1;
        t->derived = 0;
        t->derived_as_dc = 0;
        i += (size_t)count;
    }
    return 1;
}

/* DQT (T.81 B.2.4.1): only Q[0] matters here; whole 8- or 16-bit tables only (others: libjpeg decides). */
static int dc_parse_dqt(dc_decoder *s, const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        int pq = p[i] >> 4, tq = p[i] & 0x0F;
        if (pq > 1 || tq > 3) return 0;
        size_t table = pq ? 128 : 64;
        if (n - i - 1 < table) return 0;
        /* libjpeg keeps quantizers as UINT16 and the 1×1 IDCT multiplies by them as ISLOW_MULT_TYPE (short with SIMD). */
        int q0 = pq ? (p[i + 1] << 8) | p[i + 2] : p[i + 1];
        s->q0[tq] = (int16_t)q0;
        for (int z = 0; z < 64; z++)
            s->qt[tq][z] = (int16_t)(pq ? (p[i + 1 + 2 * z] << 8) | p[i + 2 + 2 * z] : p[i + 1 + z]);
        s->q_defined[tq] = 1;
        i += 1 + table;
    }
    return 1;
}

enum { SQ_FULL = 0, SQ_REP, SQ_FANCY };

/*
 * The sequential reduced decode's layout (pc_jpeg_decode_reduced), as libjpeg-turbo 2.1.5 chooses
 * it for scale/8: jdmaster.c jpeg_core_output_dimensions gives each component the block size
 * S = scale, doubled while both max_samp × scale is a multiple of samp × 2S (so 4:2:0 chroma gets
 * a 2×2 IDCT at 1/8 and a 4×4 one at 2/8, and needs no upsampling); jdsample.c jinit_upsampler then
 * upsamples what is still smaller than the output: 2:1 horizontally by the triangle filter
 * (h2v1_fancy_upsample) when do_fancy_upsampling, scale > 1 and downsampled_width > 2, else by
 * replication; 1:2 vertically by h1v2_fancy_upsample when do_fancy_upsampling and scale > 1, else
 * by replication (int_upsample). Sizes as jdinput.c/jdmaster.c: downsampled_width =
 * ceil(width × h × S / (hmax × 8)), output = ceil(width × scale / 8). Allocates the output image
 * and, per component, a ring of three MCU rows of samples. Returns 1, 0 (leave to libjpeg),
 * -1 out of memory, -2 over the budget.
 */
static int dc_seq_layout(dc_decoder *s) {
    int scale = s->scale;
    s->out_w = (int)(((long)s->width * scale + 7) / 8);
    s->out_h = (int)(((long)s->height * scale + 7) / 8);
    uint64_t needed = (uint64_t)s->out_w * (uint64_t)s->out_h * 3;
    for (int c = 0; c < s->ncomp; c++) {
        dc_component *k = &s->comp[c];
        int S = scale;
        while (S < 8 && (s->hmax * scale) % (k->h * S * 2) == 0 && (s->vmax * scale) % (k->v * S * 2) == 0) S *= 2;
        if (S > 4) return 0;
        k->S = S;
        k->ds_w = (int)(((long)s->width * k->h * S + 8L * s->hmax - 1) / (8L * s->hmax));
        k->ds_h = (int)(((long)s->height * k->v * S + 8L * s->vmax - 1) / (8L * s->vmax));
        int h_in = k->h * S / scale, v_in = k->v * S / scale;
        if (h_in == s->hmax) k->hmode = SQ_FULL;
        else if (h_in * 2 == s->hmax) k->hmode = s->fancy && scale > 1 && k->ds_w > 2 ? SQ_FANCY : SQ_REP;
        else return 0;
        if (v_in == s->vmax) k->vmode = SQ_FULL;
        else if (v_in * 2 == s->vmax) k->vmode = s->fancy && scale > 1 ? SQ_FANCY : SQ_REP;
        else return 0;
        if (k->hmode != SQ_FULL && k->vmode != SQ_FULL) return 0; /* h2v2: not reached with 1×1 chroma */
        k->plane_w = k->grid_w * S;
        k->ring_rows = 3 * k->v * S;
        needed += (uint64_t)k->plane_w * (uint64_t)k->ring_rows;
    }
    if (needed > PC_DECODE_BUDGET_BYTES) {
        s->over_budget_mb = (needed + (1u << 20) - 1) >> 20;
        return -2;
    }
    for (int c = 0; c < s->ncomp; c++) {
        dc_component *k = &s->comp[c];
        k->ring = malloc((size_t)k->plane_w * (size_t)k->ring_rows);
        if (k->ring == NULL) return -1;
    }
    s->pixels = malloc((size_t)s->out_w * (size_t)s->out_h * 3);
    if (s->pixels == NULL) return -1;
    s->seen_sof = 1;
    return 1;
}

/* SOF2 (T.81 B.2.2): progressive DCT, Huffman coding; SOF0/SOF1 in the sequential mode. */
static int dc_parse_sof(dc_decoder *s, const uint8_t *p, size_t n) {
    if (n < 6) return 0;
    int precision = p[0];
    int height = (p[1] << 8) | p[2], width = (p[3] << 8) | p[4], nf = p[5];
    if (precision != 8 || height == 0 /* DNL */ || width == 0) return 0;
    if (width > DC_MAX_DIMENSION || height > DC_MAX_DIMENSION) return 0;
    if ((nf != 1 && nf != 3) || n != 6 + 3 * (size_t)nf) return 0;
    s->width = width;
    s->height = height;
    s->ncomp = nf;
    for (int c = 0; c < nf; c++) {
        dc_component *k = &s->comp[c];
        k->id = p[6 + 3 * c];
        k->h = p[7 + 3 * c] >> 4;
        k->v = p[7 + 3 * c] & 0x0F;
        k->tq = p[8 + 3 * c];
        if (k->tq > 3) return 0;
        for (int o = 0; o < c; o++) if (s->comp[o].id == k->id) return 0;
        if (c == 0) {
            if (k->h < 1 || k->h > 2 || k->v < 1 || k->v > 2) return 0;
        } else if (k->h != 1 || k->v != 1) {
            return 0;
        }
        memset(k->coef_bits, -1, sizeof k->coef_bits);
        /* A one-component file is one non-interleaved scan of its blocks (A.2.2): its sampling factors
         * change nothing (libjpeg: fullsize, DCT_scaled_size = the scale). */
        if (nf == 1 && s->sequential) k->h = k->v = 1;
    }
    s->hmax = s->comp[0].h;
    s->vmax = s->comp[0].v;
    s->mcus_x = (width + 8 * s->hmax - 1) / (8 * s->hmax);
    s->mcus_y = (height + 8 * s->vmax - 1) / (8 * s->vmax);
    for (int c = 0; c < nf; c++) {
        dc_component *k = &s->comp[c];
        /* Component size per T.81 A.1.1: ceil(X × H / Hmax). */
        int cw = (int)(((long)width * k->h + s->hmax - 1) / s->hmax);
        int ch = (int)(((long)height * k->v + s->vmax - 1) / s->vmax);
        k->blocks_w = (cw + 7) / 8;
        k->blocks_h = (ch + 7) / 8;
        k->grid_w = s->mcus_x * k->h;
        k->grid_h = s->mcus_y * k->v;
    }
    if (s->sequential) return dc_seq_layout(s);
    /* What this decoder will hold: 2 bytes of DC and 8 of AC mask per block, and the 1/8
     * RGB image: within PC_DECODE_BUDGET_MB up to about 200 Mpx at 4:4:4 and 370 Mpx at
     * 4:2:0, so only a raised --max-pixels can reach the budget (100 Mpx: 52 MB at most). */
    uint64_t needed = (uint64_t)((width + 7) / 8) * (uint64_t)((height + 7) / 8) * 3;
    for (int c = 0; c < nf; c++) {
        const dc_component *k = &s->comp[c];
        needed += (uint64_t)k->grid_w * (uint64_t)k->grid_h * (sizeof(int16_t) + sizeof(uint64_t));
    }
    if (needed > PC_DECODE_BUDGET_BYTES) {
        s->over_budget_mb = (needed + (1u << 20) - 1) >> 20;
        return -2;
    }
    for (int c = 0; c < nf; c++) {
        dc_component *k = &s->comp[c];
        k->dc = calloc((size_t)k->grid_w * (size_t)k->grid_h, sizeof(int16_t));
        if (k->dc == NULL) return -1;
    }
    s->seen_sof = 1;
    return 1;
}

/*
 * A SOS's component selectors (T.81 B.2.3; jdmarker.c get_sos): each names a frame component,
 * none twice, with Td and Ta <= 3. Sets scan_n, scan_comp and scan_td, and ta[i] for each of the
 * ns <= 4 selectors. Returns 0 for anything else (left to libjpeg). Shared by the progressive
 * and the sequential SOS.
 */
static int dc_parse_scan_selectors(dc_decoder *s, const uint8_t *p, int ns, int *ta) {
    s->scan_n = ns;
    for (int i = 0; i < ns; i++) {
        int id = p[1 + 2 * i], c = -1;
        for (int k = 0; k < s->ncomp; k++) if (s->comp[k].id == id) c = k;
        if (c < 0) return 0;
        for (int o = 0; o < i; o++) if (s->scan_comp[o] == c) return 0;
        s->scan_comp[i] = c;
        s->scan_td[i] = p[2 + 2 * i] >> 4;
        ta[i] = p[2 + 2 * i] & 0x0F;
        if (s->scan_td[i] > 3 || ta[i] > 3) return 0;
    }
    return 1;
}

/*
 * SOS (T.81 B.2.3) with libjpeg's checks (jdmarker.c get_sos, jdphuff.c
 * start_pass_phuff_decoder): parameter ranges, then the progression must be
 * consistent (G.1.1.1.1) — libjpeg warns JWRN_BOGUS_PROGRESSION, which
 * jpeg.c rejects, so such files are left to libjpeg.
 */
static int dc_parse_sos(dc_decoder *s, const uint8_t *p, size_t n) {
    if (n < 1) return 0;
    int ns = p[0];
    if (ns < 1 || ns > 4 || n != 4 + 2 * (size_t)ns) return 0;
    int ta[4];
    if (!dc_parse_scan_selectors(s, p, ns, ta)) return 0;
    s->ss = p[1 + 2 * ns];
    s->se = p[2 + 2 * ns];
    s->scan_ta = ta[ns - 1];
    /* Tables this scan makes libjpeg build (jdphuff.c start_pass_phuff_decoder). */
    for (int i = 0; i < ns; i++)
        if (s->ss != 0 && !dc_huffman_derive(&s->ac_tables[ta[i]], 0)) return 0;
    s->ah = p[3 + 2 * ns] >> 4;
    s->al = p[3 + 2 * ns] & 0x0F;
    int dc = s->ss == 0;
    if (dc ? s->se != 0 : (s->ss > s->se || s->se > 63 || ns != 1)) return 0;
    if (s->ah != 0 && s->al != s->ah - 1) return 0;
    if (s->al > 13) return 0;
    for (int i = 0; i < ns; i++) {
        dc_component *k = &s->comp[s->scan_comp[i]];
        if (!dc && k->coef_bits[0] < 0) return 0; /* AC before the component's DC (G.1.1.1.1) */
        for (int z = s->ss; z <= s->se; z++) {
            int expected = k->coef_bits[z] < 0 ? 0 : k->coef_bits[z];
            if (s->ah != expected) return 0;
            k->coef_bits[z] = (int8_t)s->al;
        }
        if (!k->latched) {
            if (!s->q_defined[k->tq]) return 0;
            k->q0 = s->q0[k->tq];
            k->latched = 1;
        }
        if (dc && s->ah == 0 && !dc_huffman_derive(&s->dc_tables[s->scan_td[i]], 1)) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ scans */

/* EXTEND (T.81 F.2.2.1, Figure F.12): the signed value of an s-bit magnitude r. */
static inline int32_t dc_extend(uint32_t r, int s) {
    return r < (1u << (s - 1)) ? (int32_t)r - (int32_t)(1u << s) + 1 : (int32_t)r;
}

/*
 * The block loop of a DC scan, compiled twice (refine constant): DC first scans
 * decode a Huffman-coded difference (F.2.2.1), add the component's predictor
 * (F.2.1.3.1; reset to 0 at each restart) and store it << Al; refinement scans
 * (G.1.2.1) read one bit per block and OR it in at bit Al.
 *
 * Interleaved scans walk the MCU grid (A.2.3) with each component's H×V blocks
 * per MCU, including the dummy blocks of partial MCUs at the right and bottom
 * edges; a one-component scan walks that component's own blocks (A.2.2), one
 * block per MCU. Restart intervals count MCUs.
 */
static inline __attribute__((always_inline)) int dc_scan_blocks(dc_decoder *s, dc_bits *b, int refine) {
    int16_t *base[4];
    size_t step_x[4], step_y[4];
    const dc_huffman *table[4];
    int slot_comp[10];
    size_t slot_off[10];
    int slots = 0, mcus_x, mcus_y;
    for (int i = 0; i < s->scan_n; i++) {
        dc_component *k = &s->comp[s->scan_comp[i]];
        base[i] = k->dc;
        table[i] = &s->dc_tables[s->scan_td[i]];
        int h = s->scan_n == 1 ? 1 : k->h, v = s->scan_n == 1 ? 1 : k->v;
        step_x[i] = (size_t)h;
        step_y[i] = (size_t)v * (size_t)k->grid_w;
        for (int y = 0; y < v; y++) {
            for (int x = 0; x < h; x++) {
                slot_comp[slots] = i;
                slot_off[slots++] = (size_t)y * (size_t)k->grid_w + (size_t)x;
            }
        }
    }
    if (s->scan_n == 1) {
        mcus_x = s->comp[s->scan_comp[0]].blocks_w;
        mcus_y = s->comp[s->scan_comp[0]].blocks_h;
    } else {
        mcus_x = s->mcus_x;
        mcus_y = s->mcus_y;
    }
    const uint16_t bit = (uint16_t)(1u << s->al);
    const int al = s->al;
    int64_t pred[4] = {0, 0, 0, 0};
    unsigned to_go = s->restart_interval;
    int next_rst = 0, e;
    for (int my = 0; my < mcus_y; my++) {
        for (int mx = 0; mx < mcus_x; mx++) {
            if (s->restart_interval) {
                if (to_go == 0) {
                    if ((e = dc_restart(b, next_rst, s))) return e;
                    next_rst = (next_rst + 1) & 7;
                    memset(pred, 0, sizeof pred);
                    to_go = s->restart_interval;
                }
                to_go--;
            }
            for (int j = 0; j < slots; j++) {
                int i = slot_comp[j];
                int16_t *coef = base[i] + (size_t)my * step_y[i] + (size_t)mx * step_x[i] + slot_off[j];
                if (refine) {
                    uint32_t r;
                    if ((e = dc_get_bits(b, 1, &r))) return e;
                    if (r) *coef = (int16_t)(uint16_t)((uint16_t)*coef | bit);
                } else {
                    int t;
                    if ((e = dc_decode_symbol(b, table[i], &t))) return e;
                    int32_t diff = 0;
                    if (t) {
                        uint32_t r;
                        if ((e = dc_get_bits(b, t, &r))) return e;
                        diff = dc_extend(r, t);
                    }
                    int64_t v = pred[i] + diff;
                    if (v > INT_MAX || v < INT_MIN) return DC_ERR_RANGE; /* libjpeg JERR_BAD_DCT_COEF */
                    pred[i] = v;
                    /* libjpeg: (JCOEF)LEFT_SHIFT(s, Al), a 16-bit coefficient */
                    *coef = (int16_t)(uint16_t)((uint32_t)(int32_t)v << al);
                }
            }
        }
    }
    return DC_OK;
}

/*
 * Decodes the DC scan whose data starts at *pos. On return *pos is where the
 * reader stopped and *marker the marker it met (0 if none yet).
 */
static int dc_decode_scan(dc_decoder *s, size_t *pos, int *marker) {
    dc_bits b = { s->d, s->size, *pos, 0, 0, 0, 0 };
    int e = s->ah == 0 ? dc_scan_blocks(s, &b, 0) : dc_scan_blocks(s, &b, 1);
    if (!e && b.eof) e = DC_ERR_EOF;
    *pos = b.pos;
    *marker = b.marker;
    return e;
}

/*
 * AC scans are entropy-decoded but not stored: a full decode (libjpeg, or any viewer)
 * reads them, and libjpeg reports damage in them (bad Huffman code, a code running into
 * a marker, a wrong RSTn) that a file must not pass here unnoticed (jpeg.c
 * pc_jpeg_warning_rejects). The coefficients' values do not matter for the 1/8 output;
 * only which ones are nonzero does, because an AC refinement scan sends a correction bit
 * for each already-nonzero coefficient (T.81 G.1.2.3). One 64-bit mask per block keeps
 * that (8 bytes against libjpeg's 128 per block). The decoding follows libjpeg-turbo
 * 2.1.5 jdphuff.c decode_mcu_AC_first / decode_mcu_AC_refine step for step, including
 * what it does with corrupt runs (k past Se writes at jpeg_natural_order[k], 63 past 63).
 */
static inline uint64_t dc_ac_bit(int k) { return (uint64_t)1 << (k < 63 ? k : 63); }

/* Set bits of x, without a libgcc call where the target has no POPCNT instruction. */
static inline int dc_popcount(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/*
 * x without its r lowest set bits (0 when it has r or fewer). Runs are mostly under 4 (bench
 * corpus refinement scans: r = 0 for 56 % of the symbols, 1 for 22 %, 2 for 10 %, 3 for 5 %):
 * those are cleared without a branch on r (x - 0 & x is x), which the CPU cannot predict
 * (4-5 % less time than three conditional clears); longer runs loop.
 */
static inline uint64_t dc_clear_lowest(uint64_t x, int r) {
    if (r >= 4) {
        for (int i = 0; i < r; i++) x &= x - 1;
        return x;
    }
    x &= x - (uint64_t)(r > 0);
    x &= x - (uint64_t)(r > 1);
    x &= x - (uint64_t)(r > 2);
    return x;
}

/* Bits z..se (zigzag positions, 1 <= z, se <= 63) of a block mask; 0 when z > se. */
static inline uint64_t dc_ac_band(int z, int se) {
    if (z > se) return 0;
    uint64_t upto = se >= 63 ? ~(uint64_t)0 : (((uint64_t)1 << (se + 1)) - 1);
    return upto & ~(((uint64_t)1 << z) - 1);
}

/*
 * Refills the AC reader's bit buffer (locals acc/count of the scan loops, kept out of
 * memory): 8 bytes at a time while none is 0xFF, else byte by byte as dc_fill.
 * Returns the new count.
 */
static inline __attribute__((always_inline)) int dc_ac_refill(dc_bits *b, uint64_t *acc, int count) {
    if (!b->marker && !b->eof && b->size - b->pos >= 8 && b->pos <= b->size) {
        uint64_t w;
        memcpy(&w, b->d + b->pos, 8);
        uint64_t x = ~w; /* a 0xFF byte of w is a zero byte of x */
        if (((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL) == 0) {
            int n = (64 - count) >> 3;
            if (n > 7) n = 7;
            w = __builtin_bswap64(w);
            *acc = (*acc << (8 * n)) | (w >> (64 - 8 * n));
            b->pos += (size_t)n;
            return count + 8 * n;
        }
    }
    b->acc = *acc;
    b->count = count;
    dc_fill(b);
    *acc = b->acc;
    return b->count;
}

/* The AC readers' steps, on locals acc/count; each returns the error from the enclosing function. */
#define AC_NEED(n) do { if (count < (n)) { count = dc_ac_refill(b, &acc, count); if (count < (n)) return dc_short(b); } } while (0)
#define AC_SKIP(n) do { int need_ = (n); while (need_ > 32) { AC_NEED(32); count -= 32; need_ -= 32; } AC_NEED(need_); count -= need_; } while (0)
/* Decodes one AC symbol and consumes it with the extra bits it announces (rs & 15 of them). In a
 * refinement scan (refine = 1) a size other than 1 is libjpeg's JWRN_HUFF_BAD_CODE as soon as the
 * code is read (jdphuff.c decode_mcu_AC_refine), before the bits after it are needed. */
#define AC_DECODE(t, rs) AC_DECODE_X(t, rs, 0)
#define AC_DECODE_X(t, rs, refine) do { \
        if (count < 32) count = dc_ac_refill(b, &acc, count); \
        uint32_t look_ = (uint32_t)(count >= DC_LOOKAHEAD ? acc >> (count - DC_LOOKAHEAD) : acc << (DC_LOOKAHEAD - count)) & ((1u << DC_LOOKAHEAD) - 1); \
        uint32_t e_ = (t)->lookup[look_]; \
        int total_; \
        if (e_ != 0) { \
            total_ = (int)(e_ >> 16); \
            (rs) = (int)(e_ & 0xFF); \
        } else { \
            uint32_t code16_ = (uint32_t)(count >= 16 ? acc >> (count - 16) : acc << (16 - count)) & 0xFFFF; \
            total_ = 0; \
            for (int l_ = DC_LOOKAHEAD + 1; l_ <= 16; l_++) { \
                int32_t c_ = (int32_t)(code16_ >> (16 - l_)); \
                if (c_ <= (t)->maxcode[l_]) { (rs) = (t)->symbols[c_ + (t)->valoffset[l_]]; total_ = l_ + ((rs) & 15); break; } \
            } \
            if (total_ == 0) return count < 17 ? dc_short(b) : DC_ERR_BADCODE; \
        } \
        if ((refine) && ((rs) & 15) > 1) { \
            int code_ = total_ - ((rs) & 15); \
            if (code_ > count) count = dc_ac_refill(b, &acc, count); \
            return code_ > count ? dc_short(b) : DC_ERR_BADCODE; \
        } \
        if (total_ > count) { \
            count = dc_ac_refill(b, &acc, count); \
            if (total_ > count) return dc_short(b); \
        } \
        count -= total_; \
    } while (0)

/*
 * The restart step before each block of an AC scan (first or refinement): at the end of a
 * restart interval (T.81 F.1.2.3) hands the cached bits back to b, reads RSTn through
 * dc_restart, and starts the next interval with an empty bit cache and no EOB run pending
 * (T.81 G.1.2.2: an EOB run never crosses a restart marker). Returns DC_OK or dc_restart's error.
 */
static inline int dc_ac_restart_step(dc_decoder *s, dc_bits *b, uint64_t *acc, int *count, int *next_rst,
                                     unsigned *eobrun, unsigned *to_go) {
    if (!s->restart_interval) return DC_OK;
    if (*to_go == 0) {
        int e;
        b->acc = *acc;
        b->count = *count;
        if ((e = dc_restart(b, *next_rst, s))) return e;
        *acc = 0;
        *count = 0;
        *next_rst = (*next_rst + 1) & 7;
        *eobrun = 0;
        *to_go = s->restart_interval;
    }
    (*to_go)--;
    return DC_OK;
}

/*
 * A first AC scan (Ah = 0) of one component: T.81 G.1.2.2, EOB runs (Figures G.5..G.7).
 * A coefficient's value is not needed, only whether (JCOEF)(value << Al) is nonzero:
 * always when size + Al < 16 (|value| < 2^size), else computed as libjpeg does.
 */
static inline __attribute__((always_inline)) int dc_ac_first(dc_decoder *s, dc_bits *b, dc_component *k,
                                                            const dc_huffman *t) {
    const int ss = s->ss, se = s->se, al = s->al;
    const size_t blocks = (size_t)k->blocks_w * (size_t)k->blocks_h;
    uint64_t *nz = k->nonzero;
    unsigned eobrun = 0, to_go = s->restart_interval;
    int next_rst = 0, e;
    uint64_t acc = 0;
    int count = 0;
    for (size_t n = 0; n < blocks; n++) {
        if ((e = dc_ac_restart_step(s, b, &acc, &count, &next_rst, &eobrun, &to_go))) return e;
        if (eobrun > 0) { eobrun--; continue; }
        uint64_t mask = nz[n];
        for (int z = ss; z <= se; z++) {
            int rs = 0;
            AC_DECODE(t, rs);
            int r = rs >> 4, size = rs & 15;
            if (size) {
                z += r;
                if (size + al < 16) {
                    mask |= dc_ac_bit(z);
                } else {
                    uint32_t bits = (uint32_t)(acc >> count) & ((1u << size) - 1);
                    /* libjpeg: (JCOEF)((unsigned)s << Al), assigned at natural_order[z] */
                    if ((int16_t)(uint16_t)((uint32_t)dc_extend(bits, size) << al) != 0) mask |= dc_ac_bit(z);
                    else mask &= ~dc_ac_bit(z);
                }
            } else if (r == 15) {
                z += 15; /* ZRL */
            } else {
                eobrun = 1u << r;
                if (r) {
                    AC_NEED(r);
                    count -= r;
                    eobrun += (unsigned)(acc >> count) & ((1u << r) - 1);
                }
                eobrun--;
                break;
            }
        }
        nz[n] = mask;
    }
    b->acc = acc;
    b->count = count;
    return DC_OK;
}

/*
 * An AC refinement scan (Ah != 0) of one component: T.81 G.1.2.3 (Figures G.8, G.9).
 * Correction bits (one per already-nonzero coefficient passed) are skipped, not read:
 * their values change magnitudes, never which coefficients are nonzero.
 */
static inline __attribute__((always_inline)) int dc_ac_refine(dc_decoder *s, dc_bits *b, dc_component *k,
                                                             const dc_huffman *t) {
    const int ss = s->ss, se = s->se;
    const size_t blocks = (size_t)k->blocks_w * (size_t)k->blocks_h;
    uint64_t *nz = k->nonzero;
    unsigned eobrun = 0, to_go = s->restart_interval;
    int next_rst = 0, e;
    uint64_t acc = 0;
    int count = 0;
    for (size_t n = 0; n < blocks; n++) {
        if ((e = dc_ac_restart_step(s, b, &acc, &count, &next_rst, &eobrun, &to_go))) return e;
        uint64_t mask = nz[n];
        int z = ss;
        if (eobrun == 0) {
            for (; z <= se; z++) {
                int rs = 0;
                AC_DECODE_X(t, rs, 1); /* a size other than 1 is refused there */
                int r = rs >> 4, size = rs & 15;
                if (size) {
                    /* its sign bit was consumed with the code */
                } else if (r != 15) {
                    eobrun = 1u << r;
                    if (r) {
                        AC_NEED(r);
                        count -= r;
                        eobrun += (unsigned)(acc >> count) & ((1u << r) - 1);
                    }
                    break;
                }
                /* libjpeg's do/while: from z, pass nonzero coefficients (one correction bit each)
                 * and r zero ones; stop at the next zero one (the new coefficient), or after se. */
                uint64_t zeros = ~mask & dc_ac_band(z, se);
                zeros = dc_clear_lowest(zeros, r);
                int stop = zeros ? __builtin_ctzll(zeros) : 64;
                if (stop <= se) {
                    AC_SKIP(stop - z - r); /* between z and stop: r zero coefficients, the rest nonzero */
                } else {
                    stop = se + 1;
                    AC_SKIP(dc_popcount(mask & dc_ac_band(z, se)));
                }
                z = stop;
                if (size) mask |= dc_ac_bit(z);
            }
        }
        if (eobrun > 0) {
            AC_SKIP(dc_popcount(mask & dc_ac_band(z, se)));
            eobrun--;
        }
        nz[n] = mask;
    }
    b->acc = acc;
    b->count = count;
    return DC_OK;
}

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
    dc_fill(b);
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
        uint32_t e_ = (t)->lookup[buf >> (64 - DC_LOOKAHEAD)]; \
        if (e_ != 0) { \
            (total) = (int)(e_ >> 16); \
            (rs) = (int)(e_ & 0xFF); \
        } else { \
            uint32_t code16_ = (uint32_t)(buf >> 48); \
            (total) = 0; \
            for (int l_ = DC_LOOKAHEAD + 1; l_ <= 16; l_++) { \
                int32_t c_ = (int32_t)(code16_ >> (16 - l_)); \
                if (c_ <= (t)->maxcode[l_]) { (rs) = (t)->symbols[c_ + (t)->valoffset[l_]]; (total) = l_ + ((rs) & 15); break; } \
            } \
            if ((total) == 0) return bits < 17 ? dc_short(b) : DC_ERR_BADCODE; \
        } \
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

#undef AC_NEED
#undef AC_SKIP
#undef AC_DECODE
#undef AC_DECODE_X
#undef SQ_DECODE
#undef SQ_TAKE

/*
 * The AC scan loops compiled twice: for the baseline x86-64 every build targets, and (x86-64)
 * with POPCNT, BMI1 and BMI2 (popcnt for the correction-bit counts, shlx/shrx for the bit
 * reader's variable shifts, blsr/tzcnt for the refinement masks), taken when the CPU has them
 * (dc_cpu_has_bmi). The same C, integer arithmetic only: the same results either way
 * (DCOnlyBMICodeTests compares both on every corpus JPEG). 6-7 % less time for the AC scans
 * of the bench corpus's progressive files, which are about a third of a bench import's CPU.
 */
static int dc_ac_scan_generic(dc_decoder *s, dc_bits *b, dc_component *k, const dc_huffman *t) {
    return s->ah == 0 ? dc_ac_first(s, b, k, t) : dc_ac_refine(s, b, k, t);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <stdatomic.h>
#define DC_HAVE_BMI_CODE 1
__attribute__((target("popcnt,bmi,bmi2")))
static int dc_ac_scan_bmi(dc_decoder *s, dc_bits *b, dc_component *k, const dc_huffman *t) {
    return s->ah == 0 ? dc_ac_first(s, b, k, t) : dc_ac_refine(s, b, k, t);
}

/* The sequential scan loop in the same compilation (shlx/shrx for the bit reader's shifts). */
__attribute__((target("popcnt,bmi,bmi2")))
static int sq_scan_bmi(dc_decoder *s, dc_bits *b, uint8_t *tmp) {
    return sq_scan_body(s, b, tmp);
}

/* 1 when the CPU has POPCNT (CPUID.1:ECX bit 23), BMI1 and BMI2 (CPUID.(7,0):EBX bits 3, 8). */
static int dc_cpu_has_bmi(void) {
    static _Atomic int known = -1; /* threads racing here all store the same value */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        unsigned a, b, c, d;
        v = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 23)) && __get_cpuid_count(7, 0, &a, &b, &c, &d))
            v = (b & (1u << 3)) && (b & (1u << 8));
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v;
}
#endif

/*
 * SOS of a sequential file (T.81 B.2.3) with libjpeg's checks (jdmarker.c get_sos, jdhuff.c
 * start_pass_huff_decoder): one scan holding every component, Ss = 0, Se = 63, Ah = Al = 0
 * (else libjpeg warns JWRN_NOT_SEQUENTIAL or reads several scans: left to it), DC and AC tables
 * that libjpeg can build (jpeg_make_d_derived_tbl), quantization tables defined (latched here,
 * as jdinput.c latch_quant_tables does at the scan's start).
 */
static int sq_parse_sos(dc_decoder *s, const uint8_t *p, size_t n) {
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
static int sq_decode_scan(dc_decoder *s, size_t *pos, int *marker) {
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

/* Validates the AC scan whose data starts at *pos (one component, A.2.2); *pos and *marker as dc_decode_scan. */
static int dc_check_ac_scan(dc_decoder *s, size_t *pos, int *marker) {
    dc_component *k = &s->comp[s->scan_comp[0]];
    if (k->nonzero == NULL) {
        k->nonzero = calloc((size_t)k->blocks_w * (size_t)k->blocks_h, sizeof(uint64_t));
        if (k->nonzero == NULL) return -1;
    }
    dc_bits b = { s->d, s->size, *pos, 0, 0, 0, 0 };
    const dc_huffman *t = &s->ac_tables[s->scan_ta];
#if defined(DC_HAVE_BMI_CODE)
    int e = s->bmi_code ? dc_ac_scan_bmi(s, &b, k, t) : dc_ac_scan_generic(s, &b, k, t);
#else
    int e = dc_ac_scan_generic(s, &b, k, t);
#endif
    if (!e && b.eof) e = DC_ERR_EOF;
    *pos = b.pos;
    *marker = b.marker;
    return e;
}

/*
 * From inside entropy-coded data (or junk), finds the next marker as libjpeg's
 * next_marker (jdmarker.c) does: FF 00 is a stuffed byte, FF fill bytes precede a
 * marker, and an RSTn outside a scan is passed over (read_markers only traces it). Returns the marker code with *pos just after it, or -1 at the end of the file.
 */
static int dc_skip_entropy(const uint8_t *d, size_t size, size_t *pos) {
    size_t p = *pos;
    for (;;) {
        if (p >= size) return -1;
        const uint8_t *ff = memchr(d + p, 0xFF, size - p);
        if (ff == NULL) return -1;
        p = (size_t)(ff - d);
        while (p < size && d[p] == 0xFF) p++;
        if (p >= size) return -1;
        int m = d[p++];
        if (m == 0x00 || (m >= 0xD0 && m <= 0xD7)) continue;
        *pos = p;
        return m;
    }
}

/* ------------------------------------------------------------------ output */


/* The 1×1 IDCT of every real block of a component (libjpeg jidctred.c jpeg_idct_1x1). */
static void dc_component_samples(const dc_component *k, uint8_t *out) {
    for (int y = 0; y < k->blocks_h; y++) {
        const int16_t *row = k->dc + (size_t)y * (size_t)k->grid_w;
        uint8_t *o = out + (size_t)y * (size_t)k->blocks_w;
        for (int x = 0; x < k->blocks_w; x++) {
            int v = (int)row[x] * k->q0;
            o[x] = dc_idct_limit((v + 4) >> 3); /* DESCALE(v, 3) */
        }
    }
}

/*
 * One output row of a 1×1 chroma component on the luma grid, by replication.
 * That is what libjpeg does at 1/8 for 4:2:2 and 4:4:0 (jdsample.c: no fancy
 * upsampling when min_DCT_scaled_size is 1). For 4:2:0 libjpeg decodes chroma
 * with a 2×2 IDCT that uses AC coefficients the DC scans lack; measured on the
 * corpus's 4:2:0 progressive photos, replication is closer to it at 120 px
 * (mean abs difference 0.10, worst file 0.64) than libjpeg's h2v2 triangle
 * filter (0.13, 0.87).
 */
static void dc_chroma_row(const uint8_t *plane, int cw, int hmax, int vmax, int y, int out_w, uint8_t *out) {
    const uint8_t *row = plane + (size_t)(y / vmax) * (size_t)cw;
    if (hmax == 1) { memcpy(out, row, (size_t)out_w); return; }
    for (int x = 0; x < out_w; x++) out[x] = row[x >> 1];
}


/* Builds the RGB image: ceil(width/8) × ceil(height/8), as libjpeg's output at scale 1/8. */
static pc_status dc_output(dc_decoder *s, int ycc, pc_decoded *out, pc_messages *messages) {
    int out_w = (s->width + 7) / 8, out_h = (s->height + 7) / 8;
    size_t planes_size = 0;
    for (int c = 0; c < s->ncomp; c++) planes_size += (size_t)s->comp[c].blocks_w * (size_t)s->comp[c].blocks_h;
    uint8_t *planes = malloc(planes_size + 2 * (size_t)out_w);
    uint8_t *pixels = malloc((size_t)out_w * (size_t)out_h * 3);
    if (planes == NULL || pixels == NULL) {
        free(planes);
        free(pixels);
        pc_set_error(messages, "out of memory");
        return PC_NO_MEMORY;
    }
    uint8_t *plane[DC_MAX_COMPONENTS];
    size_t offset = 0;
    for (int c = 0; c < s->ncomp; c++) {
        plane[c] = planes + offset;
        dc_component_samples(&s->comp[c], plane[c]);
        offset += (size_t)s->comp[c].blocks_w * (size_t)s->comp[c].blocks_h;
    }
    uint8_t *row1 = planes + planes_size, *row2 = row1 + out_w;
    /* YCbCr → RGB per JFIF (T.871 §7) with libjpeg's fixed-point tables (jdcolor.c build_ycc_rgb_table). */
    int32_t cr_r[256], cb_b[256], cr_g[256], cb_g[256];
    for (int i = 0; i < 256; i++) {
        int32_t x = i - 128;
        cr_r[i] = (DC_FIX(1.40200) * x + DC_ONE_HALF) >> DC_SCALEBITS;
        cb_b[i] = (DC_FIX(1.77200) * x + DC_ONE_HALF) >> DC_SCALEBITS;
        cr_g[i] = -DC_FIX(0.71414) * x;
        cb_g[i] = -DC_FIX(0.34414) * x + DC_ONE_HALF;
    }
    for (int y = 0; y < out_h; y++) {
        const uint8_t *luma = plane[0] + (size_t)y * (size_t)s->comp[0].blocks_w;
        uint8_t *o = pixels + (size_t)y * (size_t)out_w * 3;
        if (s->ncomp == 1) {
            for (int x = 0; x < out_w; x++) o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = luma[x];
            continue;
        }
        dc_chroma_row(plane[1], s->comp[1].blocks_w, s->hmax, s->vmax, y, out_w, row1);
        dc_chroma_row(plane[2], s->comp[2].blocks_w, s->hmax, s->vmax, y, out_w, row2);
        if (!ycc) {
            for (int x = 0; x < out_w; x++) { o[3 * x] = luma[x]; o[3 * x + 1] = row1[x]; o[3 * x + 2] = row2[x]; }
            continue;
        }
        for (int x = 0; x < out_w; x++) {
            int yy = luma[x], cb = row1[x], cr = row2[x];
            o[3 * x] = dc_clamp(yy + cr_r[cr]);
            o[3 * x + 1] = dc_clamp(yy + (int)((cb_g[cb] + cr_g[cr]) >> DC_SCALEBITS));
            o[3 * x + 2] = dc_clamp(yy + cb_b[cb]);
        }
    }
    free(planes);
    out->pixels = pixels;
    out->width = out_w;
    out->height = out_h;
    return PC_OK;
}

/* ------------------------------------------------------------------ driver */

static void dc_reject(dc_decoder *s, int error, pc_messages *messages) {
    char text[PC_MESSAGE_CAPACITY];
    switch (error) {
    case DC_ERR_MARKER: pc_set_error(messages, "Corrupt JPEG data: premature end of data segment"); break;
    case DC_ERR_BADCODE: pc_set_error(messages, "Corrupt JPEG data: bad Huffman code"); break;
    case DC_ERR_RANGE: pc_set_error(messages, "DCT coefficient out of range"); break;
    case DC_ERR_RESYNC:
        snprintf(text, sizeof text, "Corrupt JPEG data: found marker 0x%02x instead of RST%d",
                 s->error_marker, s->error_expected);
        pc_set_error(messages, text);
        break;
    default: pc_set_error(messages, "Premature end of JPEG file"); break;
    }
}

/* libjpeg's colour space of a 3-component file (jdapimin.c default_decompress_parms): 1 YCbCr, 0 RGB, -1 leave to libjpeg. */
static int dc_is_ycc(const dc_decoder *s) {
    if (s->saw_jfif) return 1;
    if (s->saw_adobe) return s->adobe_transform == 0 ? 0 : s->adobe_transform == 1 ? 1 : -1;
    if (s->comp[0].id == 82 && s->comp[1].id == 71 && s->comp[2].id == 66) return 0; /* 'R','G','B' */
    return 1;
}

static int dc_all_have_dc(const dc_decoder *s) {
    for (int c = 0; c < s->ncomp; c++) if (s->comp[c].coef_bits[0] < 0) return 0;
    return 1;
}

/*
 * A DHT, DQT, DRI or SOS whose declared length runs past the end of the file (between the scans
 * of a progressive file): 1 when libjpeg's jdmarker.c, reading it field by field, reaches the
 * end of the file (JWRN_JPEG_EOF, "Premature end of JPEG file") before any check of its own
 * fails; 0 when one might fail first (the caller leaves the file to libjpeg). `p` is the
 * segment from its length bytes, `avail` the bytes of it the file holds.
 */
static int dc_truncated_segment_is_eof(const dc_decoder *s, int m, const uint8_t *p, size_t avail) {
    if (avail < 2) return m != 0xC0 && m != 0xC1 && m != 0xC2; /* the length itself is cut */
    size_t length = ((size_t)p[0] << 8) | p[1];
    size_t i = 2;
    switch (m) {
    case 0xDD: /* get_dri: JERR_BAD_LENGTH unless 4 */
        return length == 4;
    case 0xDA: { /* get_sos: n, then JERR_BAD_LENGTH, then each component's id */
        if (avail <= i) return 1;
        int n = p[i++];
        if (n < 1 || n > 4 || length != (size_t)(2 * n + 6)) return 0;
        int seen[4] = {0};
        for (int k = 0; k < n; k++, i += 2) {
            if (avail <= i) return 1;
            int found = -1;
            for (int c = 0; c < s->ncomp; c++) if (s->comp[c].id == p[i]) found = c;
            if (found < 0 || seen[found]) return 0;
            seen[found] = 1;
        }
        return avail <= i + 3 ? 1 : 0;
    }
    case 0xC4: { /* get_dht: per table index, BITS, JERR_BAD_HUFF_TABLE, HUFFVAL, JERR_DHT_INDEX */
        long left = (long)length - 2;
        while (left > 16) {
            if (avail < i + 17) return 1;
            int index = p[i], count = 0;
            for (int l = 1; l <= 16; l++) count += p[i + l];
            left -= 17;
            if (count > 256 || count > left) return 0;
            if (avail < i + 17 + (size_t)count) return 1;
            if ((index & ~0x10) > 3) return 0;
            i += 17 + (size_t)count;
            left -= count;
        }
        return 0;
    }
    case 0xDB: { /* get_dqt: per table Pq/Tq (JERR_DQT_INDEX), 64 values of 1 or 2 bytes */
        long left = (long)length - 2;
        while (left > 0) {
            if (avail <= i) return 1;
            int pq = p[i] >> 4, tq = p[i] & 15;
            if (tq > 3 || pq > 1) return 0;
            size_t table = pq ? 129 : 65;
            if (avail < i + table) return 1;
            i += table;
            left -= (long)table;
        }
        return 0;
    }
    default:
        return 0;
    }
}

/* 1 when no marker (not even RSTn) follows `pos` in the file: entropy-coded data runs to its end. */
static int dc_runs_to_eof(const uint8_t *d, size_t size, size_t pos) {
    while (pos < size) {
        const uint8_t *ff = memchr(d + pos, 0xFF, size - pos);
        if (ff == NULL) return 1;
        pos = (size_t)(ff - d);
        while (pos < size && d[pos] == 0xFF) pos++;
        if (pos >= size) return 1;
        if (d[pos++] != 0x00) return 0;
    }
    return 1;
}

static pc_status dc_run(dc_decoder *s, const pc_decode_options *options, pc_decoded *out, pc_messages *messages) {
    const uint8_t *d = s->d;
    size_t size = s->size;
    if (size < 2 || d[0] != 0xFF || d[1] != 0xD8) return PC_NOT_HANDLED;
    size_t pos = 2;
    int marker = 0;      /* a marker already found by an entropy-data skip, pos just after it */
    for (;;) {
        if (marker == 0) {
            /* T.81 B.1.1.2: a marker is FF (any number of fill FFs) and a code; libjpeg warns about anything else. */
            if (pos >= size) goto eof;
            size_t start = pos;
            while (pos < size && d[pos] == 0xFF) pos++;
            if (pos >= size) goto eof;
            if (pos > start && d[pos] != 0x00) {
                marker = d[pos++];
            } else {
                /* Junk where a marker belongs: libjpeg skips it to the next marker with the
                 * harmless JWRN_EXTRANEOUS_DATA (kept by pc_jpeg_warning_rejects); so does this. */
                pos = start;
                int found = dc_skip_entropy(d, size, &pos);
                if (found < 0) goto eof;
                marker = found;
            }
        }
        int m = marker;
        marker = 0;
        if (m == 0xD9) break; /* EOI */
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue; /* TEM, RSTn: no parameters */
        /* Only the markers parsed below go on to their length: libjpeg refuses most others before it
         * reads a length (JERR_UNKNOWN_MARKER, JERR_SOF_UNSUPPORTED) and has its own rules for the rest
         * (DAC, DNL): one whose length runs past the file is not "Premature end of JPEG file". */
        if (!((m >= 0xE0 && m <= 0xEF) || m == 0xFE || m == 0xC0 || m == 0xC1 || m == 0xC2 || m == 0xC4 ||
              m == 0xDB || m == 0xDD || m == 0xDA))
            return PC_NOT_HANDLED;
        /* APPn and COM are skipped by length (jdmarker.c skip_variable, get_interesting_appn,
         * save_marker): one that runs past the file is libjpeg's JWRN_JPEG_EOF as here. libjpeg
         * reads every other segment field by field and refuses it on what it finds before its
         * declared length (a second SOF, a bogus length or table, a second SOS of a single-scan
         * file): any segment but APPn/COM/EOI after the one sequential scan is left to libjpeg,
         * whose jpeg_read_header has judged only what comes before the first SOS, and so is one
         * cut by the end of the file unless libjpeg would reach that end first. */
        int skipped = (m >= 0xE0 && m <= 0xEF) || m == 0xFE;
        if (s->sequential && s->scan_done && !skipped) return PC_NOT_HANDLED;
        if (size - pos < 2 || (((size_t)d[pos] << 8) | d[pos + 1]) > size - pos) {
            if (skipped || dc_truncated_segment_is_eof(s, m, d + pos, size - pos)) goto eof;
            return PC_NOT_HANDLED;
        }
        size_t length = ((size_t)d[pos] << 8) | d[pos + 1];
        if (length < 2) return PC_NOT_HANDLED;
        const uint8_t *p = d + pos + 2;
        size_t n = length - 2;
        pos += length;
        if (m >= 0xE0 && m <= 0xEF) {
            /* APPn: libjpeg reads JFIF (APP0, 14 bytes) and Adobe (APP14, 12 bytes) headers. */
            if (m == 0xE0 && n >= 14 && memcmp(p, "JFIF\0", 5) == 0) {
                if (p[5] != 1) return PC_NOT_HANDLED; /* libjpeg warns about the version */
                s->saw_jfif = 1;
            } else if (m == 0xEE && n >= 12 && memcmp(p, "Adobe", 5) == 0) {
                s->saw_adobe = 1;
                s->adobe_transform = p[11];
            }
            continue;
        }
        switch (m) {
        case 0xFE: /* COM */
            break;
        case 0xC0: /* SOF0, SOF1: sequential, Huffman (the reduced mode only) */
        case 0xC1:
        case 0xC2: { /* SOF2 */
            if (s->seen_sof || s->sequential != (m != 0xC2)) return PC_NOT_HANDLED;
            int r = dc_parse_sof(s, p, n);
            if (r == -2) {
                char text[PC_MESSAGE_CAPACITY];
                snprintf(text, sizeof text,
                         "decoding this %dx%d %sJPEG needs %llu MB, over the per-worker decode budget of %d MB",
                         s->width, s->height, s->sequential ? "" : "progressive ",
                         (unsigned long long)s->over_budget_mb, PC_DECODE_BUDGET_MB);
                pc_set_error(messages, text);
                return PC_OVER_BUDGET;
            }
            if (r < 0) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
            if (r == 0) return PC_NOT_HANDLED;
            break;
        }
        case 0xC4: /* DHT */
            if (!dc_parse_dht(s, p, n)) return PC_NOT_HANDLED;
            break;
        case 0xDB: /* DQT */
            if (!dc_parse_dqt(s, p, n)) return PC_NOT_HANDLED;
            break;
        case 0xDD: /* DRI (B.2.4.4) */
            if (n != 2) return PC_NOT_HANDLED;
            s->restart_interval = ((unsigned)p[0] << 8) | p[1];
            break;
        case 0xDA: { /* SOS */
            if (!s->seen_sof) return PC_NOT_HANDLED;
            if (++s->scans > PC_MAX_SCANS) { pc_set_error(messages, PC_SCAN_LIMIT_TEXT); return PC_CORRUPT; }
            int found, e;
            if (s->sequential) {
                /* One scan only (a second SOS is libjpeg's JERR_EOI_EXPECTED); colour space as libjpeg
                 * fixes it at jpeg_read_header, from the markers before the first SOS. */
                if (s->scans > 1 || !sq_parse_sos(s, p, n)) return PC_NOT_HANDLED;
                s->ycc = s->ncomp == 3 ? dc_is_ycc(s) : 1;
                if (s->ycc < 0) return PC_NOT_HANDLED;
                e = sq_decode_scan(s, &pos, &marker);
                s->scan_done = 1;
            } else {
                if (!dc_parse_sos(s, p, n)) return PC_NOT_HANDLED;
                /* Colour space as libjpeg fixes it at jpeg_read_header: from the markers before the
                 * first SOS (an APP14 or APP0 after it changes nothing). */
                if (s->scans == 1) {
                    s->ycc = s->ncomp == 3 ? dc_is_ycc(s) : 1;
                    if (s->ycc < 0) return PC_NOT_HANDLED;
                }
                e = s->ss != 0 ? dc_check_ac_scan(s, &pos, &marker) : dc_decode_scan(s, &pos, &marker);
                /* Damage in data that runs to the end of the file: libjpeg's bit reader fills ahead
                 * (to 57 bits) and may meet that end before it decodes the damage ("Premature end of
                 * JPEG file"), depending on its buffer; its own decode gives the verdict. */
                if ((e == DC_ERR_BADCODE || e == DC_ERR_RANGE) && marker == 0 && dc_runs_to_eof(d, size, pos))
                    return PC_NOT_HANDLED;
            }
            if (e < 0) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
            if (e == DC_ERR_EOF) goto eof;
            if (e != DC_OK) {
                /* libjpeg's own decode reads every scan and reports the same damage. */
                dc_reject(s, e, messages);
                return PC_CORRUPT;
            }
            if (marker == 0 || (marker >= 0xD0 && marker <= 0xD7)) {
                /* Padding bits, junk or RSTn after the last MCU: walk on to the next real marker. */
                if ((found = dc_skip_entropy(d, size, &pos)) < 0) goto eof;
                marker = found;
            }
            break;
        }
        default: /* other SOFn, DAC, DNL, DHP, EXP, JPGn, RESn */
            return PC_NOT_HANDLED;
        }
    }
    if (s->sequential) {
        if (!s->scan_done) return PC_NOT_HANDLED;
        out->pixels = s->pixels;
        s->pixels = NULL;
        out->width = s->out_w;
        out->height = s->out_h;
        out->stored_width = s->width;
        out->stored_height = s->height;
        out->scale = s->scale;
        return PC_OK;
    }
    if (!s->seen_sof || !dc_all_have_dc(s)) return PC_NOT_HANDLED;
    int ycc = s->ycc; /* decided at the first SOS */
    if ((uint64_t)s->width * (uint64_t)s->height > options->max_pixels) {
        out->stored_width = s->width;
        out->stored_height = s->height;
        return PC_TOO_LARGE;
    }
    pc_status status = dc_output(s, ycc, out, messages);
    if (status != PC_OK) return status;
    out->stored_width = s->width;
    out->stored_height = s->height;
    out->scale = 1;
    out->used_dc_only = 1;
    out->progressive = 1;
    return PC_OK;
eof:
    pc_set_error(messages, "Premature end of JPEG file");
    return PC_CORRUPT;
}

int pc_jpeg_dc_only_bmi_code(void) {
#if defined(DC_HAVE_BMI_CODE)
    return dc_cpu_has_bmi();
#else
    return 0;
#endif
}

pc_status pc_jpeg_decode_reduced(const uint8_t *data, size_t size, const pc_decode_options *options, int scale_num,
                                 pc_decoded *out, pc_messages *messages) {
    if (scale_num != 1 && scale_num != 2) return PC_NOT_HANDLED;
    dc_decoder *s = calloc(1, sizeof *s);
    if (s == NULL) return PC_NOT_HANDLED;
    s->d = data;
    s->size = data == NULL ? 0 : size;
    s->sequential = 1;
    s->scale = scale_num;
    s->fancy = options != NULL && options->fancy_upsampling;
#if defined(DC_HAVE_BMI_CODE)
    s->bmi_code = !(options != NULL && options->dconly_generic_code) && dc_cpu_has_bmi();
#endif
    pc_messages local;
    memset(&local, 0, sizeof local);
    pc_decoded result;
    memset(&result, 0, sizeof result);
    pc_status status = dc_run(s, options, &result, &local);
    for (int c = 0; c < DC_MAX_COMPONENTS; c++) free(s->comp[c].ring);
    free(s->pixels);
    free(s);
    if (status == PC_NOT_HANDLED) { free(result.pixels); return status; }
    if (status != PC_OK) { free(result.pixels); pc_set_error(messages, local.error); return status; }
    out->pixels = result.pixels;
    out->width = result.width;
    out->height = result.height;
    out->stored_width = result.stored_width;
    out->stored_height = result.stored_height;
    out->scale = scale_num;
    out->used_reduced = 1;
    return PC_OK;
}

pc_status pc_jpeg_decode_dc_only(const uint8_t *data, size_t size, const pc_decode_options *options,
                                 pc_decoded *out, pc_messages *messages) {
    dc_decoder *s = calloc(1, sizeof *s);
    if (s == NULL) return PC_NOT_HANDLED;
    s->d = data;
    s->size = data == NULL ? 0 : size;
#if defined(DC_HAVE_BMI_CODE)
    s->bmi_code = !(options != NULL && options->dconly_generic_code) && dc_cpu_has_bmi();
#endif
    pc_messages local;
    memset(&local, 0, sizeof local);
    pc_decoded result;
    memset(&result, 0, sizeof result);
    pc_status status = dc_run(s, options, &result, &local);
    for (int c = 0; c < DC_MAX_COMPONENTS; c++) { free(s->comp[c].dc); free(s->comp[c].nonzero); }
    free(s);
    if (status == PC_NOT_HANDLED) return status; /* nothing said: the caller's libjpeg pass reports */
    if (status != PC_OK) pc_set_error(messages, local.error);
    out->pixels = result.pixels;
    out->width = result.width;
    out->height = result.height;
    if (result.stored_width) {
        out->stored_width = result.stored_width;
        out->stored_height = result.stored_height;
    }
    if (status == PC_OK) {
        out->scale = 1;
        out->used_dc_only = 1;
        out->progressive = 1;
    }
    return status;
}
