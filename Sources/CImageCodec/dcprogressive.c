/*
 * dconly.c's DC-only decoder (pc_jpeg_decode_dc_only; dconly.c says what it does): the DC scans
 * decoded, the AC scans entropy-decoded only to find damage as libjpeg would, the 1/8 image.
 */
#include "dcdecoder.h"

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
int dc_decode_scan(dc_decoder *s, size_t *pos, int *marker) {
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
        uint32_t e_ = DC_HUFF_ENTRY(t, look_, (uint32_t)(count >= 16 ? acc >> (count - 16) : acc << (16 - count)) & 0xFFFF); \
        if (e_ == 0) return count < 17 ? dc_short(b) : DC_ERR_BADCODE; \
        int total_ = (int)(e_ >> 16); \
        (rs) = (int)(e_ & 0xFF); \
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

#if defined(DC_HAVE_BMI_CODE)
__attribute__((target("popcnt,bmi,bmi2")))
static int dc_ac_scan_bmi(dc_decoder *s, dc_bits *b, dc_component *k, const dc_huffman *t) {
    return s->ah == 0 ? dc_ac_first(s, b, k, t) : dc_ac_refine(s, b, k, t);
}

#endif

/* Validates the AC scan whose data starts at *pos (one component, A.2.2); *pos and *marker as dc_decode_scan. */
int dc_check_ac_scan(dc_decoder *s, size_t *pos, int *marker) {
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
pc_status dc_output(dc_decoder *s, int ycc, pc_decoded *out, pc_messages *messages) {
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
