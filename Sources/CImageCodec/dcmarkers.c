/*
 * dconly.c's marker segments (T.81 Annex B): DHT, DQT, SOF and SOS, with libjpeg-turbo's checks
 * (jdmarker.c), and the sequential decoder's layout (dc_seq_layout). What libjpeg might judge
 * otherwise is left to it (0).
 */
#include "dcdecoder.h"

/* DHT (T.81 B.2.4.2): one or more tables; libjpeg get_dht's limits (count <= 256, within the segment). */
int dc_parse_dht(dc_decoder *s, const uint8_t *p, size_t n) {
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
int dc_parse_dqt(dc_decoder *s, const uint8_t *p, size_t n) {
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
int dc_seq_layout(dc_decoder *s) {
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
int dc_parse_sof(dc_decoder *s, const uint8_t *p, size_t n) {
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
int dc_parse_scan_selectors(dc_decoder *s, const uint8_t *p, int ns, int *ta) {
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
int dc_parse_sos(dc_decoder *s, const uint8_t *p, size_t n) {
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
