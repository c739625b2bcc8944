#ifndef PHOTOS_CIMAGECODEC_TESTING_H
#define PHOTOS_CIMAGECODEC_TESTING_H
/*
 * CImageCodec's entry points for tests and fuzz harnesses only (issue 30 item 6): encoders that
 * make test inputs, libjpeg's own verdicts and tables to compare ours with, and our decoders and
 * encoder called directly, past the libjpeg-turbo version fence (jpegclone.c). Not in the public
 * header (include/CImageCodec.h, all the product sees): the test targets import it as the module
 * CImageCodecTesting (Sources/CImageCodecTesting), the fuzz harnesses include it with -I
 * Sources/CImageCodec. Defined in CImageCodec's own files.
 */
#include <CImageCodec.h>

/*
 * Our own baseline JPEG encoder (thumbjpeg.c): the file libjpeg-turbo writes for pc_jpeg_encode's
 * settings (every quantized coefficient and Huffman table the same) in fewer instructions: no
 * per-row calls, one pass over the pixels, optimal tables from a heap instead of K.2's scans.
 */
pc_status pc_thumbnail_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                                   uint8_t **out, size_t *out_size, pc_messages *messages);

/* Tests: a WebP (channels 3 or 4, lossless or quality 0...100) into a malloc'd buffer. */
pc_status pc_webp_encode_test(const uint8_t *pixels, int width, int height, int channels, int lossless, int quality,
                              uint8_t **out, size_t *out_size);

/*
 * Tests and Samples/: a HEIC (av1 = 0, x265) or AVIF (av1 = 1, aom) of 8-bit RGB pixels with
 * irot/imir for EXIF-style `orientation` 1...8 (libheif heif_encoding_options.image_orientation),
 * a thumbnail of `thumbnail_edge` pixels when > 0, an Exif item (TIFF block), an ICC profile, and
 * an nclx colr box with ISO/IEC 23091-2 colour primaries `nclx_primaries` (> 0; sRGB transfer).
 */
pc_status pc_heif_encode_test(const uint8_t *rgb, int width, int height, int av1, int quality, int orientation,
                              int thumbnail_edge, const uint8_t *exif, size_t exif_size,
                              const uint8_t *icc, size_t icc_size, int nclx_primaries,
                              uint8_t **out, size_t *out_size, pc_messages *m);

/* Bytes pc_thumbnail_jpeg_encode allocates for its work at width x height (besides the file and a
 * few KB of tables); 0 for sizes it refuses or a size that does not fit a size_t. Tests. */
size_t pc_thumbnail_jpeg_encode_memory(int width, int height);

/*
 * Tests: the optimal Huffman table (T.81 Annex K.2, lengths limited to 16) for symbol counts[0...255]
 * (counts[256] is not read): BITS (bits[1...16]; bits[0] = 0) and HUFFVAL, returning the symbol
 * count. pc_thumbnail_optimal_table_test is thumbjpeg.c's; pc_jpeg_optimal_table_libjpeg is
 * libjpeg-turbo's jpeg_gen_optimal_table (-1 when libjpeg refuses the counts).
 */
int pc_thumbnail_optimal_table_test(const uint32_t *counts, uint8_t *bits, uint8_t *values);
int pc_jpeg_optimal_table_libjpeg(const uint32_t *counts, uint8_t *bits, uint8_t *values);

/* Tests: libjpeg's own encode with pc_jpeg_encode's settings (the reference pc_thumbnail_jpeg_encode matches). */
pc_status pc_jpeg_encode_libjpeg(const uint8_t *rgb, int width, int height, int quality,
                                 uint8_t **out, size_t *out_size, pc_messages *messages);

/*
 * Tests: the quantized DCT coefficients of a JPEG as libjpeg reads them (jpeg_read_coefficients),
 * every component's blocks row by row, each padded to whole MCUs as libjpeg keeps them, 64 per
 * block in natural order, into a malloc'd buffer of *count values; dims receives each component's
 * blocks across and down (6 ints for 3 components).
 */
pc_status pc_jpeg_read_coefficients_test(const uint8_t *data, size_t size, int16_t **out, size_t *count,
                                         int *dims, int max_components, pc_messages *messages);

/*
 * DC-only decode of a progressive JPEG at scale 1/8 (dconly.c): decodes the DC scans, entropy-
 * decodes the AC scans only to find damage (rejected as libjpeg's full decode would), requires EOI. Same output as pc_jpeg_decode at scale 1/8 (only
 * options->max_pixels is read). PC_NOT_HANDLED, with nothing written to `out` or `messages`,
 * for files it leaves to libjpeg: not SOF2/Huffman/8-bit, not 1 or 3 components, sampling
 * other than luma h,v in {1,2} with 1x1 chroma, CMYK/YCCK or unknown Adobe transforms, and
 * anything libjpeg might judge differently (bogus tables or progression, DNL...).
 * Also reads options->dconly_generic_code (tests).
 */
pc_status pc_jpeg_decode_dc_only(const uint8_t *data, size_t size, const pc_decode_options *options,
                                 pc_decoded *out, pc_messages *messages);

/*
 * Reduced-scale decode of a sequential Huffman JPEG (dconly.c, pc_jpeg_decode_reduced): SOF0/SOF1,
 * 8-bit, one scan holding every component (gray, or 3 components with luma sampling h,v in {1,2}
 * and 1x1 chroma), at scale_num/8 for scale_num 1 or 2. Every block entropy-decoded (damage refused
 * with libjpeg's message), only the coefficients the reduced IDCT uses kept; no coefficient buffer:
 * memory is the output image (ceil(width*scale_num/8) x ceil(height*scale_num/8) x 3 bytes) plus
 * three MCU rows of samples. Same pixels as pc_jpeg_decode's libjpeg path with the same options
 * (fancy_upsampling read; max_pixels is the caller's check). PC_NOT_HANDLED, with nothing written,
 * for anything else (progressive, arithmetic, 12-bit, CMYK/YCCK, several scans, other sampling,
 * odd tables or markers): the caller decodes with libjpeg. On success out->used_reduced = 1.
 */
pc_status pc_jpeg_decode_reduced(const uint8_t *data, size_t size, const pc_decode_options *options, int scale_num,
                                 pc_decoded *out, pc_messages *messages);

/* 1 when pc_jpeg_decode_dc_only runs its AC scans in the code compiled for POPCNT/BMI1/BMI2
 * (an x86-64 build on a CPU that has them; CPUID), 0 when in its baseline code only. */
int pc_jpeg_dc_only_bmi_code(void);

/* How pc_jpeg_encode_ex lays out the scans. */
typedef enum pc_jpeg_scan_mode {
    PC_BASELINE = 0,                    /* sequential, optimized Huffman tables (thumbnails) */
    PC_PROGRESSIVE_SIMPLE = 1,          /* jpeg_simple_progression (libjpeg.txt) */
    PC_PROGRESSIVE_NON_INTERLEAVED = 2, /* one DC scan per component, DC refinement scans last (tests) */
    PC_PROGRESSIVE_DC_REFINED = 3,      /* DC first scan with Al = 4, AC scans, then DC refinements 4→3→2→1→0 (tests) */
    PC_ARITHMETIC = 0x100               /* or'ed with a mode: arithmetic coding (T.81 Annex D) instead of Huffman */
} pc_jpeg_scan_mode;

typedef struct pc_jpeg_encode_options {
    int components;        /* 1 = gray, 3 = RGB, 4 = CMYK input (written as CMYK with an Adobe marker) */
    int quality;           /* 1...100 */
    int mode;              /* pc_jpeg_scan_mode, optionally | PC_ARITHMETIC */
    int h_samp, v_samp;    /* luma sampling factors with 1x1 chroma; 0 = libjpeg's default (2x2) */
    int restart_interval;  /* in MCUs, 0 = none */
    int chroma_tables;     /* 0: chroma shares the luma's Huffman tables up to 240 x 240 pixels (jpeg.c);
                            * 1: chroma has tables of its own at any size */
} pc_jpeg_encode_options;

/* Encodes 8-bit pixels as a JPEG into a malloc'd buffer, as `options` says (tests build their progressive inputs with it). */
pc_status pc_jpeg_encode_ex(const uint8_t *pixels, int width, int height, const pc_jpeg_encode_options *options,
                            uint8_t **out, size_t *out_size, pc_messages *messages);

/*
 * libjpeg's own verdict on a JPEG, for tests: a plain full-size decode (every scan,
 * default settings) through a source that hands out 64 bytes at a time, so every MCU
 * goes through libjpeg-turbo's warning Huffman decoder, with the same warning rule
 * (pc_jpeg_warning_rejects). PC_OK when libjpeg decodes it without a damage warning,
 * PC_CORRUPT with libjpeg's message otherwise. No memory budget: tests only.
 */
pc_status pc_jpeg_libjpeg_verdict(const uint8_t *data, size_t size, pc_messages *messages);

/* Profiles pc_icc_test_profile makes (tests and Samples/). */
typedef enum pc_test_profile {
    PC_TEST_PROFILE_SRGB = 0,        /* lcms2 cmsCreate_sRGBProfile */
    PC_TEST_PROFILE_DISPLAY_P3 = 1,  /* P3 primaries, D65, sRGB curve */
    PC_TEST_PROFILE_ADOBE_RGB = 2,   /* Adobe RGB (1998) primaries, D65, gamma 563/256 */
    PC_TEST_PROFILE_PROPHOTO = 3,    /* ROMM RGB primaries, D50, gamma 1.8 */
    PC_TEST_PROFILE_GRAY = 4,        /* gray, D65, gamma `gamma` */
    PC_TEST_PROFILE_CMYK = 5         /* CMYK → Lab CLUT printer profile (dot gain model) */
} pc_test_profile;

/* Writes an ICC profile made by Little CMS into a malloc'd buffer (pc_free). gamma: 0 = the kind's own. */
pc_status pc_icc_test_profile(int kind, double gamma, uint8_t **out, size_t *out_size);

/*
 * pc_jpeg_encode_ex that also embeds an ICC profile (APP2 ICC_PROFILE, split over as many segments as
 * needed, ICC.1:2010 Annex B.4; libjpeg-turbo jpeg_write_icc_profile). For tests and Samples/.
 */
pc_status pc_jpeg_encode_icc(const uint8_t *pixels, int width, int height, const pc_jpeg_encode_options *options,
                             const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size, pc_messages *messages);

/*
 * The version fence's test hook (jpegclone.c): mode 0 turns our reduced decoders and thumbnail
 * encoder off in this process (libjpeg does all the work, as when the linked libjpeg-turbo is not
 * a checked version), 1 turns them on whatever the check found, -1 goes back to the check's own
 * answer. Returns the previous mode.
 */
int pc_jpeg_clone_force(int mode);

/* Tests: what pc_tiff_write_test writes. */
typedef struct pc_tiff_test_options {
    int bits;               /* 8 or 16 (a sample v is written as v × 257) */
    int photometric;        /* 1 gray (1 sample), 2 RGB (3), 5 CMYK (4) */
    int tile;               /* 0: strips; else square tiles of this edge (a multiple of 16) */
    int planar;             /* 1: PlanarConfiguration 2 (one plane per sample) */
    int rows_per_strip;     /* 0: 16 */
    int compression;        /* 0/1 none, 5 LZW, 8 Adobe deflate */
    int orientation;        /* 0: no tag; else tag 274 */
    const uint8_t *icc;     /* tag 34675, or NULL */
    size_t icc_size;
    int reduced_width, reduced_height; /* > 0: a reduced-resolution RGB page of reduced_rgb */
    int reduced_as_subifd;  /* 1: that page is IFD0's SubIFD; 0: the second top-level page (NewSubfileType 1) */
    uint8_t reduced_rgb[3];
    int bigtiff;            /* 1: BigTIFF */
    const char *make;       /* tag 271, or NULL */
} pc_tiff_test_options;

/* Tests: writes `samples` (8-bit, width × height × samples per pixel) as a TIFF file with libtiff. */
pc_status pc_tiff_write_test(const char *path, const uint8_t *samples, int width, int height,
                             const pc_tiff_test_options *options);

/* Tests: a gray 8-bit deflate TIFF in strips of rows_per_strip rows, value (y / 64) & 255, written row by row. */
pc_status pc_tiff_write_large_test(const char *path, int width, int height, int rows_per_strip);

/* Tests: one GIF89a frame that pc_gif_write_test writes (256-colour global table). */
typedef struct pc_gif_test_frame {
    int screen_width, screen_height, background;
    int left, top, width, height, interlace;
    int transparent;          /* -1: no Graphic Control Extension */
    const uint8_t *palette;   /* 256 × 3 bytes */
    const uint8_t *indices;   /* width × height colour indices */
} pc_gif_test_frame;

/* Tests: writes a one-frame GIF with giflib's encoder. */
pc_status pc_gif_write_test(const char *path, const pc_gif_test_frame *frame);


#endif
