/*
 * HEIF/HEIC and AVIF decoding with libheif (heif.h). No setjmp is needed: libheif reports
 * every failure as a struct heif_error, turned here into pc_status + message.
 *
 * Which image: the primary image (heif_context_get_primary_image_handle), so a burst or a
 * Live Photo still gives its cover image. Which size: the first thumbnail of the primary
 * image whose long edge (after its transformations) is at least target_edge, else the primary
 * image itself (libheif 1.15 decodes a grid image whole: there is no region decode). The
 * decoded image is box-reduced by an integer factor into the reduced buffer, alpha flattened
 * onto white (reduce.c), then its ICC profile (colr 'prof'/'rICC') is applied (color.c).
 *
 * Orientation: heif_decode_image applies the irot/imir/clap transformative properties
 * (ISO/IEC 23008-12 §6.5.10-12) itself, and HEIF says those, not EXIF Orientation, govern
 * display (§6.5: EXIF orientation is informative): the pixels returned are upright and
 * stored_width/height are the upright size; EXIF Orientation is never applied on top.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "heifapi.h" /* libheif, loaded on first use */
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "messages.h"
#include "reduce.h"
#include "color.h"
#include "hevcvui.h"
#include "heifcheck.h"
#include "hdr.h"
#include "decoder.h"

/* Largest EXIF or XMP block copied out of a HEIF file, bytes (as PNG's eXIf limit). */
#define PC_HEIF_METADATA_MAX (1u << 20)
/*
 * Bytes one pixel costs while libheif decodes it: the YCbCr planes (1.5 bytes at 4:2:0, 3 at
 * 4:4:4, at 8 bits) and the interleaved RGB(A) image it converts them to (3 or 4). The
 * product with the pixel count is held against PC_DECODE_BUDGET_BYTES before decoding.
 */
#define PC_HEIF_BYTES_PER_PIXEL 7

/*
 * Large HEIF images (a 48 MP phone HEIC without a thumbnail of 120 pixels: 8064x6048 x 7 bytes
 * = 326 MB) are over the per-worker budget, and libheif 1.15 has no region or tile decode
 * (a grid is assembled whole inside heif_decode_image; its tiles are hidden items the public
 * API does not hand out). Such an image is decoded under one process-wide lock with a budget of
 * its own, PC_HEIF_LARGE_BUDGET_MB: one large decode at a time, whatever --jobs says, so an
 * import's decode memory stays within jobs x PC_DECODE_BUDGET_MB + PC_HEIF_LARGE_BUDGET_MB
 * (measured: a 48 MP HEIC's decode peaks at about 300 MB resident, Benchmarks/formats.sh).
 * 400 MB covers 57 megapixels at 7 bytes each (every 48 and 50 MP phone sensor); a larger HEIF
 * without a thumbnail is refused as before.
 */
#define PC_HEIF_LARGE_BUDGET_MB 400
#define PC_HEIF_LARGE_BUDGET_BYTES ((uint64_t)PC_HEIF_LARGE_BUDGET_MB << 20)
/*
 * ...and only when the file is big enough for its size: at most PC_HEIF_LARGE_BYTES_PER_BYTE
 * bytes of decode memory per byte of file, so memory stays bounded by the bytes given, not by
 * the sizes a file declares (a 10 KB file declaring 48 MP gets the 100 MB budget only). Real
 * photos need far less: a 48 MP phone HEIC is 2-8 MB, 40-160 decode bytes per file byte; at
 * 512 a 48 MP HEIC must have at least 0.64 MB, which even a plain sky at low quality has.
 */
#define PC_HEIF_LARGE_BYTES_PER_BYTE 512
/*
 * The large-decode slot is held by the process that decodes: with the decode in the decoder
 * process (pc_heif_decode_isolated, photos-decoder) that is the helper, so the mutex lives in a
 * shared memfd made once by the importing process and passed to every helper (PC_DECODER_LOCK_FD),
 * process-shared and robust (a helper that dies holding it leaves it to the next one, EOWNERDEAD,
 * instead of deadlocking every later large decode). A private mutex when the memfd cannot be made.
 */
static pthread_mutex_t pc_heif_large_private = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *pc_heif_large_decode = &pc_heif_large_private;
static pthread_once_t pc_heif_large_once = PTHREAD_ONCE_INIT;

static int pc_heif_large_fd = -1; /* the memfd holding the mutex, passed to each decoder process */
static int pc_heif_large_adopted;  /* 1 in photos-decoder: the mutex is the importing process's */

static void pc_heif_large_init(void) {
    int fd = memfd_create("photos-heif-large-decode", MFD_CLOEXEC);
    if (fd < 0) return;
    void *shared = MAP_FAILED;
    if (ftruncate(fd, sizeof(pthread_mutex_t)) == 0)
        shared = mmap(NULL, sizeof(pthread_mutex_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (shared == MAP_FAILED) { close(fd); return; }
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
    if (pthread_mutex_init(shared, &attributes) == 0) { pc_heif_large_decode = shared; pc_heif_large_fd = fd; }
    else { munmap(shared, sizeof(pthread_mutex_t)); close(fd); }
    pthread_mutexattr_destroy(&attributes);
}

/* In photos-decoder: the importing process's mutex, from the memfd at lock_fd (else a private one). */
static void pc_heif_large_adopt(int lock_fd) {
    struct stat st;
    if (fstat(lock_fd, &st) == 0 && st.st_size == (off_t)sizeof(pthread_mutex_t)) {
        void *shared = mmap(NULL, sizeof(pthread_mutex_t), PROT_READ | PROT_WRITE, MAP_SHARED, lock_fd, 0);
        if (shared != MAP_FAILED) pc_heif_large_decode = shared;
    }
    pc_heif_large_adopted = 1;
}

static void pc_heif_large_lock(void) {
    if (!pc_heif_large_adopted) pthread_once(&pc_heif_large_once, pc_heif_large_init);
    if (pthread_mutex_lock(pc_heif_large_decode) == EOWNERDEAD) pthread_mutex_consistent(pc_heif_large_decode);
}

static pc_status pc_heif_fail(struct heif_error e, const char *what, pc_messages *m) {
    char text[PC_MESSAGE_CAPACITY];
    snprintf(text, sizeof text, "%s: %s", what, e.message != NULL ? e.message : "libheif error");
    pc_set_error(m, text);
    switch (e.code) {
    case heif_error_Memory_allocation_error: return PC_NO_MEMORY;
    case heif_error_Unsupported_feature:
    case heif_error_Unsupported_filetype:
        return PC_UNSUPPORTED;
    default:
        return e.subcode == heif_suberror_Security_limit_exceeded ? PC_OVER_BUDGET : PC_CORRUPT;
    }
}

/* Copies the first metadata block of `type` (and, for "mime", `content_type`). */
static void pc_heif_metadata(const struct heif_image_handle *h, const char *type, const char *content_type,
                             uint8_t **out, size_t *out_size) {
    heif_item_id ids[8];
    int n = heif_image_handle_get_list_of_metadata_block_IDs(h, type, ids, 8);
    for (int i = 0; i < n && *out == NULL; i++) {
        if (content_type != NULL) {
            const char *ct = heif_image_handle_get_metadata_content_type(h, ids[i]);
            if (ct == NULL || strcmp(ct, content_type) != 0) continue;
        }
        size_t size = heif_image_handle_get_metadata_size(h, ids[i]);
        if (size == 0 || size > PC_HEIF_METADATA_MAX) continue;
        uint8_t *buffer = malloc(size);
        if (buffer == NULL) return;
        struct heif_error e = heif_image_handle_get_metadata(h, ids[i], buffer);
        if (e.code != heif_error_Ok) { free(buffer); continue; }
        if (content_type == NULL) {
            /* ISO/IEC 23008-12 Annex A.2.1: 4-byte offset to the TIFF header, then the Exif data. */
            if (size < 4) { free(buffer); continue; }
            uint32_t skip = (uint32_t)buffer[0] << 24 | (uint32_t)buffer[1] << 16 | (uint32_t)buffer[2] << 8 | buffer[3];
            if (skip > size - 4) { free(buffer); continue; }
            size_t start = 4 + skip;
            /* Some writers put "Exif\0\0" before the TIFF header and count it in or not. */
            if (size - start >= 6 && memcmp(buffer + start, "Exif\0\0", 6) == 0) start += 6;
            memmove(buffer, buffer + start, size - start);
            size -= start;
        }
        *out = buffer;
        *out_size = size;
    }
}

/*
 * Converts RGB pixels in place from the colour space an nclx description names (ISO/IEC 23091-2
 * code points, chromaticities as libheif fills them) to sRGB: a matrix/TRC profile of its
 * primaries and its transfer curve (sRGB, BT.709 family, linear); PQ/HLG (HDR) and unknown
 * curves are left as they are, and so is BT.709 with the BT.709 curve (what encoders write
 * for sRGB content).
 */
static void pc_heif_apply_nclx(const struct heif_color_profile_nclx *nclx, uint8_t *pixels, size_t count_px,
                               pc_messages *messages) {
    int curve = -1;
    switch (nclx->transfer_characteristics) {
    case heif_transfer_characteristic_IEC_61966_2_1:
    case heif_transfer_characteristic_unspecified:
        curve = PC_CURVE_SRGB;
        break;
    case heif_transfer_characteristic_ITU_R_BT_709_5:
    case heif_transfer_characteristic_ITU_R_BT_601_6:
    case heif_transfer_characteristic_ITU_R_BT_2020_2_10bit:
    case heif_transfer_characteristic_ITU_R_BT_2020_2_12bit:
        curve = PC_CURVE_BT709;
        break;
    case heif_transfer_characteristic_linear:
        curve = PC_CURVE_LINEAR;
        break;
    default:
        break;
    }
    if (curve < 0 || nclx->color_primary_white_x <= 0 || nclx->color_primary_white_y <= 0) return;
    const double p[6] = { nclx->color_primary_red_x, nclx->color_primary_red_y, nclx->color_primary_green_x,
                          nclx->color_primary_green_y, nclx->color_primary_blue_x, nclx->color_primary_blue_y };
    int srgb_primaries = p[0] > 0.635 && p[0] < 0.645 && p[3] > 0.595 && p[3] < 0.605 && p[4] > 0.145 && p[4] < 0.155;
    if (srgb_primaries && curve == PC_CURVE_BT709) return;
    (void)pc_color_apply_primaries(nclx->color_primary_white_x, nclx->color_primary_white_y, p, curve, 0, pixels,
                                   count_px, messages);
}

/*
 * The chromaticities of ISO/IEC 23091-2 (= ITU-T H.273) ColourPrimaries code `code` (Table 2),
 * white point first, into `n`. 0 for codes without chromaticities here (0, 2 unspecified, 3
 * reserved, 10 CIE XYZ, others).
 */
static int pc_heif_primaries(int code, struct heif_color_profile_nclx *n) {
    static const struct { int code; double v[8]; } table[] = {
        /* white x, y; red x, y; green x, y; blue x, y */
        { 1, { 0.3127, 0.3290, 0.640, 0.330, 0.300, 0.600, 0.150, 0.060 } },  /* BT.709, sRGB */
        { 4, { 0.310, 0.316, 0.67, 0.33, 0.21, 0.71, 0.14, 0.08 } },           /* BT.470 System M */
        { 5, { 0.3127, 0.3290, 0.64, 0.33, 0.29, 0.60, 0.15, 0.06 } },         /* BT.470 B/G, BT.601 625 */
        { 6, { 0.3127, 0.3290, 0.630, 0.340, 0.310, 0.595, 0.155, 0.070 } },  /* BT.601 525, SMPTE 170M */
        { 7, { 0.3127, 0.3290, 0.630, 0.340, 0.310, 0.595, 0.155, 0.070 } },  /* SMPTE 240M */
        { 8, { 0.310, 0.316, 0.681, 0.319, 0.243, 0.692, 0.145, 0.049 } },     /* generic film */
        { 9, { 0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046 } },  /* BT.2020, BT.2100 */
        { 11, { 0.314, 0.351, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060 } },   /* SMPTE RP 431-2 (DCI-P3) */
        { 12, { 0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060 } }, /* SMPTE EG 432-1 (Display P3) */
        { 22, { 0.3127, 0.3290, 0.630, 0.340, 0.295, 0.605, 0.155, 0.077 } }, /* EBU Tech. 3213-E */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].code != code) continue;
        const double *v = table[i].v;
        n->color_primaries = (enum heif_color_primaries)code;
        n->color_primary_white_x = (float)v[0]; n->color_primary_white_y = (float)v[1];
        n->color_primary_red_x = (float)v[2]; n->color_primary_red_y = (float)v[3];
        n->color_primary_green_x = (float)v[4]; n->color_primary_green_y = (float)v[5];
        n->color_primary_blue_x = (float)v[6]; n->color_primary_blue_y = (float)v[7];
        return 1;
    }
    return 0;
}

/*
 * The HDR decode: 16-bit little-endian interleaved RGB(A) (the stream's bit depth, 10 or 12, in the
 * low bits; heif_image_get_bits_per_pixel_range), each row scaled to 0...1 floats and added to a
 * float box reduction, then PQ/HLG tone-mapped to 8-bit sRGB (hdr.c pc_hdr_to_srgb).
 */
static pc_status pc_heif_decode_hdr(const struct heif_image_handle *chosen, int alpha, const pc_decode_options *options,
                                    int transfer, const double *xy, struct heif_decoding_options *decoding,
                                    pc_decoded *out, pc_messages *messages) {
    struct heif_image *image = NULL;
    pc_fbox box;
    memset(&box, 0, sizeof box);
    float *row = NULL;
    pc_status status = PC_OK;
    struct heif_error e = heif_decode_image(chosen, &image, heif_colorspace_RGB,
                                            alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE,
                                            decoding);
    if (e.code != heif_error_Ok) return pc_heif_fail(e, "HEIF image cannot be decoded", messages);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int iw = heif_image_get_width(image, heif_channel_interleaved), ih = heif_image_get_height(image, heif_channel_interleaved);
    int bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    int channels = alpha ? 4 : 3;
    if (plane == NULL || iw <= 0 || ih <= 0 || bits < 1 || bits > 16 || stride < iw * channels * 2) {
        pc_set_error(messages, "HEIF image decoded without pixels");
        status = PC_CORRUPT;
        goto done;
    }
    int long_edge = iw > ih ? iw : ih;
    int factor = options->target_edge > 0 ? long_edge / options->target_edge : 1;
    if (factor < 1) factor = 1;
    row = malloc((size_t)iw * (size_t)channels * sizeof(float));
    if (row == NULL || !pc_fbox_init(&box, iw, ih, factor)) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
    float scale = 1.0f / (float)((1u << bits) - 1);
    for (int y = 0; y < ih; y++) {
        const uint8_t *src = plane + (size_t)y * (size_t)stride;
        for (size_t i = 0; i < (size_t)iw * (size_t)channels; i++) row[i] = (float)(src[2 * i] | src[2 * i + 1] << 8) * scale;
        pc_fbox_add(&box, row, channels, 0, (size_t)y, (size_t)iw);
    }
    if (!pc_fbox_finish(&box)) { pc_set_error(messages, "HEIF image decoded without pixels"); status = PC_CORRUPT; goto done; }
    size_t count = (size_t)box.out_width * (size_t)box.out_height;
    out->pixels = malloc(count * 3);
    if (out->pixels == NULL) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
    pc_hdr_to_srgb(box.sums, count, transfer, xy, out->pixels);
    out->width = box.out_width;
    out->height = box.out_height;
    if (out->scale == 1) out->scale = factor;
done:
    free(row);
    pc_fbox_free(&box);
    heif_image_release(image);
    return status;
}

/* The decode itself, in the calling process (see pc_heif_decode). */
static pc_status pc_heif_decode_here(const uint8_t *data, size_t size, const pc_decode_options *options,
                                     pc_decoded *out, pc_messages *messages) {
    memset(out, 0, sizeof *out);
    if (data == NULL || size < 12) { pc_set_error(messages, "not a HEIF file (too short)"); return PC_CORRUPT; }
    /* The item structure and the coded streams' own sizes, checked before libheif reads a byte
     * (heifcheck.h): libheif 1.15 crashes on reference cycles and on grids that do not fit their
     * tiles, and allocates by the coded size whatever ispe says (issue 31 B14, B15). */
    uint32_t over_width = 0, over_height = 0;
    /* PHOTOS_HEIF_UNCHECKED=1 skips the check: only for the test that a decoder crash stays in
     * the child (a reference cycle crashes libheif 1.15 when nothing refuses it first). */
    const char *unchecked = getenv("PHOTOS_HEIF_UNCHECKED");
    pc_status checked = unchecked != NULL && strcmp(unchecked, "1") == 0
                            ? PC_OK
                            : pc_heif_check(data, size, options->max_pixels, &over_width, &over_height, messages);
    if (checked == PC_TOO_LARGE) {
        out->stored_width = over_width > 0x7FFFFFFF ? 0x7FFFFFFF : (int)over_width;
        out->stored_height = over_height > 0x7FFFFFFF ? 0x7FFFFFFF : (int)over_height;
    }
    if (checked != PC_OK) return checked;
    char unavailable[320];
    if (!pc_heif_load(unavailable, sizeof unavailable)) { pc_set_error(messages, unavailable); return PC_UNSUPPORTED; }
    pc_status status = PC_OK;
    struct heif_context *ctx = heif_context_alloc();
    struct heif_image_handle *primary = NULL, *chosen = NULL;
    struct heif_image *image = NULL;
    struct heif_decoding_options *decoding = NULL;
    pc_box box;
    memset(&box, 0, sizeof box);
    uint8_t *icc = NULL;
    int large = 0; /* holds pc_heif_large_decode */
    if (ctx == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    /* libheif's own limit on each edge it accepts (heif_context_set_maximum_image_size_limit),
     * checked while it parses: at most the pixel limit, and at most 2^20 per edge. */
    uint64_t edge_limit = options->max_pixels < (1u << 20) ? options->max_pixels : (1u << 20);
    heif_context_set_maximum_image_size_limit(ctx, (int)(edge_limit > 0 ? edge_limit : 1));
    heif_context_set_max_decoding_threads(ctx, 0); /* import runs one decode per worker already */

    struct heif_error e = heif_context_read_from_memory_without_copy(ctx, data, size, NULL);
    if (e.code != heif_error_Ok) { status = pc_heif_fail(e, "HEIF file cannot be read", messages); goto done; }
    e = heif_context_get_primary_image_handle(ctx, &primary);
    if (e.code != heif_error_Ok) { status = pc_heif_fail(e, "HEIF file has no primary image", messages); goto done; }

    int width = heif_image_handle_get_width(primary), height = heif_image_handle_get_height(primary);
    out->stored_width = width;
    out->stored_height = height;
    if (width <= 0 || height <= 0) { pc_set_error(messages, "HEIF primary image has no size (ispe)"); status = PC_CORRUPT; goto done; }
    if ((uint64_t)width * (uint64_t)height > options->max_pixels) { status = PC_TOO_LARGE; goto done; }

    /* A thumbnail big enough (after its own transformations) saves decoding the whole image. */
    chosen = primary;
    heif_item_id thumbs[16];
    int count = heif_image_handle_get_list_of_thumbnail_IDs(primary, thumbs, 16);
    for (int i = 0; i < count && chosen == primary; i++) {
        struct heif_image_handle *t = NULL;
        if (heif_image_handle_get_thumbnail(primary, thumbs[i], &t).code != heif_error_Ok || t == NULL) continue;
        int tw = heif_image_handle_get_width(t), th = heif_image_handle_get_height(t);
        int long_edge = tw > th ? tw : th;
        /* Same aspect as the primary (±2%), so it is a thumbnail of this picture, and upright alike. */
        int same_shape = tw > 0 && th > 0 &&
                         (double)tw / th > 0.98 * width / height && (double)tw / th < 1.02 * width / height;
        if (options->target_edge > 0 && long_edge >= options->target_edge && same_shape) chosen = t;
        else heif_image_handle_release(t);
    }
    out->scale = chosen == primary ? 1 : 0; /* 0: decoded from the embedded thumbnail */
    int cw = heif_image_handle_get_width(chosen), ch = heif_image_handle_get_height(chosen);
    int alpha = heif_image_handle_has_alpha_channel(chosen);
    /*
     * HDR (issue 24 item 6): a PQ or HLG transfer in the primary's nclx colr box, or in its ICC
     * profile's cicp tag, decodes at the stream's bit depth (heif_chroma_interleaved_RRGGBB_LE,
     * 16 bits per sample) into a float box reduction and is tone-mapped to sRGB (hdr.c); its
     * decode costs 3 bytes more per pixel (16-bit instead of 8-bit RGB).
     */
    int hdr_transfer = 0, hdr_have_xy = 0;
    double hdr_xy[8];
    if (!options->ignore_icc) {
        struct heif_color_profile_nclx *probe = NULL;
        size_t probe_icc = heif_image_handle_get_raw_color_profile_size(primary);
        if (heif_image_handle_get_nclx_color_profile(primary, &probe).code == heif_error_Ok && probe != NULL) {
            if (pc_hdr_transfer(probe->transfer_characteristics)) {
                hdr_transfer = probe->transfer_characteristics;
                hdr_have_xy = pc_hdr_primaries(probe->color_primaries, hdr_xy);
            }
            heif_nclx_color_profile_free(probe);
        } else if (probe_icc > 0 && probe_icc <= PC_ICC_MAX_BYTES && (icc = malloc(probe_icc)) != NULL) {
            int cicp_primaries = 0, cicp_transfer = 0;
            if (heif_image_handle_get_raw_color_profile(primary, icc).code == heif_error_Ok &&
                pc_icc_cicp(icc, probe_icc, &cicp_primaries, &cicp_transfer) && pc_hdr_transfer(cicp_transfer)) {
                hdr_transfer = cicp_transfer;
                hdr_have_xy = pc_hdr_primaries(cicp_primaries, hdr_xy);
            }
            free(icc);
            icc = NULL;
        }
    }
    uint64_t needed = (uint64_t)cw * (uint64_t)ch * (PC_HEIF_BYTES_PER_PIXEL + (hdr_transfer ? 3 : 0));
    if (needed > PC_HEIF_LARGE_BUDGET_BYTES) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "decoding this %dx%d HEIF image needs %llu MB, over the %d MB a large HEIF decode may take (it has no thumbnail of at least %d pixels)",
                 cw, ch, (unsigned long long)((needed + (1u << 20) - 1) >> 20), PC_HEIF_LARGE_BUDGET_MB, options->target_edge);
        pc_set_error(messages, text);
        status = PC_OVER_BUDGET;
        goto done;
    }
    if (needed > PC_DECODE_BUDGET_BYTES && needed / PC_HEIF_LARGE_BYTES_PER_BYTE > (uint64_t)size) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "decoding this %dx%d HEIF image needs %llu MB, over the per-worker decode budget of %d MB, and a file of %zu bytes may take at most %d bytes per byte (it has no thumbnail of at least %d pixels)",
                 cw, ch, (unsigned long long)((needed + (1u << 20) - 1) >> 20), PC_DECODE_BUDGET_MB, size,
                 PC_HEIF_LARGE_BYTES_PER_BYTE, options->target_edge);
        pc_set_error(messages, text);
        status = PC_OVER_BUDGET;
        goto done;
    }
    if (needed > PC_DECODE_BUDGET_BYTES) {
        /* Over the per-worker budget: wait for the one large-decode slot (held until done). */
        pc_heif_large_lock();
        large = 1;
    }
    decoding = heif_decoding_options_alloc();
    if (hdr_transfer) {
        status = pc_heif_decode_hdr(chosen, alpha, options, hdr_transfer, hdr_have_xy ? hdr_xy : NULL, decoding, out,
                                    messages);
        if (status == PC_OK) {
            pc_heif_metadata(primary, "Exif", NULL, &out->exif, &out->exif_size);
            pc_heif_metadata(primary, "mime", "application/rdf+xml", &out->xmp, &out->xmp_size);
        }
        goto done;
    }
    /* Decoded at 8 bits per channel, transformations (irot/imir/clap) applied: libheif's default. */
    e = heif_decode_image(chosen, &image, heif_colorspace_RGB,
                          alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, decoding);
    if (e.code != heif_error_Ok) { status = pc_heif_fail(e, "HEIF image cannot be decoded", messages); goto done; }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int iw = heif_image_get_width(image, heif_channel_interleaved), ih = heif_image_get_height(image, heif_channel_interleaved);
    if (plane == NULL || iw <= 0 || ih <= 0) { pc_set_error(messages, "HEIF image decoded without pixels"); status = PC_CORRUPT; goto done; }
    int long_edge = iw > ih ? iw : ih;
    int factor = options->target_edge > 0 ? long_edge / options->target_edge : 1;
    if (factor < 1) factor = 1;
    if (!pc_box_init(&box, iw, ih, alpha ? 4 : 3, factor)) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
    for (int y = 0; y < ih; y++) pc_box_add_row(&box, plane + (size_t)y * (size_t)stride);
    out->pixels = box.out;
    box.out = NULL;
    out->width = box.out_width;
    out->height = box.out_height;
    if (out->scale == 1) out->scale = factor;

    /*
     * Colour: an ICC profile in a colr box ('prof'/'rICC') is applied; otherwise an nclx colr box
     * (ISO/IEC 23091-2 code points) whose primaries are not sRGB's (BT.709) is converted through
     * a matrix/TRC profile of those primaries and its transfer curve (sRGB, BT.709 family, linear);
     * PQ/HLG (HDR) were tone-mapped above (pc_heif_decode_hdr). Without any colr box, the same from the
     * colour description in the HEVC stream's VUI (hevcvui.c), which libheif 1.15 does not
     * report; an AV1 stream's own colour config is not read (AVIF writers put a colr nclx box).
     */
    size_t count_px = (size_t)out->width * (size_t)out->height;
    size_t icc_size = options->ignore_icc ? 0 : heif_image_handle_get_raw_color_profile_size(primary);
    struct heif_color_profile_nclx *nclx = NULL;
    if (icc_size > 0 && icc_size <= PC_ICC_MAX_BYTES && (icc = malloc(icc_size)) != NULL &&
        heif_image_handle_get_raw_color_profile(primary, icc).code == heif_error_Ok) {
        (void)pc_color_apply_icc(icc, icc_size, PC_LAYOUT_RGB, out->pixels, out->pixels, count_px, messages);
    } else if (!options->ignore_icc && heif_image_handle_get_nclx_color_profile(primary, &nclx).code == heif_error_Ok && nclx != NULL) {
        pc_heif_apply_nclx(nclx, out->pixels, count_px, messages);
        heif_nclx_color_profile_free(nclx);
    } else if (!options->ignore_icc) {
        /* No colr box at all: the colour description of the HEVC stream's VUI, if it has one. */
        pc_vui_colour vui;
        if (pc_hevc_vui_colour(data, size, &vui) &&
            (nclx = heif_nclx_color_profile_alloc()) != NULL) {
            /* (heif_nclx_color_profile_set_color_primaries sets the code only, not the chromaticities.) */
            nclx->transfer_characteristics = (enum heif_transfer_characteristics)vui.transfer_characteristics;
            if (pc_heif_primaries(vui.colour_primaries, nclx)) pc_heif_apply_nclx(nclx, out->pixels, count_px, messages);
            heif_nclx_color_profile_free(nclx);
        }
    }
    pc_heif_metadata(primary, "Exif", NULL, &out->exif, &out->exif_size);
    pc_heif_metadata(primary, "mime", "application/rdf+xml", &out->xmp, &out->xmp_size);

done:
    free(icc);
    pc_box_free(&box);
    free(box.out);
    if (image != NULL) heif_image_release(image);
    if (decoding != NULL) heif_decoding_options_free(decoding);
    if (chosen != NULL && chosen != primary) heif_image_handle_release(chosen);
    if (primary != NULL) heif_image_handle_release(primary);
    heif_context_free(ctx);
    if (large) pthread_mutex_unlock(pc_heif_large_decode);
    if (status != PC_OK) {
        free(out->pixels); out->pixels = NULL;
        free(out->exif); out->exif = NULL; out->exif_size = 0;
        free(out->xmp); out->xmp = NULL; out->xmp_size = 0;
    }
    return status;
}

/*
 * Decoding untrusted HEIF/AVIF in the decoder process (issue 31 B14): libheif 1.15 and its codecs
 * (libde265, libdav1d/libaom) are C/C++ handed hostile bytes; heifcheck.c refuses the structures
 * known to crash them, and this contains what is not known yet: photos-decoder (decoder.h, started
 * with posix_spawn for each file, the file's bytes in a sealed memfd) runs pc_heif_decode_here and
 * writes its result to a pipe; a helper that dies (SIGSEGV, SIGABRT, a stack overflow), or that
 * takes longer than PC_HEIF_CHILD_SECONDS, fails this file as corrupt and the import goes on. It
 * is a program of its own, not a fork(2) of the importing process: a child of a multi-threaded
 * process may call only async-signal-safe functions until it execs (POSIX fork(2)), and libheif's
 * malloc, locale and C++ runtime calls are not (raw.c's forked LibRaw hung on glibc's locks).
 * The importing process still loads libheif (pc_heif_load, no context) so that a libheif that
 * cannot be used fails the file at once with its reason.
 * PHOTOS_HEIF_IN_PROCESS=1 decodes in the calling process instead (measurements).
 */
#define PC_HEIF_CHILD_SECONDS 120

typedef struct pc_heif_reply {
    int status, width, height, stored_width, stored_height, scale, warning_count;
    uint64_t pixels_size, exif_size, xmp_size;
    char error[PC_MESSAGE_CAPACITY];
    char warnings[PC_WARNINGS_CAPACITY];
} pc_heif_reply;

static int pc_heif_write_all(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return 0;
        b += k;
        n -= (size_t)k;
    }
    return 1;
}

/* Reads n bytes before `deadline` (CLOCK_MONOTONIC seconds); 0 on EOF, error or time out. */
static int pc_heif_read_all(int fd, void *p, size_t n, double deadline) {
    uint8_t *b = p;
    while (n > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = deadline - (now.tv_sec + now.tv_nsec / 1e9);
        if (left <= 0) return 0;
        struct pollfd poller = { fd, POLLIN, 0 };
        int ready = poll(&poller, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return 0;
        ssize_t k = read(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return 0;
        b += k;
        n -= (size_t)k;
    }
    return 1;
}

/* The decoder process's side (decoder.h): decodes here, in photos-decoder, and writes the reply. */
int pc_heif_serve(const uint8_t *data, size_t size, const pc_decode_options *options, int reply_fd, int lock_fd) {
    pc_heif_large_adopt(lock_fd);
    pc_decoded result;
    pc_messages m;
    memset(&m, 0, sizeof m);
    pc_heif_reply reply;
    memset(&reply, 0, sizeof reply);
    reply.status = pc_heif_decode_here(data, size, options, &result, &m);
    reply.width = result.width; reply.height = result.height;
    reply.stored_width = result.stored_width; reply.stored_height = result.stored_height;
    reply.scale = result.scale;
    reply.pixels_size = result.pixels != NULL ? (uint64_t)result.width * result.height * 3 : 0;
    reply.exif_size = result.exif != NULL ? result.exif_size : 0;
    reply.xmp_size = result.xmp != NULL ? result.xmp_size : 0;
    memcpy(reply.error, m.error, sizeof reply.error);
    memcpy(reply.warnings, m.warnings, sizeof reply.warnings);
    reply.warning_count = m.warning_count;
    return pc_heif_write_all(reply_fd, &reply, sizeof reply) &&
           (reply.pixels_size == 0 || pc_heif_write_all(reply_fd, result.pixels, (size_t)reply.pixels_size)) &&
           (reply.exif_size == 0 || pc_heif_write_all(reply_fd, result.exif, (size_t)reply.exif_size)) &&
           (reply.xmp_size == 0 || pc_heif_write_all(reply_fd, result.xmp, (size_t)reply.xmp_size));
}

static pc_status pc_heif_decode_isolated(const uint8_t *data, size_t size, const pc_decode_options *options,
                                         pc_decoded *out, pc_messages *messages) {
    memset(out, 0, sizeof *out);
    /* Loaded here too (the dynamic loader's work only, no libheif context): a libheif that cannot be
     * used fails the file with its reason before any process is started. */
    char unavailable[320];
    if (!pc_heif_load(unavailable, sizeof unavailable)) { pc_set_error(messages, unavailable); return PC_UNSUPPORTED; }
    pthread_once(&pc_heif_large_once, pc_heif_large_init);
    pid_t pid = 0;
    int reply_fd = -1;
    if (!pc_decoder_start(PC_DECODER_HEIF, data, size, options, pc_heif_large_fd, &pid, &reply_fd, messages))
        return PC_UNSUPPORTED;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double deadline = start.tv_sec + start.tv_nsec / 1e9 + PC_HEIF_CHILD_SECONDS;
    pc_heif_reply reply;
    pc_status status = PC_CORRUPT;
    int complete = pc_heif_read_all(reply_fd, &reply, sizeof reply, deadline);
    if (complete) {
        /* The helper handled hostile bytes: its sizes are checked before they size anything. */
        reply.error[sizeof reply.error - 1] = '\0';
        reply.warnings[sizeof reply.warnings - 1] = '\0';
        int sane = reply.width >= 0 && reply.height >= 0 && reply.width <= (1 << 20) && reply.height <= (1 << 20) &&
                   reply.pixels_size == (uint64_t)reply.width * reply.height * 3 &&
                   reply.pixels_size <= PC_DECODE_BUDGET_BYTES && reply.exif_size <= PC_HEIF_METADATA_MAX &&
                   reply.xmp_size <= PC_HEIF_METADATA_MAX && (reply.status == PC_OK) == (reply.pixels_size > 0);
        if (sane && reply.pixels_size > 0) {
            out->pixels = malloc((size_t)reply.pixels_size);
            out->exif = reply.exif_size > 0 ? malloc((size_t)reply.exif_size) : NULL;
            out->xmp = reply.xmp_size > 0 ? malloc((size_t)reply.xmp_size) : NULL;
            if (out->pixels == NULL || (reply.exif_size > 0 && out->exif == NULL) || (reply.xmp_size > 0 && out->xmp == NULL)) {
                status = PC_NO_MEMORY;
                complete = 0;
                pc_set_error(messages, "out of memory");
            } else {
                complete = pc_heif_read_all(reply_fd, out->pixels, (size_t)reply.pixels_size, deadline) &&
                           (reply.exif_size == 0 || pc_heif_read_all(reply_fd, out->exif, (size_t)reply.exif_size, deadline)) &&
                           (reply.xmp_size == 0 || pc_heif_read_all(reply_fd, out->xmp, (size_t)reply.xmp_size, deadline));
            }
        } else if (!sane) {
            complete = 0;
        }
    }
    close(reply_fd);
    int wstatus = 0;
    if (!complete) kill(pid, SIGKILL); /* (a no-op for a child that is gone already) */
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    if (complete) {
        status = (pc_status)reply.status;
        out->width = reply.width; out->height = reply.height;
        out->stored_width = reply.stored_width; out->stored_height = reply.stored_height;
        out->scale = reply.scale;
        out->exif_size = (size_t)reply.exif_size;
        out->xmp_size = (size_t)reply.xmp_size;
        if (reply.error[0] != '\0') pc_set_error(messages, reply.error);
        if (reply.warnings[0] != '\0') {
            strncpy(messages->warnings, reply.warnings, sizeof messages->warnings - 1);
            messages->warning_count = reply.warning_count;
        }
    } else if (status != PC_NO_MEMORY) {
        char text[PC_MESSAGE_CAPACITY];
        if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) != SIGKILL)
            snprintf(text, sizeof text, "the HEIF decoder crashed on this file (signal %d, %s)", WTERMSIG(wstatus),
                     strsignal(WTERMSIG(wstatus)));
        else if (WIFSIGNALED(wstatus))
            snprintf(text, sizeof text, "the HEIF decoder did not finish this file in %d s", PC_HEIF_CHILD_SECONDS);
        else
            snprintf(text, sizeof text, "the HEIF decoder gave no usable result for this file");
        pc_set_error(messages, text);
        status = PC_CORRUPT;
    }
    if (status != PC_OK) {
        free(out->pixels); out->pixels = NULL;
        free(out->exif); out->exif = NULL; out->exif_size = 0;
        free(out->xmp); out->xmp = NULL; out->xmp_size = 0;
    }
    return status;
}

pc_status pc_heif_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                         pc_decoded *out, pc_messages *messages) {
    const char *here = getenv("PHOTOS_HEIF_IN_PROCESS");
    if (here != NULL && strcmp(here, "1") == 0) return pc_heif_decode_here(data, size, options, out, messages);
    return pc_heif_decode_isolated(data, size, options, out, messages);
}

/* heif_context_write's callback (called once with the whole file in libheif 1.15; appends anyway). */
typedef struct pc_heif_buffer { uint8_t *data; size_t size; } pc_heif_buffer;

static struct heif_error pc_heif_collect(struct heif_context *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    pc_heif_buffer *b = userdata;
    uint8_t *grown = realloc(b->data, b->size + size);
    if (grown == NULL) {
        struct heif_error e = { heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory" };
        return e;
    }
    memcpy(grown + b->size, data, size);
    b->data = grown;
    b->size += size;
    struct heif_error ok = { heif_error_Ok, heif_suberror_Unspecified, "" };
    return ok;
}

/* Test helper: see CImageCodec.h. */
pc_status pc_heif_encode_test(const uint8_t *rgb, int width, int height, int av1, int quality, int orientation,
                              int thumbnail_edge, const uint8_t *exif, size_t exif_size,
                              const uint8_t *icc, size_t icc_size, int nclx_primaries,
                              uint8_t **out, size_t *out_size, pc_messages *m) {
    *out = NULL;
    *out_size = 0;
    char unavailable[320];
    if (!pc_heif_load(unavailable, sizeof unavailable)) { pc_set_error(m, unavailable); return PC_UNSUPPORTED; }
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL;
    struct heif_encoding_options *eo = heif_encoding_options_alloc();
    struct heif_color_profile_nclx *nclx = NULL;
    pc_status status = PC_OK;
    struct heif_error e = heif_context_get_encoder_for_format(ctx, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (e.code != heif_error_Ok) { status = pc_heif_fail(e, "no encoder", m); goto done; }
    heif_encoder_set_lossy_quality(encoder, quality);
    e = heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image);
    if (e.code == heif_error_Ok) e = heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
    if (e.code != heif_error_Ok) { status = pc_heif_fail(e, "image", m); goto done; }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) memcpy(plane + (size_t)y * stride, rgb + (size_t)y * width * 3, (size_t)width * 3);
    if (icc != NULL && icc_size > 0) heif_image_set_raw_color_profile(image, "prof", icc, icc_size);
    eo->image_orientation = (enum heif_orientation)(orientation >= 1 && orientation <= 8 ? orientation : 1);
    if (nclx_primaries > 0 && (nclx = heif_nclx_color_profile_alloc()) != NULL) {
        heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)nclx_primaries);
        heif_nclx_color_profile_set_transfer_characteristics(nclx, heif_transfer_characteristic_IEC_61966_2_1);
        heif_nclx_color_profile_set_matrix_coefficients(nclx, heif_matrix_coefficients_ITU_R_BT_601_6);
        nclx->full_range_flag = 1;
        eo->output_nclx_profile = nclx;
        heif_image_set_nclx_color_profile(image, nclx);
    }
    e = heif_context_encode_image(ctx, image, encoder, eo, &handle);
    if (e.code != heif_error_Ok) { status = pc_heif_fail(e, "encode", m); goto done; }
    if (thumbnail_edge > 0) {
        e = heif_context_encode_thumbnail(ctx, image, handle, encoder, eo, thumbnail_edge, NULL);
        if (e.code != heif_error_Ok) { status = pc_heif_fail(e, "thumbnail", m); goto done; }
    }
    if (exif != NULL && exif_size > 0) heif_context_add_exif_metadata(ctx, handle, exif, (int)exif_size);
    pc_heif_buffer buffer = { NULL, 0 };
    struct heif_writer writer = { 1, pc_heif_collect };
    e = heif_context_write(ctx, &writer, &buffer);
    if (e.code != heif_error_Ok) { free(buffer.data); status = pc_heif_fail(e, "write", m); goto done; }
    *out = buffer.data;
    *out_size = buffer.size;
done:
    if (handle != NULL) heif_image_handle_release(handle);
    if (image != NULL) heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    heif_encoding_options_free(eo);
    if (nclx != NULL) heif_nclx_color_profile_free(nclx);
    heif_context_free(ctx);
    return status;
}

