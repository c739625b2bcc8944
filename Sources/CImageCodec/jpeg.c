/* libjpeg-turbo decode/encode with longjmp error recovery (libjpeg.txt "Error handling"). */
#include <stdio.h> /* before jpeglib.h: it uses FILE and size_t (libjpeg.txt) */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include "CImageCodec.h"
#include "CImageCodecTesting.h"
#include "jpegclone.h"
#include "messages.h"
#include "color.h"

typedef struct pc_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    pc_messages *messages;
    pc_status status;
} pc_jpeg_error;

static pc_status pc_classify_jpeg_error(int code) {
    switch (code) {
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
        return PC_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
        return PC_NO_MEMORY;
    case JERR_NO_BACKING_STORE: /* max_memory_to_use reached (jmemnobs.c) */
        return PC_OVER_BUDGET;
    default:
        return PC_CORRUPT;
    }
}

static void pc_jpeg_error_exit(j_common_ptr cinfo) {
    pc_jpeg_error *err = (pc_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    err->status = pc_classify_jpeg_error(cinfo->err->msg_code);
    if (err->status == PC_OVER_BUDGET)
        snprintf(text, sizeof text, "decoding this JPEG needs more than the per-worker decode budget of %d MB",
                 PC_DECODE_BUDGET_MB);
    else
        (*cinfo->err->format_message)(cinfo, text);
    pc_set_error(err->messages, text);
    longjmp(err->jump, 1);
}

/*
 * Warnings that mean image data is missing or garbled reject the file, so a
 * truncated upload is never stored as a grey-filled photo. Warnings about
 * junk between segments (JWRN_EXTRANEOUS_DATA) and unknown metadata keep the
 * image and are reported.
 */
static int pc_jpeg_warning_rejects(int code) {
    switch (code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_NOT_SEQUENTIAL:
        return 1;
    default:
        return 0;
    }
}

static void pc_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; /* trace messages */
    pc_jpeg_error *err = (pc_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->num_warnings++;
    (*cinfo->err->format_message)(cinfo, text);
    if (pc_jpeg_warning_rejects(cinfo->err->msg_code)) {
        pc_set_error(err->messages, text);
        err->status = PC_CORRUPT;
        longjmp(err->jump, 1);
    }
    pc_add_warning(err->messages, text);
}

static void pc_jpeg_output_message(j_common_ptr cinfo) {
    pc_jpeg_error *err = (pc_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    pc_add_warning(err->messages, text);
}

/*
 * Progress monitor (libjpeg.txt "Progress monitoring") that refuses a file past PC_MAX_SCANS
 * scans, as djpeg -maxscans does; libjpeg calls it while it reads each scan.
 */
static void pc_jpeg_scan_limit(j_common_ptr common) {
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    if (cinfo->input_scan_number <= PC_MAX_SCANS) return;
    pc_jpeg_error *err = (pc_jpeg_error *)cinfo->err;
    pc_set_error(err->messages, PC_SCAN_LIMIT_TEXT);
    err->status = PC_CORRUPT;
    longjmp(err->jump, 1);
}

static void pc_jpeg_install_errors(pc_jpeg_error *err, pc_messages *messages) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = pc_jpeg_error_exit;
    err->pub.emit_message = pc_jpeg_emit_message;
    err->pub.output_message = pc_jpeg_output_message;
    err->messages = messages;
    err->status = PC_OK;
}

/*
 * A source manager over the file in memory that hands libjpeg at most
 * PC_JPEG_WINDOW bytes at a time. libjpeg-turbo 2.1.5 (jdhuff.c decode_mcu) takes
 * its fast Huffman path (decode_mcu_fast) only when bytes_in_buffer >= 512 ×
 * blocks_in_MCU; that path decodes a code longer than 16 bits as 0 without a
 * warning, so a damaged baseline file would pass with jpeg_mem_src. With windows
 * under 512 bytes every MCU goes through decode_mcu_slow / jpeg_huff_decode,
 * which warns JWRN_HUFF_BAD_CODE (rejected by pc_jpeg_warning_rejects), exactly
 * as for progressive files (jdphuff.c has no fast path). Measured on the 16
 * baseline bench files decoded at 1/8: 7% more CPU (clang -O2: 128 -> 138 ms).
 */
#define PC_JPEG_WINDOW 480

typedef struct pc_jpeg_window_src {
    struct jpeg_source_mgr pub;
    const JOCTET *data;
    size_t size;
    size_t handed;                 /* bytes of `data` handed out so far */
    size_t window;                 /* most bytes handed out at once */
} pc_jpeg_window_src;

static void pc_window_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean pc_window_fill(j_decompress_ptr cinfo) {
    static const JOCTET fake_eoi[2] = { 0xFF, JPEG_EOI };
    pc_jpeg_window_src *src = (pc_jpeg_window_src *)cinfo->src;
    if (src->handed >= src->size) {
        /* As jpeg_mem_src (jdatasrc.c fill_mem_input_buffer): warn and insert a fake EOI. */
        WARNMS(cinfo, JWRN_JPEG_EOF);
        src->pub.next_input_byte = fake_eoi;
        src->pub.bytes_in_buffer = 2;
        return TRUE;
    }
    size_t n = src->size - src->handed;
    if (n > src->window) n = src->window;
    src->pub.next_input_byte = src->data + src->handed;
    src->pub.bytes_in_buffer = n;
    src->handed += n;
    return TRUE;
}

static void pc_window_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(cinfo);
    }
    src->next_input_byte += (size_t)count;
    src->bytes_in_buffer -= (size_t)count;
}

static void pc_window_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void pc_jpeg_window_source(j_decompress_ptr cinfo, const uint8_t *data, size_t size, size_t window) {
    pc_jpeg_window_src *src = (pc_jpeg_window_src *)(*cinfo->mem->alloc_small)(
        (j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(pc_jpeg_window_src));
    src->pub.init_source = pc_window_init;
    src->pub.fill_input_buffer = pc_window_fill;
    src->pub.skip_input_data = pc_window_skip;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = pc_window_term;
    src->pub.next_input_byte = NULL;
    src->pub.bytes_in_buffer = 0;
    src->data = data;
    src->size = data == NULL ? 0 : size;
    src->handed = 0;
    src->window = window;
    cinfo->src = &src->pub;
}

/*
 * Bytes libjpeg's whole-image coefficient buffer takes (jdcoefct.c
 * jinit_d_coef_controller with need_full_buffer): a progressive or
 * multi-scan file keeps every block of every component, 64 JCOEFs (2 bytes)
 * each, padded to whole MCU rows (jdinput.c initial_setup, jdcoefct.c);
 * 0 for a single-scan file, which is decoded one MCU row at a time.
 */
static uint64_t pc_coefficient_bytes(const struct jpeg_decompress_struct *cinfo) {
    if (!cinfo->progressive_mode && cinfo->comps_in_scan >= cinfo->num_components) return 0;
    uint64_t total = 0;
    for (int c = 0; c < cinfo->num_components; c++) {
        const jpeg_component_info *k = &cinfo->comp_info[c];
        uint64_t h = (uint64_t)(k->h_samp_factor > 0 ? k->h_samp_factor : 1);
        uint64_t v = (uint64_t)(k->v_samp_factor > 0 ? k->v_samp_factor : 1);
        uint64_t cols = ((uint64_t)cinfo->image_width * h + 8 * (uint64_t)cinfo->max_h_samp_factor - 1) /
                        (8 * (uint64_t)cinfo->max_h_samp_factor);
        uint64_t rows = ((uint64_t)cinfo->image_height * v + 8 * (uint64_t)cinfo->max_v_samp_factor - 1) /
                        (8 * (uint64_t)cinfo->max_v_samp_factor);
        cols = (cols + h - 1) / h * h;
        rows = (rows + v - 1) / v * v;
        total += cols * rows * 64 * sizeof(JCOEF);
    }
    return total;
}

/* Sets the one-line refusal and returns 1 when `needed` bytes are over the per-worker budget. */
static int pc_jpeg_over_budget(const struct jpeg_decompress_struct *cinfo, uint64_t needed, pc_messages *messages) {
    if (needed <= PC_DECODE_BUDGET_BYTES) return 0;
    char text[PC_MESSAGE_CAPACITY];
    snprintf(text, sizeof text, "decoding this %ux%u %sJPEG needs %llu MB, over the per-worker decode budget of %d MB",
             (unsigned)cinfo->image_width, (unsigned)cinfo->image_height,
             cinfo->progressive_mode ? "progressive " : pc_coefficient_bytes(cinfo) ? "multi-scan " : "",
             (unsigned long long)((needed + (1u << 20) - 1) >> 20), PC_DECODE_BUDGET_MB);
    pc_set_error(messages, text);
    return 1;
}

/* State that must survive a longjmp lives behind a pointer, never in registers. */
typedef struct pc_jpeg_decode_state {
    struct jpeg_decompress_struct cinfo;
    pc_jpeg_error err;
    struct jpeg_progress_mgr progress;
    uint8_t *pixels;
    uint8_t *cmyk_row;
    JOCTET *icc;           /* the embedded ICC profile, reassembled (jpeg_read_icc_profile); free */
    unsigned int icc_size;
    int created;
} pc_jpeg_decode_state;

/*
 * The embedded ICC profile (ICC.1:2010 Annex B.4: APP2 "ICC_PROFILE\0", sequence number, count,
 * up to 65,519 bytes each), reassembled by libjpeg-turbo's jpeg_read_icc_profile from the APP2
 * markers saved during jpeg_read_header. The saved markers are bounded by the file's bytes; a
 * profile whose segments add up to more than PC_ICC_MAX_BYTES is not assembled (warning).
 */
static void pc_jpeg_take_icc(pc_jpeg_decode_state *s, pc_messages *messages) {
    size_t total = 0;
    for (jpeg_saved_marker_ptr m = s->cinfo.marker_list; m != NULL; m = m->next)
        if (m->marker == JPEG_APP0 + 2 && m->data_length >= 14 && memcmp(m->data, "ICC_PROFILE", 12) == 0)
            total += m->data_length - 14;
    if (total == 0) return;
    if (total > PC_ICC_MAX_BYTES) {
        char text[PC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "ICC profile of %zu bytes is over the %d MiB limit: ignored, colours not converted",
                 total, PC_ICC_MAX_BYTES >> 20);
        pc_add_warning(messages, text);
        return;
    }
    if (!jpeg_read_icc_profile(&s->cinfo, &s->icc, &s->icc_size)) {
        s->icc = NULL;
        s->icc_size = 0;
    }
}

static int pc_pick_scale(unsigned width, unsigned height, int target) {
    unsigned long_edge = width > height ? width : height;
    if (target <= 0 || long_edge <= (unsigned)target) return 8;
    for (int num = 1; num < 8; num++) {
        /* jdiv_round_up(long_edge * num, 8), as jpeg_calc_output_dimensions does */
        unsigned long scaled = ((unsigned long)long_edge * num + 7) / 8;
        if (scaled >= (unsigned long)target) return num;
    }
    return 8;
}

/*
 * CMYK as libjpeg returns it: Adobe files (APP14) store inverted ink values,
 * so 255 means no ink and R = C*K/255; otherwise R = (255-C)*(255-K)/255.
 */
static void pc_cmyk_row_to_rgb(const uint8_t *src, uint8_t *dst, int width, int inverted) {
    for (int x = 0; x < width; x++) {
        unsigned c = src[x * 4], m = src[x * 4 + 1], y = src[x * 4 + 2], k = src[x * 4 + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        dst[x * 3] = (uint8_t)((c * k + 127) / 255);
        dst[x * 3 + 1] = (uint8_t)((m * k + 127) / 255);
        dst[x * 3 + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

static void pc_read_rows(pc_jpeg_decode_state *s) {
    struct jpeg_decompress_struct *cinfo = &s->cinfo;
    size_t stride = (size_t)cinfo->output_width * (cinfo->out_color_space == JCS_CMYK && s->icc != NULL ? 4 : 3);
    /* CMYK with a profile is kept as CMYK (4 bytes) for Little CMS; without, converted row by row. */
    int cmyk = cinfo->out_color_space == JCS_CMYK && s->icc == NULL;
    while (cinfo->output_scanline < cinfo->output_height) {
        uint8_t *row = s->pixels + stride * cinfo->output_scanline;
        JSAMPROW target = cmyk ? s->cmyk_row : row;
        if (jpeg_read_scanlines(cinfo, &target, 1) != 1) break;
        if (cmyk) pc_cmyk_row_to_rgb(s->cmyk_row, row, (int)cinfo->output_width, cinfo->saw_Adobe_marker);
    }
}

pc_status pc_jpeg_decode(const uint8_t *data, size_t size, const pc_decode_options *options,
                         pc_decoded *out, pc_messages *messages) {
    return pc_jpeg_decode_with(data, size, options, pc_jpeg_clone_active(), out, messages);
}

pc_status pc_jpeg_decode_with(const uint8_t *data, size_t size, const pc_decode_options *options, int clone,
                              pc_decoded *out, pc_messages *messages) {
    memset(out, 0, sizeof *out);
    pc_jpeg_decode_state *s = calloc(1, sizeof *s);
    if (s == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    struct jpeg_decompress_struct *cinfo = &s->cinfo;
    pc_status status = PC_OK;

    cinfo->err = NULL;
    pc_jpeg_install_errors(&s->err, messages);
    cinfo->err = &s->err.pub;
    if (setjmp(s->err.jump)) {
        status = s->err.status == PC_OK ? PC_CORRUPT : s->err.status;
        goto done;
    }
    jpeg_create_decompress(cinfo);
    s->created = 1;
    s->progress.progress_monitor = pc_jpeg_scan_limit;
    cinfo->progress = &s->progress;
    pc_jpeg_window_source(cinfo, data, size, PC_JPEG_WINDOW);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF); /* ICC_PROFILE segments */
    /* Backstop for the budget checks below (which count the coefficient buffer and the output
     * image): libjpeg refuses (JERR_NO_BACKING_STORE, jmemnobs.c) rather than realize virtual
     * arrays past it. */
    cinfo->mem->max_memory_to_use = (long)(PC_DECODE_BUDGET_BYTES + PC_DECODE_BUDGET_BYTES / 4);
    jpeg_read_header(cinfo, TRUE);

    out->stored_width = (int)cinfo->image_width;
    out->stored_height = (int)cinfo->image_height;
    out->progressive = cinfo->progressive_mode ? 1 : 0;
    if ((uint64_t)cinfo->image_width * cinfo->image_height > options->max_pixels) {
        status = PC_TOO_LARGE;
        goto done;
    }
    if (!options->ignore_icc) pc_jpeg_take_icc(s, messages);

    switch (cinfo->jpeg_color_space) {
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        break;
    default:
        /* libjpeg-turbo expands grayscale to RGB itself (jdcolor.c gray_rgb_convert). */
        cinfo->out_color_space = JCS_RGB;
        break;
    }
    cinfo->scale_num = (unsigned)pc_pick_scale(cinfo->image_width, cinfo->image_height, options->target_edge);
    cinfo->scale_denom = 8;
    /* Measured (DecoderTuning.default in PhotosImaging): at 1/8 the IDCT is 1x1 and dct_method and
     * fancy upsampling change nothing; at larger scales ISLOW+fancy is as fast within noise. */
    cinfo->dct_method = options->dct_method == 1 ? JDCT_IFAST : options->dct_method == 2 ? JDCT_FLOAT : JDCT_ISLOW;
    cinfo->do_fancy_upsampling = options->fancy_upsampling ? TRUE : FALSE;
    out->scale = (int)cinfo->scale_num;
    /* The decoded image itself (SPEC §8: jobs × the image at its DCT scale); within the budget
     * at the default --max-pixels, checked for larger limits. */
    jpeg_calc_output_dimensions(cinfo);
    uint64_t image_bytes = (uint64_t)cinfo->output_width * cinfo->output_height * 3;
    if (pc_jpeg_over_budget(cinfo, image_bytes, messages)) {
        status = PC_OVER_BUDGET;
        goto done;
    }

    int dc_only = clone && options->progressive_dc_only && cinfo->progressive_mode && cinfo->scale_num == 1;
    if (dc_only && !cinfo->arith_code && cinfo->data_precision == 8 &&
        (cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_GRAYSCALE ||
         cinfo->jpeg_color_space == JCS_RGB)) {
        /* DC scans decoded, AC scans validated, without libjpeg's whole-image coefficient buffer (dconly.c). */
        pc_status dc_status = pc_jpeg_decode_dc_only(data, size, options, out, messages);
        if (dc_status != PC_NOT_HANDLED) {
            status = dc_status;
            if (status == PC_OK && s->icc != NULL) {
                int layout = cinfo->jpeg_color_space == JCS_GRAYSCALE ? PC_LAYOUT_GRAY_IN_RGB : PC_LAYOUT_RGB;
                (void)pc_color_apply_icc(s->icc, s->icc_size, layout, out->pixels, out->pixels,
                                         (size_t)out->width * (size_t)out->height, messages);
            }
            goto done;
        }
    }
    int reduced = clone && options->sequential_reduced && !cinfo->progressive_mode && !cinfo->arith_code &&
                  (cinfo->scale_num == 1 || cinfo->scale_num == 2) && cinfo->data_precision == 8 &&
                  (cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_GRAYSCALE ||
                   cinfo->jpeg_color_space == JCS_RGB);
    if (reduced) {
        /* Sequential file at 1/8 or 2/8: every block entropy-decoded, only the coefficients the
         * reduced IDCT uses kept, no per-block IDCT calls (dconly.c pc_jpeg_decode_reduced). */
        pc_status r_status = pc_jpeg_decode_reduced(data, size, options, (int)cinfo->scale_num, out, messages);
        if (r_status != PC_NOT_HANDLED) {
            status = r_status;
            if (status == PC_OK && s->icc != NULL) {
                int layout = cinfo->jpeg_color_space == JCS_GRAYSCALE ? PC_LAYOUT_GRAY_IN_RGB : PC_LAYOUT_RGB;
                (void)pc_color_apply_icc(s->icc, s->icc_size, layout, out->pixels, out->pixels,
                                         (size_t)out->width * (size_t)out->height, messages);
            }
            goto done;
        }
    }
    /*
     * Everything else is libjpeg's own decode at the chosen scale: every scan is read
     * (DC refinement scans included, T.81 G.1.2.1) and every corrupt-data warning seen.
     * A progressive or multi-scan file needs the whole-image coefficient buffer first:
     * refused when that is over the per-worker budget, before anything is allocated.
     */
    if (pc_jpeg_over_budget(cinfo, pc_coefficient_bytes(cinfo) + image_bytes, messages)) {
        status = PC_OVER_BUDGET;
        goto done;
    }
    jpeg_start_decompress(cinfo);

    int cmyk = cinfo->out_color_space == JCS_CMYK;
    size_t stride = (size_t)cinfo->output_width * (cmyk && s->icc != NULL ? 4 : 3);
    s->pixels = malloc(stride * cinfo->output_height);
    if (cmyk) s->cmyk_row = malloc((size_t)cinfo->output_width * 4);
    if (s->pixels == NULL || (cmyk && s->cmyk_row == NULL)) {
        pc_set_error(messages, "out of memory");
        status = PC_NO_MEMORY;
        goto done;
    }
    pc_read_rows(s);
    jpeg_finish_decompress(cinfo);
    size_t count = (size_t)cinfo->output_width * cinfo->output_height;
    if (cmyk && s->icc != NULL) {
        /* CMYK through its profile; an unusable profile falls back to the naive conversion. */
        uint8_t *rgb = malloc(count * 3);
        if (rgb == NULL) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
        int layout = cinfo->saw_Adobe_marker ? PC_LAYOUT_CMYK_INVERTED : PC_LAYOUT_CMYK;
        if (pc_color_apply_icc(s->icc, s->icc_size, layout, s->pixels, rgb, count, messages) != PC_COLOR_CONVERTED)
            for (JDIMENSION y = 0; y < cinfo->output_height; y++)
                pc_cmyk_row_to_rgb(s->pixels + stride * y, rgb + (size_t)cinfo->output_width * 3 * y,
                                   (int)cinfo->output_width, cinfo->saw_Adobe_marker);
        free(s->pixels);
        s->pixels = rgb;
    } else if (s->icc != NULL) {
        int layout = cinfo->jpeg_color_space == JCS_GRAYSCALE ? PC_LAYOUT_GRAY_IN_RGB : PC_LAYOUT_RGB;
        (void)pc_color_apply_icc(s->icc, s->icc_size, layout, s->pixels, s->pixels, count, messages);
    }

    out->pixels = s->pixels;
    s->pixels = NULL;
    out->width = (int)cinfo->output_width;
    out->height = (int)cinfo->output_height;

done:
    if (s->created) jpeg_destroy_decompress(cinfo);
    free(s->pixels);
    free(s->cmyk_row);
    free(s->icc);
    free(s);
    return status;
}

typedef struct pc_jpeg_encode_state {
    struct jpeg_compress_struct cinfo;
    pc_jpeg_error err;
    jpeg_scan_info scans[10]; /* PC_PROGRESSIVE_NON_INTERLEAVED: 2 + 2 x 2 + 3 at most */
    unsigned char *buffer;
    unsigned long buffer_size;
    int created;
} pc_jpeg_encode_state;

/* One scan of one component (libjpeg.txt "Multi-scan / progression control"). */
static jpeg_scan_info pc_scan(int component, int ss, int se, int ah, int al) {
    jpeg_scan_info scan;
    memset(&scan, 0, sizeof scan);
    scan.comps_in_scan = 1;
    scan.component_index[0] = component;
    scan.Ss = ss;
    scan.Se = se;
    scan.Ah = ah;
    scan.Al = al;
    return scan;
}

/*
 * A progression with one DC scan per component (non-interleaved), AC scans in between, and
 * the DC refinement scans last (ITU-T T.81 G.1.1): the order dconly.c must also handle.
 */
static int pc_non_interleaved_script(jpeg_scan_info *scans, int components) {
    int n = 0;
    scans[n++] = pc_scan(0, 0, 0, 0, 1);
    scans[n++] = pc_scan(0, 1, 63, 0, 0);
    for (int c = 1; c < components; c++) scans[n++] = pc_scan(c, 0, 0, 0, 1);
    for (int c = 1; c < components; c++) scans[n++] = pc_scan(c, 1, 63, 0, 0);
    for (int c = 0; c < components; c++) scans[n++] = pc_scan(c, 0, 0, 1, 0);
    return n;
}

/* DC first scan at Al = 4, full AC scans, then four DC refinement scans (T.81 G.1.1.1.1). */
static int pc_dc_refined_script(jpeg_scan_info *scans, int components) {
    int n = 0;
    jpeg_scan_info dc = pc_scan(0, 0, 0, 0, 4);
    dc.comps_in_scan = components;
    for (int c = 0; c < components; c++) dc.component_index[c] = c;
    scans[n++] = dc;
    for (int c = 0; c < components; c++) scans[n++] = pc_scan(c, 1, 63, 0, 0);
    for (int al = 3; al >= 0; al--) {
        dc.Ah = al + 1;
        dc.Al = al;
        scans[n++] = dc;
    }
    return n;
}

/* "Exif\0\0", TIFF II header, IFD0 { ExifIFD -> 26 }, Exif IFD { ColorSpace = 1 }: 50 bytes of payload. */
const uint8_t pc_srgb_exif_app1[] = {
    'E', 'x', 'i', 'f', 0, 0,
    'I', 'I', 42, 0, 8, 0, 0, 0,
    1, 0, 0x69, 0x87, 4, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0, 0, 0, 0,
    1, 0, 0x01, 0xA0, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
};
const size_t pc_srgb_exif_app1_size = sizeof pc_srgb_exif_app1;

static pc_status pc_jpeg_encode_impl(const uint8_t *pixels, int width, int height, const pc_jpeg_encode_options *o,
                                     const uint8_t *icc, size_t icc_size, int srgb_tag,
                                     uint8_t **out, size_t *out_size, pc_messages *messages);

pc_status pc_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                         uint8_t **out, size_t *out_size, pc_messages *messages) {
    /* thumbjpeg.c writes libjpeg-turbo's file for these settings only where its version was checked. */
    if (pc_jpeg_clone_active()) return pc_thumbnail_jpeg_encode(rgb, width, height, quality, out, out_size, messages);
    return pc_jpeg_encode_libjpeg(rgb, width, height, quality, out, out_size, messages);
}

pc_status pc_jpeg_encode_libjpeg(const uint8_t *rgb, int width, int height, int quality,
                                 uint8_t **out, size_t *out_size, pc_messages *messages) {
    pc_jpeg_encode_options options = { 3, quality, PC_BASELINE, 0, 0, 0, 0 };
    return pc_jpeg_encode_impl(rgb, width, height, &options, NULL, 0, 1, out, out_size, messages);
}

pc_status pc_jpeg_encode_ex(const uint8_t *pixels, int width, int height, const pc_jpeg_encode_options *o,
                            uint8_t **out, size_t *out_size, pc_messages *messages) {
    return pc_jpeg_encode_impl(pixels, width, height, o, NULL, 0, 0, out, out_size, messages);
}

pc_status pc_jpeg_encode_icc(const uint8_t *pixels, int width, int height, const pc_jpeg_encode_options *o,
                             const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size, pc_messages *messages) {
    return pc_jpeg_encode_impl(pixels, width, height, o, icc, icc_size, 0, out, out_size, messages);
}

static pc_status pc_jpeg_encode_impl(const uint8_t *pixels, int width, int height, const pc_jpeg_encode_options *o,
                                     const uint8_t *icc, size_t icc_size, int srgb_tag,
                                     uint8_t **out, size_t *out_size, pc_messages *messages) {
    *out = NULL;
    *out_size = 0;
    if ((o->components != 1 && o->components != 3 && o->components != 4) || width < 1 || height < 1 || o->h_samp < 0 || o->h_samp > 4 ||
        o->v_samp < 0 || o->v_samp > 4 || o->restart_interval < 0 || o->restart_interval > 65535) {
        pc_set_error(messages, "bad JPEG encode parameters");
        return PC_UNSUPPORTED;
    }
    pc_jpeg_encode_state *s = calloc(1, sizeof *s);
    if (s == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    struct jpeg_compress_struct *cinfo = &s->cinfo;
    pc_status status = PC_OK;

    pc_jpeg_install_errors(&s->err, messages);
    cinfo->err = &s->err.pub;
    if (setjmp(s->err.jump)) {
        status = s->err.status == PC_OK ? PC_CORRUPT : s->err.status;
        goto done;
    }
    jpeg_create_compress(cinfo);
    s->created = 1;
    jpeg_mem_dest(cinfo, &s->buffer, &s->buffer_size);
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = o->components;
    cinfo->in_color_space = o->components == 1 ? JCS_GRAYSCALE : o->components == 4 ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(cinfo); /* YCbCr 4:2:0, JFIF APP0 */
    jpeg_set_quality(cinfo, o->quality < 1 ? 1 : o->quality > 100 ? 100 : o->quality, TRUE);
    if (o->h_samp > 0 && o->v_samp > 0) {
        cinfo->comp_info[0].h_samp_factor = o->h_samp;
        cinfo->comp_info[0].v_samp_factor = o->v_samp;
        for (int c = 1; c < o->components; c++) {
            cinfo->comp_info[c].h_samp_factor = 1;
            cinfo->comp_info[c].v_samp_factor = 1;
        }
    }
    cinfo->restart_interval = (unsigned)o->restart_interval;
    cinfo->arith_code = (o->mode & PC_ARITHMETIC) ? TRUE : FALSE;
    switch (o->mode & ~PC_ARITHMETIC) {
    case PC_PROGRESSIVE_DC_REFINED:
        cinfo->scan_info = s->scans;
        cinfo->num_scans = pc_dc_refined_script(s->scans, o->components);
        break;
    case PC_PROGRESSIVE_SIMPLE:
        jpeg_simple_progression(cinfo);
        break;
    case PC_PROGRESSIVE_NON_INTERLEAVED:
        cinfo->scan_info = s->scans;
        cinfo->num_scans = pc_non_interleaved_script(s->scans, o->components);
        break;
    default:
        cinfo->optimize_coding = cinfo->arith_code ? FALSE : TRUE;
        /* A small image (a thumbnail) codes its chroma with the luma's optimized Huffman tables
         * (T.81 B.2.3: each component names its tables): two tables to build instead of four
         * (jpeg_gen_optimal_table costs the same for any image size) and two fewer in the DHT
         * segment, which outweighs chroma's slightly worse code. Measured on the bench corpus at
         * quality 85: 120 px 1.4 % smaller and 17 % less encoding time, 240 px even, 480 px
         * 0.7 % larger (Benchmarks/README.md): so up to 240 x 240 pixels. */
        if (cinfo->optimize_coding && !o->chroma_tables && (uint64_t)width * (uint64_t)height <= 240u * 240u) {
            for (int c = 0; c < cinfo->num_components; c++) {
                cinfo->comp_info[c].dc_tbl_no = 0;
                cinfo->comp_info[c].ac_tbl_no = 0;
            }
        }
        break;
    }
    jpeg_start_compress(cinfo, TRUE);
    if (srgb_tag) jpeg_write_marker(cinfo, JPEG_APP0 + 1, pc_srgb_exif_app1, (unsigned)pc_srgb_exif_app1_size);
    if (icc != NULL && icc_size > 0) jpeg_write_icc_profile(cinfo, icc, (unsigned)icc_size);
    size_t stride = (size_t)width * (size_t)o->components;
    while (cinfo->next_scanline < cinfo->image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo->next_scanline);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
    *out = s->buffer;
    *out_size = s->buffer_size;
    s->buffer = NULL;

done:
    if (s->created) jpeg_destroy_compress(cinfo);
    free(s->buffer); /* jpeg_mem_dest keeps it pointed at the current buffer */
    free(s);
    return status;
}

/* State of pc_jpeg_libjpeg_verdict that must survive a longjmp. */
typedef struct pc_jpeg_verdict_state {
    struct jpeg_decompress_struct cinfo;
    pc_jpeg_error err;
    struct jpeg_progress_mgr progress;
    JSAMPLE *row;
    int created;
} pc_jpeg_verdict_state;

pc_status pc_jpeg_libjpeg_verdict(const uint8_t *data, size_t size, pc_messages *messages) {
    pc_jpeg_verdict_state *s = calloc(1, sizeof *s);
    if (s == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    struct jpeg_decompress_struct *cinfo = &s->cinfo;
    pc_status status = PC_OK;
    pc_jpeg_install_errors(&s->err, messages);
    cinfo->err = &s->err.pub;
    if (setjmp(s->err.jump)) {
        status = s->err.status == PC_OK ? PC_CORRUPT : s->err.status;
        goto done;
    }
    jpeg_create_decompress(cinfo);
    s->created = 1;
    s->progress.progress_monitor = pc_jpeg_scan_limit;
    cinfo->progress = &s->progress;
    /* Its own window size, so the reference does not share the decoder's setting. */
    pc_jpeg_window_source(cinfo, data, size, 64);
    jpeg_read_header(cinfo, TRUE);
    jpeg_start_decompress(cinfo);
    s->row = malloc((size_t)cinfo->output_width * (size_t)cinfo->output_components);
    if (s->row == NULL) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW target = s->row;
        if (jpeg_read_scanlines(cinfo, &target, 1) != 1) break;
    }
    jpeg_finish_decompress(cinfo);
done:
    if (s->created) jpeg_destroy_decompress(cinfo);
    free(s->row);
    free(s);
    return status;
}

/* State of pc_jpeg_read_coefficients_test that must survive a longjmp. */
typedef struct pc_jpeg_coefficients_state {
    struct jpeg_decompress_struct cinfo;
    pc_jpeg_error err;
    int16_t *values;
    int created;
} pc_jpeg_coefficients_state;

pc_status pc_jpeg_read_coefficients_test(const uint8_t *data, size_t size, int16_t **out, size_t *count,
                                         int *dims, int max_components, pc_messages *messages) {
    *out = NULL;
    *count = 0;
    pc_jpeg_coefficients_state *s = calloc(1, sizeof *s);
    if (s == NULL) { pc_set_error(messages, "out of memory"); return PC_NO_MEMORY; }
    struct jpeg_decompress_struct *cinfo = &s->cinfo;
    pc_status status = PC_OK;
    pc_jpeg_install_errors(&s->err, messages);
    cinfo->err = &s->err.pub;
    if (setjmp(s->err.jump)) {
        status = s->err.status == PC_OK ? PC_CORRUPT : s->err.status;
        goto done;
    }
    jpeg_create_decompress(cinfo);
    s->created = 1;
    pc_jpeg_window_source(cinfo, data, size, 64);
    jpeg_read_header(cinfo, TRUE);
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(cinfo);
    if (cinfo->num_components > max_components) {
        pc_set_error(messages, "more components than the caller has room for");
        status = PC_UNSUPPORTED;
        goto done;
    }
    size_t total = 0;
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *k = &cinfo->comp_info[c];
        size_t across = (k->width_in_blocks + k->h_samp_factor - 1) / k->h_samp_factor * k->h_samp_factor;
        size_t down = (k->height_in_blocks + k->v_samp_factor - 1) / k->v_samp_factor * k->v_samp_factor;
        dims[2 * c] = (int)across;
        dims[2 * c + 1] = (int)down;
        total += across * down * 64;
    }
    s->values = malloc(total * sizeof(int16_t));
    if (s->values == NULL) { pc_set_error(messages, "out of memory"); status = PC_NO_MEMORY; goto done; }
    size_t n = 0;
    for (int c = 0; c < cinfo->num_components; c++) {
        size_t across = (size_t)dims[2 * c], down = (size_t)dims[2 * c + 1];
        for (size_t row = 0; row < down; row++) {
            JBLOCKARRAY rows = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, arrays[c], (JDIMENSION)row, 1, FALSE);
            for (size_t b = 0; b < across; b++)
                for (int i = 0; i < 64; i++) s->values[n++] = (int16_t)rows[0][b][i];
        }
    }
    jpeg_finish_decompress(cinfo);
    *out = s->values;
    *count = n;
    s->values = NULL;
done:
    if (s->created) jpeg_destroy_decompress(cinfo);
    free(s->values);
    free(s);
    return status;
}

/* jchuff.c's T.81 K.2 procedure: exported by libjpeg, declared only in its private jchuff.h. */
EXTERN(void) jpeg_gen_optimal_table(j_compress_ptr cinfo, JHUFF_TBL *htbl, long freq[]);

/* State of pc_jpeg_optimal_table_libjpeg that must survive a longjmp. */
typedef struct pc_jpeg_table_state {
    struct jpeg_compress_struct cinfo;
    pc_jpeg_error err;
    pc_messages messages;
    long freq[257];
    int created;
} pc_jpeg_table_state;

int pc_jpeg_optimal_table_libjpeg(const uint32_t *counts, uint8_t *bits, uint8_t *values) {
    pc_jpeg_table_state *s = calloc(1, sizeof *s);
    if (s == NULL) return -1;
    int count = -1;
    pc_jpeg_install_errors(&s->err, &s->messages);
    s->cinfo.err = &s->err.pub;
    if (setjmp(s->err.jump)) goto done;
    jpeg_create_compress(&s->cinfo);
    s->created = 1;
    JHUFF_TBL *table = jpeg_alloc_huff_table((j_common_ptr)&s->cinfo);
    for (int i = 0; i < 256; i++) s->freq[i] = (long)counts[i];
    jpeg_gen_optimal_table(&s->cinfo, table, s->freq);
    count = 0;
    for (int l = 0; l <= 16; l++) {
        bits[l] = table->bits[l];
        if (l > 0) count += table->bits[l];
    }
    memcpy(values, table->huffval, (size_t)count);
done:
    if (s->created) jpeg_destroy_compress(&s->cinfo);
    free(s);
    return count;
}
