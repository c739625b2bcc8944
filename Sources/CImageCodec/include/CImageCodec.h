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
 * Camera RAW (raw.c). pc_raw_sniff: 1 when the bytes are a camera RAW file by content: a RAW
 * container's signature (CR3 `ftyp crx `, RAF, ORF, RW2/RWL, CRW, X3F, MRW), or a TIFF whose
 * tags only a raw image has (DNGVersion, the CR2 marker, an IFD or SubIFD with CFA/LinearRaw
 * photometric or a maker's compression); a plain TIFF image is 0. camera_format receives the
 * container's lower-case name ("dng", "cr2", "cr3", "nef", "arw", "raf", "orf", "rw2", ...;
 * "raw" for a TIFF raw of an unknown maker). Reads only within size bytes.
 */
int pc_raw_sniff(const uint8_t *data, size_t size, char *camera_format, size_t capacity);

#define PC_RAW_SOURCE_JPEG_PREVIEW 1   /* the camera's embedded JPEG preview (in `jpeg`) */
#define PC_RAW_SOURCE_BITMAP_PREVIEW 2 /* an embedded bitmap preview (in out->pixels) */
#define PC_RAW_SOURCE_DEVELOPED 3      /* LibRaw's half-size develop (in out->pixels) */

typedef struct pc_raw_info {
    int width, height;          /* LibRaw sizes.width/height: the developed image, sensor orientation, pixels */
    int orientation;            /* EXIF Orientation 1...8 from LibRaw's flip */
    int source;                 /* PC_RAW_SOURCE_* the thumbnail comes from */
    int preview_width, preview_height; /* the embedded preview used or looked at, pixels (0: none) */
    int64_t timestamp;          /* LibRaw's capture time as the camera's wall clock in seconds since 1970 (0: none) */
    char make[64], model[64], lens[128]; /* LibRaw's idata.make/model and lens.Lens, NUL-terminated */
} pc_raw_info;

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


/*
 * Decodes a TIFF or BigTIFF (libtiff, tiff.c): the first full-resolution page, or its smallest
 * reduced-resolution copy (SubIFD or NewSubfileType 1) whose long edge is >= target_edge, band by
 * band through TIFFRGBAImage into the box reducer; alpha on white; the ICC profile applied (CMYK
 * through it when 8-bit contiguous strips); XMP (tag 700, at most 4 MiB) copied out; orientation
 * not applied. stored_width/height are the full page's. Refused: over max_pixels (PC_TOO_LARGE), a
 * strip or tile over half the budget (PC_OVER_BUDGET), uncompressed data larger than the file, a
 * camera RAW file (pc_tiff_is_raw, PC_UNSUPPORTED); libtiff's errors in messages, never printed.
 */
pc_status pc_tiff_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                         pc_decoded *out, pc_messages *messages);

/*
 * 1 when a TIFF-container file is a camera RAW file and is left to the RAW reader: IFD0 has
 * DNGVersion (50706), or the file has the CR2 signature, or IFD0's Make is a RAW camera maker's
 * and a directory holds CFA data (Photometric 32803/34892 or a RAW-only compression). tiff.c.
 */
int pc_tiff_is_raw(const uint8_t *data, size_t size);

/*
 * Decodes the first frame of a GIF (giflib, gif.c, read record by record, never DGifSlurp) placed
 * on its logical screen (uncovered pixels the background colour, transparent ones white),
 * interlaced or not, box-reduced while reading rows; stored_width/height are the screen's.
 */
pc_status pc_gif_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                        pc_decoded *out, pc_messages *messages);


/*
 * Decodes a camera RAW file with LibRaw 0.20 in the photos-decoder process (raw.c, decoder.h; PHOTOS_RAW_IN_PROCESS=1:
 * in this one): the largest embedded preview LibRaw finds when its long edge is >= 120 px (a
 * JPEG preview is returned whole in *jpeg, malloc'd, for the caller's JPEG decode; a bitmap one
 * box-reduced in out->pixels), else a half-size develop (camera white balance, sRGB, 8-bit;
 * tried only when the raw image's pixels are at most 16 per byte of the file and the develop's
 * buffers fit PC_DECODE_BUDGET_MB) box-reduced in out->pixels, else a smaller preview; pixels
 * are in the sensor's orientation (info->orientation says how to turn them). Over max_pixels
 * PC_TOO_LARGE; nothing usable PC_CORRUPT with "RAW file has no embedded preview and its image
 * data cannot be decoded: ..."; a child that crashes or runs over 60 s PC_CORRUPT.
 */
pc_status pc_raw_decode(const uint8_t *data, size_t size, const pc_decode_options *options, pc_raw_info *info,
                        pc_decoded *out, uint8_t **jpeg, size_t *jpeg_size, pc_messages *messages);

/* LibRaw's version ("0.20.2", from libraw_versionNumber) into out, for `photos --version`. */
void pc_raw_version(char *out, size_t capacity);

/*
 * Encodes 8-bit RGB as a baseline JPEG (4:2:0, optimized Huffman tables, JFIF APP0 then the sRGB
 * Exif APP1) into a malloc'd buffer: pc_thumbnail_jpeg_encode. quality is clamped to 1...100.
 * PC_UNSUPPORTED for a width or height < 1, PC_CORRUPT over 65500 (libjpeg's limit).
 */
pc_status pc_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                         uint8_t **out, size_t *out_size, pc_messages *messages);

/*
 * Largest embedded ICC profile used, bytes (4 MiB). Display profiles are 0.5-4 KB, camera and
 * print (CMYK LUT) profiles up to ~2 MB; a larger one is ignored with a warning, its image kept
 * in its encoded values (Little CMS itself reads tags only within the profile's bytes).
 */
#define PC_ICC_MAX_BYTES (4 << 20)

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
 * The image libraries' versions, as NUL-terminated text ("2.1.5", "1.6.39"), of the libraries
 * loaded at run time: libjpeg-turbo's from the version text in the loaded libjpeg.so (its
 * libjpeg 6.2 ABI has no call for it; jpegclone.c), the one compiled against when that text is
 * not found; the others asked of the library. For `photos --version`.
 */
typedef struct pc_library_versions_t {
    char jpeg[32], png[32], lcms[32], heif[32], webp[32], jxl[32];
    char tiff[32], gif[32]; /* libtiff's (TIFFGetVersion), giflib's (compiled against: it has no call) */
} pc_library_versions_t;
void pc_library_versions(pc_library_versions_t *out);

/*
 * Whether our own JPEG code (dconly.c's reduced decoders, thumbjpeg.c's encoder) runs in this
 * process: only when the linked libjpeg-turbo is a version it was checked against and a probe
 * decode and encode give libjpeg's own answers (jpegclone.c; checked once, on first use), and the
 * environment does not say PHOTOS_JPEG_CLONE=off. Otherwise pc_jpeg_decode and pc_jpeg_encode
 * use libjpeg alone, with the same verdicts. Returns 1 when it runs, 0 when not; writes a one-line
 * reason ("on (libjpeg-turbo 2.1.5, a checked version; the probe matched)") into reason[capacity].
 * For `photos --version`.
 */
int pc_jpeg_clone_state(char *reason, size_t capacity);

static inline void pc_free(void *pointer) { free(pointer); }
static inline void *pc_malloc(size_t size) { return malloc(size); }


/*
 * Videos (video.c, issue 25 item 1), read with FFmpeg's libav* in this process.
 * pc_video_sniff: 1 when the bytes are a video container by content: ISO-BMFF with a movie brand and no
 * HEIF/AVIF image brand (MOV, MP4, M4V, 3GP), a QuickTime moov/mdat/wide box first, Matroska/WebM (EBML
 * 1A 45 DF A3), AVI (RIFF "AVI "), MPEG-2 TS/M2TS (0x47 sync bytes every 188/192 bytes).
 */
int pc_video_sniff(const uint8_t *data, size_t size);

typedef struct pc_video_info {
    double duration;              /* seconds; 0 when the container does not say */
    int rotation;                 /* degrees clockwise applied from the display matrix: 0, 90, 180, 270 */
    int from_cover;               /* 1 when the poster is the container's cover art (attached_pic) */
    char codec[32];               /* the video stream's codec (libavcodec descriptor name: "h264", "hevc") */
    char creation_date[64];       /* com.apple.quicktime.creationdate as written (ISO 8601, local with offset) */
    char creation_time[64];       /* creation_time (UTC, ISO 8601) */
    char content_identifier[64];  /* com.apple.quicktime.content.identifier (Live Photo pairing, later) */
    char location[64];            /* ISO 6709 position as written: com.apple.quicktime.location.ISO6709, else
                                     libavformat's `location` (the udta ©xyz atom); parsed in Swift */
} pc_video_info;

/*
 * The poster frame of a video: the cover art if any, else the first keyframe at or after 1 s (10 % of the
 * duration for clips shorter than 10 s; the last keyframe before it when none follows), decoded with
 * AVDISCARD_NONKEY and lowres where the decoder allows, rotated by the display matrix, as RGB24 whose long
 * edge is >= target_edge (out->pixels; stored_width/height the frame size after rotation). Bounded: 64 MB
 * read, 20000 packets, 10 s wall clock; frames over max_pixels PC_TOO_LARGE, over the budget
 * PC_OVER_BUDGET, before decoding. Errors: PC_CORRUPT "no decodable video frame within 64 MB of the file".
 */
pc_status pc_video_decode(const uint8_t *data, size_t size, const pc_decode_options *options, pc_video_info *info,
                          pc_decoded *out, pc_messages *messages);

/* "libavformat 59.27.100, libavcodec 59.37.100, ..." into out, for `photos --version`. */
void pc_video_version(char *out, size_t capacity);

#endif
