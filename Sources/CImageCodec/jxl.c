/*
 * JPEG XL (ISO/IEC 18181) with libjxl's decoder API (jxl/decode.h, libjxl 0.7), issue 24 item 5.
 *
 * pc_jxl_jpeg: a JXL that losslessly recompresses a JPEG (a `jbrd` box, ISO/IEC 18181-2 §9.1)
 * is given back as that JPEG (JXL_DEC_JPEG_RECONSTRUCTION, JxlDecoderSetJPEGBuffer), which the
 * caller decodes on the JPEG path: the thumbnail is byte for byte the JPEG's.
 *
 * pc_jxl_decode: every other JXL is decoded as float RGB(A) through JxlDecoderSetImageOutCallback:
 * no full-size output buffer, each stripe added to a float box reduction (hdr.h pc_fbox) at
 * once. The smallest progressive pass: libjxl 0.7 has JXL_DEC_FRAME_PROGRESSION and
 * JxlDecoderSetProgressiveDetail (default detail kDC), and at that event JxlDecoderFlushImage
 * hands out the DC (1/8 resolution) image upsampled to full size; a frame whose DC pass keeps
 * target_edge could stop there, the AC data never decoded. Measured on 6 bench photos (2572x1740
 * to 6028x3391, cjxl -q 90 -e 3), one decode at a time: 3.01 s with the DC stop, 2.46 s without
 * (the flush renders the whole upsampled image, and the decode of the AC groups was not the cost),
 * so it is used only with options->progressive_dc_only and PHOTOS_JXL_DC_PASS=1 (measurements,
 * tests). Lossless (modular) frames have no such pass.
 *
 * Orientation: JxlDecoderSetKeepOrientation(TRUE): pixels come in stored orientation and the
 * codestream's orientation (ImageMetadata, ISO/IEC 18181-1 §A.6, JxlBasicInfo.orientation, the
 * EXIF values 1...8) is returned in out->orientation for the caller to apply on the small image.
 * That field governs display; an Exif box's Orientation is informative (18181-2 §9.2: the
 * codestream's orientation takes precedence).
 *
 * Colour: the decoded data's colour encoding (JXL_COLOR_PROFILE_TARGET_DATA). PQ or HLG (the
 * encoded transfer function, or an ICC profile's cicp tag) → hdr.c's tone mapping; otherwise the
 * ICC profile libjxl gives for the data (the file's own, or one it synthesizes from the encoded
 * colour space) is applied with Little CMS (color.c), which passes sRGB through untouched.
 *
 * libjxl has no error messages in its API: a refusal is reported as "libjxl refused it" with the
 * step it was at. Memory: libjxl keeps frame-sized float buffers internally whatever the output
 * (VarDCT and modular decoding); the declared size times PC_JXL_BYTES_PER_PIXEL is held against
 * the per-worker budget before anything is decoded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jxl/decode.h>
#include "CImageCodec.h"
#include "messages.h"
#include "color.h"
#include "hdr.h"

/* Largest Exif or XMP box copied out, bytes (as HEIF's and PNG's limits). */
#define PC_JXL_METADATA_MAX (1u << 20)
/*
 * Bytes of decode memory allowed per declared pixel, held against the per-worker budget before
 * decoding. Measured (peak RSS of a C driver decoding with the image-out callback, the file in
 * memory included; libjxl 0.7, one thread): 6028x3391 lossy VarDCT (cjxl -q 90) 58 MB = 2.8 bytes
 * per pixel, the same image lossless (modular, 21 MB file) 28 MB, 4352x2448 lossy 33 MB. 4 bytes
 * per pixel lets a 26-megapixel JXL in under the 100 MB budget.
 */
#ifndef PC_JXL_BYTES_PER_PIXEL
#define PC_JXL_BYTES_PER_PIXEL 4
#endif

/* Bytes libjxl 0.7 holds per pixel while reconstructing a JPEG (see pc_jxl_jpeg). */
#define PC_JXL_RECONSTRUCTION_BYTES_PER_PIXEL 6

static pc_status pc_jxl_fail(const char *what, pc_messages *m) {
    char text[PC_MESSAGE_CAPACITY];
    snprintf(text, sizeof text, "JPEG XL file is not valid (libjxl refused it %s)", what);
    pc_set_error(m, text);
    return PC_CORRUPT;
}

static pc_status pc_jxl_truncated(pc_messages *m) {
    pc_set_error(m, "JPEG XL file is truncated (libjxl needs more data than the file has)");
    return PC_CORRUPT;
}

static pc_status pc_jxl_check_size(const JxlBasicInfo *info, const pc_decode_options *options, pc_decoded *out,
                                   pc_messages *m) {
    out->stored_width = info->xsize > 0x7FFFFFFF ? 0x7FFFFFFF : (int)info->xsize;
    out->stored_height = info->ysize > 0x7FFFFFFF ? 0x7FFFFFFF : (int)info->ysize;
    if (info->xsize == 0 || info->ysize == 0) return pc_jxl_fail("while reading its size: zero", m);
    if ((uint64_t)info->xsize * info->ysize > options->max_pixels) return PC_TOO_LARGE;
    uint64_t needed = (uint64_t)info->xsize * info->ysize * PC_JXL_BYTES_PER_PIXEL;
    if (needed > PC_DECODE_BUDGET_BYTES) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "decoding this %ux%u JPEG XL image needs about %llu MB, over the per-worker decode budget of %d MB",
                 info->xsize, info->ysize, (unsigned long long)((needed + (1u << 20) - 1) >> 20), PC_DECODE_BUDGET_MB);
        pc_set_error(m, text);
        return PC_OVER_BUDGET;
    }
    return PC_OK;
}

/* 1 when the file is a container holding a `jbrd` box (JPEG bitstream reconstruction data). */
static int pc_jxl_has_jbrd(const uint8_t *data, size_t size) {
    static const uint8_t signature[12] = { 0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A };
    if (size < 12 || memcmp(data, signature, 12) != 0) return 0;
    size_t pos = 0;
    while (size - pos >= 8) {
        uint64_t length = (uint64_t)data[pos] << 24 | (uint64_t)data[pos + 1] << 16 | (uint64_t)data[pos + 2] << 8 | data[pos + 3];
        size_t header = 8;
        if (length == 1) {
            if (size - pos < 16) return 0;
            length = 0;
            for (int i = 0; i < 8; i++) length = length << 8 | data[pos + 8 + i];
            header = 16;
        } else if (length == 0) {
            length = size - pos; /* to the end of the file */
        }
        if (memcmp(data + pos + 4, "jbrd", 4) == 0) return 1;
        if (length < header || length > size - pos) return 0;
        pos += (size_t)length;
    }
    return 0;
}

pc_status pc_jxl_jpeg(const uint8_t *data, size_t size, const pc_decode_options *options, uint8_t **jpeg,
                      size_t *jpeg_size, pc_messages *messages) {
    *jpeg = NULL;
    *jpeg_size = 0;
    if (data == NULL || !pc_jxl_has_jbrd(data, size)) return PC_NOT_HANDLED;
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (dec == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    pc_status status = PC_NOT_HANDLED;
    uint8_t *buffer = NULL;
    size_t capacity = 0;
    /* The JPEG is about as large as the JXL (recompression saves ~20 %); it may have at most
     * 4 times the file's bytes plus 1 MiB, and never more than the per-worker budget. */
    uint64_t limit = (uint64_t)size * 4 + (1u << 20);
    if (limit > PC_DECODE_BUDGET_BYTES) limit = PC_DECODE_BUDGET_BYTES;
    pc_decoded sizes;
    memset(&sizes, 0, sizeof sizes);
    if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_JPEG_RECONSTRUCTION | JXL_DEC_FULL_IMAGE) !=
            JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(dec, data, size) != JXL_DEC_SUCCESS) {
        status = pc_jxl_fail("at the start", messages);
        goto done;
    }
    JxlDecoderCloseInput(dec);
    for (;;) {
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_ERROR) { status = pc_jxl_fail("while reconstructing its JPEG", messages); goto done; }
        if (s == JXL_DEC_NEED_MORE_INPUT) { status = pc_jxl_truncated(messages); goto done; }
        if (s == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo info;
            if (JxlDecoderGetBasicInfo(dec, &info) != JXL_DEC_SUCCESS) { status = pc_jxl_fail("while reading its header", messages); goto done; }
            /* The pixel limit, and libjxl's own memory for the reconstruction (the image's DCT
             * coefficients and more: measured 118 MB peak for a 6028x3391 file, djxl to .jpg, about
             * 6 bytes per pixel) within the per-worker budget; a larger one is decoded to pixels
             * (pc_jxl_decode) instead: a close thumbnail, not the JPEG's bytes. */
            if ((uint64_t)info.xsize * info.ysize > options->max_pixels || info.xsize == 0 || info.ysize == 0 ||
                (uint64_t)info.xsize * info.ysize * PC_JXL_RECONSTRUCTION_BYTES_PER_PIXEL > PC_DECODE_BUDGET_BYTES) {
                status = PC_NOT_HANDLED; /* the pixel decode refuses it with the size */
                goto done;
            }
        } else if (s == JXL_DEC_JPEG_RECONSTRUCTION) {
            capacity = size + (64u << 10) < limit ? size + (64u << 10) : (size_t)limit;
            buffer = malloc(capacity);
            if (buffer == NULL) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
            JxlDecoderSetJPEGBuffer(dec, buffer, capacity);
        } else if (s == JXL_DEC_JPEG_NEED_MORE_OUTPUT) {
            size_t unused = JxlDecoderReleaseJPEGBuffer(dec);
            size_t used = capacity - unused;
            if (capacity >= limit) {
                pc_set_error(messages, "JPEG XL file's reconstructed JPEG would be over 4 times the file's size (refused)");
                status = PC_CORRUPT;
                goto done;
            }
            size_t grown = (uint64_t)capacity * 2 < limit ? capacity * 2 : (size_t)limit;
            uint8_t *bigger = realloc(buffer, grown);
            if (bigger == NULL) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
            buffer = bigger;
            capacity = grown;
            JxlDecoderSetJPEGBuffer(dec, buffer + used, capacity - used);
        } else if (s == JXL_DEC_FULL_IMAGE) {
            if (buffer == NULL) { status = PC_NOT_HANDLED; goto done; }
            size_t unused = JxlDecoderReleaseJPEGBuffer(dec);
            *jpeg = buffer;
            *jpeg_size = capacity - unused;
            buffer = NULL;
            status = PC_OK;
            goto done;
        } else if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER || s == JXL_DEC_SUCCESS) {
            /* No JPEG to give after all: decode the pixels instead. */
            status = PC_NOT_HANDLED;
            goto done;
        }
    }
done:
    free(buffer);
    JxlDecoderDestroy(dec);
    if (status == PC_NOT_HANDLED) messages->error[0] = '\0';
    return status;
}

typedef struct pc_jxl_state {
    pc_fbox box;
    int channels;
} pc_jxl_state;

static void pc_jxl_stripe(void *opaque, size_t x, size_t y, size_t num_pixels, const void *pixels) {
    pc_jxl_state *state = opaque;
    pc_fbox_add(&state->box, pixels, state->channels, x, y, num_pixels);
}

/* Copies the box buffer's content into out (Exif: the TIFF block after its 4-byte offset). */
static void pc_jxl_keep_box(int is_exif, uint8_t *box, size_t used, pc_decoded *out) {
    if (box == NULL || used == 0) { free(box); return; }
    if (is_exif) {
        /* ISO/IEC 18181-2 §9.2: a 4-byte big-endian offset to the TIFF header, then Exif. */
        if (used < 4) { free(box); return; }
        uint32_t skip = (uint32_t)box[0] << 24 | (uint32_t)box[1] << 16 | (uint32_t)box[2] << 8 | box[3];
        if (skip > used - 4) { free(box); return; }
        size_t start = 4 + skip;
        if (used - start >= 6 && memcmp(box + start, "Exif\0\0", 6) == 0) start += 6;
        memmove(box, box + start, used - start);
        out->exif = box;
        out->exif_size = used - start;
    } else {
        out->xmp = box;
        out->xmp_size = used;
    }
}

pc_status pc_jxl_decode(const uint8_t *data, size_t size, const pc_decode_options *options, pc_decoded *out,
                        pc_messages *messages) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    if (data == NULL || size < 2) { pc_set_error(messages, "not a JPEG XL file (too short)"); return PC_CORRUPT; }
    JxlSignature signature = JxlSignatureCheck(data, size);
    if (signature != JXL_SIG_CODESTREAM && signature != JXL_SIG_CONTAINER) {
        pc_set_error(messages, "not a JPEG XL file (libjxl does not recognise its signature)");
        return PC_CORRUPT;
    }
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    if (dec == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    pc_status status = PC_OK;
    pc_jxl_state state;
    memset(&state, 0, sizeof state);
    JxlBasicInfo info;
    memset(&info, 0, sizeof info);
    uint8_t *icc = NULL;
    size_t icc_size = 0;
    int transfer = 0, have_xy = 0, have_image = 0;
    double xy[8];
    uint8_t *box = NULL;     /* the Exif or XMP box being read */
    size_t box_capacity = 0;
    int box_is_exif = 0;
    int events = JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE | JXL_DEC_BOX;
    const char *dc_pass = getenv("PHOTOS_JXL_DC_PASS");
    if (options->progressive_dc_only && dc_pass != NULL && strcmp(dc_pass, "1") == 0) events |= JXL_DEC_FRAME_PROGRESSION;
    if (JxlDecoderSubscribeEvents(dec, events) != JXL_DEC_SUCCESS || JxlDecoderSetKeepOrientation(dec, JXL_TRUE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(dec, data, size) != JXL_DEC_SUCCESS) {
        status = pc_jxl_fail("at the start", messages);
        goto done;
    }
    (void)JxlDecoderSetDecompressBoxes(dec, JXL_TRUE); /* Exif/XMP in `brob` boxes */
    JxlDecoderCloseInput(dec);
    for (;;) {
        JxlDecoderStatus s = JxlDecoderProcessInput(dec);
        if (s == JXL_DEC_ERROR) {
            if (have_image) break; /* a damaged box after the image: the image stands */
            status = pc_jxl_fail(state.box.sums != NULL ? "while decoding its image" : "while reading its header", messages);
            goto done;
        }
        if (s == JXL_DEC_NEED_MORE_INPUT) {
            if (have_image) break;
            status = pc_jxl_truncated(messages);
            goto done;
        }
        if (s == JXL_DEC_BOX || s == JXL_DEC_SUCCESS) {
            if (box != NULL) {
                size_t used = box_capacity - JxlDecoderReleaseBoxBuffer(dec);
                pc_jxl_keep_box(box_is_exif, box, used, out);
                box = NULL;
            }
            if (s == JXL_DEC_SUCCESS) break;
            JxlBoxType type;
            if (JxlDecoderGetBoxType(dec, type, JXL_TRUE) != JXL_DEC_SUCCESS) continue;
            int is_exif = memcmp(type, "Exif", 4) == 0, is_xmp = memcmp(type, "xml ", 4) == 0;
            if ((is_exif && out->exif == NULL) || (is_xmp && out->xmp == NULL)) {
                box_capacity = 64u << 10;
                box = malloc(box_capacity);
                box_is_exif = is_exif;
                if (box != NULL) JxlDecoderSetBoxBuffer(dec, box, box_capacity);
            }
        } else if (s == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
            size_t used = box_capacity - JxlDecoderReleaseBoxBuffer(dec);
            uint8_t *bigger = box_capacity < PC_JXL_METADATA_MAX ? realloc(box, box_capacity * 2) : NULL;
            if (bigger == NULL) {
                /* Over 1 MiB (or no memory): the box is dropped, the rest of it skipped by libjxl. */
                free(box);
                box = NULL;
                continue;
            }
            box = bigger;
            box_capacity *= 2;
            JxlDecoderSetBoxBuffer(dec, box + used, box_capacity - used);
        } else if (s == JXL_DEC_BASIC_INFO) {
            if (JxlDecoderGetBasicInfo(dec, &info) != JXL_DEC_SUCCESS) { status = pc_jxl_fail("while reading its header", messages); goto done; }
            status = pc_jxl_check_size(&info, options, out, messages);
            if (status != PC_OK) goto done;
            out->orientation = info.orientation >= 1 && info.orientation <= 8 ? (int)info.orientation : 1;
            int long_edge = info.xsize > info.ysize ? (int)info.xsize : (int)info.ysize;
            int factor = options->target_edge > 0 ? long_edge / options->target_edge : 1;
            if (factor < 1) factor = 1;
            out->scale = factor;
            state.channels = info.alpha_bits > 0 ? 4 : 3;
            if (!pc_fbox_init(&state.box, (int)info.xsize, (int)info.ysize, factor)) {
                pc_set_error(messages, "out of memory");
                status = PC_NO_MEMORY;
                goto done;
            }
        } else if (s == JXL_DEC_COLOR_ENCODING) {
            JxlColorEncoding encoding;
            if (JxlDecoderGetColorAsEncodedProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS) {
                if (encoding.transfer_function == JXL_TRANSFER_FUNCTION_PQ) transfer = PC_TRANSFER_PQ;
                if (encoding.transfer_function == JXL_TRANSFER_FUNCTION_HLG) transfer = PC_TRANSFER_HLG;
                xy[0] = encoding.white_point_xy[0]; xy[1] = encoding.white_point_xy[1];
                xy[2] = encoding.primaries_red_xy[0]; xy[3] = encoding.primaries_red_xy[1];
                xy[4] = encoding.primaries_green_xy[0]; xy[5] = encoding.primaries_green_xy[1];
                xy[6] = encoding.primaries_blue_xy[0]; xy[7] = encoding.primaries_blue_xy[1];
                have_xy = encoding.color_space == JXL_COLOR_SPACE_RGB;
            }
            if (JxlDecoderGetICCProfileSize(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &icc_size) == JXL_DEC_SUCCESS &&
                icc_size > 0 && icc_size <= PC_ICC_MAX_BYTES && (icc = malloc(icc_size)) != NULL &&
                JxlDecoderGetColorAsICCProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, icc, icc_size) != JXL_DEC_SUCCESS) {
                free(icc);
                icc = NULL;
            }
            int cicp_primaries = 0, cicp_transfer = 0;
            if (transfer == 0 && icc != NULL && pc_icc_cicp(icc, icc_size, &cicp_primaries, &cicp_transfer) &&
                pc_hdr_transfer(cicp_transfer)) {
                transfer = cicp_transfer;
                have_xy = pc_hdr_primaries(cicp_primaries, xy);
            }
        } else if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            if (state.box.sums == NULL) { status = pc_jxl_fail("before its header", messages); goto done; }
            JxlPixelFormat format = { (uint32_t)state.channels, JXL_TYPE_FLOAT, JXL_NATIVE_ENDIAN, 0 };
            if (JxlDecoderSetImageOutCallback(dec, &format, pc_jxl_stripe, &state) != JXL_DEC_SUCCESS) {
                status = pc_jxl_fail("when given the output callback", messages);
                goto done;
            }
        } else if (s == JXL_DEC_FRAME_PROGRESSION) {
            size_t ratio = JxlDecoderGetIntendedDownsamplingRatio(dec);
            int long_edge = info.xsize > info.ysize ? (int)info.xsize : (int)info.ysize;
            if (ratio > 1 && options->target_edge > 0 && (size_t)long_edge / ratio >= (size_t)options->target_edge &&
                JxlDecoderFlushImage(dec) == JXL_DEC_SUCCESS) {
                /* Every cell filled: the DC pass is the image. Otherwise start the sums over and decode on. */
                size_t cells = (size_t)state.box.out_width * (size_t)state.box.out_height, filled = 0;
                for (size_t i = 0; i < cells; i++) filled += state.box.counts[i] > 0;
                if (filled == cells) { out->used_dc_only = 1; have_image = 1; break; }
                memset(state.box.sums, 0, cells * 3 * sizeof(float));
                memset(state.box.counts, 0, cells * sizeof(uint32_t));
            }
        } else if (s == JXL_DEC_FULL_IMAGE) {
            have_image = 1;
            if (info.have_animation) break; /* the first frame only; not every frame decoded */
        }
    }
    if (!have_image || !pc_fbox_finish(&state.box)) { status = pc_jxl_fail("before its image was complete", messages); goto done; }
    size_t count = (size_t)state.box.out_width * (size_t)state.box.out_height;
    out->pixels = malloc(count * 3);
    if (out->pixels == NULL) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
    out->width = state.box.out_width;
    out->height = state.box.out_height;
    if (pc_hdr_transfer(transfer) && !options->ignore_icc) {
        pc_hdr_to_srgb(state.box.sums, count, transfer, have_xy ? xy : NULL, out->pixels);
    } else {
        for (size_t i = 0; i < count * 3; i++) {
            float v = state.box.sums[i] * 255.0f + 0.5f;
            out->pixels[i] = v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)v;
        }
        if (icc != NULL && !options->ignore_icc)
            (void)pc_color_apply_icc(icc, icc_size, PC_LAYOUT_RGB, out->pixels, out->pixels, count, messages);
    }
done:
    free(box);
    free(icc);
    pc_fbox_free(&state.box);
    JxlDecoderDestroy(dec);
    if (status != PC_OK) {
        free(out->pixels); out->pixels = NULL;
        free(out->exif); out->exif = NULL; out->exif_size = 0;
        free(out->xmp); out->xmp = NULL; out->xmp_size = 0;
    }
    return status;
}
