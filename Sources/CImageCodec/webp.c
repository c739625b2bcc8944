/*
 * WebP decoding with libwebp (decode.h, "Advanced Decoding API"): WebPGetFeatures reads the
 * header (size, alpha, animation, lossy/lossless) without decoding; WebPDecode with
 * options.use_scaling decodes straight to the thumbnail's size with libwebp's own area-averaging
 * rescaler, so no full-size RGB image is made. Alpha is flattened onto white (as PNG's).
 * libwebp reports every failure as a VP8StatusCode; no setjmp is needed.
 * EXIF/XMP chunks and orientation are read in Swift (EmbeddedMetadata.read(webp:)).
 */
#include <stdio.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "messages.h"
#include "color.h"

static pc_status pc_webp_fail(VP8StatusCode code, pc_messages *m) {
    switch (code) {
    case VP8_STATUS_NOT_ENOUGH_DATA:
        pc_set_error(m, "WebP file is truncated (libwebp: not enough data)");
        return PC_CORRUPT;
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        pc_set_error(m, "WebP file uses a feature libwebp does not support");
        return PC_UNSUPPORTED;
    case VP8_STATUS_OUT_OF_MEMORY:
        pc_set_error(m, "out of memory decoding a WebP file");
        return PC_NO_MEMORY;
    case VP8_STATUS_INVALID_PARAM:
        pc_set_error(m, "WebP file is not valid (libwebp: invalid parameter)");
        return PC_CORRUPT;
    default:
        pc_set_error(m, "WebP file is corrupt (libwebp: bitstream error)");
        return PC_CORRUPT;
    }
}

/*
 * The ICCP chunk of an extended (VP8X) WebP, found by walking the RIFF chunks (WebP container
 * specification: FourCC, 32-bit little-endian size, payload padded to even); every size is
 * checked against the bytes present. NULL when there is none.
 */
static const uint8_t *pc_webp_icc(const uint8_t *data, size_t size, size_t *icc_size) {
    size_t pos = 12;
    while (size >= 8 && pos <= size - 8) {
        size_t length = (size_t)data[pos + 4] | (size_t)data[pos + 5] << 8 | (size_t)data[pos + 6] << 16 | (size_t)data[pos + 7] << 24;
        if (length > size - pos - 8) return NULL;
        if (memcmp(data + pos, "ICCP", 4) == 0) { *icc_size = length; return length > 0 ? data + pos + 8 : NULL; }
        pos += 8 + length + (length & 1);
    }
    return NULL;
}

static inline uint8_t pc_webp_over_white(uint32_t value, uint32_t alpha) {
    return (uint8_t)((value * alpha + 255u * (255u - alpha) + 127u) / 255u);
}

pc_status pc_webp_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                         pc_decoded *out, pc_messages *messages) {
    memset(out, 0, sizeof *out);
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) { pc_set_error(messages, "libwebp version mismatch"); return PC_UNSUPPORTED; }
    if (data == NULL || size < 12) { pc_set_error(messages, "WebP file is truncated (under 12 bytes)"); return PC_CORRUPT; }
    VP8StatusCode code = WebPGetFeatures(data, size, &config.input);
    if (code != VP8_STATUS_OK) return pc_webp_fail(code, messages);
    int width = config.input.width, height = config.input.height;
    out->stored_width = width;
    out->stored_height = height;
    if ((uint64_t)width * (uint64_t)height > options->max_pixels) return PC_TOO_LARGE;
    if (config.input.has_animation) {
        pc_set_error(messages, "animated WebP is not supported (only still images are imported)");
        return PC_UNSUPPORTED;
    }
    /* Lossless (VP8L) decodes the whole image as 32-bit ARGB whatever the output size; a lossy
     * image with alpha keeps a full-size alpha plane; lossy without alpha works row by row. */
    uint64_t per_pixel = config.input.format == 2 ? 4 : config.input.has_alpha ? 1 : 0;
    uint64_t needed = (uint64_t)width * (uint64_t)height * per_pixel;
    if (needed > PC_DECODE_BUDGET_BYTES) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "decoding this %dx%d %s WebP needs %llu MB, over the per-worker decode budget of %d MB",
                 width, height, config.input.format == 2 ? "lossless" : "lossy",
                 (unsigned long long)((needed + (1u << 20) - 1) >> 20), PC_DECODE_BUDGET_MB);
        pc_set_error(messages, text);
        return PC_OVER_BUDGET;
    }
    /* Straight to the thumbnail size (Thumbnailer.thumbnailSize's rule, which is symmetric in
     * width and height, so EXIF orientation applied afterwards gives the same size). */
    int target = options->target_edge;
    int long_edge = width > height ? width : height;
    int out_w = width, out_h = height;
    if (target > 0 && long_edge > target) {
        int64_t l = long_edge;
        int64_t sw = ((int64_t)width * target * 2 + l) / (l * 2), sh = ((int64_t)height * target * 2 + l) / (l * 2);
        out_w = width >= height ? target : (int)(sw < 1 ? 1 : sw);
        out_h = width >= height ? (int)(sh < 1 ? 1 : sh) : target;
        config.options.use_scaling = 1;
        config.options.scaled_width = out_w;
        config.options.scaled_height = out_h;
        out->scale = long_edge / target;
    } else {
        out->scale = 1;
    }
    int alpha = config.input.has_alpha;
    config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB;
    code = WebPDecode(data, size, &config);
    if (code != VP8_STATUS_OK) { WebPFreeDecBuffer(&config.output); return pc_webp_fail(code, messages); }
    const uint8_t *src = config.output.u.RGBA.rgba;
    int stride = config.output.u.RGBA.stride;
    out_w = config.output.width;
    out_h = config.output.height;
    uint8_t *rgb = malloc((size_t)out_w * (size_t)out_h * 3);
    if (rgb == NULL) { WebPFreeDecBuffer(&config.output); pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    for (int y = 0; y < out_h; y++) {
        const uint8_t *row = src + (size_t)y * (size_t)stride;
        uint8_t *dst = rgb + (size_t)y * (size_t)out_w * 3;
        if (!alpha) { memcpy(dst, row, (size_t)out_w * 3); continue; }
        for (int x = 0; x < out_w; x++) {
            uint32_t a = row[x * 4 + 3];
            dst[x * 3] = pc_webp_over_white(row[x * 4], a);
            dst[x * 3 + 1] = pc_webp_over_white(row[x * 4 + 1], a);
            dst[x * 3 + 2] = pc_webp_over_white(row[x * 4 + 2], a);
        }
    }
    WebPFreeDecBuffer(&config.output);
    out->pixels = rgb;
    out->width = out_w;
    out->height = out_h;
    size_t icc_size = 0;
    const uint8_t *icc = options->ignore_icc ? NULL : pc_webp_icc(data, size, &icc_size);
    if (icc != NULL)
        (void)pc_color_apply_icc(icc, icc_size, PC_LAYOUT_RGB, rgb, rgb, (size_t)out_w * (size_t)out_h, messages);
    return PC_OK;
}

pc_status pc_webp_encode_test(const uint8_t *pixels, int width, int height, int channels, int lossless, int quality,
                              uint8_t **out, size_t *out_size) {
    uint8_t *encoded = NULL;
    size_t n;
    if (channels == 4)
        n = lossless ? WebPEncodeLosslessRGBA(pixels, width, height, width * 4, &encoded)
                     : WebPEncodeRGBA(pixels, width, height, width * 4, (float)quality, &encoded);
    else
        n = lossless ? WebPEncodeLosslessRGB(pixels, width, height, width * 3, &encoded)
                     : WebPEncodeRGB(pixels, width, height, width * 3, (float)quality, &encoded);
    if (n == 0 || encoded == NULL) { *out = NULL; *out_size = 0; return PC_UNSUPPORTED; }
    *out = malloc(n);
    if (*out != NULL) memcpy(*out, encoded, n);
    *out_size = *out != NULL ? n : 0;
    WebPFree(encoded);
    return *out != NULL ? PC_OK : PC_NO_MEMORY;
}
