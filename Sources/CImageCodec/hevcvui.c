/*
 * The colour description (colour_primaries, transfer_characteristics, matrix_coeffs) of an HEVC
 * stream's VUI, for HEIF files that say it only there: no colr box, so libheif 1.15 reports no
 * nclx profile (heif_image_handle_get_nclx_color_profile), and its libde265 decoder does not pass
 * the VUI on either (heif_image_get_nclx_color_profile of the decoded image is empty as well).
 *
 * Path: ISOBMFF boxes (ISO/IEC 14496-12 §4.2) meta > iprp > ipco (properties, 1-based) and ipma
 * (item -> property indices, ISO/IEC 23008-12 §9.3); the hvcC property (ISO/IEC 14496-15 §8.3.3.1)
 * holds the SPS NAL unit (type 33); the SPS (ITU-T H.265 §7.3.2.2) is read up to
 * vui_parameters() (§E.2.1) and its video_signal_type. All reads are bounds-checked; anything
 * unexpected (an inter-predicted short-term RPS, which a still image does not use, a truncated
 * unit) gives "no colour description".
 */
#include <stdlib.h>
#include <string.h>
#include "bitreader.h"
#include "hevcvui.h"

static void pc_se(pc_bits *b) { (void)pc_ue(b); }

/* The box `type` among the sibling boxes in p[0..n); its payload. 0 when absent or malformed. */
static int pc_box(const uint8_t *p, size_t n, const char *type, const uint8_t **body, size_t *body_n) {
    size_t at = 0;
    while (n - at >= 8) {
        uint64_t len = ((uint64_t)p[at] << 24) | ((uint64_t)p[at + 1] << 16) | ((uint64_t)p[at + 2] << 8) | p[at + 3];
        size_t header = 8;
        if (len == 1) {
            if (n - at < 16) return 0;
            len = 0;
            for (int i = 0; i < 8; i++) len = (len << 8) | p[at + 8 + i];
            header = 16;
        } else if (len == 0) {
            len = n - at;
        }
        if (len < header || len > n - at) return 0;
        if (memcmp(p + at + 4, type, 4) == 0) {
            *body = p + at + header;
            *body_n = (size_t)len - header;
            return 1;
        }
        at += (size_t)len;
    }
    return 0;
}

/* The n-th (1-based) child box of p[0..n): its type and payload. */
static int pc_child(const uint8_t *p, size_t n, uint32_t index, char type[4], const uint8_t **body, size_t *body_n) {
    size_t at = 0;
    for (uint32_t i = 1; n - at >= 8; i++) {
        uint64_t len = ((uint64_t)p[at] << 24) | ((uint64_t)p[at + 1] << 16) | ((uint64_t)p[at + 2] << 8) | p[at + 3];
        if (len < 8 || len > n - at) return 0; /* (properties never use 64-bit or to-the-end sizes) */
        if (i == index) {
            memcpy(type, p + at + 4, 4);
            *body = p + at + 8;
            *body_n = (size_t)len - 8;
            return 1;
        }
        at += (size_t)len;
    }
    return 0;
}

/* The ipco index of the hvcC property associated with `item_id` in ipma, 0 when none. */
static uint32_t pc_hvcc_of_item(const uint8_t *ipco, size_t ipco_n, const uint8_t *ipma, size_t n, uint32_t item_id) {
    if (n < 8) return 0;
    int version = ipma[0], flags = ipma[3];
    uint32_t entries = ((uint32_t)ipma[4] << 24) | ((uint32_t)ipma[5] << 16) | ((uint32_t)ipma[6] << 8) | ipma[7];
    size_t at = 8;
    for (uint32_t e = 0; e < entries; e++) {
        uint32_t id;
        if (version < 1) {
            if (n - at < 2) return 0;
            id = ((uint32_t)ipma[at] << 8) | ipma[at + 1];
            at += 2;
        } else {
            if (n - at < 4) return 0;
            id = ((uint32_t)ipma[at] << 24) | ((uint32_t)ipma[at + 1] << 16) | ((uint32_t)ipma[at + 2] << 8) | ipma[at + 3];
            at += 4;
        }
        if (n - at < 1) return 0;
        int count = ipma[at++];
        for (int a = 0; a < count; a++) {
            uint32_t index;
            if (flags & 1) {
                if (n - at < 2) return 0;
                index = (((uint32_t)ipma[at] << 8) | ipma[at + 1]) & 0x7FFF;
                at += 2;
            } else {
                if (n - at < 1) return 0;
                index = ipma[at] & 0x7F;
                at += 1;
            }
            if (id != item_id) continue;
            char type[4];
            const uint8_t *body;
            size_t body_n;
            if (pc_child(ipco, ipco_n, index, type, &body, &body_n) && memcmp(type, "hvcC", 4) == 0) return index;
        }
    }
    return 0;
}

/* profile_tier_level(1, max_sub_layers_minus1), H.265 §7.3.3. */
static void pc_skip_ptl(pc_bits *b, int max_sub_layers_minus1) {
    (void)pc_u(b, 32); (void)pc_u(b, 32); (void)pc_u(b, 32); /* general profile/tier/flags/level: 96 bits */
    int profile_present[8] = { 0 }, level_present[8] = { 0 };
    for (int i = 0; i < max_sub_layers_minus1; i++) {
        profile_present[i] = (int)pc_u(b, 1);
        level_present[i] = (int)pc_u(b, 1);
    }
    if (max_sub_layers_minus1 > 0)
        for (int i = max_sub_layers_minus1; i < 8; i++) (void)pc_u(b, 2);
    for (int i = 0; i < max_sub_layers_minus1; i++) {
        if (profile_present[i]) { (void)pc_u(b, 32); (void)pc_u(b, 32); (void)pc_u(b, 24); } /* 88 bits */
        if (level_present[i]) (void)pc_u(b, 8);
    }
}

/* scaling_list_data(), H.265 §7.3.4. */
static void pc_skip_scaling_lists(pc_bits *b) {
    for (int size_id = 0; size_id < 4 && !b->bad; size_id++) {
        for (int matrix_id = 0; matrix_id < 6; matrix_id += size_id == 3 ? 3 : 1) {
            if (!pc_u(b, 1)) {
                (void)pc_ue(b); /* scaling_list_pred_matrix_id_delta */
            } else {
                int coefs = 1 << (4 + (size_id << 1));
                if (coefs > 64) coefs = 64;
                if (size_id > 1) pc_se(b);
                for (int i = 0; i < coefs && !b->bad; i++) pc_se(b);
            }
        }
    }
}

/* The SPS RBSP (emulation prevention removed) up to the VUI's colour description. */
static int pc_sps_colour(const uint8_t *rbsp, size_t n, pc_vui_colour *out) {
    pc_bits bits = { rbsp, n, 16, 0 }; /* after the 2-byte NAL unit header */
    pc_bits *b = &bits;
    (void)pc_u(b, 4); /* sps_video_parameter_set_id */
    int max_sub_layers_minus1 = (int)pc_u(b, 3);
    (void)pc_u(b, 1);
    if (max_sub_layers_minus1 > 6) return 0;
    pc_skip_ptl(b, max_sub_layers_minus1);
    (void)pc_ue(b); /* sps_seq_parameter_set_id */
    if (pc_ue(b) == 3) (void)pc_u(b, 1); /* chroma_format_idc, separate_colour_plane_flag */
    (void)pc_ue(b); (void)pc_ue(b); /* pic_width/height_in_luma_samples */
    if (pc_u(b, 1)) { (void)pc_ue(b); (void)pc_ue(b); (void)pc_ue(b); (void)pc_ue(b); } /* conformance window */
    (void)pc_ue(b); (void)pc_ue(b); /* bit depths */
    uint32_t log2_max_poc_lsb = pc_ue(b) + 4;
    if (log2_max_poc_lsb > 16) return 0;
    int ordering_all = (int)pc_u(b, 1);
    for (int i = ordering_all ? 0 : max_sub_layers_minus1; i <= max_sub_layers_minus1; i++) {
        (void)pc_ue(b); (void)pc_ue(b); (void)pc_ue(b);
    }
    for (int i = 0; i < 6; i++) (void)pc_ue(b); /* coding/transform block sizes, hierarchy depths */
    if (pc_u(b, 1) && pc_u(b, 1)) pc_skip_scaling_lists(b); /* scaling_list_enabled, sps_..._data_present */
    (void)pc_u(b, 1); (void)pc_u(b, 1); /* amp, sample_adaptive_offset */
    if (pc_u(b, 1)) { (void)pc_u(b, 8); (void)pc_ue(b); (void)pc_ue(b); (void)pc_u(b, 1); } /* pcm */
    uint32_t sets = pc_ue(b);
    if (sets > 64) return 0;
    for (uint32_t i = 0; i < sets && !b->bad; i++) {
        if (i > 0 && pc_u(b, 1)) return 0; /* inter_ref_pic_set_prediction_flag: not in still images */
        uint32_t negative = pc_ue(b), positive = pc_ue(b);
        if (negative > 16 || positive > 16) return 0;
        for (uint32_t k = 0; k < negative + positive; k++) { (void)pc_ue(b); (void)pc_u(b, 1); }
    }
    if (pc_u(b, 1)) { /* long_term_ref_pics_present_flag */
        uint32_t count = pc_ue(b);
        if (count > 32) return 0;
        for (uint32_t i = 0; i < count; i++) { (void)pc_u(b, (int)log2_max_poc_lsb); (void)pc_u(b, 1); }
    }
    (void)pc_u(b, 1); (void)pc_u(b, 1); /* sps_temporal_mvp, strong_intra_smoothing */
    if (!pc_u(b, 1) || b->bad) return 0; /* vui_parameters_present_flag */
    if (pc_u(b, 1) && pc_u(b, 8) == 255) { (void)pc_u(b, 16); (void)pc_u(b, 16); } /* aspect ratio */
    if (pc_u(b, 1)) (void)pc_u(b, 1); /* overscan */
    if (!pc_u(b, 1)) return 0; /* video_signal_type_present_flag */
    (void)pc_u(b, 3); /* video_format */
    int full_range = (int)pc_u(b, 1);
    if (!pc_u(b, 1)) return 0; /* colour_description_present_flag */
    out->colour_primaries = (int)pc_u(b, 8);
    out->transfer_characteristics = (int)pc_u(b, 8);
    out->matrix_coeffs = (int)pc_u(b, 8);
    out->full_range = full_range;
    return !b->bad;
}

/* The colour description of the first SPS NAL unit in an hvcC payload. */
static int pc_hvcc_colour(const uint8_t *p, size_t n, pc_vui_colour *out) {
    if (n < 23) return 0;
    size_t at = 22;
    int arrays = p[at++];
    for (int a = 0; a < arrays; a++) {
        if (n - at < 3) return 0;
        int type = p[at] & 0x3F;
        int count = (p[at + 1] << 8) | p[at + 2];
        at += 3;
        for (int k = 0; k < count; k++) {
            if (n - at < 2) return 0;
            size_t len = ((size_t)p[at] << 8) | p[at + 1];
            at += 2;
            if (len > n - at) return 0;
            if (type == 33 && len > 2) {
                /* Emulation prevention (H.265 §7.4.2): 0x000003 -> 0x0000. An SPS is small (< 64 KiB). */
                uint8_t rbsp[65536];
                size_t m = 0, zeros = 0;
                for (size_t i = 0; i < len; i++) {
                    uint8_t c = p[at + i];
                    if (zeros >= 2 && c == 3) { zeros = 0; continue; }
                    zeros = c == 0 ? zeros + 1 : 0;
                    rbsp[m++] = c;
                }
                return pc_sps_colour(rbsp, m, out);
            }
            at += len;
        }
    }
    return 0;
}

int pc_hevc_vui_colour(const uint8_t *data, size_t size, pc_vui_colour *out) {
    const uint8_t *meta, *iprp, *ipco, *ipma, *pitm;
    size_t meta_n, iprp_n, ipco_n, ipma_n, pitm_n;
    if (!pc_box(data, size, "meta", &meta, &meta_n) || meta_n < 4) return 0;
    meta += 4; meta_n -= 4; /* FullBox version and flags */
    /* The primary item (pitm, ISO/IEC 14496-12 §8.11.4): u16 id in version 0, u32 after. */
    uint32_t item_id = 0;
    if (pc_box(meta, meta_n, "pitm", &pitm, &pitm_n) && pitm_n >= 6)
        item_id = pitm[0] == 0 ? ((uint32_t)pitm[4] << 8) | pitm[5]
                               : (pitm_n >= 8 ? ((uint32_t)pitm[4] << 24) | ((uint32_t)pitm[5] << 16) |
                                                    ((uint32_t)pitm[6] << 8) | pitm[7]
                                              : 0);
    if (!pc_box(meta, meta_n, "iprp", &iprp, &iprp_n)) return 0;
    if (!pc_box(iprp, iprp_n, "ipco", &ipco, &ipco_n) || !pc_box(iprp, iprp_n, "ipma", &ipma, &ipma_n)) return 0;
    uint32_t index = pc_hvcc_of_item(ipco, ipco_n, ipma, ipma_n, item_id);
    char type[4];
    const uint8_t *body;
    size_t body_n;
    if (index > 0 && pc_child(ipco, ipco_n, index, type, &body, &body_n)) return pc_hvcc_colour(body, body_n, out);
    /* A grid (or other derived) item has no hvcC of its own: its tiles' first one. */
    for (uint32_t i = 1; pc_child(ipco, ipco_n, i, type, &body, &body_n); i++)
        if (memcmp(type, "hvcC", 4) == 0) return pc_hvcc_colour(body, body_n, out);
    return 0;
}

/*
 * The picture size an SPS NAL unit (`nal`, `n` bytes: the 2-byte NAL unit header, then the
 * RBSP with emulation prevention bytes) declares: pic_width_in_luma_samples and
 * pic_height_in_luma_samples (ITU-T H.265 §7.3.2.2.1, §7.4.3.2.1), what the decoder allocates,
 * and the same less the conformance window (conf_win_*_offset in units of SubWidthC/SubHeightC,
 * Table 6-1), what it outputs. Only the first 64 KiB are read (the sizes come after the
 * profile_tier_level, well within a few dozen bytes).
 */
int pc_hevc_sps_size(const uint8_t *nal, size_t n, pc_hevc_size *out) {
    if (n < 3 || ((nal[0] >> 1) & 0x3F) != 33) return 0;
    static const size_t cap = 65536;
    uint8_t *rbsp = malloc(n < cap ? n : cap);
    if (rbsp == NULL) return 0;
    size_t m = 0, zeros = 0;
    for (size_t i = 0; i < n && m < cap; i++) {
        uint8_t c = nal[i];
        if (zeros >= 2 && c == 3) { zeros = 0; continue; }
        zeros = c == 0 ? zeros + 1 : 0;
        rbsp[m++] = c;
    }
    pc_bits bits = { rbsp, m, 16, 0 };
    pc_bits *b = &bits;
    (void)pc_u(b, 4); /* sps_video_parameter_set_id */
    int max_sub_layers_minus1 = (int)pc_u(b, 3);
    (void)pc_u(b, 1); /* sps_temporal_id_nesting_flag */
    int ok = 0;
    if (max_sub_layers_minus1 <= 6) {
        pc_skip_ptl(b, max_sub_layers_minus1);
        (void)pc_ue(b); /* sps_seq_parameter_set_id */
        uint32_t chroma = pc_ue(b);
        int separate = chroma == 3 ? (int)pc_u(b, 1) : 0;
        uint32_t w = pc_ue(b), h = pc_ue(b);
        uint32_t left = 0, right = 0, top = 0, bottom = 0;
        if (pc_u(b, 1)) { left = pc_ue(b); right = pc_ue(b); top = pc_ue(b); bottom = pc_ue(b); }
        /* ChromaArrayType 0 when separate_colour_plane_flag: SubWidthC = SubHeightC = 1. */
        uint64_t sub_w = (chroma == 1 || chroma == 2) && !separate ? 2 : 1, sub_h = chroma == 1 && !separate ? 2 : 1;
        uint64_t crop_w = sub_w * ((uint64_t)left + right), crop_h = sub_h * ((uint64_t)top + bottom);
        if (!b->bad && chroma <= 3 && w > 0 && h > 0 && crop_w < w && crop_h < h) {
            out->coded_width = w;
            out->coded_height = h;
            out->width = (uint32_t)(w - crop_w);
            out->height = (uint32_t)(h - crop_h);
            ok = 1;
        }
    }
    free(rbsp);
    return ok;
}
