/*
 * dconly.c's entropy-coded segment reader (T.81 F.2.2.5; byte stuffing F.1.2.3, fill bytes B.1.1.2,
 * restart markers F.1.2.3) and Huffman tables (T.81 Annex C, validated as libjpeg-turbo's jdhuff.c
 * jpeg_make_d_derived_tbl does), read by the one Huffman decode in dcdecoder.h.
 */
#include "dcdecoder.h"

void dc_fill(dc_bits *b) { dc_fill_inline(b); }

/*
 * At the start of a restart interval: drop the padding bits (F.1.2.3), find the
 * next marker the way libjpeg's next_marker does (skipping any junk), and
 * require RSTn with n = expected (T.81 F.1.2.3, B.2.1).
 */
int dc_restart(dc_bits *b, int expected, dc_decoder *s) {
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

/*
 * Builds the decoding tables of a DHT table and validates it as libjpeg's
 * jpeg_make_d_derived_tbl does: codes are generated per T.81 Annex C
 * (Figures C.1, C.2) and must fit their lengths with no all-ones code; a DC
 * table's symbols (magnitude categories) must be at most 15.
 */
int dc_huffman_derive(dc_huffman *t, int is_dc) {
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
