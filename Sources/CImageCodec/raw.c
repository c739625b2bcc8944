/*
 * Camera RAW files with LibRaw 0.20 (libraw.h C API; LibRaw API notes "C API", "Data
 * structures", "Processing parameters"): see pc_raw_sniff and pc_raw_decode in CImageCodec.h.
 *
 * Detection (pc_raw_sniff) is ours and reads only what the bytes hold: the signatures of the
 * RAW containers that are not TIFF (CR3 ISO-BMFF `ftyp` brand `crx `, RAF `FUJIFILMCCD-RAW`,
 * ORF `IIRO`/`IIRS`/`MMOR`, RW2/RWL `IIU\0`, CRW `HEAPCCDR`, X3F `FOVb`, MRW `\0MRM`), and for
 * TIFF files (TIFF 6.0 §2) the tags that only a camera's raw image has: DNGVersion (DNG 1.6
 * §"DNGVersion", tag 50706), the CR2 marker "CR" at byte 8, or an IFD (IFD0 or a SubIFD, tag
 * 330) whose PhotometricInterpretation is CFA (32803) or LinearRaw (34892, DNG 1.6) or whose
 * Compression is a maker's own (Nikon 34713, Pentax 65535, Sony 32767, Kodak 65000/262, Samsung
 * 32769/32770/32772). A TIFF with none of these is a plain TIFF image, whatever LibRaw makes of
 * it (LibRaw 0.20 identifies a Parrot multispectral band TIFF as a Bayer camera).
 *
 * Decoding is LibRaw's, in the decoder process (photos-decoder, started with posix_spawn for each
 * file, decoder.h; heif.c does the same for libheif): LibRaw is a large C++ library with a history of
 * memory-safety CVEs in its parsers and unpackers (e.g. CVE-2020-15503, CVE-2020-24870,
 * CVE-2023-1729), handed hostile bytes here, and 0.20 has only a compile-time allocation cap
 * (LIBRAW_MAX_ALLOC_MB_DEFAULT, 2 GB in Debian's build). The helper caps its own address space
 * (RLIMIT_AS: what it has mapped, the file's bytes included, plus PC_RAW_CHILD_HEADROOM_MB), so
 * whatever LibRaw allocates beyond our own checks fails there, not in the importing process; a helper
 * that crashes, or takes longer than PC_RAW_CHILD_SECONDS, fails that file alone. Not a fork(2) of
 * the importing process running LibRaw: that process is multi-threaded (Swift, Dispatch, the import
 * workers), a child of it may call only async-signal-safe functions until it execs (POSIX fork(2)),
 * and the child's setenv/tzset (and LibRaw's mktime) hung whenever another thread held glibc's
 * environment or tzset lock at the fork (Benchmarks/decoder-isolation-stress.c).
 * PHOTOS_RAW_IN_PROCESS=1 runs LibRaw in the calling process (measurements, fuzzing).
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <libraw/libraw.h>
#include "CImageCodec.h"
#include "messages.h"
#include "reduce.h"
#include "decoder.h"

#ifndef PC_RAW_CHILD_SECONDS /* (a stress harness builds with a shorter one) */
#define PC_RAW_CHILD_SECONDS 60
#endif
#define PC_RAW_CHILD_HEADROOM_MB 400
/* The most raw pixels per byte of file a develop is tried for: even lossy raw codecs (Sony's 8-bit
 * ARW, Canon's C-RAW, Nikon's lossy NEF) store at least ~4 bits per pixel; 16 pixels a byte (half
 * a bit per pixel) refuses the stripped files that declare 3000×2000 images in 6 KB. */
#define PC_RAW_PIXELS_PER_BYTE 16
#define PC_RAW_PREVIEW_MIN_EDGE 120
/* LibRaw may rebuild a JPEG preview (a JFIF/Exif header put before the camera's data), so it can be a
 * little longer than the bytes it came from; more than this over the file's size is refused. */
#define PC_RAW_PREVIEW_SLACK (64u << 10)

/* ---------------------------------------------------------------- detection */

static uint32_t pc_raw_get16(const uint8_t *p, int le) { return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | p[1]; }
static uint32_t pc_raw_get32(const uint8_t *p, int le) {
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct pc_raw_tiff_scan {
    const uint8_t *data; size_t size; int le;
    int dng, cfa, maker_compression;
    char make[32];
    int ifds;
} pc_raw_tiff_scan;

static int pc_raw_maker_compression(uint32_t c) {
    return c == 34713 || c == 65535 || c == 32767 || c == 65000 || c == 262 || c == 32769 || c == 32770 || c == 32772;
}

/* One IFD at `offset` (and its SubIFDs, `depth` levels at most); every read within the file. */
static void pc_raw_scan_ifd(pc_raw_tiff_scan *s, uint32_t offset, int depth, int first) {
    if (s->ifds >= 64 || offset < 8 || offset > s->size - 2) return;
    s->ifds++;
    uint32_t count = pc_raw_get16(s->data + offset, s->le);
    if (count > 1000 || (uint64_t)offset + 2 + (uint64_t)count * 12 > s->size) return;
    uint32_t subs[8];
    int nsubs = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = s->data + offset + 2 + i * 12;
        uint32_t tag = pc_raw_get16(e, s->le), type = pc_raw_get16(e + 2, s->le), n = pc_raw_get32(e + 4, s->le);
        uint32_t value = type == 3 ? pc_raw_get16(e + 8, s->le) : pc_raw_get32(e + 8, s->le);
        if (tag == 50706) s->dng = 1;
        else if (tag == 262 && (value == 32803 || value == 34892)) s->cfa = 1;
        else if (tag == 259 && pc_raw_maker_compression(value)) s->maker_compression = 1;
        else if (tag == 271 && type == 2 && first && n > 0) {
            size_t len = n < sizeof s->make ? n : sizeof s->make - 1;
            const uint8_t *text = n <= 4 ? e + 8 : NULL;
            uint32_t at = pc_raw_get32(e + 8, s->le);
            if (text == NULL && at <= s->size && len <= s->size - at) text = s->data + at;
            if (text != NULL) { memcpy(s->make, text, len); s->make[len] = '\0'; }
        } else if (tag == 330 && depth > 0) {
            if (n == 1) { if (nsubs < 8) subs[nsubs++] = value; }
            else if (n > 1 && (type == 4 || type == 13)) {
                uint32_t at = pc_raw_get32(e + 8, s->le);
                for (uint32_t k = 0; k < n && nsubs < 8; k++) {
                    if ((uint64_t)at + 4 * (uint64_t)k + 4 > s->size) break;
                    subs[nsubs++] = pc_raw_get32(s->data + at + 4 * k, s->le);
                }
            }
        }
    }
    for (int k = 0; k < nsubs; k++) pc_raw_scan_ifd(s, subs[k], depth - 1, 0);
    if (first) {
        uint64_t next_at = (uint64_t)offset + 2 + (uint64_t)count * 12;
        if (next_at + 4 <= s->size) {
            uint32_t next = pc_raw_get32(s->data + next_at, s->le);
            if (next != 0 && next != offset) pc_raw_scan_ifd(s, next, depth, 0);
        }
    }
}

static int pc_raw_starts(const char *make, const char *prefix) {
    size_t n = strlen(prefix);
    for (size_t i = 0; i < n; i++) {
        char a = make[i], b = prefix[i];
        if (a >= 'a' && a <= 'z') a = (char)(a - 32);
        if (b >= 'a' && b <= 'z') b = (char)(b - 32);
        if (a != b) return 0;
    }
    return 1;
}

static void pc_raw_copy(char *out, size_t capacity, const char *text) {
    if (capacity == 0) return;
    snprintf(out, capacity, "%s", text);
}

int pc_raw_sniff(const uint8_t *data, size_t size, char *camera_format, size_t capacity) {
    if (camera_format != NULL && capacity > 0) camera_format[0] = '\0';
    if (data == NULL || size < 16) return 0;
    if (memcmp(data, "FUJIFILMCCD-RAW", 15) == 0) { pc_raw_copy(camera_format, capacity, "raf"); return 1; }
    if (memcmp(data, "FOVb", 4) == 0) { pc_raw_copy(camera_format, capacity, "x3f"); return 1; }
    if (memcmp(data, "\0MRM", 4) == 0) { pc_raw_copy(camera_format, capacity, "mrw"); return 1; }
    if (size >= 14 && memcmp(data, "II\x1a\0\0\0HEAPCCDR", 14) == 0) { pc_raw_copy(camera_format, capacity, "crw"); return 1; }
    if (memcmp(data, "IIRO", 4) == 0 || memcmp(data, "IIRS", 4) == 0 || memcmp(data, "MMOR", 4) == 0) {
        pc_raw_copy(camera_format, capacity, "orf");
        return 1;
    }
    if (memcmp(data, "IIU\0", 4) == 0) {
        /* Panasonic RW2, and Leica's RWL of the same cameras. */
        pc_raw_tiff_scan s = { data, size, 1, 0, 0, 0, "", 0 };
        pc_raw_scan_ifd(&s, pc_raw_get32(data + 4, 1), 0, 1);
        pc_raw_copy(camera_format, capacity, pc_raw_starts(s.make, "LEICA") ? "rwl" : "rw2");
        return 1;
    }
    if (memcmp(data + 4, "ftyp", 4) == 0 && memcmp(data + 8, "crx ", 4) == 0) {
        pc_raw_copy(camera_format, capacity, "cr3");
        return 1;
    }
    int le = memcmp(data, "II*\0", 4) == 0, be = memcmp(data, "MM\0*", 4) == 0;
    if (!le && !be) return 0;
    pc_raw_tiff_scan s = { data, size, le, 0, 0, 0, "", 0 };
    pc_raw_scan_ifd(&s, pc_raw_get32(data + 4, le), 2, 1);
    int cr2 = data[8] == 'C' && data[9] == 'R';
    if (!s.dng && !cr2 && !s.cfa && !s.maker_compression) return 0;
    const char *format = "raw";
    if (s.dng) format = "dng";
    else if (cr2 || pc_raw_starts(s.make, "CANON")) format = "cr2";
    else if (pc_raw_starts(s.make, "NIKON")) format = "nef";
    else if (pc_raw_starts(s.make, "SONY")) format = "arw";
    else if (pc_raw_starts(s.make, "PENTAX") || pc_raw_starts(s.make, "RICOH")) format = "pef";
    else if (pc_raw_starts(s.make, "SAMSUNG")) format = "srw";
    else if (pc_raw_starts(s.make, "HASSELBLAD")) format = "3fr";
    else if (pc_raw_starts(s.make, "EPSON")) format = "erf";
    else if (pc_raw_starts(s.make, "KODAK") || pc_raw_starts(s.make, "EASTMAN")) format = "dcr";
    else if (pc_raw_starts(s.make, "LEAF")) format = "mos";
    else if (pc_raw_starts(s.make, "PHASE ONE")) format = "iiq";
    else if (pc_raw_starts(s.make, "MAMIYA")) format = "mef";
    pc_raw_copy(camera_format, capacity, format);
    return 1;
}

/* ---------------------------------------------------------------- decoding (LibRaw) */

/* LibRaw's flip (dcraw: flip = "50132467"[Orientation & 7]) back to the EXIF Orientation 1...8. */
static int pc_raw_orientation(int flip) {
    static const int orientation[8] = { 1, 2, 4, 3, 5, 8, 6, 7 };
    return flip >= 0 && flip < 8 ? orientation[flip] : 1;
}

/* The SOF size of a JPEG (T.81 §B.2.2), 0 when none is found within its bytes. */
static void pc_raw_jpeg_size(const uint8_t *p, size_t n, int *w, int *h) {
    *w = *h = 0;
    size_t i = 2;
    while (n >= 4 && i + 4 <= n) {
        if (p[i] != 0xFF) { i++; continue; }
        uint8_t marker = p[i + 1];
        if (marker == 0xFF) { i++; continue; }
        if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { i += 2; continue; }
        size_t length = (size_t)p[i + 2] << 8 | p[i + 3];
        if ((marker >= 0xC0 && marker <= 0xCF) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            if (i + 9 <= n) { *h = p[i + 5] << 8 | p[i + 6]; *w = p[i + 7] << 8 | p[i + 8]; }
            return;
        }
        if (marker == 0xDA || length < 2) return;
        i += 2 + length;
    }
}

static pc_status pc_raw_fail(pc_messages *m, pc_status status, const char *what, int code) {
    char text[PC_MESSAGE_CAPACITY];
    if (code != 0) snprintf(text, sizeof text, "%s (LibRaw: %s)", what, libraw_strerror(code));
    else snprintf(text, sizeof text, "%s", what);
    pc_set_error(m, text);
    return status;
}

/* Box-reduces 8-bit RGB (or gray) pixels so the long edge stays >= target; a malloc'd RGB image. */
static uint8_t *pc_raw_reduce(const uint8_t *src, int width, int height, int colors, int target, int *out_w, int *out_h) {
    int long_edge = width > height ? width : height;
    int factor = target > 0 ? long_edge / target : 1;
    if (factor < 1) factor = 1;
    pc_box box;
    uint8_t *row = malloc((size_t)width * 3);
    if (row == NULL || !pc_box_init(&box, width, height, 3, factor)) { free(row); if (row != NULL) pc_box_free(&box); return NULL; }
    for (int y = 0; y < height; y++) {
        const uint8_t *s = src + (size_t)y * width * colors;
        for (int x = 0; x < width; x++)
            for (int c = 0; c < 3; c++) row[x * 3 + c] = s[x * colors + (colors >= 3 ? c : 0)];
        pc_box_add_row(&box, row);
    }
    free(row);
    *out_w = box.out_width;
    *out_h = box.out_height;
    uint8_t *result = box.out;
    box.out = NULL;
    pc_box_free(&box);
    return result;
}

/*
 * The uncompressed 8-bit RGB thumbnail of a TIFF-based RAW's IFD0 (DNG 1.6 §"IFD0": a reduced-resolution
 * image, NewSubfileType 1, is what DNG writers put there), which LibRaw 0.20 does not offer when another
 * preview is declared: Compression 1, PhotometricInterpretation 2, SamplesPerPixel 3, BitsPerSample 8,
 * PlanarConfiguration 1, its strips contiguous and inside the file. A malloc'd width × height × 3 image, or NULL.
 */
static uint8_t *pc_raw_ifd0_rgb(const uint8_t *data, size_t size, int *width, int *height) {
    if (size < 16) return NULL;
    int le = memcmp(data, "II*\0", 4) == 0;
    if (!le && memcmp(data, "MM\0*", 4) != 0) return NULL;
    uint32_t offset = pc_raw_get32(data + 4, le);
    if (offset < 8 || offset > size - 2) return NULL;
    uint32_t count = pc_raw_get16(data + offset, le);
    if (count > 1000 || (uint64_t)offset + 2 + (uint64_t)count * 12 > size) return NULL;
    uint32_t w = 0, h = 0, compression = 1, photometric = 0, spp = 1, bits = 8, planar = 1, subfile = 0, strip = 0, strips = 0;
    uint32_t strip_type = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = data + offset + 2 + i * 12;
        uint32_t tag = pc_raw_get16(e, le), type = pc_raw_get16(e + 2, le), n = pc_raw_get32(e + 4, le);
        uint32_t value = type == 3 ? pc_raw_get16(e + 8, le) : pc_raw_get32(e + 8, le);
        switch (tag) {
        case 254: subfile = value; break;
        case 256: w = value; break;
        case 257: h = value; break;
        case 258: /* one SHORT in the entry, or 3 at an offset: each must be 8 */
            bits = 0;
            if (n == 1) bits = value;
            else if (n == 3 && type == 3 && (uint64_t)pc_raw_get32(e + 8, le) + 6 <= size) {
                const uint8_t *b = data + pc_raw_get32(e + 8, le);
                if (pc_raw_get16(b, le) == 8 && pc_raw_get16(b + 2, le) == 8 && pc_raw_get16(b + 4, le) == 8) bits = 8;
            }
            break;
        case 259: compression = value; break;
        case 262: photometric = value; break;
        case 273: strip = value; strips = n; strip_type = type; break;
        case 277: spp = value; break;
        case 284: planar = value; break;
        default: break;
        }
    }
    if (!(subfile & 1) || compression != 1 || photometric != 2 || spp != 3 || bits != 8 || planar != 1) return NULL;
    if (w == 0 || h == 0 || w > 4096 || h > 4096 || strips == 0) return NULL;
    uint64_t bytes = (uint64_t)w * h * 3;
    /* Several strips: the first offset, read from its array, and the image must follow contiguously. */
    uint32_t first = strip;
    if (strips > 1) {
        size_t item = strip_type == 3 ? 2 : 4;
        if ((uint64_t)strip + item > size) return NULL;
        first = item == 2 ? pc_raw_get16(data + strip, le) : pc_raw_get32(data + strip, le);
    }
    if ((uint64_t)first + bytes > size) return NULL;
    uint8_t *rgb = malloc((size_t)bytes);
    if (rgb == NULL) return NULL;
    memcpy(rgb, data + first, (size_t)bytes);
    *width = (int)w;
    *height = (int)h;
    return rgb;
}

/* Everything LibRaw does for one file, in whichever process calls it. */
static pc_status pc_raw_decode_here(const uint8_t *data, size_t size, const pc_decode_options *options, pc_raw_info *info,
                                    pc_decoded *out, uint8_t **jpeg, size_t *jpeg_size, pc_messages *m) {
    memset(out, 0, sizeof *out);
    *jpeg = NULL;
    *jpeg_size = 0;
    libraw_data_t *raw = libraw_init(0);
    if (raw == NULL) return pc_raw_fail(m, PC_NO_MEMORY, "LibRaw could not be initialised", 0);
    pc_status status = PC_OK;
    int code = libraw_open_buffer(raw, (void *)data, size);
    if (code != LIBRAW_SUCCESS) {
        status = pc_raw_fail(m, code == LIBRAW_FILE_UNSUPPORTED ? PC_UNSUPPORTED : PC_CORRUPT,
                             "LibRaw cannot read this RAW file", code);
        goto done;
    }
    libraw_image_sizes_t *sz = &raw->sizes;
    info->width = sz->width;
    info->height = sz->height;
    info->orientation = pc_raw_orientation(sz->flip);
    info->timestamp = (int64_t)raw->other.timestamp;
    pc_raw_copy(info->make, sizeof info->make, raw->idata.make);
    pc_raw_copy(info->model, sizeof info->model, raw->idata.model);
    pc_raw_copy(info->lens, sizeof info->lens, raw->lens.Lens);
    out->stored_width = sz->width;
    out->stored_height = sz->height;
    if (sz->width == 0 || sz->height == 0) { status = pc_raw_fail(m, PC_CORRUPT, "RAW file declares no image size", 0); goto done; }
    if ((uint64_t)sz->width * sz->height > options->max_pixels) { status = PC_TOO_LARGE; goto done; }

    /* 1. The embedded preview LibRaw chose (the largest of those its parser met), when it is at least
     *    PC_RAW_PREVIEW_MIN_EDGE on its long edge and its bytes are in the file. */
    libraw_thumbnail_t *t = &raw->thumbnail;
    char preview_problem[160] = "none embedded";
    uint8_t *small_jpeg = NULL; size_t small_jpeg_size = 0;
    uint8_t *small_rgb = NULL; int small_w = 0, small_h = 0;
    /* (LibRaw 0.20 fills tformat and tlength only in unpack_thumb, which checks the thumbnail's
     * offset and length against the file's size before it allocates.) */
    if ((uint64_t)t->twidth * t->theight > (uint64_t)size * 64) {
        snprintf(preview_problem, sizeof preview_problem, "its %ux%u preview cannot be held in %zu bytes", t->twidth,
                 t->theight, size);
    } else {
        if ((code = libraw_unpack_thumb(raw)) != LIBRAW_SUCCESS) {
            if (code != LIBRAW_NO_THUMBNAIL)
                snprintf(preview_problem, sizeof preview_problem, "its preview cannot be read (LibRaw: %s)", libraw_strerror(code));
        } else {
            int errc = 0;
            libraw_processed_image_t *img = libraw_dcraw_make_mem_thumb(raw, &errc);
            if (img == NULL) {
                snprintf(preview_problem, sizeof preview_problem, "its preview cannot be read (LibRaw: %s)", libraw_strerror(errc));
            } else if (img->type == LIBRAW_IMAGE_JPEG && (uint64_t)img->data_size > (uint64_t)size + PC_RAW_PREVIEW_SLACK) {
                snprintf(preview_problem, sizeof preview_problem, "its JPEG preview is larger than the file");
            } else if (img->type == LIBRAW_IMAGE_JPEG) {
                int w, h;
                pc_raw_jpeg_size(img->data, img->data_size, &w, &h);
                uint8_t *copy = malloc(img->data_size);
                if (copy != NULL) memcpy(copy, img->data, img->data_size);
                info->preview_width = w;
                info->preview_height = h;
                if (copy != NULL && (w >= PC_RAW_PREVIEW_MIN_EDGE || h >= PC_RAW_PREVIEW_MIN_EDGE)) {
                    *jpeg = copy;
                    *jpeg_size = img->data_size;
                    info->source = PC_RAW_SOURCE_JPEG_PREVIEW;
                } else {
                    small_jpeg = copy;
                    small_jpeg_size = img->data_size;
                    snprintf(preview_problem, sizeof preview_problem, "its JPEG preview is only %dx%d", w, h);
                }
            } else if (img->type == LIBRAW_IMAGE_BITMAP && img->bits == 8 && (img->colors == 3 || img->colors == 1) &&
                       (uint64_t)img->width * img->height * img->colors <= img->data_size) {
                info->preview_width = img->width;
                info->preview_height = img->height;
                int w = 0, h = 0;
                uint8_t *rgb = pc_raw_reduce(img->data, img->width, img->height, img->colors, options->target_edge, &w, &h);
                if (rgb != NULL && (img->width >= PC_RAW_PREVIEW_MIN_EDGE || img->height >= PC_RAW_PREVIEW_MIN_EDGE)) {
                    out->pixels = rgb; out->width = w; out->height = h;
                    info->source = PC_RAW_SOURCE_BITMAP_PREVIEW;
                } else {
                    small_rgb = rgb; small_w = w; small_h = h;
                    snprintf(preview_problem, sizeof preview_problem, "its bitmap preview is only %dx%d", img->width, img->height);
                }
            } else {
                snprintf(preview_problem, sizeof preview_problem, "its preview is in a form not read here");
            }
            if (img != NULL) libraw_dcraw_clear_mem(img);
        }
    }
    if (info->source != 0) { free(small_jpeg); free(small_rgb); goto done; }

    /* 2. A half-size develop (LibRaw params: half_size, camera white balance, sRGB, 8 bits), when the
     *    file's bytes can hold its raw data and the develop fits the per-worker budget. */
    uint64_t raw_pixels = (uint64_t)sz->raw_width * sz->raw_height;
    uint64_t per_pixel = raw->idata.filters != 0 ? 2 : 8; /* LibRaw's raw_alloc: 16-bit CFA, or 4×16-bit */
    uint64_t need = raw_pixels * per_pixel + (raw_pixels / 4) * 8 + (raw_pixels / 4) * 3;
    char develop_problem[200];
    if (raw_pixels == 0) {
        snprintf(develop_problem, sizeof develop_problem, "it declares no raw image");
    } else if (raw_pixels > (uint64_t)size * PC_RAW_PIXELS_PER_BYTE) {
        snprintf(develop_problem, sizeof develop_problem, "its %ux%u raw image cannot be held in %zu bytes", sz->raw_width,
                 sz->raw_height, size);
    } else if (need > PC_DECODE_BUDGET_BYTES) {
        snprintf(develop_problem, sizeof develop_problem, "developing it needs %llu MB, over the per-worker decode budget of %d MB",
                 (unsigned long long)((need + (1u << 20) - 1) >> 20), PC_DECODE_BUDGET_MB);
    } else {
        raw->params.half_size = 1;
        raw->params.use_camera_wb = 1;
        raw->params.output_color = 1; /* sRGB */
        raw->params.output_bps = 8;
        raw->params.user_flip = 0;    /* orientation is applied by the caller */
        raw->params.gamm[0] = 1 / 2.4;
        raw->params.gamm[1] = 12.92;
        raw->params.no_auto_bright = 1;
        if ((code = libraw_unpack(raw)) != LIBRAW_SUCCESS || (code = libraw_dcraw_process(raw)) != LIBRAW_SUCCESS) {
            snprintf(develop_problem, sizeof develop_problem, "LibRaw: %s", libraw_strerror(code));
        } else {
            int errc = 0;
            libraw_processed_image_t *img = libraw_dcraw_make_mem_image(raw, &errc);
            if (img == NULL || img->bits != 8 || (img->colors != 3 && img->colors != 1) ||
                (uint64_t)img->width * img->height * img->colors > img->data_size) {
                snprintf(develop_problem, sizeof develop_problem, "LibRaw: %s",
                         img == NULL ? libraw_strerror(errc) : "unexpected developed image");
            } else {
                int w = 0, h = 0;
                uint8_t *rgb = pc_raw_reduce(img->data, img->width, img->height, img->colors, options->target_edge, &w, &h);
                if (rgb == NULL) {
                    snprintf(develop_problem, sizeof develop_problem, "out of memory");
                } else {
                    out->pixels = rgb; out->width = w; out->height = h;
                    info->source = PC_RAW_SOURCE_DEVELOPED;
                }
            }
            if (img != NULL) libraw_dcraw_clear_mem(img);
        }
    }
    if (info->source != 0) { free(small_jpeg); free(small_rgb); goto done; }

    /* 3. A preview under PC_RAW_PREVIEW_MIN_EDGE is still the camera's picture: better than none
     *    (LibRaw's, or the RGB thumbnail of a TIFF-based RAW's IFD0). */
    if (small_jpeg == NULL && small_rgb == NULL) {
        int w = 0, h = 0;
        uint8_t *ifd0 = pc_raw_ifd0_rgb(data, size, &w, &h);
        if (ifd0 != NULL) {
            small_rgb = pc_raw_reduce(ifd0, w, h, 3, options->target_edge, &small_w, &small_h);
            info->preview_width = w;
            info->preview_height = h;
            free(ifd0);
        }
    }
    if (small_jpeg != NULL) {
        *jpeg = small_jpeg; *jpeg_size = small_jpeg_size;
        info->source = PC_RAW_SOURCE_JPEG_PREVIEW;
        free(small_rgb);
        goto done;
    }
    if (small_rgb != NULL) {
        out->pixels = small_rgb; out->width = small_w; out->height = small_h;
        info->source = PC_RAW_SOURCE_BITMAP_PREVIEW;
        goto done;
    }
    {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "RAW file has no embedded preview and its image data cannot be decoded: preview: %.80s; develop: %.120s",
                 preview_problem, develop_problem);
        pc_set_error(m, text);
        status = PC_CORRUPT;
    }
done:
    libraw_close(raw);
    return status;
}

/* ---------------------------------------------------------------- the decoder process (decoder.h) */

typedef struct pc_raw_reply {
    int status, width, height, stored_width, stored_height, warning_count;
    uint64_t pixels_size, jpeg_size;
    pc_raw_info info;
    char error[PC_MESSAGE_CAPACITY];
    char warnings[PC_WARNINGS_CAPACITY];
} pc_raw_reply;

static int pc_raw_write_all(int fd, const void *p, size_t n) {
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

static int pc_raw_read_all(int fd, void *p, size_t n, double deadline) {
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

/* The decoder process's address-space cap: what is mapped now (/proc/self/statm, pages) plus the headroom. */
static void pc_raw_cap_memory(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    if (f == NULL) return;
    int ok = fscanf(f, "%llu", &pages) == 1;
    fclose(f);
    if (!ok) return;
    long page = sysconf(_SC_PAGESIZE);
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = (rlim_t)(pages * (unsigned long long)(page > 0 ? page : 4096) +
                                               ((unsigned long long)PC_RAW_CHILD_HEADROOM_MB << 20));
    setrlimit(RLIMIT_AS, &limit);
}

/* The decoder process's side (decoder.h): decodes here, in photos-decoder, and writes the reply. */
int pc_raw_serve(const uint8_t *data, size_t size, const pc_decode_options *options, int reply_fd) {
    pc_raw_cap_memory();
    pc_decoded result;
    pc_messages m;
    memset(&m, 0, sizeof m);
    pc_raw_reply reply;
    memset(&reply, 0, sizeof reply);
    uint8_t *j = NULL;
    size_t jn = 0;
    reply.status = pc_raw_decode_here(data, size, options, &reply.info, &result, &j, &jn, &m);
    reply.width = result.width; reply.height = result.height;
    reply.stored_width = result.stored_width; reply.stored_height = result.stored_height;
    reply.pixels_size = result.pixels != NULL ? (uint64_t)result.width * result.height * 3 : 0;
    reply.jpeg_size = j != NULL ? jn : 0;
    memcpy(reply.error, m.error, sizeof reply.error);
    memcpy(reply.warnings, m.warnings, sizeof reply.warnings);
    reply.warning_count = m.warning_count;
    return pc_raw_write_all(reply_fd, &reply, sizeof reply) &&
           (reply.pixels_size == 0 || pc_raw_write_all(reply_fd, result.pixels, (size_t)reply.pixels_size)) &&
           (reply.jpeg_size == 0 || pc_raw_write_all(reply_fd, j, (size_t)reply.jpeg_size));
}

static pc_status pc_raw_decode_isolated(const uint8_t *data, size_t size, const pc_decode_options *options, pc_raw_info *info,
                                        pc_decoded *out, uint8_t **jpeg, size_t *jpeg_size, pc_messages *messages) {
    memset(out, 0, sizeof *out);
    *jpeg = NULL;
    *jpeg_size = 0;
    pid_t pid = 0;
    int reply_fd = -1;
    if (!pc_decoder_start(PC_DECODER_RAW, data, size, options, -1, &pid, &reply_fd, messages)) return PC_UNSUPPORTED;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double deadline = start.tv_sec + start.tv_nsec / 1e9 + PC_RAW_CHILD_SECONDS;
    pc_raw_reply reply;
    pc_status status = PC_CORRUPT;
    int complete = pc_raw_read_all(reply_fd, &reply, sizeof reply, deadline);
    if (complete) {
        /* The helper handled hostile bytes: its sizes are checked before they size anything. */
        reply.error[sizeof reply.error - 1] = '\0';
        reply.warnings[sizeof reply.warnings - 1] = '\0';
        reply.info.make[sizeof reply.info.make - 1] = '\0';
        reply.info.model[sizeof reply.info.model - 1] = '\0';
        reply.info.lens[sizeof reply.info.lens - 1] = '\0';
        int sane = reply.width >= 0 && reply.height >= 0 && reply.width <= (1 << 16) && reply.height <= (1 << 16) &&
                   reply.pixels_size == (uint64_t)reply.width * reply.height * 3 && reply.pixels_size <= PC_DECODE_BUDGET_BYTES &&
                   reply.jpeg_size <= (uint64_t)size + PC_RAW_PREVIEW_SLACK && (reply.status != PC_OK || reply.pixels_size > 0 || reply.jpeg_size > 0);
        if (sane && (reply.pixels_size > 0 || reply.jpeg_size > 0)) {
            out->pixels = reply.pixels_size > 0 ? malloc((size_t)reply.pixels_size) : NULL;
            *jpeg = reply.jpeg_size > 0 ? malloc((size_t)reply.jpeg_size) : NULL;
            if ((reply.pixels_size > 0 && out->pixels == NULL) || (reply.jpeg_size > 0 && *jpeg == NULL)) {
                status = PC_NO_MEMORY;
                complete = 0;
                pc_set_error(messages, "out of memory");
            } else {
                complete = (reply.pixels_size == 0 || pc_raw_read_all(reply_fd, out->pixels, (size_t)reply.pixels_size, deadline)) &&
                           (reply.jpeg_size == 0 || pc_raw_read_all(reply_fd, *jpeg, (size_t)reply.jpeg_size, deadline));
            }
        } else if (!sane) {
            complete = 0;
        }
    }
    close(reply_fd);
    int wstatus = 0;
    if (!complete) kill(pid, SIGKILL);
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    if (complete) {
        status = (pc_status)reply.status;
        *info = reply.info;
        out->width = reply.width; out->height = reply.height;
        out->stored_width = reply.stored_width; out->stored_height = reply.stored_height;
        *jpeg_size = (size_t)reply.jpeg_size;
        if (reply.error[0] != '\0') pc_set_error(messages, reply.error);
        if (reply.warnings[0] != '\0') {
            strncpy(messages->warnings, reply.warnings, sizeof messages->warnings - 1);
            messages->warning_count = reply.warning_count;
        }
    } else if (status != PC_NO_MEMORY) {
        char text[PC_MESSAGE_CAPACITY];
        if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) != SIGKILL)
            snprintf(text, sizeof text, "LibRaw crashed on this file (signal %d, %s)", WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
        else if (WIFSIGNALED(wstatus))
            snprintf(text, sizeof text, "LibRaw did not finish this file in %d s", PC_RAW_CHILD_SECONDS);
        else
            snprintf(text, sizeof text, "LibRaw gave no usable result for this file (it ran out of memory or failed)");
        pc_set_error(messages, text);
        status = PC_CORRUPT;
    }
    if (status != PC_OK) {
        free(out->pixels); out->pixels = NULL;
        free(*jpeg); *jpeg = NULL; *jpeg_size = 0;
    }
    return status;
}

pc_status pc_raw_decode(const uint8_t *data, size_t size, const pc_decode_options *options, pc_raw_info *info,
                        pc_decoded *out, uint8_t **jpeg, size_t *jpeg_size, pc_messages *messages) {
    memset(info, 0, sizeof *info);
    if (data == NULL || size < 16) {
        memset(out, 0, sizeof *out);
        *jpeg = NULL;
        *jpeg_size = 0;
        return pc_raw_fail(messages, PC_CORRUPT, "RAW file is truncated (under 16 bytes)", 0);
    }
    const char *here = getenv("PHOTOS_RAW_IN_PROCESS");
    if (here != NULL && strcmp(here, "1") == 0) return pc_raw_decode_here(data, size, options, info, out, jpeg, jpeg_size, messages);
    return pc_raw_decode_isolated(data, size, options, info, out, jpeg, jpeg_size, messages);
}

void pc_raw_version(char *out, size_t capacity) {
    int v = libraw_versionNumber(); /* LIBRAW_MAKE_VERSION: major << 16 | minor << 8 | patch */
    snprintf(out, capacity, "%d.%d.%d", (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF);
}
