/*
 * Two decoders sharing one marker parser (DHT/DQT/SOF/SOS, T.81 Annex B: dcmarkers.c), one
 * entropy-coded segment reader (T.81 F.2.2.5, F.1.2.3: dchuffman.c) and one Huffman decode (T.81
 * F.2.2.3, Annex C tables validated as libjpeg-turbo's jdhuff.c jpeg_make_d_derived_tbl does:
 * dcdecoder.h, dchuffman.c). This file is their driver (the marker walk, the verdicts, the entry
 * points); dcprogressive.c and dcsequential.c hold each decoder's scans and output (dcdecoder.h
 * lists the jobs):
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
#include "dcdecoder.h"
#if defined(DC_HAVE_BMI_CODE)
#include <cpuid.h>
#include <stdatomic.h>
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
