#ifndef PHOTOS_CIMAGECODEC_DCDECODER_H
#define PHOTOS_CIMAGECODEC_DCDECODER_H
/*
 * What dconly.c's two reduced JPEG decoders share (dconly.c says what they do), split by job:
 *   dchuffman.c      entropy-coded segments: the bit reader's refill and restart markers, and the
 *                    Huffman tables (T.81 Annex C) that the one Huffman decode below reads;
 *   dcmarkers.c      the marker segments: DHT, DQT, SOF, SOS (T.81 Annex B), with libjpeg's checks;
 *   dcprogressive.c  the DC-only decoder's scans (DC first and refinement, AC scans validated) and
 *                    its 1/8 output;
 *   dcsequential.c   the reduced sequential decoder: its scan loop, reduced IDCTs, upsampling,
 *                    colour conversion, and libjpeg's own reader modelled for damaged tails;
 *   dconly.c         the driver: the marker walk, the verdicts, the entry points.
 * Every reader decodes Huffman symbols through DC_HUFF_ENTRY/dc_huff_slow, here, as libjpeg-turbo's
 * readers all go through jdhuff.h's HUFF_DECODE; each keeps the bit buffer its loop is fastest with.
 * Internal to CImageCodec.
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

/*
 * The AC scan loops and the sequential scan loop are compiled twice where the compiler can target
 * x86-64 with POPCNT, BMI1 and BMI2 (dc_ac_scan_bmi, sq_scan_bmi; dconly.c dc_cpu_has_bmi).
 */
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define DC_HAVE_BMI_CODE 1
#endif

/* ------------------------------------------------------------------ bits (dchuffman.c) */

/* Refills b->acc to more than 56 bits, or up to the segment's end (marker or end of file):
 * dc_fill (dchuffman.c) for the DC and AC readers, which are faster calling it, dc_fill_inline for
 * the sequential reader's refill, which is faster with it inlined (measured with callgrind on the
 * bench corpus's decode: 4.569 G instructions in one file, 4.613 G with dc_fill called everywhere,
 * 4.641 G with it inlined everywhere, 4.572 G so). */
void dc_fill(dc_bits *b);
static inline void dc_fill_inline(dc_bits *b) {
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
static inline int dc_short(const dc_bits *b) { return b->eof ? DC_ERR_EOF : DC_ERR_MARKER; }

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

/*
 * The one Huffman decode of every reader here (DC scans, AC scans, sequential scans), as
 * libjpeg-turbo splits it (jdhuff.h HUFF_DECODE: a table lookup of the next DC_LOOKAHEAD bits,
 * then jdhuff.c jpeg_huff_decode for longer codes): t->lookup (dc_huffman_derive) holds the entry
 * of every code of up to DC_LOOKAHEAD bits; dc_huff_slow finds a longer one from the next 16
 * bits `code16` (zero-padded past the segment's end) by T.81 F.2.2.3 DECODE's MAXCODE walk. An
 * entry: the symbol in bits 0-7, the code length in bits 8-15, and in bits 16-23 the length plus
 * the extra bits the symbol announces (DC: its magnitude category; AC: its low nibble). 0: no code
 * of up to 16 bits matches, which libjpeg calls a bad code once it has read a 17th bit (it runs
 * to its maxcode[17] sentinel), so each reader reports missing bits first if there were not 17.
 * Each reader keeps its own bit buffer (a struct, locals right-aligned, locals top-aligned: the
 * layout its loop is fastest with) and calls this through DC_HUFF_ENTRY.
 */
static inline __attribute__((always_inline)) uint32_t dc_huff_slow(const dc_huffman *t, uint32_t code16) {
    for (int l = DC_LOOKAHEAD + 1; l <= 16; l++) {
        int32_t code = (int32_t)(code16 >> (16 - l));
        if (code <= t->maxcode[l]) {
            uint32_t rs = t->symbols[code + t->valoffset[l]];
            return (uint32_t)(l + (int)(rs & 15)) << 16 | (uint32_t)l << 8 | rs;
        }
    }
    return 0;
}

/* The entry for the code whose first DC_LOOKAHEAD bits are `look`; code16_expr (the next 16 bits)
 * is evaluated only for a longer code. */
#define DC_HUFF_ENTRY(t, look, code16_expr) \
    ({ uint32_t e__ = (t)->lookup[(look)]; __builtin_expect(e__ != 0, 1) ? e__ : dc_huff_slow((t), (code16_expr)); })

/* Decodes one Huffman-coded symbol (the DC scans' reader: dc_bits). */
static inline int dc_decode_symbol(dc_bits *b, const dc_huffman *t, int *symbol) {
    uint32_t look = dc_peek(b, DC_LOOKAHEAD);
    uint32_t e = DC_HUFF_ENTRY(t, look, dc_peek(b, 16));
    if (e == 0) {
        if (b->count < 17) dc_fill(b);
        return b->count < 17 ? dc_short(b) : DC_ERR_BADCODE;
    }
    int length = (int)((e >> 8) & 0xFF);
    if (length > b->count) return dc_short(b);
    b->count -= length;
    *symbol = (int)(e & 0xFF);
    return DC_OK;
}

/* At the start of a restart interval: RSTn with n = expected, else DC_ERR_RESYNC / DC_ERR_EOF. */
int dc_restart(dc_bits *b, int expected, dc_decoder *s);

/* Builds and validates a DHT table's decoding tables (libjpeg jpeg_make_d_derived_tbl); 1 valid. */
int dc_huffman_derive(dc_huffman *t, int is_dc);

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

enum { SQ_FULL = 0, SQ_REP, SQ_FANCY };

/* EXTEND (T.81 F.2.2.1, Figure F.12): the signed value of an s-bit magnitude r. */
static inline int32_t dc_extend(uint32_t r, int s) {
    return r < (1u << (s - 1)) ? (int32_t)r - (int32_t)(1u << s) + 1 : (int32_t)r;
}

/* ------------------------------------------------------------------ marker segments (dcmarkers.c) */

/* Each returns 1 when the segment p[0..n) is taken, 0 when the file is left to libjpeg (dc_seq_layout
 * and dc_parse_sof also -1 out of memory, -2 over the budget). */
int dc_parse_dht(dc_decoder *s, const uint8_t *p, size_t n);
int dc_parse_dqt(dc_decoder *s, const uint8_t *p, size_t n);
int dc_seq_layout(dc_decoder *s);
int dc_parse_sof(dc_decoder *s, const uint8_t *p, size_t n);
int dc_parse_scan_selectors(dc_decoder *s, const uint8_t *p, int ns, int *ta);
int dc_parse_sos(dc_decoder *s, const uint8_t *p, size_t n);

/* ------------------------------------------------------------------ scans */

/* The scan whose data starts at *pos: decoded (DC scans, dcprogressive.c; the sequential scan,
 * dcsequential.c) or validated (AC scans). *pos is left after its data, *marker the marker that
 * ended it (0 at the end of the file). DC_OK, a DC_ERR_ code, or -1 out of memory. */
int dc_decode_scan(dc_decoder *s, size_t *pos, int *marker);
int dc_check_ac_scan(dc_decoder *s, size_t *pos, int *marker);
int sq_parse_sos(dc_decoder *s, const uint8_t *p, size_t n);
int sq_decode_scan(dc_decoder *s, size_t *pos, int *marker);

/* The DC-only decoder's 1/8 image (dcprogressive.c): ycc 1 YCbCr, 0 RGB or gray. */
pc_status dc_output(dc_decoder *s, int ycc, pc_decoded *out, pc_messages *messages);

#endif
