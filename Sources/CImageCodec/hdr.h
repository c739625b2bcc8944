#ifndef PHOTOS_CIMAGECODEC_HDR_H
#define PHOTOS_CIMAGECODEC_HDR_H
/*
 * HDR (PQ and HLG) to SDR sRGB for thumbnails (hdr.c), and a box reduction of float pixels that
 * arrive in any order (libjxl's image-out callback, libheif's 16-bit rows).
 */
#include <stddef.h>
#include <stdint.h>
#include "CImageCodec.h"

/* ISO/IEC 23091-2 (ITU-T H.273) TransferCharacteristics codes of the two HDR transfers. */
enum { PC_TRANSFER_PQ = 16, PC_TRANSFER_HLG = 18 };

/* 1 for PQ (SMPTE ST 2084) and HLG (ARIB STD-B67) TransferCharacteristics codes. */
int pc_hdr_transfer(int transfer_characteristics);

/*
 * The chromaticities (white x, y; red, green, blue x, y) of ISO/IEC 23091-2 ColourPrimaries code
 * `code` into xy[8]; 0 when the code has none here (BT.2020 is the usual one with PQ/HLG).
 */
int pc_hdr_primaries(int code, double xy[8]);

/*
 * The cicp tag of an ICC profile (ICC.1:2022 §9.2.17, Little CMS cmsSigcicpTag): 1 with its
 * ColourPrimaries and TransferCharacteristics codes when the profile has one, else 0.
 */
int pc_icc_cicp(const uint8_t *icc, size_t icc_size, int *primaries, int *transfer);

/*
 * Tone-maps `count` pixels of non-linear PQ or HLG signal (RGB floats, nominal 0...1, in the
 * colour space of chromaticities xy[8], NULL for BT.2020) to 8-bit sRGB in `out` (3 bytes each).
 * See hdr.c for the operator (ITU-R BT.2390 EETF with BT.2408 reference white).
 */
void pc_hdr_to_srgb(const float *rgb, size_t count, int transfer, const double *xy, uint8_t *out);

/* Float box reduction: sums and counts per output cell, fed pixels in any order. */
typedef struct pc_fbox {
    int factor, in_width, in_height, out_width, out_height;
    float *sums;       /* out_width * out_height * 3 */
    uint32_t *counts;  /* out_width * out_height */
} pc_fbox;

/* Allocates the sums (out = ceil(in / factor) on each axis); 0 when out of memory. */
int pc_fbox_init(pc_fbox *box, int in_width, int in_height, int factor);
/* Adds `count` pixels of row y from x0 on: `channels` floats each (3, or 4 with alpha, which is
 * flattened onto white in the signal's values as the 8-bit decoders do). */
void pc_fbox_add(pc_fbox *box, const float *pixels, int channels, size_t x0, size_t y, size_t count);
/* Averages the sums in place (3 floats per cell); 0 when some cell received no pixel. */
int pc_fbox_finish(pc_fbox *box);
void pc_fbox_free(pc_fbox *box);
#endif
