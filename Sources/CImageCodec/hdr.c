/*
 * HDR thumbnails (issue 24 item 6): PQ and HLG images tone-mapped to SDR sRGB instead of their
 * signal values shown as if they were sRGB (a washed-out, flat grey picture; Immich #18636).
 *
 * The operator, per pixel of the reduced image (120-px thumbnails: the cost is nil):
 *  1. The signal to display light, cd/m²: PQ by the SMPTE ST 2084 EOTF (ITU-R BT.2100-2 Table 4);
 *     HLG by the inverse OETF then the OOTF for a 1000 cd/m² display, gamma 1.2 (BT.2100-2
 *     Table 5, "reference" nominal peak).
 *  2. Luminance Y from the source primaries (RGB→XYZ from the chromaticities, SMPTE RP 177).
 *  3. Y mapped by the EETF of ITU-R BT.2390-10 §5.4.1 (the Hermite knee in the PQ domain) from a
 *     source peak of 1000 cd/m² (PQ files rarely say their mastering peak; HDR10 content is
 *     mostly graded to 1000, and it is HLG's reference peak) to a target peak of 203 cd/m², the
 *     HDR reference white of ITU-R BT.2408-7 §2.2, which is where SDR's 100 % sits (BT.2408 §5.1).
 *  4. The pixel's linear RGB scaled by Y_out / Y (hue and saturation kept), divided by 203, turned
 *     into linear BT.709/sRGB primaries through XYZ, clipped to [0, 1], encoded with the sRGB
 *     curve (IEC 61966-2-1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lcms2.h>
#include "hdr.h"

int pc_hdr_transfer(int transfer_characteristics) {
    return transfer_characteristics == PC_TRANSFER_PQ || transfer_characteristics == PC_TRANSFER_HLG;
}

int pc_hdr_primaries(int code, double xy[8]) {
    static const struct { int code; double v[8]; } table[] = {
        { 1, { 0.3127, 0.3290, 0.640, 0.330, 0.300, 0.600, 0.150, 0.060 } },  /* BT.709, sRGB */
        { 9, { 0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046 } },  /* BT.2020, BT.2100 */
        { 11, { 0.314, 0.351, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060 } },   /* SMPTE RP 431-2 (DCI-P3) */
        { 12, { 0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060 } }, /* SMPTE EG 432-1 (Display P3) */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].code != code) continue;
        memcpy(xy, table[i].v, sizeof table[i].v);
        return 1;
    }
    return 0;
}

int pc_icc_cicp(const uint8_t *icc, size_t icc_size, int *primaries, int *transfer) {
    if (icc == NULL || icc_size < 132 || icc_size > PC_ICC_MAX_BYTES) return 0;
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)icc_size);
    if (profile == NULL) return 0;
    int found = 0;
    const cmsVideoSignalType *cicp = cmsReadTag(profile, cmsSigcicpTag);
    if (cicp != NULL) {
        *primaries = cicp->ColourPrimaries;
        *transfer = cicp->TransferCharacteristics;
        found = 1;
    }
    cmsCloseProfile(profile);
    return found;
}

/* SMPTE ST 2084 constants (BT.2100-2 Table 4). */
#define PQ_M1 (2610.0 / 16384.0)
#define PQ_M2 (2523.0 / 4096.0 * 128.0)
#define PQ_C1 (3424.0 / 4096.0)
#define PQ_C2 (2413.0 / 4096.0 * 32.0)
#define PQ_C3 (2392.0 / 4096.0 * 32.0)

/* PQ signal 0...1 → display light 0...10000 cd/m². */
static double pc_pq_eotf(double e) {
    if (e <= 0) return 0;
    if (e > 1) e = 1;
    double p = pow(e, 1.0 / PQ_M2);
    double num = p - PQ_C1;
    if (num < 0) num = 0;
    return 10000.0 * pow(num / (PQ_C2 - PQ_C3 * p), 1.0 / PQ_M1);
}

/* Display light cd/m² → PQ signal 0...1 (the inverse EOTF). */
static double pc_pq_inverse(double nits) {
    if (nits <= 0) return 0;
    double y = pow(nits / 10000.0, PQ_M1);
    return pow((PQ_C1 + PQ_C2 * y) / (1 + PQ_C3 * y), PQ_M2);
}

/* HLG signal 0...1 → normalized scene light 0...1 (BT.2100-2 Table 5, inverse OETF). */
static double pc_hlg_inverse_oetf(double e) {
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    if (e <= 0) return 0;
    if (e > 1) e = 1;
    return e <= 0.5 ? e * e / 3.0 : (exp((e - c) / a) + b) / 12.0;
}

/* Source (mastering / HLG nominal) peak and SDR reference white, cd/m² (see the top comment). */
#define PC_HDR_SOURCE_PEAK 1000.0
#define PC_HDR_REFERENCE_WHITE 203.0
#define PC_HLG_GAMMA 1.2

/* BT.2390-10 §5.4.1 EETF on luminance, cd/m², from [0, source peak] to [0, target peak] (black 0). */
static double pc_eetf(double nits, double source_peak, double target_peak) {
    double lw = pc_pq_inverse(source_peak);
    double e1 = pc_pq_inverse(nits) / lw;
    if (e1 > 1) e1 = 1;
    double max_lum = pc_pq_inverse(target_peak) / lw;
    double ks = 1.5 * max_lum - 0.5;
    double e2 = e1;
    if (e1 > ks) {
        double t = (e1 - ks) / (1 - ks), t2 = t * t, t3 = t2 * t;
        e2 = (2 * t3 - 3 * t2 + 1) * ks + (t3 - 2 * t2 + t) * (1 - ks) + (-2 * t3 + 3 * t2) * max_lum;
    }
    return pc_pq_eotf(e2 * lw);
}

/* RGB → XYZ of chromaticities xy (white, red, green, blue), SMPTE RP 177 §3.3. 0 if degenerate. */
static int pc_rgb_to_xyz(const double *xy, double m[9]) {
    double w[3] = { xy[0] / xy[1], 1.0, (1 - xy[0] - xy[1]) / xy[1] };
    double p[9];
    for (int i = 0; i < 3; i++) {
        double x = xy[2 + 2 * i], y = xy[3 + 2 * i];
        if (y <= 0) return 0;
        p[i] = x / y;          /* row X */
        p[3 + i] = 1.0;        /* row Y */
        p[6 + i] = (1 - x - y) / y;
    }
    double det = p[0] * (p[4] * p[8] - p[5] * p[7]) - p[1] * (p[3] * p[8] - p[5] * p[6]) + p[2] * (p[3] * p[7] - p[4] * p[6]);
    if (fabs(det) < 1e-12) return 0;
    double inv[9] = {
        (p[4] * p[8] - p[5] * p[7]) / det, (p[2] * p[7] - p[1] * p[8]) / det, (p[1] * p[5] - p[2] * p[4]) / det,
        (p[5] * p[6] - p[3] * p[8]) / det, (p[0] * p[8] - p[2] * p[6]) / det, (p[2] * p[3] - p[0] * p[5]) / det,
        (p[3] * p[7] - p[4] * p[6]) / det, (p[1] * p[6] - p[0] * p[7]) / det, (p[0] * p[4] - p[1] * p[3]) / det,
    };
    double s[3];
    for (int i = 0; i < 3; i++) s[i] = inv[3 * i] * w[0] + inv[3 * i + 1] * w[1] + inv[3 * i + 2] * w[2];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) m[3 * r + c] = p[3 * r + c] * s[c];
    return 1;
}

static uint8_t pc_srgb_encode(double v) {
    if (!(v > 0)) return 0;
    if (v >= 1) return 255;
    double e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
    return (uint8_t)(e * 255.0 + 0.5);
}

void pc_hdr_to_srgb(const float *rgb, size_t count, int transfer, const double *xy, uint8_t *out) {
    static const double bt2020[8] = { 0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046 };
    /* XYZ (D65) → linear sRGB, IEC 61966-2-1 Amendment 1 §5.2. */
    static const double to_srgb[9] = { 3.2404542, -1.5371385, -0.4985314, -0.9692660, 1.8760108,
                                       0.0415560, 0.0556434, -0.2040259, 1.0572252 };
    double m[9];
    if (xy == NULL || !pc_rgb_to_xyz(xy, m)) (void)pc_rgb_to_xyz(bt2020, m);
    double c[9];
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            c[3 * r + k] = to_srgb[3 * r] * m[k] + to_srgb[3 * r + 1] * m[3 + k] + to_srgb[3 * r + 2] * m[6 + k];
    for (size_t i = 0; i < count; i++) {
        double l[3];
        for (int k = 0; k < 3; k++) {
            double e = rgb[3 * i + k];
            l[k] = transfer == PC_TRANSFER_PQ ? pc_pq_eotf(e) : pc_hlg_inverse_oetf(e);
        }
        double y = m[3] * l[0] + m[4] * l[1] + m[5] * l[2];
        if (transfer == PC_TRANSFER_HLG) {
            /* OOTF: F_D = L_W · Y_S^(γ−1) · E_S, L_W = 1000 cd/m². */
            double gain = PC_HDR_SOURCE_PEAK * (y > 0 ? pow(y, PC_HLG_GAMMA - 1) : 0);
            for (int k = 0; k < 3; k++) l[k] *= gain;
            y *= gain;
        }
        double scale = y > 0 ? pc_eetf(y, PC_HDR_SOURCE_PEAK, PC_HDR_REFERENCE_WHITE) / y / PC_HDR_REFERENCE_WHITE : 0;
        for (int k = 0; k < 3; k++) {
            double v = (c[3 * k] * l[0] + c[3 * k + 1] * l[1] + c[3 * k + 2] * l[2]) * scale;
            out[3 * i + k] = pc_srgb_encode(v);
        }
    }
}

int pc_fbox_init(pc_fbox *box, int in_width, int in_height, int factor) {
    memset(box, 0, sizeof *box);
    if (in_width < 1 || in_height < 1 || factor < 1) return 0;
    box->factor = factor;
    box->in_width = in_width;
    box->in_height = in_height;
    box->out_width = (in_width + factor - 1) / factor;
    box->out_height = (in_height + factor - 1) / factor;
    size_t cells = (size_t)box->out_width * (size_t)box->out_height;
    box->sums = calloc(cells * 3, sizeof(float));
    box->counts = calloc(cells, sizeof(uint32_t));
    return box->sums != NULL && box->counts != NULL;
}

void pc_fbox_add(pc_fbox *box, const float *pixels, int channels, size_t x0, size_t y, size_t count) {
    if (y >= (size_t)box->in_height || x0 >= (size_t)box->in_width) return;
    if (count > (size_t)box->in_width - x0) count = (size_t)box->in_width - x0;
    size_t row = (y / (size_t)box->factor) * (size_t)box->out_width;
    for (size_t i = 0; i < count; i++) {
        size_t cell = row + (x0 + i) / (size_t)box->factor;
        const float *p = pixels + i * (size_t)channels;
        float *s = box->sums + cell * 3;
        if (channels == 4) {
            float a = p[3] < 0 ? 0 : p[3] > 1 ? 1 : p[3];
            for (int k = 0; k < 3; k++) s[k] += p[k] * a + (1 - a);
        } else {
            s[0] += p[0];
            s[1] += p[1];
            s[2] += p[2];
        }
        box->counts[cell]++;
    }
}

int pc_fbox_finish(pc_fbox *box) {
    size_t cells = (size_t)box->out_width * (size_t)box->out_height;
    for (size_t i = 0; i < cells; i++) {
        if (box->counts[i] == 0) return 0;
        float n = (float)box->counts[i];
        for (int k = 0; k < 3; k++) box->sums[3 * i + k] /= n;
    }
    return 1;
}

void pc_fbox_free(pc_fbox *box) {
    free(box->sums);
    free(box->counts);
    box->sums = NULL;
    box->counts = NULL;
}
