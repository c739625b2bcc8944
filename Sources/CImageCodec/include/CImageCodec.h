#ifndef PHOTOS_CIMAGECODEC_H
#define PHOTOS_CIMAGECODEC_H
/*
 * The only C of our own: libjpeg and libpng calls that need setjmp/longjmp
 * error recovery (libjpeg.txt "Error handling"; libpng-manual.txt "Setup").
 * Every entry point returns a pc_status and fills a caller-owned
 * pc_messages; nothing is printed and nothing calls exit().
 * Buffers returned through pointers are malloc'd; release them with pc_free.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef enum pc_status {
    PC_OK = 0,
    PC_CORRUPT = 1,      /* the library's message is in pc_messages.error */
    PC_TOO_LARGE = 2,    /* stored width × height over max_pixels */
    PC_UNSUPPORTED = 3,  /* valid but not decodable here (12-bit, lossless) */
    PC_NO_MEMORY = 4,
    PC_NOT_HANDLED = 5,  /* pc_jpeg_decode_dc_only: not a file it takes; decode with libjpeg */
    PC_OVER_BUDGET = 6   /* decoding would take more than PC_DECODE_BUDGET_MB; the reason is in pc_messages.error */
} pc_status;

/*
 * Per-worker decode budget, megabytes: the most one decode may allocate for buffers
 * whose size follows from sizes the file declares (libjpeg's whole-image coefficient
 * buffer, PNG chunk payloads and decompressed text/profiles, the Adam7 image). SPEC §8
 * bounds memory by jobs × the image at its reduced scale: at the 100-megapixel limit
 * that image is 1.6 Mpx (4.7 MB of RGB), and every decoder here stays near it (row
 * buffers, dconly.c's 10 bytes per 8×8 block) except libjpeg's progressive/multi-scan
 * decode, whose coefficient buffer holds every block of the image (128 bytes per block:
 * 4 bytes per pixel at 4:2:2, 3 at 4:2:0, 6 at 4:4:4). 100 MB lets that buffer hold a
 * 24-megapixel 4:2:2 camera image (92 MB); files that would need more are refused with
 * a one-line reason naming the budget.
 */
#define PC_DECODE_BUDGET_MB 100
#define PC_DECODE_BUDGET_BYTES ((uint64_t)PC_DECODE_BUDGET_MB << 20)

/*
 * Most scans read from one JPEG. Every scan walks every block of its components, even when
 * its data is a few bytes of end-of-band runs (T.81 G.1.2.2: EOBRUN up to 32767 blocks per
 * code), so CPU time grows with declared size × scans, not with the file's bytes: a 293 KB
 * greyscale 10000×10000 file with 693 valid scans took 18 s in djpeg and 4 s here. Real
 * encoders write at most a few dozen scans (libjpeg's jpeg_simple_progression 10, jpegtran
 * scripts at most 100); libjpeg-turbo advises a scan limit for untrusted files (djpeg
 * -maxscans, TurboJPEG TJPARAM_SCANLIMIT; its fuzzers use 500). A file with more is
 * refused as damaged.
 */
#define PC_MAX_SCANS 500
#define PC_SCAN_LIMIT_TEXT "JPEG has more than 500 scans (refused: CPU time would grow with each; real files have at most about 100)"

#define PC_MESSAGE_CAPACITY 256
#define PC_WARNINGS_CAPACITY 1024

/* Caller-owned message buffer. */
typedef struct pc_messages {
    char error[PC_MESSAGE_CAPACITY];
    char warnings[PC_WARNINGS_CAPACITY]; /* one warning per line, '\n'-terminated */
    int warning_count;
} pc_messages;

typedef struct pc_decode_options {
    int target_edge;            /* pixels; the decoded long edge stays >= this */
    uint64_t max_pixels;        /* stored width × height limit */
    int dct_method;             /* 0 JDCT_ISLOW, 1 JDCT_IFAST, 2 JDCT_FLOAT */
    int fancy_upsampling;       /* libjpeg do_fancy_upsampling */
    int progressive_dc_only;    /* allow the DC-scan early stop at 1/8 scale */
    int ignore_icc;             /* 1: leave pixels in the file's encoded values (tests comparing decoders) */
    int png_streaming_inflate;  /* 1: PNG image data through libpng alone, its streaming zlib and its
                                   unfiltering (the reference png.c's fed paths are tested against) */
    int png_never_whole;        /* 1: PNG image data never inflated whole: png.c's streaming fed path
                                   whatever the size (tests) */
    int dconly_generic_code;    /* 1: dconly.c's AC scans run their baseline x86-64 code even where the CPU
                                   has POPCNT/BMI1/BMI2 (tests comparing the two compilations) */
    int sequential_reduced;     /* 1: sequential Huffman JPEGs decoded at 1/8 and 2/8 by dconly.c's reduced
                                   decoder (pc_jpeg_decode_reduced) instead of libjpeg */
} pc_decode_options;

typedef struct pc_decoded {
    uint8_t *pixels;            /* 8-bit RGB, width*height*3 bytes; pc_free */
    int width, height;          /* pixels in `pixels` */
    int stored_width, stored_height; /* pixels in the file's header */
    int scale;                  /* JPEG: scale_num of scale_num/8; PNG: box factor */
    int used_dc_only;           /* 1 when the progressive early stop was taken */
    int used_reduced;           /* 1 when pc_jpeg_decode_reduced decoded the (sequential) JPEG */
    int progressive;            /* JPEG progressive, PNG interlaced */
    int png_whole_inflate;      /* PNG: 1 when the image data was inflated in one piece by libdeflate */
    int png_fed_rows;           /* PNG: 1 when the image data was inflated and unfiltered by png.c (whole
                                   or streaming) and libpng given rows of filter type None */
    uint8_t *exif;              /* PNG eXIf payload / HEIF Exif item (TIFF header first); pc_free */
    size_t exif_size;
    uint8_t *xmp;               /* HEIF XMP item (application/rdf+xml) / JPEG XL `xml ` box; pc_free */
    size_t xmp_size;
    int orientation;            /* JPEG XL: the codestream's orientation, EXIF values 1...8 (pixels are stored
                                   orientation); 0 from the other decoders */
} pc_decoded;

/*
 * Area-averaging resampling of 8-bit RGB (resample.c; PhotosImaging's Resampler.areaAverage):
 * src is src_width x src_height pixels, dst (width x height x 3 bytes, caller-owned) receives
 * each output pixel as the mean of the source area it covers, fractional cells weighted by
 * their covered fraction. Returns 1, or 0 when a size is < 1 or the working memory
 * (src_height x width x 12 bytes) cannot be had.
 */
int pc_area_average(const uint8_t *src, int src_width, int src_height, uint8_t *dst, int width, int height);

/* Decodes a whole JPEG file held in memory at the smallest DCT scale whose long edge is >= target_edge. */
pc_status pc_jpeg_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                         pc_decoded *out, pc_messages *messages);

/* Decodes a whole PNG file held in memory, box-reducing by an integer factor while reading. */
pc_status pc_png_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                        pc_decoded *out, pc_messages *messages);

/*
 * Decodes a HEIF/HEIC or AVIF file (libheif, heif.c): the primary image, from its first
 * thumbnail whose long edge is >= target_edge when it has one, box-reduced by an integer factor;
 * irot/imir applied by libheif (stored_width/height are the upright size); alpha on white; the
 * colr ICC profile applied; EXIF (TIFF block) and XMP copied out (each at most 1 MiB).
 * Refused before decoding: width × height over max_pixels (PC_TOO_LARGE), or the decode's
 * buffers (7 bytes per pixel of the chosen image) over the per-worker budget (PC_OVER_BUDGET).
 */
pc_status pc_heif_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                         pc_decoded *out, pc_messages *messages);

/*
 * Decodes a still WebP (libwebp, webp.c) scaled by libwebp straight to the thumbnail size whose
 * long edge is target_edge (the Thumbnailer.thumbnailSize rule); alpha flattened onto white.
 * Animated WebP is PC_UNSUPPORTED; over max_pixels PC_TOO_LARGE, checked from the header before
 * decoding; lossless images (decoded whole as ARGB by libwebp) over the budget PC_OVER_BUDGET.
 */
pc_status pc_webp_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                         pc_decoded *out, pc_messages *messages);

/*
 * JPEG XL (libjxl, jxl.c): a file holding a losslessly recompressed JPEG (container with a `jbrd`
 * box) given back as that JPEG (malloc'd, *jpeg_size bytes; at most 4 × size + 1 MiB and the
 * per-worker budget) for the JPEG path. PC_NOT_HANDLED, nothing written, for any other JXL (and
 * one whose declared size is over max_pixels, or whose reconstruction, at 6 bytes per pixel in
 * libjxl, would be over the per-worker budget: about 17 megapixels): decode it with pc_jxl_decode.
 */
pc_status pc_jxl_jpeg(const uint8_t *data, size_t size, const pc_decode_options *options, uint8_t **jpeg,
                      size_t *jpeg_size, pc_messages *messages);

/*
 * Decodes a JPEG XL file (libjxl, jxl.c): the first frame, streamed through libjxl's image-out
 * callback into an integer box reduction (factor = long edge / target_edge) (from its DC pass alone
 * when progressive_dc_only, PHOTOS_JXL_DC_PASS=1 and 1/8 resolution keeps target_edge: measured
 * slower, see jxl.c); stored orientation, the
 * codestream's orientation in out->orientation; alpha on white; PQ/HLG tone-mapped to sRGB
 * (hdr.c), other colour encodings converted from their ICC profile (color.c); Exif (TIFF block)
 * and XMP boxes copied out (each at most 1 MiB). Refused before decoding: over max_pixels
 * (PC_TOO_LARGE) or 4 bytes per declared pixel over the per-worker budget (PC_OVER_BUDGET).
 */
pc_status pc_jxl_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                        pc_decoded *out, pc_messages *messages);

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

/*
 * Encodes 8-bit RGB as a baseline JPEG (4:2:0, optimized Huffman tables, JFIF APP0 then the sRGB
 * Exif APP1) into a malloc'd buffer: pc_thumbnail_jpeg_encode. quality is clamped to 1...100.
 * PC_UNSUPPORTED for a width or height < 1, PC_CORRUPT over 65500 (libjpeg's limit).
 */
pc_status pc_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                         uint8_t **out, size_t *out_size, pc_messages *messages);

/*
 * Our own baseline JPEG encoder (thumbjpeg.c): the file libjpeg-turbo writes for pc_jpeg_encode's
 * settings (every quantized coefficient and Huffman table the same) in fewer instructions: no
 * per-row calls, one pass over the pixels, optimal tables from a heap instead of K.2's scans.
 */
pc_status pc_thumbnail_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                                   uint8_t **out, size_t *out_size, pc_messages *messages);

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

/*
 * Largest embedded ICC profile used, bytes (4 MiB). Display profiles are 0.5-4 KB, camera and
 * print (CMYK LUT) profiles up to ~2 MB; a larger one is ignored with a warning, its image kept
 * in its encoded values (Little CMS itself reads tags only within the profile's bytes).
 */
#define PC_ICC_MAX_BYTES (4 << 20)

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
 * The APP1 Exif segment every thumbnail carries after JFIF: IFD0 with an Exif IFD holding only
 * ColorSpace = 1 (sRGB, EXIF 2.32 §4.6.5 Table 9 tag 0xA001): 54 bytes in the file (marker,
 * length, 50 bytes of payload) saying "sRGB". Measured on the 34 bench thumbnails: 2,802 →
 * 2,856 bytes each (+1.9%); lcms2's own sRGB profile (588 bytes) in an APP2 segment would add
 * 606 bytes (+22%).
 */
extern const uint8_t pc_srgb_exif_app1[];
extern const size_t pc_srgb_exif_app1_size;

/*
 * The image libraries' versions, as NUL-terminated text ("2.1.5", "1.6.39"): libjpeg-turbo's is
 * the one compiled against (its libjpeg 6.2 ABI cannot be asked), the others are asked of the
 * library linked at run time. For `photos --version`.
 */
typedef struct pc_library_versions_t {
    char jpeg[32], png[32], lcms[32], heif[32], webp[32], jxl[32];
} pc_library_versions_t;
void pc_library_versions(pc_library_versions_t *out);

static inline void pc_free(void *pointer) { free(pointer); }
static inline void *pc_malloc(size_t size) { return malloc(size); }

#endif
