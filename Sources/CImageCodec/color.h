#ifndef PHOTOS_CIMAGECODEC_COLOR_H
#define PHOTOS_CIMAGECODEC_COLOR_H
/* Conversion of decoded pixels to sRGB with Little CMS 2 (color.c). */
#include <stddef.h>
#include <stdint.h>
#include "CImageCodec.h"

/* How the pixels handed to the conversion are laid out. */
enum {
    PC_LAYOUT_RGB = 0,           /* 3 bytes R, G, B */
    PC_LAYOUT_GRAY_IN_RGB = 1,   /* 3 bytes, R = G = B (gray expanded by the decoder): one is read */
    PC_LAYOUT_CMYK = 2,          /* 4 bytes C, M, Y, K, 255 = full ink */
    PC_LAYOUT_CMYK_INVERTED = 3  /* 4 bytes, 255 = no ink (Adobe APP14 files, as libjpeg returns them) */
};

/* What a conversion did. */
enum {
    PC_COLOR_CONVERTED = 0,  /* dst holds sRGB */
    PC_COLOR_IDENTITY = 1,   /* nothing to convert (no profile, or sRGB): dst untouched */
    PC_COLOR_UNUSABLE = 2    /* profile refused (damaged, too large, wrong colour space): warning added, dst untouched */
};

/*
 * Converts `count` pixels from the space of an ICC profile to 8-bit sRGB (3 bytes per pixel into
 * dst; src may equal dst for the 3-byte layouts). Profiles over PC_ICC_MAX_BYTES are refused.
 */
int pc_color_apply_icc(const uint8_t *icc, size_t icc_size, int layout, const uint8_t *src, uint8_t *dst,
                       size_t count, pc_messages *m);
/* The same with an open cmsHPROFILE (not cached). */
int pc_color_apply_profile(void *profile, int layout, const uint8_t *src, uint8_t *dst, size_t count, pc_messages *m);
/*
 * PNG cHRM + gAMA without iCCP/sRGB (PNG spec §11.3.3.2, §11.3.3.3): a matrix/TRC profile built from
 * the chromaticities and 1/gamma, applied in place to RGB pixels.
 */
int pc_color_apply_chrm(double white_x, double white_y, const double primaries[6], double file_gamma,
                        uint8_t *rgb, size_t count, pc_messages *m);
/* Transfer curves pc_color_apply_primaries builds. */
enum { PC_CURVE_GAMMA = 0, PC_CURVE_SRGB = 1, PC_CURVE_BT709 = 2, PC_CURVE_LINEAR = 3 };
/*
 * A matrix/TRC profile from chromaticities (white, then red/green/blue x,y) and a transfer curve
 * (PC_CURVE_GAMMA: v^(1/gamma), gamma as PNG gAMA states it), applied in place to RGB pixels.
 * PC_COLOR_IDENTITY without a transform for sRGB primaries with the sRGB curve.
 */
int pc_color_apply_primaries(double white_x, double white_y, const double primaries[6], int curve_kind, double gamma,
                             uint8_t *rgb, size_t count, pc_messages *m);
#endif
