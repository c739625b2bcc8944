#ifndef PC_HEVCVUI_H
#define PC_HEVCVUI_H
#include <stddef.h>
#include <stdint.h>

/* The colour description of an HEVC stream's VUI (ITU-T H.265 §E.2.1): ISO/IEC 23091-2 code points. */
typedef struct pc_vui_colour {
    int colour_primaries;          /* Table E.3 (= ISO/IEC 23091-2 ColourPrimaries) */
    int transfer_characteristics;  /* Table E.4 */
    int matrix_coeffs;             /* Table E.5 */
    int full_range;                /* video_full_range_flag */
} pc_vui_colour;

/*
 * Finds the colour description in the VUI of the HEVC sequence parameter set that configures the
 * HEIF file's primary item (pitm; its hvcC property, ISO/IEC 14496-15 §8.3.3), or, for one without
 * (a grid: its tiles carry the coding), the first hvcC property of the file. Reads only inside
 * data[0..size): every box and NAL length is checked against what is left.
 * Returns 1 and fills `out` when the SPS has colour_description_present_flag, else 0.
 */
int pc_hevc_vui_colour(const uint8_t *data, size_t size, pc_vui_colour *out);

/* The picture size of an HEVC sequence parameter set (ITU-T H.265 §7.3.2.2.1), luma samples. */
typedef struct pc_hevc_size {
    uint32_t coded_width, coded_height; /* pic_width/height_in_luma_samples: what the decoder allocates */
    uint32_t width, height;             /* less the conformance window: what it outputs */
} pc_hevc_size;

/*
 * Reads the size of the SPS NAL unit nal[0..n) (its 2-byte header first, emulation prevention
 * bytes in place). Returns 1 and fills `out`; 0 when it is not an SPS (nal_unit_type 33) or is
 * truncated or inconsistent (a conformance window as large as the picture).
 */
int pc_hevc_sps_size(const uint8_t *nal, size_t n, pc_hevc_size *out);

#endif
