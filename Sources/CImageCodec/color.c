/*
 * Colour management with Little CMS 2 (lcms2 API reference "cmsCreateTransform",
 * "cmsDoTransform"): the reduced decode (JPEG at its DCT scale, PNG box-reduced rows, WebP/HEIF
 * at their scaled size) is converted from the file's colour space to sRGB in place, before the
 * area-average to 120 pixels. That buffer is 1-2x the thumbnail's edge (at most ~4x its pixels),
 * so a transform costs tens of microseconds; the full-size image is never touched.
 *
 * Intent: perceptual (ICC.1:2010 §6.2 default, lcms2's tificc/jpgicc default). For the
 * matrix/TRC profiles phones and editors embed (Display P3, Adobe RGB, ProPhoto, gray TRC)
 * lcms2 has no perceptual table and uses the colorimetric matrix, so in-gamut colours convert
 * exactly and out-of-gamut ones clip; for LUT profiles (CMYK print profiles) it uses the
 * profile's perceptual table, made for exactly this (print → display).
 *
 * No transform when there is nothing to convert: no profile, or an RGB matrix/TRC profile whose
 * colorants and curves are sRGB's (checked numerically, so every vendor's copy of sRGB
 * matches). Transforms are cached per worker thread, keyed by a hash of the profile bytes and the
 * pixel layout, so a library of phone photos builds one Display P3 transform per worker.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <lcms2.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "color.h"
#include "messages.h"

#define PC_COLOR_CACHE 4

typedef struct pc_color_entry {
    uint64_t key;
    int used;
    int identity;            /* 1: nothing to convert */
    cmsHTRANSFORM transform; /* NULL with identity or an unusable profile */
} pc_color_entry;

typedef struct pc_color_cache {
    pc_color_entry entries[PC_COLOR_CACHE];
    int next;
} pc_color_cache;

static pthread_key_t pc_color_key;
static pthread_once_t pc_color_once = PTHREAD_ONCE_INIT;

static void pc_color_cache_free(void *pointer) {
    pc_color_cache *cache = pointer;
    if (cache == NULL) return;
    for (int i = 0; i < PC_COLOR_CACHE; i++)
        if (cache->entries[i].transform != NULL) cmsDeleteTransform(cache->entries[i].transform);
    free(cache);
}

static void pc_color_make_key(void) { (void)pthread_key_create(&pc_color_key, pc_color_cache_free); }

static pc_color_cache *pc_color_thread_cache(void) {
    (void)pthread_once(&pc_color_once, pc_color_make_key);
    pc_color_cache *cache = pthread_getspecific(pc_color_key);
    if (cache == NULL) {
        cache = calloc(1, sizeof *cache);
        if (cache != NULL && pthread_setspecific(pc_color_key, cache) != 0) { free(cache); cache = NULL; }
    }
    return cache;
}

/* FNV-1a over the profile bytes, mixed with the layout and size. */
static uint64_t pc_color_hash(const uint8_t *bytes, size_t size, int layout) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) { h ^= bytes[i]; h *= 1099511628211ull; }
    h ^= (uint64_t)size << 8 ^ (uint64_t)layout;
    return h * 1099511628211ull;
}

static int pc_close(double a, double b, double tolerance) { return fabs(a - b) <= tolerance; }

/*
 * True for an RGB profile that is sRGB: its D50-adapted colorants equal sRGB's (IEC 61966-2-1
 * primaries adapted with Bradford, as lcms2's own sRGB profile has them) within 0.002, and each
 * TRC is within half a level of the sRGB curve at 32 points.
 */
static int pc_profile_is_srgb(cmsHPROFILE profile) {
    if (cmsGetColorSpace(profile) != cmsSigRgbData) return 0;
    if (!cmsIsMatrixShaper(profile)) return 0;
    cmsCIEXYZ *tags[3];
    tags[0] = cmsReadTag(profile, cmsSigRedColorantTag);
    tags[1] = cmsReadTag(profile, cmsSigGreenColorantTag);
    tags[2] = cmsReadTag(profile, cmsSigBlueColorantTag);
    /* sRGB colorants adapted to D50 (lcms2 cmsCreate_sRGBProfile; ICC sRGB v2). */
    static const double want[3][3] = { { 0.4361, 0.2225, 0.0139 }, { 0.3851, 0.7169, 0.0971 }, { 0.1431, 0.0606, 0.7141 } };
    for (int i = 0; i < 3; i++) {
        if (tags[i] == NULL) return 0;
        if (!pc_close(tags[i]->X, want[i][0], 0.002) || !pc_close(tags[i]->Y, want[i][1], 0.002) ||
            !pc_close(tags[i]->Z, want[i][2], 0.002)) return 0;
    }
    static const cmsTagSignature trcs[3] = { cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag };
    for (int i = 0; i < 3; i++) {
        cmsToneCurve *curve = cmsReadTag(profile, trcs[i]);
        if (curve == NULL) return 0;
        for (int k = 0; k <= 32; k++) {
            double v = k / 32.0;
            double linear = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
            if (!pc_close(cmsEvalToneCurveFloat(curve, (cmsFloat32Number)v), linear, 0.5 / 255.0)) return 0;
        }
    }
    return 1;
}

static cmsUInt32Number pc_color_input_format(int layout) {
    switch (layout) {
    case PC_LAYOUT_GRAY_IN_RGB: return COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(2);
    case PC_LAYOUT_CMYK: return TYPE_CMYK_8;
    case PC_LAYOUT_CMYK_INVERTED: return TYPE_CMYK_8_REV;
    default: return TYPE_RGB_8;
    }
}

static int pc_layout_fits(cmsHPROFILE profile, int layout) {
    cmsColorSpaceSignature space = cmsGetColorSpace(profile);
    switch (layout) {
    case PC_LAYOUT_GRAY_IN_RGB: return space == cmsSigGrayData || space == cmsSigRgbData;
    case PC_LAYOUT_CMYK:
    case PC_LAYOUT_CMYK_INVERTED: return space == cmsSigCmykData;
    default: return space == cmsSigRgbData || space == cmsSigGrayData;
    }
}

/* Builds the transform (NULL, with *identity set, when nothing is to be done). */
static cmsHTRANSFORM pc_color_build(cmsHPROFILE source, int layout, int *identity, pc_messages *m) {
    *identity = 0;
    if (!pc_layout_fits(source, layout)) {
        pc_add_warning(m, "ICC profile does not match the image's colour space: ignored");
        return NULL;
    }
    /* An RGB image decoded from a gray source keeps the gray profile: read one channel of three. */
    if (layout == PC_LAYOUT_RGB && cmsGetColorSpace(source) == cmsSigGrayData) layout = PC_LAYOUT_GRAY_IN_RGB;
    if (layout == PC_LAYOUT_GRAY_IN_RGB && cmsGetColorSpace(source) == cmsSigRgbData) layout = PC_LAYOUT_RGB;
    if (layout == PC_LAYOUT_RGB && pc_profile_is_srgb(source)) { *identity = 1; return NULL; }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (srgb == NULL) return NULL;
    cmsHTRANSFORM transform = cmsCreateTransform(source, pc_color_input_format(layout), srgb, TYPE_RGB_8,
                                                 INTENT_PERCEPTUAL, cmsFLAGS_NOCACHE);
    cmsCloseProfile(srgb);
    if (transform == NULL) pc_add_warning(m, "ICC profile cannot be used (Little CMS refused it): colours not converted");
    return transform;
}

static void pc_color_run(cmsHTRANSFORM transform, const uint8_t *src, uint8_t *dst, size_t count, int layout) {
    /* lcms2 takes the pixel count as a 32-bit number: convert in pieces. */
    size_t in_bytes = layout == PC_LAYOUT_CMYK || layout == PC_LAYOUT_CMYK_INVERTED ? 4 : 3;
    while (count > 0) {
        size_t n = count > (1u << 24) ? (1u << 24) : count;
        cmsDoTransform(transform, src, dst, (cmsUInt32Number)n);
        src += n * in_bytes;
        dst += n * 3;
        count -= n;
    }
}

int pc_color_apply_profile(void *profile_handle, int layout, const uint8_t *src, uint8_t *dst, size_t count,
                           pc_messages *m) {
    cmsHPROFILE profile = profile_handle;
    int identity = 0;
    cmsHTRANSFORM transform = pc_color_build(profile, layout, &identity, m);
    if (transform == NULL) return identity ? PC_COLOR_IDENTITY : PC_COLOR_UNUSABLE;
    pc_color_run(transform, src, dst, count, layout);
    cmsDeleteTransform(transform);
    return PC_COLOR_CONVERTED;
}

int pc_color_apply_icc(const uint8_t *icc, size_t icc_size, int layout, const uint8_t *src, uint8_t *dst,
                       size_t count, pc_messages *m) {
    if (icc == NULL || icc_size == 0) return PC_COLOR_IDENTITY;
    if (icc_size > PC_ICC_MAX_BYTES) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "ICC profile of %zu bytes is over the %d MiB limit: ignored, colours not converted",
                 icc_size, PC_ICC_MAX_BYTES >> 20);
        pc_add_warning(m, text);
        return PC_COLOR_UNUSABLE;
    }
    uint64_t key = pc_color_hash(icc, icc_size, layout);
    pc_color_cache *cache = pc_color_thread_cache();
    if (cache != NULL) {
        for (int i = 0; i < PC_COLOR_CACHE; i++) {
            pc_color_entry *e = &cache->entries[i];
            if (!e->used || e->key != key) continue;
            if (e->identity) return PC_COLOR_IDENTITY;
            if (e->transform == NULL) {
                pc_add_warning(m, "ICC profile cannot be used: colours not converted");
                return PC_COLOR_UNUSABLE;
            }
            pc_color_run(e->transform, src, dst, count, layout);
            return PC_COLOR_CONVERTED;
        }
    }
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)icc_size);
    int identity = 0;
    cmsHTRANSFORM transform = NULL;
    if (profile == NULL) {
        pc_add_warning(m, "ICC profile is damaged (Little CMS cannot read it): colours not converted");
    } else {
        transform = pc_color_build(profile, layout, &identity, m);
        cmsCloseProfile(profile);
    }
    if (transform != NULL) pc_color_run(transform, src, dst, count, layout);
    if (cache != NULL) {
        pc_color_entry *e = &cache->entries[cache->next];
        if (e->transform != NULL) cmsDeleteTransform(e->transform);
        e->key = key;
        e->used = 1;
        e->identity = identity;
        e->transform = transform;
        cache->next = (cache->next + 1) % PC_COLOR_CACHE;
    } else if (transform != NULL) {
        cmsDeleteTransform(transform);
    }
    if (identity) return PC_COLOR_IDENTITY;
    return transform != NULL ? PC_COLOR_CONVERTED : PC_COLOR_UNUSABLE;
}

int pc_color_apply_primaries(double white_x, double white_y, const double primaries[6], int curve_kind, double gamma,
                             uint8_t *rgb, size_t count, pc_messages *m) {
    /* sRGB's own chromaticities (IEC 61966-2-1) within 0.005 and an sRGB-like curve: nothing to do. */
    static const double srgb[8] = { 0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06 };
    const double got[8] = { white_x, white_y, primaries[0], primaries[1], primaries[2], primaries[3], primaries[4], primaries[5] };
    int same = 1;
    for (int i = 0; i < 8; i++) if (!pc_close(got[i], srgb[i], 0.005)) same = 0;
    if (same && curve_kind == PC_CURVE_SRGB) return PC_COLOR_IDENTITY;
    cmsToneCurve *curve = NULL;
    switch (curve_kind) {
    case PC_CURVE_SRGB: {
        cmsFloat64Number p[5] = { 2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045 };
        curve = cmsBuildParametricToneCurve(NULL, 4, p);
        break;
    }
    case PC_CURVE_BT709: { /* ITU-R BT.709-6 §1.2 opto-electronic curve, inverted */
        cmsFloat64Number p[5] = { 1.0 / 0.45, 1.0 / 1.099, 0.099 / 1.099, 1.0 / 4.5, 0.081 };
        curve = cmsBuildParametricToneCurve(NULL, 4, p);
        break;
    }
    case PC_CURVE_LINEAR:
        curve = cmsBuildGamma(NULL, 1.0);
        break;
    default:
        /* PNG gAMA is the encoding exponent (PNG spec §11.3.3.2): decoding is v^(1/gamma). */
        if (!(gamma > 0.0) || gamma > 10.0) return PC_COLOR_UNUSABLE;
        curve = cmsBuildGamma(NULL, 1.0 / gamma);
        break;
    }
    if (curve == NULL) return PC_COLOR_UNUSABLE;
    cmsCIExyY white = { white_x, white_y, 1.0 };
    cmsCIExyYTRIPLE triple = { { primaries[0], primaries[1], 1.0 }, { primaries[2], primaries[3], 1.0 },
                               { primaries[4], primaries[5], 1.0 } };
    cmsToneCurve *curves[3] = { curve, curve, curve };
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &triple, curves);
    cmsFreeToneCurve(curve);
    if (profile == NULL) {
        pc_add_warning(m, "colour primaries cannot make a profile: colours not converted");
        return PC_COLOR_UNUSABLE;
    }
    int result = pc_color_apply_profile(profile, PC_LAYOUT_RGB, rgb, rgb, count, m);
    cmsCloseProfile(profile);
    return result;
}

int pc_color_apply_chrm(double white_x, double white_y, const double primaries[6], double file_gamma,
                        uint8_t *rgb, size_t count, pc_messages *m) {
    return pc_color_apply_primaries(white_x, white_y, primaries, PC_CURVE_GAMMA, file_gamma, rgb, count, m);
}

/*
 * A CMYK printer profile for tests: AToB0 (and AToB1) a 9-point CLUT from CMYK to Lab, sampled
 * from a dot-gain model unlike pc_cmyk_row_to_rgb's naive one (ink^1.25, 90% black density),
 * so a converted result is told apart from today's fallback.
 */
typedef struct { cmsHTRANSFORM to_lab; } pc_cmyk_cargo;

static cmsInt32Number pc_cmyk_sampler(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    pc_cmyk_cargo *c = cargo;
    double ink[4];
    for (int i = 0; i < 4; i++) ink[i] = pow(in[i] / 65535.0, 1.25);
    double k = 1.0 - 0.9 * ink[3];
    cmsFloat64Number rgb[3] = { (1.0 - ink[0]) * k, (1.0 - 0.95 * ink[1]) * k, (1.0 - 0.9 * ink[2]) * k };
    cmsCIELab lab;
    cmsDoTransform(c->to_lab, rgb, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return TRUE;
}

static cmsHPROFILE pc_test_cmyk_profile(void) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    pc_cmyk_cargo cargo = { NULL };
    if (srgb != NULL && lab != NULL)
        cargo.to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (lab != NULL) cmsCloseProfile(lab);
    if (cargo.to_lab == NULL) return NULL;
    cmsHPROFILE profile = cmsCreateProfilePlaceholder(NULL);
    cmsPipeline *pipeline = cmsPipelineAlloc(NULL, 4, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, 9, 4, 3, NULL);
    int ok = profile != NULL && pipeline != NULL && clut != NULL &&
             cmsStageSampleCLut16bit(clut, pc_cmyk_sampler, &cargo, 0) &&
             cmsPipelineInsertStage(pipeline, cmsAT_BEGIN, clut);
    if (!ok && clut != NULL) cmsStageFree(clut);
    cmsDeleteTransform(cargo.to_lab);
    if (ok) {
        cmsSetProfileVersion(profile, 2.1);
        cmsSetDeviceClass(profile, cmsSigOutputClass);
        cmsSetColorSpace(profile, cmsSigCmykData);
        cmsSetPCS(profile, cmsSigLabData);
        cmsMLU *mlu = cmsMLUalloc(NULL, 1);
        if (mlu != NULL) {
            cmsMLUsetASCII(mlu, "en", "US", "photos test CMYK");
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
            cmsMLUfree(mlu);
        }
        cmsWriteTag(profile, cmsSigMediaWhitePointTag, cmsD50_XYZ());
        ok = cmsWriteTag(profile, cmsSigAToB0Tag, pipeline) && cmsWriteTag(profile, cmsSigAToB1Tag, pipeline);
    }
    if (pipeline != NULL) cmsPipelineFree(pipeline);
    if (!ok && profile != NULL) { cmsCloseProfile(profile); profile = NULL; }
    return profile;
}

pc_status pc_icc_test_profile(int kind, double gamma, uint8_t **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    cmsHPROFILE profile = NULL;
    cmsCIExyY d65 = { 0.3127, 0.3290, 1.0 }, d50 = { 0.3457, 0.3585, 1.0 };
    cmsToneCurve *curve = NULL;
    if (kind == PC_TEST_PROFILE_SRGB) {
        profile = cmsCreate_sRGBProfile();
    } else if (kind == PC_TEST_PROFILE_GRAY) {
        curve = cmsBuildGamma(NULL, gamma);
        profile = curve ? cmsCreateGrayProfile(&d65, curve) : NULL;
    } else if (kind == PC_TEST_PROFILE_CMYK) {
        profile = pc_test_cmyk_profile();
    } else {
        cmsCIExyYTRIPLE p;
        const cmsCIExyY *white = &d65;
        switch (kind) {
        case PC_TEST_PROFILE_DISPLAY_P3:
            p = (cmsCIExyYTRIPLE){ { 0.680, 0.320, 1 }, { 0.265, 0.690, 1 }, { 0.150, 0.060, 1 } };
            break;
        case PC_TEST_PROFILE_ADOBE_RGB:
            p = (cmsCIExyYTRIPLE){ { 0.640, 0.330, 1 }, { 0.210, 0.710, 1 }, { 0.150, 0.060, 1 } };
            break;
        default: /* ProPhoto (ROMM RGB, ISO 22028-2), D50 white */
            p = (cmsCIExyYTRIPLE){ { 0.7347, 0.2653, 1 }, { 0.1596, 0.8404, 1 }, { 0.0366, 0.0001, 1 } };
            white = &d50;
            break;
        }
        if (kind == PC_TEST_PROFILE_DISPLAY_P3) {
            /* Display P3 uses the sRGB transfer curve (IEC 61966-2-1 parametric type 4). */
            cmsFloat64Number params[5] = { 2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045 };
            curve = cmsBuildParametricToneCurve(NULL, 4, params);
        } else {
            curve = cmsBuildGamma(NULL, gamma > 0 ? gamma : (kind == PC_TEST_PROFILE_ADOBE_RGB ? 563.0 / 256.0 : 1.8));
        }
        cmsToneCurve *curves[3] = { curve, curve, curve };
        profile = curve ? cmsCreateRGBProfile(white, &p, curves) : NULL;
    }
    if (curve != NULL) cmsFreeToneCurve(curve);
    if (profile == NULL) return PC_NO_MEMORY;
    cmsUInt32Number size = 0;
    if (!cmsSaveProfileToMem(profile, NULL, &size) || size == 0) { cmsCloseProfile(profile); return PC_NO_MEMORY; }
    *out = malloc(size);
    if (*out == NULL) { cmsCloseProfile(profile); return PC_NO_MEMORY; }
    if (!cmsSaveProfileToMem(profile, *out, &size)) { free(*out); *out = NULL; cmsCloseProfile(profile); return PC_NO_MEMORY; }
    *out_size = size;
    cmsCloseProfile(profile);
    return PC_OK;
}
