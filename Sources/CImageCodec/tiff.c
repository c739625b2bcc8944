/*
 * TIFF and BigTIFF decoding with libtiff (tiffio.h; "TIFFRGBAImage", "TIFFClientOpen", libtiff 4.5
 * "TIFFOpenOptions"). The file is read from the caller's buffer through TIFFClientOpenExt's
 * procedures (no temporary file; the buffer is also handed out as libtiff's "mapped file", so
 * uncompressed and compressed strips are read in place, never copied whole). Every libtiff
 * error and warning goes to the per-handle handlers of TIFFOpenOptions and from there into this
 * decode's pc_messages: nothing is printed. TIFFOpenOptionsSetMaxSingleMemAlloc caps every
 * allocation libtiff makes for one file at the per-worker budget (PC_DECODE_BUDGET_BYTES).
 *
 * Which page: the first top-level directory that is not a reduced-resolution or mask subfile
 * (NewSubfileType bits 0 and 2 clear; IFD0 when every one is) is the photo: its size is the
 * photo's size. Its SubIFDs (tag 330) and the other top-level directories whose NewSubfileType
 * has bit 0 set are reduced-resolution copies (TIFF 6.0 §"NewSubfileType"; Adobe PageMaker 6.0
 * TIFF Technical Notes "SubIFDs"): the smallest of them whose long edge is at least target_edge
 * and whose aspect ratio is the full page's (within 1 %) is decoded instead, as scanners and
 * editors write them for fast previews.
 *
 * How: libtiff's TIFFRGBAImage reads every sample layout (1/2/4/8/16 bits, gray, RGB, palette,
 * CMYK, YCbCr, Lab, LogL/LogLuv; strips or tiles, contiguous or planar; alpha associated or not)
 * to 8-bit RGBA, band by band (TIFFRGBAImageGet with row_offset): one band is a strip's or a
 * tile row's height, so each strip or tile is decoded once and memory is one band plus one
 * strip or tile, whatever the image's size. Rows go straight into the integer box reducer
 * (reduce.c). A strip or tile whose decoded size is over half the budget is refused before
 * libtiff allocates it. Orientation (tag 274) is not applied here: TIFFRGBAImage is told the
 * rows are top-left so it flips nothing, and PhotosImaging applies the orientation like EXIF's.
 *
 * Colour: an ICC profile (tag 34675) is applied with Little CMS (color.c). CMYK 8-bit,
 * contiguous, stripped images with a profile are read as CMYK samples (TIFFReadScanline) and
 * converted band by band through the profile; other CMYK images get libtiff's naive conversion.
 * RGB, palette, YCbCr and gray images get the profile applied to the reduced image.
 *
 * Camera RAW files in TIFF containers (DNG, NEF, CR2, ARW, PEF, …) are not TIFF photos here:
 * pc_tiff_is_raw says which (see there), and pc_tiff_decode refuses them (PC_UNSUPPORTED).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <tiffio.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "color.h"
#include "messages.h"
#include "reduce.h"

/* At most this many top-level directories and SubIFDs are looked at (a loop or a chain of
 * thousands of pages costs no more than this). */
#define PC_TIFF_MAX_DIRECTORIES 64
#define PC_TIFF_MAX_SUBIFDS 16

typedef struct pc_tiff_source {
    const uint8_t *data;
    uint64_t size, position;
    pc_messages *messages;
} pc_tiff_source;

static tmsize_t pc_tiff_read(thandle_t handle, void *buffer, tmsize_t length) {
    pc_tiff_source *s = handle;
    if (length <= 0 || s->position >= s->size) return 0;
    uint64_t n = (uint64_t)length;
    if (n > s->size - s->position) n = s->size - s->position;
    memcpy(buffer, s->data + s->position, (size_t)n);
    s->position += n;
    return (tmsize_t)n;
}

static tmsize_t pc_tiff_write(thandle_t handle, void *buffer, tmsize_t length) {
    (void)handle; (void)buffer; (void)length;
    return -1;
}

static toff_t pc_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    pc_tiff_source *s = handle;
    uint64_t base = whence == SEEK_CUR ? s->position : whence == SEEK_END ? s->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    s->position = base + offset;
    return s->position;
}

static int pc_tiff_close(thandle_t handle) { (void)handle; return 0; }
static toff_t pc_tiff_size(thandle_t handle) { return ((pc_tiff_source *)handle)->size; }

static int pc_tiff_map(thandle_t handle, void **base, toff_t *size) {
    pc_tiff_source *s = handle;
    *base = (void *)s->data;
    *size = s->size;
    return 1;
}

static void pc_tiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

static int pc_tiff_on_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    pc_tiff_source *s = user;
    char text[PC_MESSAGE_CAPACITY], line[PC_MESSAGE_CAPACITY];
    vsnprintf(text, sizeof text, format, ap);
    snprintf(line, sizeof line, "TIFF file refused by libtiff: %s%s%s", module ? module : "", module ? ": " : "", text);
    if (s != NULL && s->messages != NULL) pc_set_error(s->messages, line);
    return 1; /* handled: nothing reaches libtiff's global handler (stderr) */
}

static int pc_tiff_on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif;
    pc_tiff_source *s = user;
    char text[PC_MESSAGE_CAPACITY], line[PC_MESSAGE_CAPACITY];
    vsnprintf(text, sizeof text, format, ap);
    /* Private and unknown tags are everywhere (scanner and maker tags): not worth a line. */
    if (strstr(text, "Unknown field with tag") != NULL) return 1;
    snprintf(line, sizeof line, "libtiff: %s%s%s", module ? module : "", module ? ": " : "", text);
    if (s != NULL && s->messages != NULL) pc_add_warning(s->messages, line);
    return 1;
}

static TIFF *pc_tiff_open(pc_tiff_source *s) {
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (opts == NULL) return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, (tmsize_t)PC_DECODE_BUDGET_BYTES);
    TIFFOpenOptionsSetErrorHandlerExtR(opts, pc_tiff_on_error, s);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, pc_tiff_on_warning, s);
    TIFF *tif = TIFFClientOpenExt("TIFF", "r", (thandle_t)s, pc_tiff_read, pc_tiff_write, pc_tiff_seek, pc_tiff_close,
                                  pc_tiff_size, pc_tiff_map, pc_tiff_unmap, opts);
    TIFFOpenOptionsFree(opts);
    return tif;
}

/* Makers whose cameras write RAW files in TIFF containers (LibRaw's list of TIFF-based formats). */
static const char *const pc_tiff_raw_makers[] = {
    "canon", "nikon", "sony", "pentax", "ricoh", "olympus", "om digital", "panasonic", "leica", "samsung",
    "fujifilm", "hasselblad", "phase one", "leaf", "mamiya", "kodak", "eastman kodak", "epson", "minolta",
    "konica minolta", "sigma", "sinar", "imacon", "creo", "nokia", "dji", "gopro", NULL};

static int pc_tiff_raw_maker(TIFF *tif) {
    const char *make = NULL;
    if (!TIFFGetField(tif, TIFFTAG_MAKE, &make) || make == NULL) return 0;
    while (*make == ' ') make++;
    for (int i = 0; pc_tiff_raw_makers[i] != NULL; i++)
        if (strncasecmp(make, pc_tiff_raw_makers[i], strlen(pc_tiff_raw_makers[i])) == 0) return 1;
    return 0;
}

/* Compression schemes only camera RAW files use (LibRaw's parse_tiff_ifd; TIFF tag registry). */
static int pc_tiff_raw_compression(uint16_t c) {
    return c == 32767 || c == 32769 || c == 32770 || c == 34316 || c == 34713 || c == 65000 ||
           c == 65535 || c == 262;
}

/* True for the current directory holding sensor data: CFA or LinearRaw photometric, or a RAW compression. */
static int pc_tiff_directory_is_cfa(TIFF *tif) {
    uint16_t photometric = 0, compression = 0;
    if (TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric) && (photometric == PHOTOMETRIC_CFA || photometric == 34892))
        return 1;
    if (TIFFGetField(tif, TIFFTAG_COMPRESSION, &compression) && pc_tiff_raw_compression(compression)) return 1;
    return 0;
}

/*
 * The rule that leaves a TIFF container to the RAW reader: IFD0 has DNGVersion (tag 50706, DNG
 * 1.6 §"DNGVersion": every DNG has it), or the file starts as a Canon CR2 ("CR" at byte 8), or
 * IFD0's Make names a RAW camera maker (above) and some directory (top-level, or a SubIFD of
 * IFD0) holds CFA data (PhotometricInterpretation 32803 CFA or 34892 LinearRaw, or a RAW-only
 * compression). A scanner's or editor's TIFF (Make "EPSON" on a scan, say) has no CFA data and
 * stays a TIFF. The handle is left at an undefined directory.
 */
static int pc_tiff_handle_is_raw(TIFF *tif, const uint8_t *data, size_t size) {
    if (size >= 10 && data[8] == 'C' && data[9] == 'R') return 1;
    if (!TIFFSetDirectory(tif, 0)) return 0;
    void *dng = NULL;
    if (TIFFGetField(tif, TIFFTAG_DNGVERSION, &dng)) return 1;
    if (!pc_tiff_raw_maker(tif)) return 0;
    uint64_t subifds[PC_TIFF_MAX_SUBIFDS];
    int subifd_count = 0;
    uint16_t count = 0;
    uint64_t *offsets = NULL;
    if (TIFFGetField(tif, TIFFTAG_SUBIFD, &count, &offsets) && offsets != NULL)
        for (int i = 0; i < count && subifd_count < PC_TIFF_MAX_SUBIFDS; i++) subifds[subifd_count++] = offsets[i];
    for (int d = 0; d < PC_TIFF_MAX_DIRECTORIES; d++) {
        if (!TIFFSetDirectory(tif, (tdir_t)d)) break;
        if (pc_tiff_directory_is_cfa(tif)) return 1;
    }
    for (int i = 0; i < subifd_count; i++)
        if (TIFFSetSubDirectory(tif, subifds[i]) && pc_tiff_directory_is_cfa(tif)) return 1;
    return 0;
}

int pc_tiff_is_raw(const uint8_t *data, size_t size) {
    if (data == NULL || size < 8) return 0;
    pc_messages quiet;
    memset(&quiet, 0, sizeof quiet);
    pc_tiff_source s = {data, size, 0, &quiet};
    TIFF *tif = pc_tiff_open(&s);
    if (tif == NULL) return 0;
    int raw = pc_tiff_handle_is_raw(tif, data, size);
    TIFFClose(tif);
    return raw;
}

/* A directory to decode: a top-level index, or a SubIFD offset. */
typedef struct pc_tiff_page {
    int is_subifd;
    tdir_t index;
    uint64_t offset;
    uint32_t width, height;
} pc_tiff_page;

static int pc_tiff_select(TIFF *tif, const pc_tiff_page *page) {
    return page->is_subifd ? TIFFSetSubDirectory(tif, page->offset) : TIFFSetDirectory(tif, page->index);
}

static int pc_tiff_same_aspect(uint32_t w, uint32_t h, uint32_t full_w, uint32_t full_h) {
    /* |w/h - W/H| within 1 % of W/H: |w·H - h·W| ≤ h·W / 100. */
    uint64_t a = (uint64_t)w * full_h, b = (uint64_t)h * full_w;
    uint64_t diff = a > b ? a - b : b - a;
    return diff * 100 <= b;
}

static pc_status pc_tiff_over_budget(pc_messages *m, const char *what, uint64_t bytes) {
    char text[PC_MESSAGE_CAPACITY];
    snprintf(text, sizeof text, "TIFF %s decodes to %llu MB, over the per-worker decode budget of %d MB", what,
             (unsigned long long)((bytes + (1u << 20) - 1) >> 20), PC_DECODE_BUDGET_MB);
    pc_set_error(m, text);
    return PC_OVER_BUDGET;
}

/* Premultiplied (TIFFRGBAImage's associated) alpha over white. */
static inline uint8_t pc_tiff_over_white(uint32_t value, uint32_t alpha) {
    uint32_t v = value + (255u - alpha);
    return (uint8_t)(v > 255u ? 255u : v);
}

/* CMYK samples read by scanline and converted band by band through the file's profile. */
static pc_status pc_tiff_decode_cmyk(TIFF *tif, uint32_t width, uint32_t height, const uint8_t *icc, uint32_t icc_size,
                                     pc_box *box, pc_messages *m) {
    tmsize_t line = TIFFScanlineSize(tif);
    if (line <= 0 || (uint64_t)line < (uint64_t)width * 4) { pc_set_error(m, "TIFF CMYK scanline size is wrong"); return PC_CORRUPT; }
    uint32_t band = (uint32_t)((8u << 20) / ((uint64_t)width * 4));
    if (band < 1) band = 1;
    if (band > height) band = height;
    uint8_t *cmyk = malloc((size_t)band * width * 4 + (size_t)line);
    uint8_t *rgb = malloc((size_t)band * width * 3);
    uint8_t *scan = cmyk == NULL ? NULL : cmyk + (size_t)band * width * 4;
    if (cmyk == NULL || rgb == NULL) { free(cmyk); free(rgb); pc_set_error(m, "out of memory"); return PC_NO_MEMORY; }
    pc_status status = PC_OK;
    for (uint32_t y = 0; y < height && status == PC_OK; y += band) {
        uint32_t rows = height - y < band ? height - y : band;
        for (uint32_t r = 0; r < rows; r++) {
            if (TIFFReadScanline(tif, scan, y + r, 0) < 0) { status = PC_CORRUPT; break; }
            memcpy(cmyk + (size_t)r * width * 4, scan, (size_t)width * 4);
        }
        if (status != PC_OK) break;
        if (pc_color_apply_icc(icc, icc_size, PC_LAYOUT_CMYK, cmyk, rgb, (size_t)rows * width, m) != PC_COLOR_CONVERTED) {
            /* Unusable profile (warning added): the naive conversion of TIFF 6.0 §16. */
            for (size_t i = 0; i < (size_t)rows * width; i++) {
                uint32_t k = 255u - cmyk[i * 4 + 3];
                for (int c = 0; c < 3; c++) rgb[i * 3 + c] = (uint8_t)(((255u - cmyk[i * 4 + c]) * k + 127u) / 255u);
            }
        }
        for (uint32_t r = 0; r < rows; r++) pc_box_add_row(box, rgb + (size_t)r * width * 3);
    }
    free(cmyk);
    free(rgb);
    if (status != PC_OK) pc_set_error(m, "TIFF file refused by libtiff: cannot read a CMYK scanline");
    return status;
}

/* The current directory through TIFFRGBAImage, band by band, into the box. */
static pc_status pc_tiff_decode_rgba(TIFF *tif, uint32_t width, uint32_t height, pc_box *box, pc_messages *m) {
    char emsg[1024] = {0};
    if (!TIFFRGBAImageOK(tif, emsg)) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "TIFF layout not supported by libtiff: %s", emsg);
        pc_set_error(m, text);
        return PC_UNSUPPORTED;
    }
    TIFFRGBAImage img;
    if (!TIFFRGBAImageBegin(&img, tif, 1, emsg)) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "TIFF file refused by libtiff: %s", emsg);
        pc_set_error(m, text);
        return PC_CORRUPT;
    }
    img.req_orientation = ORIENTATION_TOPLEFT;
    img.orientation = ORIENTATION_TOPLEFT; /* tag 274 is applied by PhotosImaging, not here */
    uint32_t band = 0;
    if (TIFFIsTiled(tif)) {
        uint32_t tile_height = 0;
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &tile_height);
        band = tile_height;
    } else {
        uint32_t rows_per_strip = height;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
        band = rows_per_strip;
    }
    /* A band of at most 16 MB of RGBA (a strip taller than that is read in parts of it). */
    uint64_t band_limit = (16u << 20) / ((uint64_t)width * 4);
    if (band_limit < 1) band_limit = 1;
    if (band == 0 || band > height) band = height;
    if (band > band_limit) band = (uint32_t)band_limit;
    uint32_t *raster = malloc((size_t)band * width * 4);
    uint8_t *rgb = malloc((size_t)width * 3);
    if (raster == NULL || rgb == NULL) {
        free(raster); free(rgb); TIFFRGBAImageEnd(&img);
        pc_set_error(m, "out of memory");
        return PC_NO_MEMORY;
    }
    pc_status status = PC_OK;
    int alpha = img.alpha != 0;
    for (uint32_t y = 0; y < height; y += band) {
        uint32_t rows = height - y < band ? height - y : band;
        img.row_offset = (int)y;
        img.col_offset = 0;
        if (!TIFFRGBAImageGet(&img, raster, width, rows)) {
            if (m->error[0] == '\0') pc_set_error(m, "TIFF file refused by libtiff: image data cannot be decoded");
            status = PC_CORRUPT;
            break;
        }
        for (uint32_t r = 0; r < rows; r++) {
            const uint32_t *row = raster + (size_t)r * width;
            for (uint32_t x = 0; x < width; x++) {
                uint32_t p = row[x];
                uint32_t a = alpha ? TIFFGetA(p) : 255u;
                rgb[x * 3] = pc_tiff_over_white(TIFFGetR(p), a);
                rgb[x * 3 + 1] = pc_tiff_over_white(TIFFGetG(p), a);
                rgb[x * 3 + 2] = pc_tiff_over_white(TIFFGetB(p), a);
            }
            pc_box_add_row(box, rgb);
        }
    }
    free(raster);
    free(rgb);
    TIFFRGBAImageEnd(&img);
    return status;
}

pc_status pc_tiff_decode(const uint8_t *data, size_t size, const pc_decode_options *options, pc_decoded *out,
                         pc_messages *messages) {
    memset(out, 0, sizeof *out);
    if (data == NULL || size < 8) { pc_set_error(messages, "TIFF file is truncated (under 8 bytes)"); return PC_CORRUPT; }
    pc_tiff_source s = {data, size, 0, messages};
    TIFF *tif = pc_tiff_open(&s);
    if (tif == NULL) {
        pc_set_error(messages, "TIFF file refused by libtiff: cannot read its header or first directory");
        return PC_CORRUPT;
    }
    pc_status status = PC_OK;
    pc_messages quiet;
    memset(&quiet, 0, sizeof quiet);
    s.messages = &quiet; /* the RAW check's own complaints are not this file's */
    int raw = pc_tiff_handle_is_raw(tif, data, size);
    s.messages = messages;
    if (raw) {
        pc_set_error(messages, "camera RAW file in a TIFF container (DNGVersion, or a RAW maker's CFA data): not read as a TIFF");
        TIFFClose(tif);
        return PC_UNSUPPORTED;
    }
    /* The full-resolution page. */
    pc_tiff_page full = {0, 0, 0, 0, 0};
    int found = 0;
    for (int d = 0; d < PC_TIFF_MAX_DIRECTORIES && !found; d++) {
        if (!TIFFSetDirectory(tif, (tdir_t)d)) break;
        uint32_t kind = 0;
        TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &kind);
        if ((kind & (FILETYPE_REDUCEDIMAGE | FILETYPE_MASK)) == 0) { full.index = (tdir_t)d; found = 1; }
    }
    if (!found) full.index = 0;
    if (!pc_tiff_select(tif, &full) || !TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &full.width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &full.height) || full.width == 0 || full.height == 0) {
        pc_set_error(messages, "TIFF file refused by libtiff: its first page has no image size");
        TIFFClose(tif);
        return PC_CORRUPT;
    }
    out->stored_width = (int)(full.width > INT32_MAX ? INT32_MAX : full.width);
    out->stored_height = (int)(full.height > INT32_MAX ? INT32_MAX : full.height);
    if ((uint64_t)full.width * full.height > options->max_pixels || full.width > INT32_MAX || full.height > INT32_MAX) {
        TIFFClose(tif);
        return PC_TOO_LARGE;
    }
    /* The page's XMP (tag 700) and ICC profile (tag 34675), copied before another directory is read. */
    uint32_t length = 0;
    void *bytes = NULL;
    if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &length, &bytes) && bytes != NULL && length > 0 && length <= (4u << 20)) {
        out->xmp = malloc(length);
        if (out->xmp != NULL) { memcpy(out->xmp, bytes, length); out->xmp_size = length; }
    }
    uint8_t *icc = NULL;
    uint32_t icc_size = 0;
    if (!options->ignore_icc && TIFFGetField(tif, TIFFTAG_ICCPROFILE, &length, &bytes) && bytes != NULL && length > 0) {
        if (length > PC_ICC_MAX_BYTES) {
            pc_add_warning(messages, "TIFF ICC profile over 4 MiB ignored");
        } else if ((icc = malloc(length)) != NULL) {
            memcpy(icc, bytes, length);
            icc_size = length;
        }
    }
    /* A reduced-resolution copy at least target_edge on its long edge, the smallest such. */
    int target = options->target_edge > 0 ? options->target_edge : 1;
    pc_tiff_page candidates[PC_TIFF_MAX_SUBIFDS + PC_TIFF_MAX_DIRECTORIES];
    int candidate_count = 0;
    uint16_t count = 0;
    uint64_t *offsets = NULL;
    if (TIFFGetField(tif, TIFFTAG_SUBIFD, &count, &offsets) && offsets != NULL)
        for (int i = 0; i < count && i < PC_TIFF_MAX_SUBIFDS; i++)
            candidates[candidate_count++] = (pc_tiff_page){1, 0, offsets[i], 0, 0};
    for (int d = 0; d < PC_TIFF_MAX_DIRECTORIES; d++) {
        if ((tdir_t)d == full.index) continue;
        if (!TIFFSetDirectory(tif, (tdir_t)d)) break;
        uint32_t kind = 0;
        TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &kind);
        if ((kind & FILETYPE_REDUCEDIMAGE) != 0 && (kind & FILETYPE_MASK) == 0)
            candidates[candidate_count++] = (pc_tiff_page){0, (tdir_t)d, 0, 0, 0};
    }
    pc_tiff_page chosen = full;
    for (int i = 0; i < candidate_count; i++) {
        pc_tiff_page *c = &candidates[i];
        uint32_t kind = 0;
        if (!pc_tiff_select(tif, c) || !TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &c->width) ||
            !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &c->height))
            continue;
        TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &kind);
        if ((kind & FILETYPE_MASK) != 0 || c->width == 0 || c->height == 0) continue;
        uint32_t long_edge = c->width > c->height ? c->width : c->height;
        if (long_edge < (uint32_t)target || c->width >= chosen.width || c->height >= chosen.height) continue;
        if (!pc_tiff_same_aspect(c->width, c->height, full.width, full.height)) continue;
        char emsg[1024];
        if (!TIFFRGBAImageOK(tif, emsg)) continue;
        chosen = *c;
    }
    memset(&quiet, 0, sizeof quiet);
    if (!pc_tiff_select(tif, &chosen)) {
        free(icc);
        TIFFClose(tif);
        pc_set_error(messages, "TIFF file refused by libtiff: cannot read the page to decode");
        return PC_CORRUPT;
    }
    uint32_t width = chosen.width, height = chosen.height;
    /* Declared sizes against the budget before libtiff allocates a strip or tile for them. */
    uint64_t unit = TIFFIsTiled(tif) ? TIFFTileSize64(tif) : TIFFStripSize64(tif);
    uint16_t planar = PLANARCONFIG_CONTIG;
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    uint16_t spp = 1;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    uint64_t planes = planar == PLANARCONFIG_SEPARATE ? spp : 1;
    if (unit * planes > PC_DECODE_BUDGET_BYTES / 2) {
        free(icc);
        TIFFClose(tif);
        return pc_tiff_over_budget(messages, TIFFIsTiled(tif) ? "tile" : "strip", unit * planes);
    }
    /* Uncompressed data must be in the file: its declared size against the file's bytes. */
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (compression == COMPRESSION_NONE) {
        uint64_t needed = TIFFScanlineSize64(tif) * (uint64_t)height * planes;
        if (TIFFIsTiled(tif)) needed = 0; /* tiles are padded: libtiff checks each against the file */
        if (needed > size) {
            char text[PC_MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "TIFF declares %ux%u uncompressed pixels (%llu bytes) but the file has %zu bytes",
                     width, height, (unsigned long long)needed, size);
            pc_set_error(messages, text);
            free(icc);
            TIFFClose(tif);
            return PC_CORRUPT;
        }
    }
    long long_edge = width > height ? width : height;
    int factor = (int)(long_edge / target);
    if (factor < 1) factor = 1;
    pc_box box;
    if (!pc_box_init(&box, (int)width, (int)height, 3, factor)) {
        pc_box_free(&box); free(box.out); free(icc); TIFFClose(tif);
        pc_set_error(messages, "out of memory");
        return PC_NO_MEMORY;
    }
    uint16_t photometric = PHOTOMETRIC_RGB, bits = 8, inkset = INKSET_CMYK;
    TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
    int cmyk_profiled = icc != NULL && photometric == PHOTOMETRIC_SEPARATED && inkset == INKSET_CMYK && bits == 8 &&
                        spp == 4 && planar == PLANARCONFIG_CONTIG && !TIFFIsTiled(tif) && compression != COMPRESSION_JPEG;
    if (cmyk_profiled)
        status = pc_tiff_decode_cmyk(tif, width, height, icc, icc_size, &box, messages);
    else
        status = pc_tiff_decode_rgba(tif, width, height, &box, messages);
    pc_box_free(&box);
    TIFFClose(tif);
    if (status != PC_OK) { free(box.out); free(icc); return status; }
    out->pixels = box.out;
    out->width = box.out_width;
    out->height = box.out_height;
    out->scale = factor;
    if (icc != NULL && !cmyk_profiled) {
        int gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
        int rgbish = photometric == PHOTOMETRIC_RGB || photometric == PHOTOMETRIC_PALETTE || photometric == PHOTOMETRIC_YCBCR;
        if (gray || rgbish)
            (void)pc_color_apply_icc(icc, icc_size, gray ? PC_LAYOUT_GRAY_IN_RGB : PC_LAYOUT_RGB, out->pixels, out->pixels,
                                     (size_t)out->width * (size_t)out->height, messages);
        else if (photometric == PHOTOMETRIC_SEPARATED)
            pc_add_warning(messages, "TIFF CMYK profile not applied to this sample layout (libtiff's plain CMYK conversion used)");
    }
    free(icc);
    return PC_OK;
}

/* libtiff's version line ("LIBTIFF, Version 4.5.0\n…"): the version number only. */
void pc_tiff_version(char *out, size_t capacity) {
    const char *text = TIFFGetVersion();
    const char *v = text != NULL ? strstr(text, "Version ") : NULL;
    if (v == NULL) { snprintf(out, capacity, "unknown"); return; }
    v += 8;
    size_t n = strcspn(v, " \n");
    snprintf(out, capacity, "%.*s", (int)n, v);
}

/* Tests: writes a TIFF with libtiff (see CImageCodec.h pc_tiff_write_test). */
pc_status pc_tiff_write_test(const char *path, const uint8_t *samples, int width, int height,
                             const pc_tiff_test_options *o) {
    TIFF *tif = TIFFOpen(path, o->bigtiff ? "w8" : "w");
    if (tif == NULL) return PC_CORRUPT;
    int spp = o->photometric == PHOTOMETRIC_RGB ? 3 : o->photometric == PHOTOMETRIC_SEPARATED ? 4 : 1;
    int reduced = o->reduced_width > 0 && o->reduced_height > 0;
    pc_status status = PC_OK;
    for (int page = 0; page < (reduced ? 2 : 1) && status == PC_OK; page++) {
        int sub = page == 1;
        int w = sub ? o->reduced_width : width, h = sub ? o->reduced_height : height;
        int s = sub ? 3 : spp;
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)w);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)h);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)s);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(sub ? 8 : o->bits));
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, (uint16_t)(sub ? PHOTOMETRIC_RGB : o->photometric));
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, (uint16_t)(!sub && o->planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG));
        TIFFSetField(tif, TIFFTAG_COMPRESSION, (uint16_t)(o->compression > 0 ? o->compression : COMPRESSION_NONE));
        if (sub) TIFFSetField(tif, TIFFTAG_SUBFILETYPE, (uint32_t)FILETYPE_REDUCEDIMAGE);
        if (!sub && reduced && o->reduced_as_subifd) {
            uint64_t zero = 0;
            TIFFSetField(tif, TIFFTAG_SUBIFD, (uint16_t)1, &zero);
        }
        if (!sub && o->orientation > 0) TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)o->orientation);
        if (!sub && o->icc != NULL) TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)o->icc_size, o->icc);
        if (!sub && o->photometric == PHOTOMETRIC_SEPARATED) TIFFSetField(tif, TIFFTAG_INKSET, (uint16_t)INKSET_CMYK);
        if (!sub && o->make != NULL) TIFFSetField(tif, TIFFTAG_MAKE, o->make);
        int bytes = (sub ? 8 : o->bits) / 8;
        int planes = !sub && o->planar ? s : 1;
        int per = planes > 1 ? 1 : s; /* samples per pixel in one plane */
        uint8_t *buffer = NULL;
        if (!sub && o->tile > 0) {
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)o->tile);
            TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)o->tile);
            buffer = malloc((size_t)o->tile * o->tile * per * bytes);
            if (buffer == NULL) { status = PC_NO_MEMORY; break; }
            for (int p = 0; p < planes && status == PC_OK; p++)
                for (int ty = 0; ty < h && status == PC_OK; ty += o->tile)
                    for (int tx = 0; tx < w; tx += o->tile) {
                        memset(buffer, 0, (size_t)o->tile * o->tile * per * bytes);
                        for (int y = 0; y < o->tile && ty + y < h; y++)
                            for (int x = 0; x < o->tile && tx + x < w; x++)
                                for (int c = 0; c < per; c++) {
                                    uint8_t v = samples[((size_t)(ty + y) * w + tx + x) * s + (planes > 1 ? p : c)];
                                    size_t at = (((size_t)y * o->tile + x) * per + c) * bytes;
                                    if (bytes == 2) { uint16_t v16 = (uint16_t)(v * 257); memcpy(buffer + at, &v16, 2); }
                                    else buffer[at] = v;
                                }
                        if (TIFFWriteTile(tif, buffer, (uint32_t)tx, (uint32_t)ty, 0, (uint16_t)p) < 0) { status = PC_CORRUPT; break; }
                    }
        } else {
            TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)(o->rows_per_strip > 0 ? o->rows_per_strip : 16));
            buffer = malloc((size_t)w * per * bytes);
            if (buffer == NULL) { status = PC_NO_MEMORY; break; }
            for (int p = 0; p < planes && status == PC_OK; p++)
                for (int y = 0; y < h; y++) {
                    for (int x = 0; x < w; x++)
                        for (int c = 0; c < per; c++) {
                            uint8_t v = sub ? o->reduced_rgb[c] : samples[((size_t)y * w + x) * s + (planes > 1 ? p : c)];
                            size_t at = ((size_t)x * per + c) * bytes;
                            if (bytes == 2) { uint16_t v16 = (uint16_t)(v * 257); memcpy(buffer + at, &v16, 2); }
                            else buffer[at] = v;
                        }
                    if (TIFFWriteScanline(tif, buffer, (uint32_t)y, (uint16_t)p) < 0) { status = PC_CORRUPT; break; }
                }
        }
        free(buffer);
        if (status == PC_OK && !TIFFWriteDirectory(tif)) status = PC_CORRUPT;
    }
    TIFFClose(tif);
    return status;
}

/*
 * Tests: a gray 8-bit LZW TIFF of width × height whose rows come from `row_value(y)`-like
 * stripes (value (y / 64) & 255), written strip by strip (rows_per_strip rows) without holding
 * the image: the memory-bound test's 20000 × 20000 scan.
 */
pc_status pc_tiff_write_large_test(const char *path, int width, int height, int rows_per_strip) {
    TIFF *tif = TIFFOpen(path, "w");
    if (tif == NULL) return PC_CORRUPT;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)height);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)1);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)8);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, (uint16_t)PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, (uint16_t)COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)rows_per_strip);
    uint8_t *row = malloc((size_t)width);
    pc_status status = row != NULL ? PC_OK : PC_NO_MEMORY;
    for (int y = 0; y < height && status == PC_OK; y++) {
        memset(row, (y / 64) & 255, (size_t)width);
        if (TIFFWriteScanline(tif, row, (uint32_t)y, 0) < 0) status = PC_CORRUPT;
    }
    free(row);
    TIFFClose(tif);
    return status;
}
